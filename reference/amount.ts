/**
 * The Amount object in two stages, because the interface splits its errors that way: a wrong
 * shape is a request error (400), while too many decimals or a non-positive value are business
 * errors (422) decided after the whole request has been read.
 */
import { ApiError, E } from './errors.js';
import { AMOUNT_VALUE_RE, decimalPlaces, toCents } from './money.js';
import type { Fields } from './validate.js';

export interface AmountInput {
  readonly currency: string;
  /** The value exactly as sent, already known to match AMOUNT_VALUE_RE. */
  readonly text: string;
}

const CURRENCY_RE = /^[A-Z]{3}$/;

export function readAmount(parent: Fields, key: string): AmountInput {
  const obj = parent.requiredObject(key, ['currency', 'value']);
  const currency = obj.requiredString('currency', { max: 3 });
  if (!CURRENCY_RE.test(currency)) {
    throw E.invalidRequest(`Field ${obj.name('currency')} must be a three-letter upper-case code`);
  }
  // A JSON number is refused: floats cannot carry "12.50" faithfully.
  const text = obj.requiredString('value', { max: Number.MAX_SAFE_INTEGER });
  if (!AMOUNT_VALUE_RE.test(text)) {
    throw E.invalidRequest(`Field ${obj.name('value')} must be a decimal string such as "12.50"`);
  }
  return { currency, text };
}

/** Decimals first, then positivity, as the interface's error tables order them. */
export function amountCents(
  a: AmountInput,
  maxDecimals: number,
  notPositiveKey: 'invalidAmount' | 'invalidRefundAmount',
  isPositive: (cents: bigint) => boolean = (c) => c > 0n,
): bigint {
  if (decimalPlaces(a.text) > maxDecimals) {
    throw E.validationFailed('Amount has more than 2 decimal places');
  }
  const cents = toCents(a.text);
  if (!isPositive(cents)) {
    const what = notPositiveKey === 'invalidAmount' ? 'Amount' : 'Refund amount';
    throw new ApiError(422, notPositiveKey, `${what} must be a positive number`);
  }
  return cents;
}
