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

/** What creditPayment and the clock need of the service (a structural slice, so tests can build one). */
interface MoneySvc {
  target: {
    paymentsCredit: { payout: boolean; refund: boolean };
    fees: { payments: ReadonlyMap<string, Fee> };
    merchants: readonly { id: string; paymentFees?: ReadonlyMap<string, Fee> }[];
    proceedsAfter?: number | 'control';
    chargebackDebit?: { from: 'payout' | 'refund'; fee?: Fee };
  };
  store: Pick<Store, 'balancesOf' | 'pendingProceeds'>;
  behaviour?: { enforces(rule: 'proceeds.pending'): boolean };
}

/**
 * A payment has just become SUCCESS: the balances the target credits take its amount less its fee, at once, or (target
 * `proceedsAfter`) as pending proceeds that become available after the delay or by the portal's release, never before.
 */
export function creditPayment(svc: MoneySvc, p: Payment): void {
  const credit = svc.target.paymentsCredit;
  if (credit.payout === false && credit.refund === false) return;
  // A merchant's own payment fee replaces every merchant's for it.
  const own = svc.target.merchants.find((m) => m.id === p.merchantId)?.paymentFees?.get(p.method);
  const net = p.chargedCents - feeOn(own ?? svc.target.fees.payments.get(p.method), p.chargedCents);
  if (net <= 0n) return;
  const after = svc.target.proceedsAfter;
  if (after !== undefined && svc.behaviour?.enforces('proceeds.pending') !== false) {
    const successAt = p.finishedAt ?? p.createdAt;
    svc.store.pendingProceeds.push({
      merchantId: p.merchantId,
      orderNo: p.orderNo,
      payoutCents: credit.payout ? net : 0n,
      refundCents: credit.refund ? net : 0n,
      ...(after === 'control' ? {} : { dueAt: successAt + after }),
    });
    return;
  }
  const b = svc.store.balancesOf(p.merchantId);
  if (credit.payout) b.payoutCents += net;
  if (credit.refund) b.refundCoverCents += net;
}

/** Pending proceeds whose delay has passed become available (run before any balance is drawn on or read). */
export function releaseDueProceeds(svc: Pick<MoneySvc, 'store'>, now: number): void {
  const pending = svc.store.pendingProceeds;
  if (pending.length === 0) return;
  const due = pending.filter((x) => x.dueAt !== undefined && x.dueAt <= now);
  if (due.length === 0) return;
  svc.store.pendingProceeds = pending.filter((x) => !due.includes(x));
  for (const x of due) {
    const b = svc.store.balancesOf(x.merchantId);
    b.payoutCents += x.payoutCents;
    b.refundCoverCents += x.refundCents;
  }
}

/**
 * A chargeback has just been recorded: the target's `chargebackDebit` takes the payment's amount charged and its fee
 * from the merchant's USD payout balance or its refund balance (a balance may go below zero: the bank took the money).
 */
export function debitChargeback(svc: MoneySvc, p: Payment): void {
  const debit = svc.target.chargebackDebit;
  if (debit === undefined) return;
  const cents = p.chargedCents + feeOn(debit.fee, p.chargedCents);
  const b = svc.store.balancesOf(p.merchantId);
  if (debit.from === 'payout') b.payoutCents -= cents;
  else b.refundCoverCents -= cents;
}

/**
 * The README's payout fee: 0.25 plus 0.5 % (half up), at least 0.50, on every BANK_TRANSFER payout, taken from the payout
 * balance of the payout's currency with the amount (a payout whose amount fits the balance and whose fee does not is
 * refused 5004).
 */
export const DEFAULT_PAYOUT_FEES: ReadonlyMap<string, Fee> = new Map([
  ['BANK_TRANSFER', { fixedCents: 25n, percentMillionths: 5000n, minCents: 50n }],
]);
