/**
 * Request authentication, in the documented order: headers present and non-empty, merchant
 * known, signature, timestamp, nonce. Each step's result passes through the behaviour hook, so
 * a mutant can wave one step through while the others still apply.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthOutcome, Behaviour } from '../behaviour.js';
import type { MerchantFixture } from '../fixtures.js';
import type { NonceCache } from '../nonce-cache.js';
import type { Target } from '../sandbox-data.js';

/** Allowed difference between X-Timestamp and the server clock (real seconds, never time-scaled). */
export const TIMESTAMP_TOLERANCE_S = 300;
/** Nonces are remembered for twice the tolerance: any older request fails the timestamp check anyway. */
export const NONCE_WINDOW_MS = 2 * TIMESTAMP_TOLERANCE_S * 1000;

export interface AuthResult {
  outcome: AuthOutcome;
  /** Present once the merchant id was recognised, whatever happens after. */
  merchant?: MerchantFixture;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

export function authenticate(
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  nonces: NonceCache,
  b: Behaviour,
  now: number,
  target: Target,
): AuthResult {
  const id = header(headers, 'x-merchantid');
  const timestamp = header(headers, 'x-timestamp');
  const nonce = header(headers, 'x-nonce');
  const sign = header(headers, 'x-sign');
  if (!b.authHeadersPresent({ id, timestamp, nonce, sign }) || id === undefined) return { outcome: 'missing-header' };
  const merchant = target.merchants.find((m) => b.merchantIdMatches(m, id));
  if (merchant === undefined) return { outcome: 'unknown-merchant' };

  // A fault may let an absent header through; it then takes part as an empty string.
  const [ts, nc, sg] = [timestamp ?? '', nonce ?? '', sign ?? ''];
  const steps: Array<[AuthOutcome, () => boolean]> = [
    [
      'bad-signature',
      () =>
        b.verifyRequest({
          merchantId: id,
          secret: merchant.secret,
          ...(merchant.productionSecret !== undefined ? { productionSecret: merchant.productionSecret } : {}),
          allSecrets: target.merchants.map((m) => m.secret),
          timestamp: ts,
          nonce: nc,
          rawBody,
          sign: sg,
        }),
    ],
    [
      'stale-timestamp',
      () => {
        const seconds = b.readTimestamp(ts);
        return seconds !== undefined && Math.abs(seconds - Math.floor(now / 1000)) <= TIMESTAMP_TOLERANCE_S;
      },
    ],
    // Last, so a nonce is remembered only for a request that passed everything else.
    ['nonce-reused', () => nonces.checkAndRemember(id, nc, now)],
  ];
  for (const [failure, passes] of steps) {
    if (passes()) continue;
    // The hook has the last say, including which failure it is answered as.
    const outcome = b.authOutcome(failure);
    if (outcome !== 'ok') return { outcome, merchant };
  }
  return { outcome: 'ok', merchant };
}
