/**
 * One webhook POST to the merchant's endpoint, exactly these bytes and headers, with a hard
 * deadline: a receiver that hangs, resets or dribbles never holds the run longer than that.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Reply {
  /** The body received, when a whole reply arrived in time. */
  body?: Buffer;
  status?: number;
  /** From sending to the last byte of the reply (or to the failure). */
  ms: number;
  /** Why no reply: `timeout`, `reset`, a connection error text. */
  error?: string;
}

const MAX_REPLY = 64 * 1024;

export function deliver(url: string, raw: Buffer, headers: Record<string, string>, deadlineMs: number): Promise<Reply> {
  const started = performance.now();
  const u = new URL(url);
  const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, {
    method: 'POST',
    headers: { ...headers, 'Content-Length': String(raw.length), Connection: 'close' },
    agent: false,
  });
  return new Promise<Reply>((resolve) => {
    let settled = false;
    const done = (r: Omit<Reply, 'ms'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...r, ms: performance.now() - started });
    };
    const timer = setTimeout(() => done({ error: `timeout: no complete reply within ${deadlineMs} ms` }), deadlineMs);
    req.on('error', (e: NodeJS.ErrnoException) => done({ error: e.code === 'ECONNRESET' || e.message === 'socket hang up' ? 'reset: the connection was closed without a complete reply' : `${e.code ?? 'error'}: ${e.message}` }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size <= MAX_REPLY) chunks.push(c);
      });
      res.on('end', () => done({ status: res.statusCode, body: Buffer.concat(chunks) }));
      res.on('error', () => done({ error: 'reset: the reply was cut off' }));
      res.on('aborted', () => done({ error: 'reset: the reply was cut off' }));
    });
    req.end(raw);
  });
}

/** A reply as one evidence line: status, the first bytes of the body (escaped), time. */
export function describeReply(r: Reply): string {
  if (r.error) return `no reply (${r.error}) after ${Math.round(r.ms)} ms`;
  const text = JSON.stringify(r.body!.subarray(0, 80).toString('latin1'));
  return `HTTP ${r.status}, body ${text}${r.body!.length > 80 ? '…' : ''} (${r.body!.length} bytes), ${Math.round(r.ms)} ms`;
}

export function isSuccess(r: Reply): boolean {
  return r.body?.equals(SUCCESS) === true;
}
export const SUCCESS = Buffer.from('success');
