/**
 * Sandbox controls under /sandbox/v1/ (or where the target description puts them, with its own body
 * field names and outcome values: reference/sandbox-shape.ts): they stand in for the customer, the provider and the
 * bank, driving records through the transitions the interface describes. A transition that is
 * not allowed from the current status is refused with 422 validationFailed.
 */
import { E } from '../errors.js';
import { creditPayment, debitChargeback } from '../fees.js';
import { ANY_MERCHANT, ARMABLE_FAILURES, type ArmedFailure } from '../store.js';
import { refundSubjectKey, type ArmSwitchDescription } from '../sandbox-shape.js';
import { emitPaymentUpdated, emitRefundUpdated, type Handler, type Service } from '../service.js';
import { Fields } from '../validate.js';
import { paymentView, payoutView, refundView } from '../views.js';
import { findPayment, findPayout, findRefund } from './lookup.js';
import { finishPayout } from './payout-state.js';
import { markRefundedIfComplete } from './refund-state.js';

/** The outcome asked for, in this sandbox's values (reference/sandbox-shape.ts; default SUCCESS and FAILED). */
function outcomeOf(svc: Service, f: Fields): 'SUCCESS' | 'FAILED' {
  const { success, failed } = svc.target.sandbox.outcomes;
  const v = f.requiredString('outcome', { max: 32 });
  if (v !== success && v !== failed) throw E.invalidRequest(`Field ${f.name('outcome')} must be ${success} or ${failed}`);
  return v === success ? 'SUCCESS' : 'FAILED';
}

function refuseTransition(what: string, status: string, action: string): never {
  throw E.validationFailed(`${what} in status ${status} cannot be ${action}`);
}

export const completeCheckout: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_order_no', 'order_no', 'outcome']);
  const p = findPayment(svc, call, f);
  const outcome = outcomeOf(svc, f);
  if (p.status !== 'PENDING') refuseTransition('Payment', p.status, 'completed');
  p.status = outcome;
  p.finishedAt = call.now;
  if (outcome === 'SUCCESS') creditPayment(svc, p);
  if (outcome === 'SUCCESS' || svc.behaviour.sendsWebhookOn('checkout-failed')) emitPaymentUpdated(svc, p);
  return paymentView(p, svc.behaviour, p.status, svc.target.cardPendingStatus);
};

/** An expired checkout link sends no webhook. */
export const expireCheckout: Handler = (svc, call) => {
  const p = findPayment(svc, call, Fields.of(call.body, ['merchant_order_no', 'order_no']));
  if (p.status !== 'PENDING') refuseTransition('Payment', p.status, 'expired');
  p.status = 'EXPIRED';
  p.finishedAt = call.now;
  if (svc.behaviour.sendsWebhookOn('checkout-expired')) emitPaymentUpdated(svc, p);
  return paymentView(p, svc.behaviour, p.status, svc.target.cardPendingStatus);
};

/** A chargeback is visible only in the portal: no status change, no webhook; later refunds are refused. */
export const chargeback: Handler = (svc, call) => {
  const p = findPayment(svc, call, Fields.of(call.body, ['merchant_order_no', 'order_no']));
  if (p.status !== 'SUCCESS' || p.chargedBack) refuseTransition('Payment', p.chargedBack ? 'CHARGED_BACK' : p.status, 'charged back');
  p.chargedBack = true;
  debitChargeback(svc, p);
  if (svc.behaviour.sendsWebhookOn('chargeback')) emitPaymentUpdated(svc, p);
  return paymentView(p, svc.behaviour, p.status, svc.target.cardPendingStatus);
};

export const settleRefund: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_refund_no', 'refund_no', 'outcome']);
  const r = findRefund(svc, call, f, { control: true });
  const outcome = outcomeOf(svc, f);
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
  const p = findPayout(svc, call, f, 5002, { control: true });
  const outcome = outcomeOf(svc, f);
  const reason = f.optionalString('reason', { max: 256 });
  if (p.status !== 'PENDING') refuseTransition('Payout', p.status, 'settled');
  finishPayout(svc, p, outcome, call.now, reason);
  return payoutView(p, svc.behaviour);
};

/** Completes a card payment left PENDING (3-D Secure card): PENDING → outcome, sends `payment.updated`. */
export const completeCard: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_order_no', 'order_no', 'outcome']);
  const p = findPayment(svc, call, f);
  const outcome = outcomeOf(svc, f);
  if (p.status !== 'PENDING' || p.via !== 'card')
    refuseTransition(p.via === 'card' ? 'Card payment' : 'Checkout payment', p.status, 'completed as a card payment');
  p.status = outcome;
  p.finishedAt = call.now;
  if (outcome === 'SUCCESS') creditPayment(svc, p);
  if (svc.behaviour.sendsWebhookOn('card-completed')) emitPaymentUpdated(svc, p);
  return paymentView(p, svc.behaviour, p.status, svc.target.cardPendingStatus);
};

/**
 * Arms a one-shot failure for the calling merchant's next request of that kind (see
 * handlers/armed.ts); with `merchant_order_no`, only for a request about that order (its creation,
 * its query, a refund of it), so other requests running at the same time are not hit. A target's own
 * switch (reference/sandbox-shape.ts) takes other values, and may match a refund by its own number.
 */
export const armFailure: Handler = (svc, call) => {
  const own = svc.target.sandbox.armSwitch;
  if (own !== undefined) return armBySwitch(svc, call.merchant.id, call.body, own);
  const f = Fields.of(call.body, ['failure', 'merchant_order_no']);
  const failure = f.requiredString('failure', { max: 32 });
  const merchantOrderNo = f.optionalString('merchant_order_no', { max: 64 });
  if (!(ARMABLE_FAILURES as readonly string[]).includes(failure)) {
    throw E.invalidRequest(`Field ${f.name('failure')} must be one of ${ARMABLE_FAILURES.join(', ')}`);
  }
  armAs(svc, call.merchant.id, failure as ArmedFailure, merchantOrderNo);
  return { failure, ...(merchantOrderNo === undefined ? {} : { merchant_order_no: merchantOrderNo }), armed: true };
};

const REFUND_FAILURES: readonly ArmedFailure[] = ['REFUND_SYSTEM_BUSY', 'REFUND_FAILED'];

/**
 * Arms as this sandbox's switch reaches (reference/sandbox-shape.ts `armReach`, `armCount`): the number it was armed
 * for, or the merchant's next requests of the kind whatever their number, or any merchant's.
 */
function armAs(svc: Service, merchantId: string, failure: ArmedFailure, subject: string | undefined): void {
  const { armReach, armCount } = svc.target.sandbox;
  const owner = armReach === 'operation' ? ANY_MERCHANT : merchantId;
  svc.store.arm(owner, failure, armReach === 'subject' ? subject : undefined, armCount);
}

/** The target's own switch: the failure is the one whose values the body carries, all of them and no other's. */
function armBySwitch(svc: Service, merchantId: string, body: Record<string, unknown>, own: ArmSwitchDescription): Record<string, unknown> {
  const valueFields = [...new Set(ARMABLE_FAILURES.flatMap((k) => Object.keys(own.values[k])))];
  const subjectFields = own.subjectField !== undefined ? [own.subjectField] : ['merchant_order_no', 'merchant_refund_no'];
  const f = Fields.of(body, [...valueFields, ...subjectFields]);
  const given = valueFields.filter((n) => body[n] !== undefined);
  const failure = ARMABLE_FAILURES.find((k) => {
    const v = own.values[k];
    return given.length === Object.keys(v).length && Object.entries(v).every(([n, value]) => body[n] === value);
  });
  if (failure === undefined)
    throw E.invalidRequest(`Fields ${valueFields.map((n) => f.name(n)).join(', ')} name no failure this sandbox arms`);
  const byRefund = REFUND_FAILURES.includes(failure) && own.refundSubject === 'merchantRefundNo';
  const field = own.subjectField ?? (byRefund ? 'merchant_refund_no' : 'merchant_order_no');
  // A refund matched by its number needs that number; another failure may be armed for any request of its kind.
  const no = byRefund ? f.requiredString(field, { max: 64 }) : f.optionalString(field, { max: 64 });
  const subject = no === undefined ? undefined : byRefund ? refundSubjectKey(no) : no;
  armAs(svc, merchantId, failure, subject);
  return { ...Object.fromEntries(given.map((n) => [n, body[n]])), ...(no === undefined ? {} : { [field]: no }), armed: true };
}
