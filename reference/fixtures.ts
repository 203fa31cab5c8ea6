/**
 * The sandbox's fixed merchants. The secrets are sandbox test keys, published in the target
 * profile so a conformance run can sign; they are still never printed or logged.
 */
export interface MerchantFixture {
  readonly id: string;
  readonly secret: string;
  /** A frozen (suspended) merchant may query but not create payments, refunds or payouts. */
  readonly frozen: boolean;
  /** Starting payout balance in cents; payouts reserve from it. */
  readonly payoutBalanceCents: bigint;
  /** Starting balance that covers refunds and their fee, in cents. */
  readonly refundCoverCents: bigint;
}

const LARGE = 10_000_000n; // 100000.00

export const MERCHANTS: readonly MerchantFixture[] = [
  { id: 'M100001', secret: 'sk_test_primary_5f2c9a7e41d84b06', frozen: false, payoutBalanceCents: LARGE, refundCoverCents: LARGE },
  { id: 'M100002', secret: 'sk_test_second_8b1e6d3c90a24f57', frozen: false, payoutBalanceCents: LARGE, refundCoverCents: LARGE },
  { id: 'M100003', secret: 'sk_test_lowbal_2d7a4f9c6e1b3058', frozen: false, payoutBalanceCents: 500n, refundCoverCents: 100n },
  { id: 'M100009', secret: 'sk_test_frozen_9c4e2b7d1a6f3085', frozen: true, payoutBalanceCents: LARGE, refundCoverCents: LARGE },
];

export function findMerchant(id: string): MerchantFixture | undefined {
  return MERCHANTS.find((m) => m.id === id);
}
