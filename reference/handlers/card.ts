/**
 * POST /api/v1/payments/card: a direct card payment, decided at once. Fixture card numbers
 * produce the interface's refusal cases; any other Luhn-valid card succeeds.
 */
import { creditPayment } from '../fees.js';
import { ApiError, E } from '../errors.js';
import { afterRecordedRefusal, checkNumberFree, claimNumber } from '../idempotency.js';
import { emitPaymentUpdated, type Call, type Handler, type Service } from '../service.js';
import type { Payment, PaymentStatus } from '../store.js';
import { Fields } from '../validate.js';
import { paymentView } from '../views.js';
import { failCreationIfArmed, failCreationIfTriggered } from './armed.js';
import { emailsIn } from '../magic-triggers.js';
import { ensureCardUsable, readBillingAddress, readCard } from './card-data.js';
import {
  ensureActive,
  ensurePaymentMethod,
  PAYMENT_KEYS,
  paymentCents,
  priceFor,
  readPaymentInput,
  type PaymentInput,
  type Priced,
} from './payment-input.js';

export const FIXTURE_CARDS = {
  success: '4242424242424242',
  declined: '4000000000000002',
  risk: '4000000000009235',
  noChannel: '4000000000000119',
  /** Stays PENDING (3-D Secure) until /sandbox/v1/payments/complete-card completes it. */
  pending: '4000000000003220',
} as const;

export const card: Handler = (svc, call) => {
  const f = Fields.of(call.body, [...PAYMENT_KEYS, 'card', 'billing_address', 'device_ip']);
  const input = readPaymentInput(f, undefined, svc.behaviour.enforces('payment.goods-name'));
  const cardInput = readCard(f);
  readBillingAddress(f);
  f.ipAddress('device_ip');

  ensureActive(call.merchant, svc.behaviour.enforces('payment.merchant-active'));
  const cents = paymentCents(input.amount, svc.behaviour);
  ensurePaymentMethod(input.method, svc.target, call.merchant, svc.behaviour.enforces('payment.merchant-methods'), ['CARD']);
  const priced = priceFor(input.method, cents, svc.behaviour, svc.target, call.merchant);
  if (svc.behaviour.enforces('payment.card-valid')) ensureCardUsable(cardInput, call.now);
  const replay = checkNumberFree(svc, call.merchant.id, 'payment', input.merchantOrderNo);
  if (replay !== undefined) return replay;
  failCreationIfArmed(svc, call.merchant.id, input.merchantOrderNo);
  const emails = emailsIn(svc.target.sandbox.triggers, call.body);
  failCreationIfTriggered(svc, call, { merchantOrderNo: input.merchantOrderNo, cents, card: cardInput.number, emails });

  // The target's decline cards (the document allows more than one) are declined; the fixture one only when it is one of them.
  const declines = svc.behaviour.declinesCard(cardInput.number, svc.target.declineCards);
  const number = declines ? FIXTURE_CARDS.declined : cardInput.number === FIXTURE_CARDS.declined ? FIXTURE_CARDS.success : cardInput.number;
  switch (number) {
    case FIXTURE_CARDS.noChannel:
      // Refused before anything is recorded, so the number stays free.
      throw E.validationFailed('No payment channel available');
    case FIXTURE_CARDS.risk: {
      // A declined payment ends as FAILED and a payment.updated webhook follows, whoever declined it.
      const p = record(svc, call, input, priced, cardInput.number, 'FAILED');
      afterRecordedRefusal(svc, call.merchant.id, 'payment', input.merchantOrderNo);
      if (svc.behaviour.sendsWebhookOn('risk-decline')) emitPaymentUpdated(svc, p);
      throw E.validationFailed('Payment declined by risk checks');
    }
    case FIXTURE_CARDS.declined: {
      const p = record(svc, call, input, priced, cardInput.number, 'FAILED');
      afterRecordedRefusal(svc, call.merchant.id, 'payment', input.merchantOrderNo);
      emitPaymentUpdated(svc, p);
      throw new ApiError(422, 'paymentFailed', 'The provider declined the payment');
    }
    case FIXTURE_CARDS.pending:
      // No status change yet, so no webhook: payment.updated follows the completion.
      return paymentView(
        record(svc, call, input, priced, cardInput.number, 'PENDING'),
        svc.behaviour,
        'PENDING',
        svc.target.cardPendingStatus,
      );
    default: {
      const p = record(svc, call, input, priced, cardInput.number, 'SUCCESS');
      creditPayment(svc, p);
      emitPaymentUpdated(svc, p);
      return paymentView(p, svc.behaviour, p.status, svc.target.cardPendingStatus);
    }
  }
};

function record(svc: Service, call: Call, input: PaymentInput, priced: Priced, cardNumber: string, status: PaymentStatus): Payment {
  const payment: Payment = {
    orderNo: svc.store.nextServiceNo('P', call.now),
    merchantId: call.merchant.id,
    merchantOrderNo: input.merchantOrderNo,
    method: input.method,
    chargedCents: priced.chargedCents,
    tradeInfo: input.tradeInfo,
    metadata: input.metadata,
    ...(input.notifyUrl !== undefined ? { notifyUrl: input.notifyUrl } : {}),
    via: 'card',
    cardNumber,
    emails: emailsIn(svc.target.sandbox.triggers, call.body),
    status,
    createdAt: call.now,
    ...(status === 'PENDING' ? {} : { finishedAt: call.now }),
    chargedBack: false,
  };
  svc.store.addPayment(payment);
  claimNumber(svc, call.merchant.id, 'payment', payment.merchantOrderNo, payment.orderNo);
  return payment;
}
