/**
 * Time the vendor keeps: records that end by themselves once a documented delay has passed ("Transitions between states
 * (from-state, trigger, condition): not shown."). Payouts settle (target `payoutsSettleAfter`), PENDING refunds settle
 * (`refundsSettleAfter`), unpaid checkouts expire (`checkoutsExpireAfter`), pending proceeds become available
 * (`proceedsAfter`). Run before every request is handled, so what a request sees is what a clock-driven sandbox would
 * show; each record ends at the moment it was due.
 */
import { releaseDueProceeds } from '../fees.js';
import { emitPaymentUpdated, emitRefundUpdated, type Service } from '../service.js';
import { settleDuePayouts } from './payout-state.js';
import { markRefundedIfComplete } from './refund-state.js';

export function runDue(svc: Service, now: number): void {
  settleDuePayouts(svc, now);
  settleDueRefunds(svc, now);
  expireDueCheckouts(svc, now);
  releaseDueProceeds(svc, now);
}

/** A PENDING refund whose delay has passed ends as the description says, as the settle control would end it. */
function settleDueRefunds(svc: Service, now: number): void {
  const due = svc.target.refundsSettleAfter;
  if (due === undefined) return;
  for (const r of svc.store.refunds.values()) {
    if (r.status !== 'PENDING' || now - r.createdAt < due.afterMs) continue;
    const payment = svc.store.payments.get(r.orderNo);
    if (payment === undefined) continue;
    r.status = due.status;
    r.finishedAt = r.createdAt + due.afterMs;
    if (due.status === 'FAILED') svc.store.balancesOf(r.merchantId).refundCoverCents += r.coverCents;
    emitRefundUpdated(svc, r);
    markRefundedIfComplete(svc, payment);
  }
}

/** A checkout left unpaid past its delay expires, as the expire control would expire it (an expired link sends no webhook). */
function expireDueCheckouts(svc: Service, now: number): void {
  const due = svc.target.checkoutsExpireAfter;
  if (due === undefined) return;
  for (const p of svc.store.payments.values()) {
    if (p.via !== 'checkout' || p.status !== 'PENDING' || now - p.createdAt < due.afterMs) continue;
    p.status = 'EXPIRED';
    p.finishedAt = p.createdAt + due.afterMs;
    if (svc.behaviour.sendsWebhookOn('checkout-expired')) emitPaymentUpdated(svc, p);
  }
}
