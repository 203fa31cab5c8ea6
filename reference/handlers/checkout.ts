/**
 * POST /api/v1/payments/checkout: records a PENDING payment and returns a hosted checkout link.
 * The customer's side is simulated by the sandbox controls (complete, expire).
 */
import { checkNumberFree, claimNumber } from '../idempotency.js';
import type { Payment } from '../store.js';
import type { Handler } from '../service.js';
import { Fields } from '../validate.js';
import { checkoutView } from '../views.js';
import { failCreationIfArmed, failCreationIfTriggered } from './armed.js';
import { emailsIn } from '../magic-triggers.js';
import { ensureActive, ensurePaymentMethod, PAYMENT_KEYS, paymentCents, priceFor, readPaymentInput } from './payment-input.js';

export const checkout: Handler = (svc, call) => {
  const b = svc.behaviour;
  const input = readPaymentInput(Fields.of(call.body, PAYMENT_KEYS), svc.target.checkoutRequiredFields, b.enforces('payment.goods-name'));
  ensureActive(call.merchant, b.enforces('payment.merchant-active'));
  const cents = paymentCents(input.amount, b);
  ensurePaymentMethod(input.method, svc.target, call.merchant, b.enforces('payment.merchant-methods'));
  const priced = priceFor(input.method, cents, b, svc.target, call.merchant);
  const replay = checkNumberFree(svc, call.merchant.id, 'payment', input.merchantOrderNo);
  if (replay !== undefined) return replay;
  failCreationIfArmed(svc, call.merchant.id, input.merchantOrderNo);
  const emails = emailsIn(svc.target.sandbox.triggers, call.body);
  failCreationIfTriggered(svc, call, { merchantOrderNo: input.merchantOrderNo, cents, emails });

  const payment: Payment = {
    orderNo: svc.store.nextServiceNo('P', call.now),
    merchantId: call.merchant.id,
    merchantOrderNo: input.merchantOrderNo,
    method: input.method,
    chargedCents: priced.chargedCents,
    ...(priced.requestedCents !== undefined ? { requestedCents: priced.requestedCents } : {}),
    tradeInfo: input.tradeInfo,
    metadata: input.metadata,
    ...(input.notifyUrl !== undefined ? { notifyUrl: input.notifyUrl } : {}),
    via: 'checkout',
    ...(emails.length > 0 ? { emails } : {}),
    status: 'PENDING',
    createdAt: call.now,
    chargedBack: false,
  };
  svc.store.addPayment(payment);
  claimNumber(svc, call.merchant.id, 'payment', payment.merchantOrderNo, payment.orderNo);
  return checkoutView(payment, svc.baseUrl(), svc.behaviour);
};
