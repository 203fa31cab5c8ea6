/** Faults in refund and payout rules. */
import { defineFault } from './fault.js';

export const refundExceedAllowed = defineFault({
  name: 'refund-exceed-allowed',
  clause: 'refund.amount.not-above-original',
  doc: 'Refunds above the amount charged (alone or with earlier refunds) are accepted.',
  refundCeilingCents: () => 10n ** 18n,
});

export const payoutCancelSuccess = defineFault({
  name: 'payout-cancel-success',
  clause: 'payout.cancel.not-cancelable-in-final-status',
  doc: 'A payout in status SUCCESS can be canceled.',
  payoutCancelable: (status) => status === 'PENDING' || status === 'SUCCESS',
});
