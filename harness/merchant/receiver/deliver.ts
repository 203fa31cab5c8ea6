/**
 * One webhook POST to the merchant's endpoint, exactly these bytes and headers, with a hard
 * deadline: a receiver that hangs, resets or dribbles never holds the run longer than that.
 * A reply is read to its end (or the deadline): the first bytes are kept, the rest only counted,
 * so a huge reply costs no memory and its true length is still known.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';

export interface Reply {
  /** The first bytes of the body (at most MAX_KEPT), when any reply arrived. */
  body?: Buffer;
  /** The body's true length in bytes: all of it for a whole reply, what came before the deadline otherwise. */
  size?: number;
  status?: number;
  /** From sending to the last byte of the reply (or to the failure). */
  ms: number;
  /** Why no whole reply: `timeout`, `reset`, a connection error text. */
  error?: string;
}

/** Enough to show and compare; bytes past it are counted, not stored. */
export const MAX_KEPT = 64 * 1024;

/** `deadlineText` says what the deadline stands for in the evidence (default: its milliseconds). */
export function deliver(
  url: string,
  raw: Buffer,
  headers: Record<string, string>,
  deadlineMs: number,
  deadlineText = `${deadlineMs} ms`,
): Promise<Reply> {
  const started = performance.now();
  const u = new URL(url);
  const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, {
    method: 'POST',
    headers: { ...headers, 'Content-Length': String(raw.length), Connection: 'close' },
    agent: false,
  });
  return new Promise<Reply>((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let kept = 0;
    let size = 0;
    let status: number | undefined;
    const partial = (): Pick<Reply, 'body' | 'size' | 'status'> =>
      status === undefined ? {} : { status, body: Buffer.concat(chunks), size };
    const done = (r: Omit<Reply, 'ms'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...r, ms: performance.now() - started });
    };
    const cut = (why: string): void => {
      if (settled) return;
      const left = deadlineMs - (performance.now() - started);
      if (u.protocol !== 'http:' || left < 50) {
        done({ ...partial(), error: why });
        return;
      }
      // A TLS server reading plain HTTP just closes: say so when that is what it is.
      void speaksTls(u, Math.min(1000, left)).then((tls) =>
        done({
          ...partial(),
          error: tls ? `${why}; the endpoint answers a TLS handshake, so it looks like an HTTPS server: use an https:// URL` : why,
        }),
      );
    };
    const timer = setTimeout(() => {
      const streaming = status !== undefined ? `; at least ${size} bytes, still streaming at the deadline` : '';
      done({ ...partial(), error: `timeout: no complete reply within ${deadlineText}${streaming}` });
    }, deadlineMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNRESET' || e.code === 'EPIPE' || e.message === 'socket hang up')
        cut('reset: the connection was closed without a complete reply');
      else if (e.code?.startsWith('HPE_')) cut(`not HTTP: the reply could not be parsed (${e.code})`);
      else done({ ...partial(), error: `${e.code ?? 'error'}: ${e.message}` });
    });
    req.on('response', (res) => {
      status = res.statusCode;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (kept < MAX_KEPT) {
          const take = c.subarray(0, MAX_KEPT - kept);
          chunks.push(take);
          kept += take.length;
        }
      });
      res.on('end', () => done({ status: res.statusCode, body: Buffer.concat(chunks), size }));
      res.on('error', () => cut('reset: the reply was cut off'));
      res.on('aborted', () => cut('reset: the reply was cut off'));
    });
    req.end(raw);
  });
}

function speaksTls(u: URL, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tlsConnect({
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: Number(u.port || 80),
      rejectUnauthorized: false,
      servername: undefined,
    });
    const end = (v: boolean): void => {
      clearTimeout(t);
      s.destroy();
      resolve(v);
    };
    const t = setTimeout(() => end(false), ms);
    s.once('secureConnect', () => end(true));
    s.once('error', () => end(false));
  });
}

/** The body's length as evidence: the true length, and whether the reply was still coming. */
export function replyLength(r: Reply): string {
  if (!r.error) return `${r.size ?? 0} bytes`;
  return r.error.startsWith('timeout')
    ? `at least ${r.size ?? 0} bytes, still streaming at the deadline`
    : `${r.size ?? 0} bytes before it was cut off`;
}

/** A reply as one evidence line: status, the first bytes of the body (escaped), its true length, time. */
export function describeReply(r: Reply): string {
  const head = r.body ? JSON.stringify(r.body.subarray(0, 80).toString('latin1')) + ((r.size ?? 0) > 80 ? '…' : '') : '';
  if (r.error)
    return (
      `no complete reply (${r.error})` +
      `${r.status !== undefined ? `, HTTP ${r.status}, body starting ${head}` : ''} after ${Math.round(r.ms)} ms`
    );
  return `HTTP ${r.status}, body ${head} (${replyLength(r)}), ${Math.round(r.ms)} ms`;
}

/** Exactly `success`, whole: a longer body, or one not finished by the deadline, is not an acknowledgement. */
export function isSuccess(r: Reply): boolean {
  return !r.error && r.size === SUCCESS.length && r.body?.equals(SUCCESS) === true;
}
export const SUCCESS = Buffer.from('success');
