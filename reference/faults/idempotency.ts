/** Faults in merchant-number idempotency. */
import { defineFault, PATHS, rewriteError, skipRule } from './fault.js';

export const idemReplay = defineFault({
  name: 'idem-replay',
  clause: 'idem.no-replay',
  doc: 'A repeated merchant number returns the original success response instead of a refusal.',
  duplicatePolicy: 'replay',
});

// The one mutant of the shared scope. `refund-number-free-for-payments` (payments checked against payment numbers only,
// refunds against both) was dropped as its duplicate: the two differ only in a refund numbered like a payment,
// which the document lets a target accept or refuse, so no violation tells them apart.
export const idemSeparateNamespaces = defineFault({
  name: 'idem-separate-namespaces',
  clause: 'idem.payment.shared-with-refunds',
  doc: 'Refund numbers live apart from payment numbers, so the same number can be used for both.',
  idempotencyNamespace: (kind) => (kind === 'payment' ? 'orders' : kind === 'refund' ? 'refunds' : 'payouts'),
});

export const declinedFreesNumber = defineFault({
  name: 'declined-frees-number',
  clause: 'idem.refused-stays-used',
  doc: 'A number used by a recorded-then-refused request (declined card, failed refund) can be reused.',
  recordedRefusalKeepsNumber: false,
});

export const idemPayoutDuplicateAccepted = defineFault({
  name: 'idem-payout-duplicate-accepted',
  clause: 'idem.payout.refused',
  doc: 'A repeated merchant_payout_no creates a second payout instead of being refused.',
  enforces: skipRule('payout.unique-number'),
});

export const duplicateOrderCode400 = defineFault({
  name: 'duplicate-order-code-400',
  clause: 'err.pay.duplicate-order',
  doc: 'A repeated merchant_order_no is refused with code 400 instead of 422 (key duplicateMerchantOrder kept).',
  mapError: rewriteError({ key: 'duplicateMerchantOrder', to: { code: 400 } }),
});

export const duplicateRefundWrongKey = defineFault({
  name: 'duplicate-refund-wrong-key',
  clause: 'idem.refund.refused',
  doc: 'A repeated merchant_refund_no is refused with key duplicateMerchantOrder instead of duplicateRefundOrder.',
  mapError: rewriteError({
    path: PATHS.refundCreate,
    key: 'duplicateRefundOrder',
    to: { key: 'duplicateMerchantOrder', detail: 'Merchant order number already exists' },
  }),
});

export const idemPaymentDuplicateAccepted = defineFault({
  name: 'idem-payment-duplicate-accepted',
  clause: 'idem.payment.refused',
  doc: 'A repeated merchant_order_no creates a second payment instead of being refused.',
  enforces: skipRule('payment.unique-number'),
});

export const repeatFailsOriginal = defineFault({
  name: 'repeat-fails-original',
  clause: 'idem.original-unchanged',
  doc: 'A refused repeat of a pending payment number marks the original payment FAILED.',
  repeatFailsOriginal: true,
});

export const refundNumberFreeForPayments = defineFault({
  name: 'refund-number-free-for-payments',
  clause: 'idem.refund-blocks-payment',
  doc: 'A refund number equal to a payment order number never blocks that payment number: payments check payment numbers only.',
  numberBlocks: (kind, holder) => !(kind === 'payment' && holder === 'refund'),
});
