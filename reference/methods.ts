/**
 * Payment and payout methods with their channel rules. The interface names only a few methods
 * and shows no numbers, so everything here is this sandbox's published choice (see README).
 */

/** Every method the service knows; anything else is "unsupported" rather than "unavailable". */
export const KNOWN_METHODS = ['CARD', 'PAYPAL', 'CASH_APP', 'APPLE_PAY', 'GOOGLE_PAY', 'KLARNA', 'BANK_TRANSFER', 'VENMO'] as const;
export type MethodName = (typeof KNOWN_METHODS)[number];

export function isKnownMethod(s: string): s is MethodName {
  return (KNOWN_METHODS as readonly string[]).includes(s);
}

/** Methods every active fixture merchant may use for payments. KLARNA is known but enabled for nobody. */
export const ENABLED_PAYMENT_METHODS: readonly MethodName[] = ['CARD', 'PAYPAL', 'CASH_APP', 'APPLE_PAY', 'GOOGLE_PAY', 'VENMO'];

/** Enabled methods whose every channel is down: a payment with one is refused 422 validationFailed ("No payment channel available"). */
export const NO_CHANNEL_METHODS: ReadonlySet<string> = new Set(['VENMO']);

/** Fields a checkout of one method requires beyond those every checkout requires (the others accept them as optional). */
export const CHECKOUT_REQUIRED_BY_METHOD: ReadonlyMap<string, readonly string[]> = new Map([['PAYPAL', ['return_url']]]);

/** Payee fields each payout method requires (any other payee field is refused as unknown for it). */
export const PAYEE_FIELDS: ReadonlyMap<string, readonly string[]> = new Map([
  ['BANK_TRANSFER', ['name', 'account']],
  ['PAYPAL', ['email']],
]);

export type RefundSupport = 'partial' | 'full-only' | 'none';

/** One channel's inclusive range in cents. */
export interface CentsRange {
  readonly minCents: bigint;
  readonly maxCents: bigint;
}

export interface PaymentChannel {
  /** Inclusive bounds in cents; absent for price-point channels. */
  readonly minCents?: bigint;
  readonly maxCents?: bigint;
  /** Where the method has several channels whose ranges leave gaps: each one (min/max are then the extremes). */
  readonly ranges?: readonly CentsRange[];
  /**
   * Price points in cents, ascending; present for wallet channels that charge fixed tiers. Such a channel may still have a
   * largest amount (`maxCents`): an amount above it is refused 2006 before any rounding.
   */
  readonly tiersCents?: readonly bigint[];
  /** The channel's own rounding to its tiers (absent: up to the next tier). */
  readonly rounding?: TierRounding;
  readonly refunds: RefundSupport;
  /** Refunds on some channels settle later (sandbox `refunds/settle`), others at once. */
  readonly refundSettlesImmediately: boolean;
}

const TIERS: readonly bigint[] = [99n, 199n, 499n, 999n, 1999n, 4999n, 9999n];

// Maps, not object literals: a caller-chosen method such as "constructor" must never hit a prototype.
export const PAYMENT_CHANNELS: ReadonlyMap<string, PaymentChannel> = new Map<string, PaymentChannel>([
  ['CARD', { minCents: 50n, maxCents: 1_000_000n, refunds: 'partial', refundSettlesImmediately: false }],
  ['PAYPAL', { minCents: 100n, maxCents: 500_000n, refunds: 'partial', refundSettlesImmediately: true }],
  // Two channels: 1.00–500.00 and 1000.00–2500.00; an amount in between finds no channel (2006).
  [
    'CASH_APP',
    {
      minCents: 100n,
      maxCents: 250_000n,
      ranges: [
        { minCents: 100n, maxCents: 50_000n },
        { minCents: 100_000n, maxCents: 250_000n },
      ],
      refunds: 'full-only',
      refundSettlesImmediately: false,
    },
  ],
  ['APPLE_PAY', { tiersCents: TIERS, refunds: 'none', refundSettlesImmediately: false }],
  ['GOOGLE_PAY', { tiersCents: TIERS, refunds: 'none', refundSettlesImmediately: false }],
]);

/**
 * One fee: `fixedCents` plus `percentMillionths` millionths of the amount (1 % is 10000), rounded half up; never below
 * `minCents` ("1 %, at least 0.25") nor above `maxCents` (a cap), where given (reference/fees.ts computes it).
 */
export interface Fee {
  readonly fixedCents: bigint;
  readonly percentMillionths: bigint;
  readonly minCents?: bigint;
  readonly maxCents?: bigint;
}

export interface PayoutChannel {
  readonly currencies: readonly string[];
  readonly minCents: bigint;
  readonly maxCents: bigint;
  readonly cancelable: boolean;
  /** The range in a currency other than USD where it differs (that currency's cents); else minCents..maxCents. */
  readonly byCurrency?: ReadonlyMap<string, { readonly minCents: bigint; readonly maxCents: bigint }>;
}

export const PAYOUT_CHANNELS: ReadonlyMap<string, PayoutChannel> = new Map<string, PayoutChannel>([
  // Its EUR range is narrower than its USD one (a method's limits may differ per currency).
  [
    'BANK_TRANSFER',
    {
      currencies: ['USD', 'EUR'],
      minCents: 100n,
      maxCents: 5_000_000n,
      cancelable: true,
      byCurrency: new Map([['EUR', { minCents: 100n, maxCents: 4_000_000n }]]),
    },
  ],
  ['PAYPAL', { currencies: ['USD'], minCents: 100n, maxCents: 1_000_000n, cancelable: false }],
]);

/** Whether some channel of the method accepts the amount (the overall range when it has one channel). */
export function channelAccepts(ch: { minCents?: bigint; maxCents?: bigint; ranges?: readonly CentsRange[] }, cents: bigint): boolean {
  const ranges = ch.ranges ?? [{ minCents: ch.minCents ?? 0n, maxCents: ch.maxCents ?? cents }];
  return ranges.some((r) => cents >= r.minCents && cents <= r.maxCents);
}

/**
 * How a channel rounds to its tiers: up, or to the nearest within a distance, ties to the higher unless `tiesDown`
 * ("rounded to a price point where possible": which way a half-way amount goes is not shown).
 */
export type TierRounding =
  | { readonly mode: 'up' }
  | { readonly mode: 'nearest'; readonly maxDistanceCents: bigint; readonly tiesDown?: boolean };

/** The nearest tier within `maxDistance` cents (at a tie the higher one, or the lower with `tiesDown`), or undefined. */
export function roundToNearestTier(cents: bigint, tiers: readonly bigint[], maxDistance: bigint, tiesDown = false): bigint | undefined {
  let best: bigint | undefined;
  for (const t of tiers) {
    const d = t > cents ? t - cents : cents - t;
    if (d > maxDistance) continue;
    const bd = best === undefined ? undefined : best > cents ? best - cents : cents - best;
    if (bd === undefined || d < bd || (d === bd && (tiesDown ? t < best! : t > best!))) best = t;
  }
  return best;
}

/** Smallest tier at or above the amount, or undefined when the amount is above every tier. */
export function roundUpToTier(cents: bigint, tiers: readonly bigint[]): bigint | undefined {
  return tiers.find((t) => t >= cents);
}

/** Refund fee the merchant's refund-cover balance must also cover. */
export const REFUND_FEE_CENTS = 30n;
