/**
 * Decimal amounts as integer cents (BigInt), so no float ever rounds a customer's money. The kit's own reading of
 * amounts is harness/facts/money.ts; this twin is the reference's, kept apart on purpose (a bug shared by both would
 * cancel out).
 */

/** The value's textual shape; anything else is a format error (400), not a business error. */
export const AMOUNT_VALUE_RE = /^-?\d+(\.\d+)?$/;

/** Above 999999999999.99 nothing is accepted anyway; clamping keeps BigInt parsing cheap for huge digit strings. */
export const MAX_AMOUNT_CENTS = 99_999_999_999_999n;
const CLAMPED = MAX_AMOUNT_CENTS * 100n;

export function decimalPlaces(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/**
 * Cents for a value that already matched AMOUNT_VALUE_RE. Digits past the second decimal are
 * rounded half-up; only a fault that accepts three decimals ever gets that far.
 */
export function toCents(text: string): bigint {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const intPart = (dot < 0 ? body : body.slice(0, dot)).replace(/^0+(?=\d)/, '');
  const frac = dot < 0 ? '' : body.slice(dot + 1);
  let cents: bigint;
  if (intPart.length > 15) {
    cents = CLAMPED;
  } else {
    cents = BigInt(intPart) * 100n + BigInt((frac + '00').slice(0, 2));
    if (frac.length > 2 && frac.charCodeAt(2) >= 0x35 /* '5' */) cents += 1n;
  }
  return negative ? -cents : cents;
}

/** Always two decimals: "12.5" is answered as "12.50". */
export function formatCents(cents: bigint): string {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const whole = abs / 100n;
  const frac = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}
