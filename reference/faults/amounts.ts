/** Faults in amount validation and formatting. */
import { formatCents } from '../money.js';
import { defineFault } from './fault.js';

export const amountAccept3Decimals = defineFault({
  name: 'amount-accept-3-decimals',
  clause: 'amount.value.max-two-decimals',
  doc: 'Amounts with three decimals ("10.100") are accepted (rounded to cents) instead of refused.',
  maxAmountDecimals: 3,
});

export const amountOneDecimalEcho = defineFault({
  name: 'amount-one-decimal-echo',
  clause: 'amount.format.two-decimals-in-responses',
  doc: 'API responses drop trailing zero decimals ("12.50" is shown as "12.5").',
  formatAmount: (cents, channel) => (channel === 'response' ? formatCents(cents).replace(/0$/, '') : formatCents(cents)),
});
