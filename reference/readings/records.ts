/** Readings of what records look like where the document does not show them: names, numbers, times. */
import { randomUUID } from 'node:crypto';
import { defineReading, renameKeys } from './reading.js';

const STATUS_NAMES: Readonly<Record<string, string>> = { PENDING: 'WAITING_PAYMENT', EXPIRED: 'CLOSED' };

export const unnamedPaymentStatuses = defineReading({
  name: 'unnamed-payment-statuses',
  doc:
    'A checkout not yet paid is WAITING_PAYMENT and an expired one CLOSED: "Payment | `SUCCESS`, `FAILED`, `REFUNDED`" ' +
    'are the only status values named, and "Transitions between states (from-state, trigger, condition): not shown."',
  finishView: (kind, view) => {
    if (kind === 'payment' || kind === 'checkout') return { ...view, status: STATUS_NAMES[String(view['status'])] ?? view['status'] };
    if (kind === 'payout' && view['status'] === 'PENDING') return { ...view, status: 'PROCESSING' };
    return view;
  },
});

export const otherRecordFieldNames = defineReading({
  name: 'other-record-field-names',
  doc:
    'Records in `data` use other field names (trade_no, state, pay_url, refund_order_no, amount, refund_reason, payout_order_no, ' +
    'payout_method, beneficiary): "Response `data` fields of the checkout: not shown.", "Fields of the payment record ' +
    'returned by a payment query: not shown.", "Refund creation request fields and refund query record fields: not shown beyond ' +
    'the names above.", "Payout creation request fields and payout query record fields: not shown beyond the names above."',
  finishView: (kind, named) => {
    if (kind === 'checkout') return renameKeys(named, { order_no: 'trade_no', status: 'state', checkout_url: 'pay_url' });
    if (kind === 'payment') return renameKeys(named, { order_no: 'trade_no', status: 'state' });
    if (kind === 'refund')
      return renameKeys(named, { refund_no: 'refund_order_no', refund_amount: 'amount', reason: 'refund_reason', status: 'refund_status' });
    return renameKeys(named, {
      payout_no: 'payout_order_no',
      payment_method: 'payout_method',
      trans_amount: 'amount',
      payee: 'beneficiary',
      status: 'payout_status',
    });
  },
});

export const uuidServiceNumbers = defineReading({
  name: 'uuid-service-numbers',
  doc:
    'Service numbers are random UUIDs: "`order_no` (service\'s number)", "Identified by `refund_no` ' +
    '(service\'s number)", "Identified by `payout_no` (service\'s number)"; no shape is shown.',
  formatServiceNo: () => randomUUID(),
});

const OFFSET_MIN = 330;

export const nonUtcOffsetTimes = defineReading({
  name: 'non-utc-offset-times',
  doc:
    'Times carry milliseconds and the +05:30 offset: "Times | RFC 3339 ' +
    'strings with an offset. Clients read the offset and do not assume UTC."',
  formatTime: (ms) => {
    const local = new Date(ms + OFFSET_MIN * 60_000).toISOString().slice(0, 23);
    return `${local}+${String(Math.floor(OFFSET_MIN / 60)).padStart(2, '0')}:${String(OFFSET_MIN % 60).padStart(2, '0')}`;
  },
});

export const refundsCreatedPending = defineReading({
  name: 'refunds-created-pending',
  doc:
    'Every refund is created PENDING and settled later, on every channel: "`refund.updated` is sent ' +
    'when a refund is created (as `PENDING` or `SUCCESS`) and when it becomes `SUCCESS` or `FAILED`."',
  refundSettlesAtOnce: () => false,
});

export const foreignMerchantOrderNoDenied = defineReading({
  name: 'foreign-merchant-order-no-denied',
  doc:
    'A payment query by a merchant_order_no that only another merchant has used is refused 403 orderAccessDenied: ' +
    '"No such order: code 2002 `orderNotFound`. Order of another merchant: code 403 `orderAccessDenied`."',
  foreignMerchantOrderNo: 'access-denied',
});

export const refundWebhookOwnMetadata = defineReading({
  name: 'refund-webhook-own-metadata',
  doc:
    "A refund.updated carries the refund's own metadata, an empty string as a refund request sends " +
    'none, not the payment\'s: "| `metadata` | string | all | The metadata sent, or an empty string. |"',
  finishWebhookBody: (body) => (body['event'] === 'refund.updated' ? { ...body, metadata: '' } : body),
});

export const extraMoneyFields = defineReading({
  name: 'extra-money-fields',
  doc:
    'Checkout answers and payment records carry another Amount object, refunded_amount (0.00 until refunded): "Response ' +
    '`data` fields of the checkout: not shown.", "Fields of the payment record returned by a payment query: not shown."',
  finishView: (kind, view) =>
    kind === 'payment' || kind === 'checkout' ? { ...view, refunded_amount: { currency: 'USD', value: '0.00' } } : view,
});
