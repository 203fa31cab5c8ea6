/**
 * One webhook attempt: a POST that must be answered within the ack limit. Never throws; every
 * way a receiver can misbehave (down, slow, garbage, huge reply) becomes an unacknowledged result.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface AttemptResult {
  acked: boolean;
  /** Whether a complete reply came back at all (whatever it said). */
  replied: boolean;
  /** For the log: HTTP status or what went wrong; never the body or the headers. */
  summary: string;
}

/** A limit timer later than this means the sandbox's own process stalled. */
const MIN_LATE_MS = 20;

/** Enough to tell "success" apart from anything longer; reading stops past this. */
const REPLY_CAP = 1024;

export function postOnce(
  target: string,
  headers: Record<string, string>,
  body: Buffer,
  limitMs: number,
  isAck: (reply: Buffer, status: number) => boolean,
  signal: AbortSignal,
  onWritten?: (at: number) => void,
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
    // The limit covers the whole exchange: connect, headers and the complete reply body. Until the request is
    // written it guards the connection; once it is (`finish`), it starts again: the receiver's time begins when the
    // request reaches it, and a sandbox whose process stalled before writing must not charge the receiver for that.
    let scheduledAt = Date.now() + limitMs;
    let lateMs = 0;
    let limitReached = false;
    // A limit timer that fires late (the sandbox's own process stalled) runs before the I/O that came
    // meanwhile: the receiver gets that lateness again (at most the limit once more), so a reply already
    // received is read. The sandbox widens its limit by no more than its own lateness, and says so in the log.
    const onLimit = (): void => {
      limitReached = true;
      lateMs = Date.now() - scheduledAt;
      if (lateMs < MIN_LATE_MS) {
        settle({ acked: false, replied: false, summary: `no complete reply within ${limitMs} ms` });
        return;
      }
      lateMs = Math.min(lateMs, limitMs);
      timer = setTimeout(
        () => settle({ acked: false, replied: false, summary: `no complete reply within ${limitMs} ms${widened()}` }),
        lateMs,
      );
    };
    const widened = (): string =>
      lateMs >= MIN_LATE_MS ? ` (limit widened by ${Math.round(lateMs)} ms: the sandbox's timer was that late)` : '';
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
    req.on('error', (err: NodeJS.ErrnoException) =>
      settle({ acked: false, replied: false, summary: `connection failed (${err.code ?? 'error'})` }),
    );
    req.on('finish', () => {
      if (limitReached || settled) return;
      try {
        onWritten?.(Date.now());
      } catch {
        // A failing observer must never reach a delivery.
      }
      clearTimeout(timer);
      scheduledAt = Date.now() + limitMs;
      timer = setTimeout(onLimit, limitMs);
    });
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
