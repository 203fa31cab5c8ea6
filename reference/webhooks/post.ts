/**
 * One webhook attempt: a POST that must be answered within the ack limit. Never throws; every
 * way a receiver can misbehave (down, slow, garbage, huge reply) becomes an unacknowledged result.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lostDuring } from '../lag.js';

export interface AttemptResult {
  acked: boolean;
  /** Whether a complete reply came back at all (whatever it said). */
  replied: boolean;
  /** For the log: HTTP status or what went wrong; never the body or the headers. */
  summary: string;
}

/** Smaller lost time is not worth a timer. */
const MIN_GRANT_MS = 20;

/** Enough to tell "success" apart from anything longer; reading stops past this. */
const REPLY_CAP = 1024;

export function postOnce(
  target: string,
  headers: Record<string, string>,
  body: Buffer,
  limitMs: number,
  isAck: (reply: Buffer, status: number) => boolean,
  signal: AbortSignal,
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let req: ReturnType<typeof httpRequest> | undefined;
    let settled = false;
    const settle = (r: AttemptResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      req?.destroy();
      resolve(r);
    };
    const onAbort = (): void => settle({ acked: false, replied: false, summary: 'sender closed' });
    // The limit covers the whole exchange: connect, headers and the complete reply body.
    const startedAt = Date.now();
    let granted = 0;
    const onLimit = (): void => {
      // Time our own process lost meanwhile was not the receiver's: it gets it back, at most the limit again.
      const more = Math.min(lostDuring(startedAt, Date.now()) - granted, limitMs - granted);
      if (more >= MIN_GRANT_MS) {
        granted += more;
        timer = setTimeout(onLimit, more);
        return;
      }
      // A late timer runs before the I/O that came meanwhile: a reply already here is read first.
      setImmediate(() => settle({ acked: false, replied: false, summary: `no complete reply within ${limitMs} ms${widened()}` }));
    };
    const widened = (): string => (granted > 0 ? ` (+${Math.round(granted)} ms the sandbox lost)` : '');
    let timer = setTimeout(onLimit, limitMs);
    signal.addEventListener('abort', onAbort);
    if (signal.aborted) {
      onAbort();
      return;
    }
    try {
      const url = new URL(target);
      // RFC 6761: .invalid never resolves; skipping the lookup keeps placeholder notify URLs free.
      if (/\.invalid\.?$/i.test(url.hostname)) {
        settle({ acked: false, replied: false, summary: 'connection failed (ENOTFOUND: .invalid host)' });
        return;
      }
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      // agent:false: a fresh connection per attempt, so a receiver restarted between attempts is reached.
      req = send(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) }, agent: false });
    } catch {
      settle({ acked: false, replied: false, summary: 'request could not be created' });
      return;
    }
    req.on('error', (err: NodeJS.ErrnoException) => settle({ acked: false, replied: false, summary: `connection failed (${err.code ?? 'error'})` }));
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size > REPLY_CAP) return;
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('error', () => settle({ acked: false, replied: false, summary: `HTTP ${res.statusCode ?? 0}, reply interrupted` }));
      res.on('end', () => {
        const reply = Buffer.concat(chunks).subarray(0, REPLY_CAP + 1);
        const status = res.statusCode ?? 0;
        const acked = isAck(reply, status);
        settle({ acked, replied: true, summary: `HTTP ${status}, ${acked ? 'acknowledged' : 'not acknowledged'}${widened()}` });
      });
    });
    req.end(body);
  });
}
