/**
 * Money: an amount's `value` (INTERFACE.md › Amount object: a decimal string with at most two
 * decimals) and its integer number of cents, exactly, with no floating point anywhere. The one
 * place the kit (harness, init, doctor, suites, fixtures) reads and writes amounts; the reference
 * keeps its own (ARCHITECTURE.md rule 2: a bug shared by both would cancel out).
 *
 * Pure and import-free, so fixtures may use it like the other pure harness helpers.
 */

/**
 * The document's amount format: digits, then optionally a point and one or two digits. "12.5" and
 * "12.50" are legal; a JSON number, three or more decimals, a sign, an exponent, spaces, ".5" and
 * "5." are not. Zero passes the format (profile fees and balances may be zero); that an amount
 * must be positive is a rule apart (`isLegalAmount`).
 */
const AMOUNT_FORMAT = /^(\d+)(?:\.(\d{1,2}))?$/;

/** Responses and webhooks always show two decimals (INTERFACE.md › Amount object); the profile writes amounts so too. */
const SHOWN_FORMAT = /^\d+\.\d{2}$/;

/** A value that is not in the document's amount format, where the caller required one. */
export class MoneyError extends Error {
  override name = 'MoneyError';
}

/** True when `value` is a string in the document's amount format (zero included). */
export function isAmountValue(value: unknown): value is string {
  return typeof value === 'string' && AMOUNT_FORMAT.test(value);
}

/** True when `value` is written as responses and webhooks show amounts (and the profile writes them): exactly two decimals. */
export function isShownValue(value: unknown): value is string {
  return typeof value === 'string' && SHOWN_FORMAT.test(value);
}

/** True when `value` is an amount a request may carry: the document's format, and positive. */
export function isLegalAmount(value: unknown): value is string {
  return isAmountValue(value) && centsOf(value) > 0n;
}

/** Cents of a value in the document's amount format ("12.5" → 1250n). Throws `MoneyError` on anything else. */
export function centsOf(value: string): bigint {
  const cents = tryCentsOf(value);
  if (cents === undefined) throw new MoneyError(`not a decimal amount with at most two decimals: ${JSON.stringify(value)}`);
  return cents;
}

/**
 * Cents of a value in the document's amount format, or undefined for anything else (a target's
 * non-conforming answer: a JSON number, "12.500", garbage) — for callers that must go on reading.
 */
export function tryCentsOf(value: unknown): bigint | undefined {
  if (typeof value !== 'string') return undefined;
  const m = AMOUNT_FORMAT.exec(value);
  if (!m) return undefined;
  return BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
}

/**
 * `centsOf` as a number, for callers that still count cents in numbers (fast-check integers, the
 * stateful model, channel spans); exact, and refused above 2^53 cents.
 */
export function centsNumberOf(value: string): number {
  const cents = centsOf(value);
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) throw new MoneyError(`${value} is beyond the cents a number holds exactly`);
  return Number(cents);
}

/**
 * The value of `cents` as responses show it, with two decimals (1250n → "12.50"), or with fewer
 * when a check means to send a shorter writing ("12.5", "12"): `cents` must then be a multiple of
 * 10 or 100. Negative cents are written with a minus sign (values the document refuses).
 * A number is accepted for callers that still count cents in numbers; it must be a safe integer.
 */
export function valueOfCents(cents: bigint | number, decimals: 0 | 1 | 2 = 2): string {
  if (typeof cents === 'number' && !Number.isSafeInteger(cents)) throw new MoneyError(`not an integer number of cents: ${cents}`);
  const c = BigInt(cents);
  const step = 10n ** BigInt(2 - decimals);
  if (c % step !== 0n) throw new MoneyError(`${c} cents cannot be written with ${decimals} decimal(s)`);
  const sign = c < 0n ? '-' : '';
  const abs = c < 0n ? -c : c;
  const whole = `${sign}${abs / 100n}`;
  const frac = String(abs % 100n).padStart(2, '0');
  return decimals === 0 ? whole : `${whole}.${frac.slice(0, decimals)}`;
}

/** A value as responses and webhooks show the same amount, with two decimals ("12.5" → "12.50"). Throws like `centsOf`. */
export function shownValue(value: string): string {
  return valueOfCents(centsOf(value));
}

/** Order of two amounts in cents, for `sort`. */
export function compareCents(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The larger of two amounts in cents. */
export function maxCents(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
