/** Faults in merchant-number idempotency. */
import { defineFault, PATHS, rewriteError, skipRule } from './fault.js';

export const idemReplay = defineFault({
  name: 'idem-replay',
  clause: 'idem.no-replay',
  doc: 'A repeated merchant number returns the original success response instead of a refusal.',
  duplicatePolicy: 'replay',
});

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
  clause: 'idem.payment.refused',
  doc: 'A repeated merchant_order_no is refused with code 400 instead of 422 (key duplicateMerchantOrder kept).',
  mapError: rewriteError({ key: 'duplicateMerchantOrder', to: { code: 400 } }),
});

export const duplicateRefundWrongKey = defineFault({
  name: 'duplicate-refund-wrong-key',
  clause: 'idem.refund.refused',
  doc: 'A repeated merchant_refund_no is refused with key duplicateMerchantOrder instead of duplicateRefundOrder.',
  mapError: rewriteError({ path: PATHS.refundCreate, key: 'duplicateRefundOrder', to: { key: 'duplicateMerchantOrder', detail: 'Merchant order number already exists' } }),
});
