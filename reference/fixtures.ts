/**
 * The sandbox's fixed merchants. The secrets are sandbox test keys, published in the target
 * profile so a conformance run can sign; they are still never printed or logged.
 */
import { type Fee, type PaymentChannel, PAYOUT_CHANNELS, type PayoutChannel } from './methods.js';

export interface MerchantFixture {
  readonly id: string;
  readonly secret: string;
  /** The merchant's display name and its users' login: neither is a merchant id (INTERFACE.md, `X-MerchantID`). */
  readonly name: string;
  readonly login: string;
  /** A frozen (suspended) merchant may query but not create payments, refunds or payouts. */
  readonly frozen: boolean;
  /** Starting payout balance in cents; payouts reserve from it. */
  readonly payoutBalanceCents: bigint;
  /** Starting payout balances in currencies other than USD, in cents; a currency not listed is held at 0. */
  readonly otherPayoutBalancesCents?: Readonly<Record<string, bigint>>;
  /** Starting balance that covers refunds and their fee, in cents. */
  readonly refundCoverCents: bigint;
  /** The production key of the same merchant: this sandbox refuses a request signed with it (403 forbidden). */
  readonly productionSecret?: string;
  /** Payment methods enabled for this merchant, where it differs from every merchant's (ENABLED_PAYMENT_METHODS). */
  readonly paymentMethods?: readonly string[];
  /** Payout methods enabled for this merchant, where it differs from every payout channel. */
  readonly payoutMethods?: readonly string[];
  /** Its own payout channels (currencies, ranges), where they differ from every merchant's (reference/sandbox-data.ts). */
  readonly payoutChannels?: ReadonlyMap<string, PayoutChannel>;
  /** Its own payout fees per method, where they differ from every merchant's. */
  readonly payoutFees?: ReadonlyMap<string, Fee>;
  /** Its own channel ranges of a payment method, where they differ from every merchant's. */
  readonly paymentChannels?: ReadonlyMap<string, Pick<PaymentChannel, 'minCents' | 'maxCents' | 'ranges'>>;
  /** Its own payment and refund fees per method, where they differ from every merchant's. */
  readonly paymentFees?: ReadonlyMap<string, Fee>;
  readonly refundFees?: ReadonlyMap<string, Fee>;
}

const LARGE = 10_000_000n; // 100000.00

export const MERCHANTS: readonly MerchantFixture[] = [
  {
    id: 'M100001',
    secret: 'sk_test_primary_5f2c9a7e41d84b06',
    name: 'Primary Test Store',
    login: 'primary.admin',
    frozen: false,
    payoutBalanceCents: LARGE,
    otherPayoutBalancesCents: { EUR: LARGE },
    refundCoverCents: LARGE,
    productionSecret: 'sk_live_primary_7d3f1a9c5e2b8046',
  },
  {
    id: 'M100002',
    secret: 'sk_test_second_8b1e6d3c90a24f57',
    name: 'Second Test Store',
    login: 'second.admin',
    frozen: false,
    // Below the largest payout a method takes, so a payout above this merchant's own balance (the primary's covers it) can be tried.
    payoutBalanceCents: 250_000n,
    otherPayoutBalancesCents: { EUR: 100_000n },
    refundCoverCents: LARGE,
    productionSecret: 'sk_live_second_3a8c6e1f9b2d7054',
    // Its own BANK_TRANSFER channel starts at 5.00 (every other merchant's at 1.00): a range is a merchant's fact.
    payoutChannels: new Map([['BANK_TRANSFER', { ...PAYOUT_CHANNELS.get('BANK_TRANSFER')!, minCents: 500n }]]),
    // Its own CARD channel takes 1.00 to 5000.00 (every other merchant's 0.50 to 10000.00): payment ranges too are its own.
    paymentChannels: new Map([['CARD', { minCents: 100n, maxCents: 500_000n }]]),
    // Its own BANK_TRANSFER fee, 0.5 % and at least 15.00 (every other merchant's: 0.25 + 0.5 %, at least 0.50): a fee is a
    // merchant's fact, and its minimum binds a cent above this merchant's balance.
    payoutFees: new Map([['BANK_TRANSFER', { fixedCents: 0n, percentMillionths: 5000n, minCents: 1_500n }]]),
  },
  // The low-balance merchant holds EUR 3.00 beside USD 5.00 (payouts draw on their own currency's balance).
  // The low-balance merchant has no PayPal payouts and no Cash App payments: a merchant acts only with its own methods.
  {
    id: 'M100003',
    secret: 'sk_test_lowbal_2d7a4f9c6e1b3058',
    name: 'Low Balance Store',
    login: 'lowbal.admin',
    frozen: false,
    payoutBalanceCents: 500n,
    otherPayoutBalancesCents: { EUR: 300n },
    refundCoverCents: 100n,
    paymentMethods: ['CARD', 'PAYPAL', 'APPLE_PAY', 'GOOGLE_PAY', 'VENMO'],
    payoutMethods: ['BANK_TRANSFER'],
    // Its own BANK_TRANSFER fee, 0.25 + 12 % and at most 0.50: the cap binds at both its balances (USD 5.00 covers 4.50,
    // EUR 3.00 covers 2.50, as with every merchant's fee at its minimum).
    payoutFees: new Map([['BANK_TRANSFER', { fixedCents: 25n, percentMillionths: 120_000n, maxCents: 50n }]]),
  },
  {
    id: 'M100009',
    secret: 'sk_test_frozen_9c4e2b7d1a6f3085',
    name: 'Frozen Store',
    login: 'frozen.admin',
    frozen: true,
    payoutBalanceCents: LARGE,
    refundCoverCents: LARGE,
  },
];

export function findMerchant(id: string): MerchantFixture | undefined {
  return MERCHANTS.find((m) => m.id === id);
}
