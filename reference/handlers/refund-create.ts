/**
 * POST /api/v1/refunds/create. Every business refusal uses code 422. Checks run from the
 * cheapest to the most stateful, and the number is claimed only when something is recorded.
 */
import { amountCents, readAmount } from '../amount.js';
import { ApiError, E } from '../errors.js';
import { afterRecordedRefusal, checkNumberFree, claimNumber } from '../idempotency.js';
import { feeOn } from '../fees.js';
import { REFUND_FEE_CENTS } from '../methods.js';
import { emitRefundUpdated, type Call, type Handler, type Service } from '../service.js';
import type { Payment, Refund } from '../store.js';
import { Fields } from '../validate.js';
import { refundView } from '../views.js';
import { armed, failRefundIfArmed, paymentFacts, triggered } from './armed.js';
import { refundSubjectKey } from '../sandbox-shape.js';
import { ensureActive } from './payment-input.js';
import { committedRefundCents, markRefundedIfComplete } from './refund-state.js';

/** A reason that makes the sandbox record the refund as FAILED and answer refundFailed. */
export const SANDBOX_FAILING_REASON = 'sandbox:refund-failed';

const KEYS = ['merchant_refund_no', 'original_order_no', 'original_merchant_order_no', 'refund_amount', 'reason'];

export const refundCreate: Handler = (svc, call) => {
  const b = svc.behaviour;
  const f = Fields.of(call.body, KEYS);
  const merchantRefundNo = f.requiredString('merchant_refund_no', { max: 64 });
  const original = f.exactlyOne('original_merchant_order_no', 'original_order_no', b.bothLookupsSent);
  const amount = readAmount(f, 'refund_amount');
  const reason = f.requiredString('reason', { max: 256 });

  ensureActive(call.merchant);
  const cents = amountCents(amount, b.maxRefundAmountDecimals, 'invalidRefundAmount', b.isPositiveAmount);
  if (amount.currency !== 'USD') throw notSupported(`Currency ${amount.currency} is not supported (conversion unavailable)`);
  const payment = originalPayment(svc, call, original);
  if (payment.status !== 'SUCCESS' && payment.status !== 'REFUNDED' && b.enforces('refund.paid')) {
    throw new ApiError(422, 'refundOrderNotPaid', `Original order is ${payment.status}, not paid`);
  }
  if (payment.chargedBack && b.enforces('refund.not-charged-back')) throw E.validationFailed('Original order was charged back');
  const channel = svc.target.paymentChannels.get(payment.method);
  if (channel === undefined) throw notSupported(`${payment.method} does not support refunds`);
  const support = b.refundSupport(payment.method, channel.refunds);
  if (support === 'none' && b.enforces('refund.channel-support')) throw notSupported(`${payment.method} does not support refunds`);
  const earlier = committedRefundCents(svc, payment);
  if (cents > b.refundCeilingCents(payment.chargedCents, earlier)) {
    throw new ApiError(422, 'refundAmountExceeded', 'Refund amount exceeds the original order amount');
  }
  if (support === 'full-only' && (cents !== payment.chargedCents || earlier > 0n) && b.enforces('refund.full-only')) {
    throw notSupported(`${payment.method} supports full refunds only`);
  }
  const replay = checkNumberFree(svc, call.merchant.id, 'refund', merchantRefundNo);
  if (replay !== undefined) return replay;
  const balances = svc.store.balancesOf(call.merchant.id);
  // A merchant's own refund fee replaces every merchant's for it.
  const ownFee = call.merchant.refundFees?.get(payment.method) ?? svc.target.fees.refunds.get(payment.method);
  const cover = cents + (ownFee ? feeOn(ownFee, cents) : REFUND_FEE_CENTS);
  if (balances.refundCoverCents < cover && b.enforces('refund.balance'))
    throw E.validationFailed('Merchant balance does not cover the refund and its fee');
  // A sandbox may arm a refund's failure for its own number rather than its payment's (reference/sandbox-shape.ts).
  const armedFor = svc.target.sandbox.refundsByNumber ? refundSubjectKey(merchantRefundNo) : payment.merchantOrderNo;
  failRefundIfArmed(svc, call.merchant.id, armedFor);
  // A magic value of the refund (its amount, number, reason, header) or of the refunded payment (its number, card, e-mail).
  const facts = { ...paymentFacts(payment), merchantRefundNo, cents, reason, subject: `refund:${merchantRefundNo}` };
  if (triggered(svc, call, 'REFUND_SYSTEM_BUSY', facts)) throw new ApiError(422, 'systemBusy', 'Order creation failed');

  const failing =
    reason === SANDBOX_FAILING_REASON ||
    armed(svc, call.merchant.id, 'REFUND_FAILED', armedFor) ||
    triggered(svc, call, 'REFUND_FAILED', facts);
  const immediate = failing || b.refundSettlesAtOnce(payment.method, channel.refundSettlesImmediately);
  const refund: Refund = {
    refundNo: svc.store.nextServiceNo('R', call.now),
    merchantId: call.merchant.id,
    merchantRefundNo,
    orderNo: payment.orderNo,
    amountCents: cents,
    coverCents: failing ? 0n : cover,
    reason,
    status: failing ? 'FAILED' : immediate ? 'SUCCESS' : 'PENDING',
    createdAt: call.now,
    ...(immediate ? { finishedAt: call.now } : {}),
  };
  balances.refundCoverCents -= refund.coverCents;
  svc.store.addRefund(refund);
  claimNumber(svc, call.merchant.id, 'refund', merchantRefundNo, refund.refundNo);
  const settled = refund.status === 'SUCCESS' ? b.sendsWebhookOn('refund-created-settled') : true;
  if (b.sendsWebhookOn('refund-created') && settled) emitRefundUpdated(svc, refund);
  if (failing) {
    afterRecordedRefusal(svc, call.merchant.id, 'refund', merchantRefundNo);
    throw new ApiError(422, 'refundFailed', 'Refund request failed');
  }
  markRefundedIfComplete(svc, payment);
  return refundView(refund, payment, b);
};

function notSupported(detail: string): ApiError {
  return new ApiError(422, 'notSupported', detail);
}

/** Original not found, or another merchant's: both are orderNotFound with the refund code 422. */
function originalPayment(svc: Service, call: Call, ref: { key: string; value: string }): Payment {
  const p =
    ref.key === 'original_order_no' ? svc.store.payments.get(ref.value) : svc.store.paymentByMerchantNo(call.merchant.id, ref.value);
  if (p === undefined || p.merchantId !== call.merchant.id) throw new ApiError(422, 'orderNotFound', 'Original order not found');
  return p;
}
