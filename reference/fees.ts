/**
 * Fees and moving balances, when a target description gives them (reference/sandbox-data.ts `fees`, `paymentsCredit`): a fee
 * is a fixed part plus a percentage of the amount, rounded half up to the cent; a successful payment may credit the
 * merchant's USD payout balance and/or its refund balance with its amount less its fee (a vendor's choice the document
 * leaves open: it names a refund's fee and shows no balance). The kit's own reading of fees is harness/facts/fees.ts; this is
 * the reference's (a bug shared by both would cancel out).
 */
import type { Fee } from './methods.js';
import type { Payment, Store } from './store.js';

export type { Fee };

/** The fee on `amountCents`; `minimum: false` leaves the fee's minimum out, `maximum: false` its cap (a fault's). */
export function feeOn(fee: Fee | undefined, amountCents: bigint, o: { minimum?: boolean; maximum?: boolean } = {}): bigint {
  if (!fee) return 0n;
  const scaled = amountCents * fee.percentMillionths;
  const down = scaled / 1_000_000n;
  const rest = scaled % 1_000_000n;
  const raw = fee.fixedCents + (rest * 2n >= 1_000_000n ? down + 1n : down);
  if (o.maximum !== false && fee.maxCents !== undefined && raw > fee.maxCents) return fee.maxCents;
  if (o.minimum !== false && fee.minCents !== undefined && raw < fee.minCents) return fee.minCents;
  return raw;
}

/** A payment has just become SUCCESS: the balances the target credits take its amount less its fee. */
export function creditPayment(
  svc: {
    target: {
      paymentsCredit: { payout: boolean; refund: boolean };
      fees: { payments: ReadonlyMap<string, Fee> };
      merchants: readonly { id: string; paymentFees?: ReadonlyMap<string, Fee> }[];
    };
    store: Pick<Store, 'balancesOf'>;
  },
  p: Payment,
): void {
  const credit = svc.target.paymentsCredit;
  if (credit.payout === false && credit.refund === false) return;
  // A merchant's own payment fee replaces every merchant's for it.
  const own = svc.target.merchants.find((m) => m.id === p.merchantId)?.paymentFees?.get(p.method);
  const net = p.chargedCents - feeOn(own ?? svc.target.fees.payments.get(p.method), p.chargedCents);
  if (net <= 0n) return;
  const b = svc.store.balancesOf(p.merchantId);
  if (credit.payout) b.payoutCents += net;
  if (credit.refund) b.refundCoverCents += net;
}

/**
 * The README's payout fee: 0.25 plus 0.5 % (half up), at least 0.50, on every BANK_TRANSFER payout, taken from the payout
 * balance of the payout's currency with the amount (a payout whose amount fits the balance and whose fee does not is
 * refused 5004).
 */
export const DEFAULT_PAYOUT_FEES: ReadonlyMap<string, Fee> = new Map([
  ['BANK_TRANSFER', { fixedCents: 25n, percentMillionths: 5000n, minCents: 50n }],
]);
