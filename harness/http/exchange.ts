import type { NetworkProblem } from './network.js';
import type { VerifyResult } from './signing.js';

/** One request sent to a target and what came back; the unit every check and report works on. */
export interface Exchange {
  /** Sequential within a run, e.g. "x-000042". */
  id: string;
  /** What the check meant to do, e.g. "checkout with a three-decimal amount". */
  label: string;
  request: {
    method: string;
    url: string;
    headers: Record<string, string>;
    /** Exactly the bytes sent on the wire. */
    body: Buffer;
  };
  response?: {
    status: number;
    headers: Record<string, string | string[]>;
    /** Raw bytes as received, cut at the size cap. */
    body: Buffer;
    /** True when the body was longer than the cap and reading stopped there. */
    truncated: boolean;
    /** Parsed JSON when the body parses; otherwise `jsonError` says why. */
    json?: unknown;
    jsonError?: string;
  };
  /** Set when no complete response was obtained. */
  error?: ExchangeError;
  /**
   * `totalMs`: the round trip of the recorded (last) send. `queuedMs`: how long the request waited for its slot and rate
   * token before its sends (our scheduling and the declared rate, never the target's time); absent when it did not wait.
   */
  timings: { startedAt: string; headersMs?: number; totalMs: number; queuedMs?: number };
  /** Verdict on the response signature; absent when there was no response or no credentials to check with. */
  signature?: VerifyResult;
  /** Throttled answers (HTTP 429, or 503 with Retry-After) before this one, and the time waited after them; absent when none. */
  throttled?: { answers: number; waitMs: number };
  /**
   * The strings the request carried whose longest accepted length the profile leaves unsaid (harness/profile/lengths.ts),
   * with the names a message may call them by; absent when there are none. A refusal naming one of them is no verdict.
   */
  unsaidLengths?: readonly { readonly field: string; readonly names: readonly string[] }[];
}

/**
 * `unreachable`: no connection to the target could be made (refused, no such host, no route, connect timeout), so
 * the exchange says nothing about the target's behaviour; `connection`: a connection was made and then lost.
 * `throttled`: every answer until the deadline was a gateway's throttling answer (HTTP 429, or 503 with Retry-After).
 */
export type ExchangeErrorKind = 'deadline' | 'unreachable' | 'connection' | 'too-large' | 'protocol' | 'redirect' | 'throttled';
export interface ExchangeError {
  kind: ExchangeErrorKind;
  message: string;
  /** A connection this network refused (TLS, proxy: harness/http/network.ts), named with the field to fix; kind `unreachable`. */
  network?: NetworkProblem;
}

/** Webhook deliveries are recorded as exchanges too (harness/webhooks/expect.ts, ids `wh-…`): the target sent them. */
export function isOurRequest(ex: Pick<Exchange, 'id'>): boolean {
  return !ex.id.startsWith('wh-');
}

function headerBytes(headers: Record<string, string | string[]>): number {
  let n = 0;
  for (const [k, v] of Object.entries(headers)) for (const one of Array.isArray(v) ? v : [v]) n += Buffer.byteLength(`${k}: ${one}\r\n`);
  return n + 2;
}

/** HTTP/1.1 bytes of an exchange as it went on the wire: request line, headers and body each way (the answer as read). */
export function wireBytes(ex: Exchange): { sent: number; received: number } {
  let path = ex.request.url;
  try {
    const u = new URL(ex.request.url);
    path = u.pathname + u.search;
  } catch {
    // Not a URL we can split: counted whole.
  }
  const sent = Buffer.byteLength(`${ex.request.method} ${path} HTTP/1.1\r\n`) + headerBytes(ex.request.headers) + ex.request.body.length;
  const received = ex.response
    ? Buffer.byteLength(`HTTP/1.1 ${ex.response.status}\r\n`) + headerBytes(ex.response.headers) + ex.response.body.length
    : 0;
  return { sent, received };
}
