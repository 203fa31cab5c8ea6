/**
 * How refunds move their payment: the payment becomes REFUNDED once SUCCESS refunds add up to
 * the amount charged. That change sends no payment.updated (only refund.updated), unless a fault
 * says otherwise.
 */
import { emitPaymentUpdated, type Service } from '../service.js';
import type { Payment } from '../store.js';

/** Sum of refunds that still count against the payment: everything not FAILED. */
export function committedRefundCents(svc: Service, p: Payment): bigint {
  let sum = 0n;
  for (const r of svc.store.refundsOf(p.orderNo)) if (r.status !== 'FAILED') sum += r.amountCents;
  return sum;
}

export function markRefundedIfComplete(svc: Service, p: Payment): void {
  let settled = 0n;
  for (const r of svc.store.refundsOf(p.orderNo)) if (r.status === 'SUCCESS') settled += r.amountCents;
  if (p.status === 'SUCCESS' && settled >= p.chargedCents && svc.behaviour.enforces('payment.refunded-status')) {
    p.status = 'REFUNDED';
    if (svc.behaviour.sendsWebhookOn('payment-refunded')) emitPaymentUpdated(svc, p);
  }
}
