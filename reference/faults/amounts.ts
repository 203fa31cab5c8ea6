/** Faults in amount validation and formatting. */
import { formatCents } from '../money.js';
import { defineFault, PATHS, rewriteError, skipRule } from './fault.js';

export const amountAccept3Decimals = defineFault({
  name: 'amount-accept-3-decimals',
  clause: 'amount.value.max-2-decimals',
  doc: 'Amounts with three decimals ("10.100") are accepted (rounded to cents) instead of refused.',
  maxAmountDecimals: 3,
});

export const amountOneDecimalEcho = defineFault({
  name: 'amount-one-decimal-echo',
  clause: 'amount.value.two-decimals-out',
  doc: 'API responses drop trailing zero decimals ("12.50" is shown as "12.5").',
  formatAmount: (cents, channel) => (channel === 'response' ? formatCents(cents).replace(/0$/, '') : formatCents(cents)),
});

export const amountJsonNumberAccepted = defineFault({
  name: 'amount-json-number-accepted',
  clause: 'amount.value.string',
  doc: 'An amount value sent as a JSON number (12.5) is converted to a string and accepted.',
  normaliseRequest: (body) => mapAmounts(body, (a) => (typeof a['value'] === 'number' ? { ...a, value: String(a['value']) } : a)),
});

export const amountZeroAccepted = defineFault({
  name: 'amount-zero-accepted',
  clause: 'amount.value.positive',
  doc: 'The positivity check refuses only negative amounts, so "0.00" goes on to the channel checks.',
  isPositiveAmount: (cents) => cents >= 0n,
});

export const amountNegativeAccepted = defineFault({
  name: 'amount-negative-accepted',
  clause: 'amount.value.positive',
  doc: 'The positivity check refuses only zero, so a negative amount goes on to the channel checks.',
  isPositiveAmount: (cents) => cents !== 0n,
});

export const amountEurAccepted = defineFault({
  name: 'amount-eur-accepted',
  clause: 'amount.currency.usd-only',
  doc: 'A payment in another currency (EUR) is accepted and charged as if it were USD.',
  enforces: skipRule('payment.currency-usd'),
});

export const amountLowercaseCurrencyAccepted = defineFault({
  name: 'amount-lowercase-currency-accepted',
  clause: 'conv.currency.code',
  doc: 'A currency code in lower case ("usd") is upper-cased and accepted.',
  normaliseRequest: (body) =>
    mapAmounts(body, (a) => (typeof a['currency'] === 'string' ? { ...a, currency: a['currency'].toUpperCase() } : a)),
});

export const amountChannelRangeIgnored = defineFault({
  name: 'amount-channel-range-ignored',
  clause: 'limit.amount.channel-range',
  doc: "Payment amounts outside every channel's minimum and maximum are accepted.",
  enforces: skipRule('payment.channel-range'),
});

type Obj = Record<string, unknown>;

/** Applies `f` to every amount-shaped object ({currency, value}) of a request body, depth-bounded. */
function mapAmounts(body: Obj, f: (a: Obj) => Obj): Obj {
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > 8 || typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const o = v as Obj;
    const out: Obj = {};
    for (const [k, val] of Object.entries(o)) out[k] = walk(val, depth + 1);
    return 'currency' in o && 'value' in o ? f(out) : out;
  };
  return walk(body, 0) as Obj;
}

export const decimalsAsInvalidAmount = defineFault({
  name: 'decimals-as-invalid-amount',
  clause: 'err.pay.decimals',
  doc: 'A payment amount with more than two decimals is refused 422 invalidAmount instead of validationFailed.',
  mapError: rewriteError({ key: 'validationFailed', detail: /decimal places/, to: { key: 'invalidAmount' } }),
});

export const nonPositiveAsValidationFailed = defineFault({
  name: 'non-positive-as-validation-failed',
  clause: 'err.pay.invalid-amount',
  doc: 'A zero or negative payment amount is refused 422 validationFailed instead of invalidAmount.',
  mapError: rewriteError({ key: 'invalidAmount', to: { key: 'validationFailed' } }),
});

export const currencyAsValidationFailed = defineFault({
  name: 'currency-as-validation-failed',
  clause: 'err.pay.currency',
  doc: 'A payment in a currency other than USD is refused 422 validationFailed instead of notSupported.',
  mapError: rewriteError({ key: 'notSupported', detail: /^Currency /, to: { key: 'validationFailed' } }),
});

export const outOfRangeCode422 = defineFault({
  name: 'out-of-range-code-422',
  clause: 'err.pay.amount-out-of-range',
  doc: "A payment amount outside every channel's range is refused with code 422 instead of 2006 (key amountOutOfRange kept).",
  mapError: (err, path) =>
    path === PATHS.checkout || path === PATHS.card ? rewriteError({ key: 'amountOutOfRange', to: { code: 422 } })(err, path) : err,
});

export const outOfRangeAsForbidden = defineFault({
  name: 'out-of-range-as-forbidden',
  clause: 'auth.amount-errors-unrelated',
  doc: 'A payment amount outside every channel\'s range is refused as code 403 forbidden "Invalid signature", as if signing had failed.',
  mapError: (err, path) =>
    path === PATHS.checkout || path === PATHS.card
      ? rewriteError({ key: 'amountOutOfRange', to: { code: 403, key: 'forbidden', detail: 'Invalid signature' } })(err, path)
      : err,
});
