/**
 * One webhook POST to the merchant's endpoint, exactly these bytes and headers, with a hard
 * deadline: a receiver that hangs, resets or dribbles never holds the run longer than that.
 * A reply is read to its end (or the deadline): the first bytes are kept, the rest only counted,
 * so a huge reply costs no memory and its true length is still known.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';

/**
 * Why no whole reply, as data (the text is made by `failureText`): the deadline passed with no reply
 * or with one still being sent; the receiver reset the connection (TCP RST) or closed it without a
 * complete reply; it answered bytes that are not HTTP; or the connection could not be made.
 */
export type ReplyFailure =
  | { kind: 'deadline'; deadline: string; bytes?: number }
  | { kind: 'reset'; bytes?: number }
  | { kind: 'closed'; bytes?: number }
  | { kind: 'not-http'; code: string }
  | { kind: 'connect'; code: string; message: string };

export interface Reply {
  /** The first bytes of the body (at most MAX_KEPT), when any reply arrived. */
  body?: Buffer;
  /** The body's true length in bytes: all of it for a whole reply, what came before the deadline otherwise. */
  size?: number;
  status?: number;
  /** From sending to the last byte of the reply (or to the failure). */
  ms: number;
  /** Why no whole reply, as data. */
  failure?: ReplyFailure;
  /** The same, as one line of text (`failureText`); absent when a whole reply came. */
  error?: string;
  /** The endpoint answers a TLS handshake: the reset or close was a TLS server reading plain HTTP. */
  speaksTls?: boolean;
}

/** The failure as the evidence says it: what the receiver did, in its own words for each kind. */
export function failureText(f: ReplyFailure, speaksTls = false): string {
  const tls = speaksTls ? '; the endpoint answers a TLS handshake, so it looks like an HTTPS server: use an https:// URL' : '';
  switch (f.kind) {
    case 'deadline':
      return f.bytes === undefined
        ? `timeout: no reply within ${f.deadline}`
        : `timeout: still sending after ${f.bytes} bytes at the deadline, ${f.deadline}`;
    case 'reset':
      return (
        `reset: the receiver reset the connection (ECONNRESET)` +
        `${f.bytes === undefined ? ' before any reply' : ` after ${f.bytes} bytes of the reply`}${tls}`
      );
    case 'closed':
      return (
        `closed: the receiver closed the connection without a reply` +
        `${f.bytes === undefined ? '' : ` (after ${f.bytes} bytes of the body)`}${tls}`
      );
    case 'not-http':
      return `not HTTP: the reply could not be parsed (${f.code})`;
    case 'connect':
      return `${f.code}: ${f.message}`;
  }
}

/** A body longer than this is neither an acknowledgement nor a refusal anyone needs: a check that meets one sends nothing more. */
export function oversized(r: Reply): boolean {
  return (r.size ?? 0) > MAX_KEPT;
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
    const done = (r: Omit<Reply, 'ms' | 'error'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...r, ...(r.failure ? { error: failureText(r.failure, r.speaksTls) } : {}), ms: performance.now() - started });
    };
    const deadline = (): void =>
      done({ ...partial(), failure: { kind: 'deadline', deadline: deadlineText, ...(status !== undefined ? { bytes: size } : {}) } });
    const cut = (failure: ReplyFailure): void => {
      if (settled) return;
      const left = deadlineMs - (performance.now() - started);
      if (u.protocol !== 'http:' || left < 50) {
        done({ ...partial(), failure });
        return;
      }
      // A TLS server reading plain HTTP just closes: say so when that is what it is.
      void speaksTls(u, Math.min(1000, left)).then((tls) => done({ ...partial(), failure, ...(tls ? { speaksTls: true } : {}) }));
    };
    const timer = setTimeout(deadline, deadlineMs);
    const bytesSoFar = () => (status === undefined ? {} : { bytes: size });
    req.on('error', (e: NodeJS.ErrnoException) => {
      // Node says "socket hang up" (code ECONNRESET) for a connection closed before a reply; a real RST is "read ECONNRESET".
      if (e.message === 'socket hang up') cut({ kind: 'closed', ...bytesSoFar() });
      else if (e.code === 'ECONNRESET' || e.code === 'EPIPE') cut({ kind: 'reset', ...bytesSoFar() });
      else if (e.code?.startsWith('HPE_')) cut({ kind: 'not-http', code: e.code });
      else done({ ...partial(), failure: { kind: 'connect', code: e.code ?? 'error', message: e.message } });
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
        // A reply streamed fast enough keeps the event loop busy and the timer late: past what any reply needs, the clock is
        // read here too. A short reply noticed late is left to the timer and its end, as any other.
        if (size > MAX_KEPT && performance.now() - started >= deadlineMs) deadline();
      });
      res.on('end', () => done({ status: res.statusCode, body: Buffer.concat(chunks), size }));
      res.on('error', (e: NodeJS.ErrnoException) =>
        cut(e.message === 'aborted' ? { kind: 'closed', bytes: size } : { kind: 'reset', bytes: size }),
      );
      res.on('aborted', () => cut({ kind: 'closed', bytes: size }));
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
  if (!r.failure) return `${r.size ?? 0} bytes`;
  return r.failure.kind === 'deadline'
    ? `still sending after ${r.size ?? 0} bytes at the deadline`
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
