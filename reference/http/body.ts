/**
 * Reads a request body under a size cap and a deadline. A body that is too large, stops arriving
 * (shorter than its Content-Length) or is cut off counts as unreadable: the server answers HTTP
 * 500 internalServerError rather than waiting forever or buffering without bound.
 */
import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'stalled' | 'aborted' };

export interface ReadLimits {
  maxBytes: number;
  /** Longest pause between two chunks. */
  idleMs: number;
  /** Longest time for the whole body, so a byte-per-second trickle cannot hold a request open. */
  totalMs: number;
}

export function readBody(req: IncomingMessage, limits: ReadLimits): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      resolve({ ok: false, reason: 'too-large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyResult): void => {
      if (done) return;
      done = true;
      clearTimeout(idle);
      clearTimeout(total);
      req.off('data', onData);
      resolve(r);
    };
    const idle = setTimeout(() => finish({ ok: false, reason: 'stalled' }), limits.idleMs);
    const total = setTimeout(() => finish({ ok: false, reason: 'stalled' }), limits.totalMs);
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limits.maxBytes) {
        finish({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
      idle.refresh();
    };
    req.on('data', onData);
    req.on('end', () => finish({ ok: true, body: Buffer.concat(chunks, size) }));
    req.on('error', () => finish({ ok: false, reason: 'aborted' }));
    req.on('close', () => finish({ ok: false, reason: 'aborted' }));
  });
}
