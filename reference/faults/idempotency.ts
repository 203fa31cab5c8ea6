/** Faults in merchant-number idempotency. */
import { defineFault } from './fault.js';

export const idemReplay = defineFault({
  name: 'idem-replay',
  clause: 'idempotency.repeat.refused-not-replayed',
  doc: 'A repeated merchant number returns the original success response instead of a refusal.',
  duplicatePolicy: 'replay',
});

export const idemSeparateNamespaces = defineFault({
  name: 'idem-separate-namespaces',
  clause: 'idempotency.scope.shared-order-refund-numbers',
  doc: 'Refund numbers live apart from payment numbers, so the same number can be used for both.',
  idempotencyNamespace: (kind) => (kind === 'payment' ? 'orders' : kind === 'refund' ? 'refunds' : 'payouts'),
});

export const declinedFreesNumber = defineFault({
  name: 'declined-frees-number',
  clause: 'idempotency.refused.number-stays-used',
  doc: 'A number used by a recorded-then-refused request (declined card, failed refund) can be reused.',
  recordedRefusalKeepsNumber: false,
});
