/**
 * Field conditions on demand: the gateway a vendor's sandbox sits behind, in front of the reference's own
 * pipeline. Beyond `rateLimit` requests per second it answers HTTP 429 with an HTML body and `Retry-After: 1`,
 * unsigned: the request never reaches the service. `latencyMs` is a one-way network delay: a request reaches the
 * service that late, and every answer (the 429s too) leaves that much later (the round trip grows by 2 × latencyMs).
 * It stands inside the reference's server rather than as a proxy so that every framing case (an unreadable body, a
 * half-closed request) reaches the service exactly as the client sent it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface GatewayOptions {
  /** Requests per second let through; beyond, HTTP 429. Absent: no limit. */
  rateLimit?: number;
  /** One-way delay, ms. */
  latencyMs?: number;
}

export interface Gateway {
  /** Resolves true when the gateway answered the request itself (throttled); false when the service should. */
  front(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Requests answered 429 so far. */
  throttled(): number;
}

const THROTTLED_PAGE =
  '<!DOCTYPE html>\n<html><head><title>429 Too Many Requests</title></head><body><h1>429 ' +
  'Too Many Requests</h1><p>Rate limit exceeded. Try again later.</p></body></html>\n';

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

export function createGateway(opts: GatewayOptions): Gateway {
  const rate = opts.rateLimit;
  if (rate !== undefined && (!Number.isFinite(rate) || rate <= 0))
    throw new Error(`rateLimit must be a positive number, got ${String(rate)}`);
  const latency = Math.max(0, opts.latencyMs ?? 0);
  if (!Number.isFinite(latency)) throw new Error(`latencyMs must be a number, got ${String(opts.latencyMs)}`);
  // What a gateway counts: the requests it let through in the last second.
  const admitted: number[] = [];
  let throttled = 0;
  const admit = (): boolean => {
    if (rate === undefined) return true;
    const now = Date.now();
    while (admitted.length > 0 && admitted[0]! <= now - 1000) admitted.shift();
    if (admitted.length >= rate) return false;
    admitted.push(now);
    return true;
  };
  return {
    throttled: () => throttled,
    async front(req, res) {
      if (latency > 0) {
        await sleep(latency);
        // The answer's way back: what the service writes (head, then body) leaves `latency` after it starts answering.
        const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
        const writeHead = res.writeHead.bind(res) as (...a: unknown[]) => ServerResponse;
        const queued: (() => void)[] = [];
        let open = false;
        let armed = false;
        const later = (f: () => void): void => {
          if (open) {
            f();
            return;
          }
          queued.push(f);
          if (armed) return;
          armed = true;
          void sleep(latency).then(() => {
            open = true;
            for (const g of queued.splice(0)) g();
          });
        };
        res.writeHead = ((...a: unknown[]) => {
          later(() => writeHead(...a));
          return res;
        }) as typeof res.writeHead;
        res.end = ((...a: unknown[]) => {
          later(() => end(...a));
          return res;
        }) as typeof res.end;
      }
      if (admit()) return false;
      throttled += 1;
      req.resume(); // the gateway reads and drops what it refused
      res.writeHead(429, {
        'Content-Type': 'text/html; charset=utf-8',
        'Retry-After': '1',
        'Content-Length': Buffer.byteLength(THROTTLED_PAGE),
      });
      res.end(THROTTLED_PAGE);
      return true;
    },
  };
}
