/**
 * Sandbox controls under /sandbox/v1/: they stand in for the customer, the provider and the
 * bank, driving records through the transitions the interface describes. A transition that is
 * not allowed from the current status is refused with 422 validationFailed.
 */
import { E } from '../errors.js';
import { ARMABLE_FAILURES, type ArmedFailure } from '../store.js';
import { emitPaymentUpdated, emitRefundUpdated, type Handler } from '../service.js';
import { Fields } from '../validate.js';
import { paymentView, payoutView, refundView } from '../views.js';
import { findPayment, findPayout, findRefund } from './lookup.js';
import { finishPayout } from './payout-state.js';
import { markRefundedIfComplete } from './refund-state.js';

function outcomeOf(f: Fields): 'SUCCESS' | 'FAILED' {
  const v = f.requiredString('outcome', { max: 16 });
  if (v !== 'SUCCESS' && v !== 'FAILED') throw E.invalidRequest(`Field ${f.name('outcome')} must be SUCCESS or FAILED`);
  return v;
}

function refuseTransition(what: string, status: string, action: string): never {
  throw E.validationFailed(`${what} in status ${status} cannot be ${action}`);
}

export const completeCheckout: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_order_no', 'order_no', 'outcome']);
  const p = findPayment(svc, call, f);
  const outcome = outcomeOf(f);
  if (p.status !== 'PENDING') refuseTransition('Payment', p.status, 'completed');
  p.status = outcome;
  p.finishedAt = call.now;
  if (outcome === 'SUCCESS' || svc.behaviour.sendsWebhookOn('checkout-failed')) emitPaymentUpdated(svc, p);
  return paymentView(p, svc.behaviour);
};

/** An expired checkout link sends no webhook. */
export const expireCheckout: Handler = (svc, call) => {
  const p = findPayment(svc, call, Fields.of(call.body, ['merchant_order_no', 'order_no']));
  if (p.status !== 'PENDING') refuseTransition('Payment', p.status, 'expired');
  p.status = 'EXPIRED';
  p.finishedAt = call.now;
  if (svc.behaviour.sendsWebhookOn('checkout-expired')) emitPaymentUpdated(svc, p);
  return paymentView(p, svc.behaviour);
};

/** A chargeback is visible only in the portal: no status change, no webhook; later refunds are refused. */
export const chargeback: Handler = (svc, call) => {
  const p = findPayment(svc, call, Fields.of(call.body, ['merchant_order_no', 'order_no']));
  if (p.status !== 'SUCCESS' || p.chargedBack) refuseTransition('Payment', p.chargedBack ? 'CHARGED_BACK' : p.status, 'charged back');
  p.chargedBack = true;
  if (svc.behaviour.sendsWebhookOn('chargeback')) emitPaymentUpdated(svc, p);
  return paymentView(p, svc.behaviour);
};

export const settleRefund: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_refund_no', 'refund_no', 'outcome']);
  const r = findRefund(svc, call, f);
  const outcome = outcomeOf(f);
  const payment = svc.store.payments.get(r.orderNo);
  if (r.status !== 'PENDING' || payment === undefined) refuseTransition('Refund', r.status, 'settled');
  r.status = outcome;
  r.finishedAt = call.now;
  if (outcome === 'FAILED') svc.store.balancesOf(r.merchantId).refundCoverCents += r.coverCents;
  emitRefundUpdated(svc, r);
  markRefundedIfComplete(svc, payment);
  return refundView(r, payment, svc.behaviour);
};

/** `reason` (optional) is the status_reason recorded instead of the default one. */
export const settlePayout: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_payout_no', 'payout_no', 'outcome', 'reason']);
  const p = findPayout(svc, call, f, 5002);
  const outcome = outcomeOf(f);
  const reason = f.optionalString('reason', { max: 256 });
  if (p.status !== 'PENDING') refuseTransition('Payout', p.status, 'settled');
  finishPayout(svc, p, outcome, call.now, reason);
  return payoutView(p, svc.behaviour);
};

/** Completes a card payment left PENDING (3-D Secure card): PENDING → outcome, sends `payment.updated`. */
export const completeCard: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_order_no', 'order_no', 'outcome']);
  const p = findPayment(svc, call, f);
  const outcome = outcomeOf(f);
  if (p.status !== 'PENDING' || p.via !== 'card')
    refuseTransition(p.via === 'card' ? 'Card payment' : 'Checkout payment', p.status, 'completed as a card payment');
  p.status = outcome;
  p.finishedAt = call.now;
  if (svc.behaviour.sendsWebhookOn('card-completed')) emitPaymentUpdated(svc, p);
  return paymentView(p, svc.behaviour);
};

/**
 * Arms a one-shot failure for the calling merchant's next request of that kind (see
 * handlers/armed.ts); with `merchant_order_no`, only for a request about that order (its creation,
 * its query, a refund of it), so other requests running at the same time are not hit.
 */
export const armFailure: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['failure', 'merchant_order_no']);
  const failure = f.requiredString('failure', { max: 32 });
  const merchantOrderNo = f.optionalString('merchant_order_no', { max: 64 });
  if (!(ARMABLE_FAILURES as readonly string[]).includes(failure)) {
    throw E.invalidRequest(`Field ${f.name('failure')} must be one of ${ARMABLE_FAILURES.join(', ')}`);
  }
  svc.store.arm(call.merchant.id, failure as ArmedFailure, merchantOrderNo);
  return { failure, ...(merchantOrderNo === undefined ? {} : { merchant_order_no: merchantOrderNo }), armed: true };
};
