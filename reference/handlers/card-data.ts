/**
 * Card data: its shape (400 naming Card.* fields) and its validity. Invalid card data is not a
 * request error in this interface: it is reported as systemBusy, before anything is recorded.
 */
import { E } from '../errors.js';
import type { Fields } from '../validate.js';

export const CARD_KEYS = ['card_number', 'cardholder_name', 'exp_month', 'exp_year', 'cvc'] as const;
export const BILLING_KEYS = [
  'country',
  'first_name',
  'last_name',
  'email',
  'phone',
  'state',
  'city',
  'address',
  'street_number',
  'postal_code',
] as const;

export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

export function readCard(f: Fields): CardInput {
  const c = f.requiredObject('card', CARD_KEYS);
  const number = c.requiredString('card_number', { max: 32 });
  c.requiredString('cardholder_name', { max: 128 });
  const expMonth = c.requiredInteger('exp_month');
  const expYear = c.requiredInteger('exp_year');
  const cvc = c.requiredString('cvc', { max: 8 });
  return { number, expMonth, expYear, cvc };
}

/** Billing fields are all strings; country and email are required. */
export function readBillingAddress(f: Fields): void {
  const b = f.requiredObject('billing_address', BILLING_KEYS);
  for (const key of BILLING_KEYS) {
    if (key === 'country' || key === 'email') b.requiredString(key, { max: 128 });
    else b.optionalString(key, { max: 128 });
  }
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Throws systemBusy for a bad number, expiry or CVC; `now` decides what "expired" means. */
export function ensureCardUsable(card: CardInput, now: number): void {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth() + 1;
  const numberOk = /^\d{12,19}$/.test(card.number) && luhnValid(card.number);
  const monthOk = card.expMonth >= 1 && card.expMonth <= 12;
  const notExpired = card.expYear > year || (card.expYear === year && card.expMonth >= month);
  const cvcOk = /^\d{3,4}$/.test(card.cvc);
  if (!(numberOk && monthOk && notExpired && cvcOk)) throw E.systemBusy();
}
