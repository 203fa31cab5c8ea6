/**
 * Production-safe mode and the request log, both at the request layer: a wrapper around the one
 * client a session has, so no check can reach the target around it. The guard judges the bytes
 * about to go on the wire, not what a check says it is doing.
 *
 * What may pass:
 * (a) a correctly signed request to a read-only endpoint (payment, refund and payout queries, at
 *     the paths the profile declares);
 * (b) a request to any endpoint that fails authentication by construction: a signing header
 *     missing or empty, a merchant id the profile does not hold a key for, or an X-Sign that does
 *     not verify over the exact bytes sent with the merchant's own key.
 * Everything else is not sent; the check that wanted it is skipped (precondition).
 *
 * Validation refusals are therefore exercised on query endpoints only. A correctly signed create
 * request "with a defect" is not safe: a non-conformant production target may well accept the
 * defect and create a record that moves money. The remaining risk is a target that ignores
 * signatures altogether; it would act on (b) — which no conformant target does, and which the
 * auth checks of the same run then report.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac } from 'node:crypto';
import type { Client, RawRequest, SendOptions } from '../http/client.js';
import type { Exchange } from '../http/exchange.js';
import { PreconditionSkip } from '../check/failure.js';
import type { LoadedProfile } from '../profile/load.js';
import { endpointPaths } from '../target.js';
import { describeVerifyFailure, headerValue, headerValues, SIGNING_HEADERS, verify } from '../http/signing.js';

/** How a request was authenticated, as judged from its bytes. */
export type AuthKind = 'signed' | 'missing-header' | 'empty-header' | 'unknown-merchant' | 'bad-signature' | 'ambiguous';

export interface LoggedRequest {
  side: 'a' | 'b';
  checkId: string;
  method: string;
  /** Path after the base URL. */
  path: string;
  /** Endpoint name from the profile, when the path is one. */
  endpoint?: string;
  auth: AuthKind;
  /** e.g. "X-Sign does not match …" for a deliberately bad request. */
  authDetail?: string;
  /** false: refused by the safe-mode guard, never sent. */
  sent: boolean;
}

/** The check a request belongs to, and every exchange it got (a check's own record keeps only the last ones). */
export interface CheckScope {
  checkId: string;
  exchanges: Exchange[];
}

const scopes = new AsyncLocalStorage<CheckScope>();

/** Runs fn so that every request it sends is logged under the check, and every exchange kept. */
export function withCheckScope<T>(scope: CheckScope, fn: () => Promise<T>): Promise<T> {
  return scopes.run(scope, fn);
}

export const READ_ONLY_ENDPOINTS = ['paymentQuery', 'refundQuery', 'payoutQuery'] as const;

export function classifyAuth(req: RawRequest, loaded: LoadedProfile): { auth: AuthKind; detail?: string } {
  // Two values for one header: a lenient target could take the valid one, so this is not a sure refusal.
  const dup = SIGNING_HEADERS.find((h) => headerValues(req.headers, h).length > 1);
  if (dup) return { auth: 'ambiguous', detail: `header ${dup} appears more than once` };
  const absent = SIGNING_HEADERS.find((h) => (headerValue(req.headers, h) ?? '').trim() === '');
  const id = headerValue(req.headers, 'X-MerchantID') ?? '';
  const merchants = Object.values(loaded.merchants).flatMap((m) => (typeof m === 'object' ? [m] : []));
  const own = merchants.find((m) => m.id === id);
  if (!absent && own) {
    const v = verify(req.headers, req.body, { merchantId: own.id, secret: own.secret });
    if (v.ok) return { auth: 'signed' };
    const lenient = lenientMatch(req, merchants);
    if (lenient) return { auth: 'ambiguous', detail: lenient };
    return { auth: 'bad-signature', detail: describeVerifyFailure(v) };
  }
  const lenient = lenientMatch(req, merchants);
  if (lenient) return { auth: 'ambiguous', detail: lenient };
  if (absent)
    return {
      auth: headerValue(req.headers, absent) === undefined ? 'missing-header' : 'empty-header',
      detail: `header ${absent} is ${headerValue(req.headers, absent) === undefined ? 'missing' : 'empty'}`,
    };
  return { auth: 'unknown-merchant', detail: `merchant id ${JSON.stringify(id)} is none of the profile's merchants` };
}

/**
 * A refusal is "by construction" only if no key we hold makes X-Sign valid under the readings a
 * lenient target is known to take (any of our merchants' keys, upper-case hex or Base64, CR LF
 * joins, a missing header taken as empty, the body re-serialised): otherwise a non-conformant
 * target could act on the request.
 */
function lenientMatch(req: RawRequest, merchants: { id: string; secret: string }[]): string | undefined {
  const sent = headerValue(req.headers, 'X-Sign');
  if (!sent) return undefined;
  const ids = new Set([headerValue(req.headers, 'X-MerchantID') ?? '', ...merchants.map((m) => m.id)]);
  const ts = headerValue(req.headers, 'X-Timestamp') ?? '';
  const nonce = headerValue(req.headers, 'X-Nonce') ?? '';
  const bodies = [req.body];
  try {
    bodies.push(Buffer.from(JSON.stringify(JSON.parse(req.body.toString('utf8'))), 'utf8'));
  } catch {
    // not JSON: the raw bytes are the only reading
  }
  for (const m of merchants)
    for (const mid of ids)
      for (const sep of ['\n', '\r\n'])
        for (const body of bodies) {
          const mac = createHmac('sha256', m.secret)
            .update(Buffer.concat([Buffer.from([mid, ts, nonce].join(sep) + sep, 'utf8'), body]))
            .digest();
          if (sent.toLowerCase() === mac.toString('hex') || sent === mac.toString('base64'))
            return 'X-Sign is valid under a lenient reading (key, hex case, Base64, CR LF or re-serialised body): not a sure refusal';
        }
  return undefined;
}

function pathOf(url: string, baseUrl: string): string {
  return url.startsWith(baseUrl) ? url.slice(baseUrl.length) || '/' : url;
}

function endpointOf(path: string, loaded: LoadedProfile): string | undefined {
  return Object.entries(endpointPaths(loaded.profile)).find(([, p]) => p === path)?.[0];
}

/** Why a request may not be sent in safe mode, or undefined when it may. */
export function safeRefusal(req: RawRequest, path: string, auth: AuthKind, loaded: LoadedProfile): string | undefined {
  const method = req.method ?? 'POST';
  if (auth === 'missing-header' || auth === 'empty-header' || auth === 'unknown-merchant' || auth === 'bad-signature') return undefined;
  // 'ambiguous' (near-miss signatures, doubled headers) falls through: allowed only where a signed request is.
  const paths = endpointPaths(loaded.profile);
  const readOnly = READ_ONLY_ENDPOINTS.flatMap((e) => paths[e] ?? []);
  // The path is compared as sent: no dot segments, query or fragment may turn a query path into another.
  if ((auth === 'signed' || auth === 'ambiguous') && method === 'POST' && readOnly.includes(path) && !/[?#]|\/\.\.?(\/|$)/.test(path))
    return undefined;
  return `safe mode: would send ${method} ${path}`;
}

export interface LogOptions {
  side: 'a' | 'b';
  loaded: LoadedProfile;
  baseUrl: string;
  safe: boolean;
  log: LoggedRequest[];
}

/** The session's client, wrapped: every request logged; in safe mode, anything that could move money refused. */
export function loggingClient(inner: Client, o: LogOptions): Client {
  const baseUrl = o.baseUrl.replace(/\/+$/, '');
  return {
    async send(req: RawRequest, opts?: SendOptions): Promise<Exchange> {
      const path = pathOf(req.url, baseUrl);
      const { auth, detail } = classifyAuth(req, o.loaded);
      const refusal = o.safe ? safeRefusal(req, path, auth, o.loaded) : undefined;
      o.log.push({
        side: o.side,
        checkId: scopes.getStore()?.checkId ?? '(outside a check)',
        method: req.method ?? 'POST',
        path,
        endpoint: endpointOf(path, o.loaded),
        auth,
        ...(detail ? { authDetail: detail } : {}),
        sent: refusal === undefined,
      });
      if (refusal) throw new PreconditionSkip(refusal);
      const ex = await inner.send(req, opts);
      scopes.getStore()?.exchanges.push(ex);
      return ex;
    },
    close: () => inner.close(),
    openSection: (spec, holds) => inner.openSection(spec, holds),
  };
}
