/**
 * Test cards with other outcomes: published sandbox numbers are tried and each answer classified by
 * the document's catalogue (Payment errors) — 422 paymentFailed is a provider decline, 422
 * validationFailed "…risk…" a risk refusal and "…channel…" no channel; a charged card whose status is
 * not the success card's stays pending, and the status it shows is the card payment's pending one. An invalid card is
 * made, not looked up: the success card with its last digit changed fails the Luhn check ("an invalid card number", 422
 * systemBusy).
 */
import type { Card } from '../profile/types.js';
import type { CardResult } from './card-refund.js';
import { OTHER_CARD_CANDIDATES } from './candidates.js';
import type { Evidence } from './evidence.js';
import { getPath } from './fields.js';
import { type Answer, describe, isBusy, type Prober, postFresh } from './prober.js';

export type CardKind = 'decline' | 'risk' | 'invalid' | 'noChannel' | 'pending';

/** Whether a card number passes the Luhn check (every second digit from the right doubled, digits summed, a multiple of 10). */
export function luhnValid(n: string): boolean {
  let sum = 0;
  [...n].reverse().forEach((ch, i) => {
    const d = Number(ch) * (i % 2 === 1 ? 2 : 1);
    sum += d > 9 ? d - 9 : d;
  });
  return sum % 10 === 0;
}

export function luhnBroken(number: string): string {
  const last = Number(number.at(-1));
  return number.slice(0, -1) + String((last + 1) % 10);
}

function kindOf(a: Answer, successStatus: unknown, statusPath: string | undefined): CardKind | undefined {
  if (a.code === 0 && a.data && statusPath) return getPath(a.data, statusPath) !== successStatus ? 'pending' : undefined;
  if (a.code !== 422) return undefined;
  if (a.key === 'paymentFailed') return 'decline';
  if (a.key === 'validationFailed' && /risk/i.test(a.message ?? '')) return 'risk';
  if (a.key === 'validationFailed' && /channel/i.test(a.message ?? '')) return 'noChannel';
  return undefined;
}

export async function learnOtherCards(
  p: Prober,
  ev: Evidence,
  cardPath: string,
  card: CardResult,
  successStatus: unknown,
  notifyUrl: string,
): Promise<OtherCards> {
  p.phase(`card payments: ${OTHER_CARD_CANDIDATES.length} published test cards and a Luhn-broken one`);
  const found: Partial<Record<CardKind, Card>> = {};
  const declines: Card[] = [];
  let pendingStatus: string | undefined;
  const bodyWith = (number: string, no: string) => {
    const body = card.body(no, card.paid.cents, notifyUrl);
    body.card = { ...card.card, card_number: number };
    return body;
  };
  for (const number of OTHER_CARD_CANDIDATES) {
    // systemBusy also answers an invalid card: a published number is tried under fresh order numbers before it is taken so.
    const { answer: a } = await postFresh(p, cardPath, 'o', (no) => bodyWith(number, no));
    const kind = kindOf(a, successStatus, card.data.status);
    if (kind && !found[kind]) {
      found[kind] = { ...card.card, card_number: number };
      ev.learnt(`cardPayment.cards.${kind}`, number, `a published test number; a card payment with it was answered ${describe(a)}`);
      if (kind === 'pending' && card.data.status) {
        pendingStatus = String(getPath(a.data, card.data.status));
        ev.learnt('cardPayment.pendingStatus', pendingStatus, `the status of a card payment with ${number}, answered ${describe(a)}`);
      }
    } else if (kind === 'decline') {
      declines.push({ ...card.card, card_number: number });
      ev.learnt('cardPayment.declines', number, `another published test number; a card payment with it was answered ${describe(a)}`);
    }
  }
  const broken = luhnBroken(card.card.card_number);
  // Busy under three order numbers: the card, not a number the sandbox fails by design.
  const { answer: a } = await postFresh(p, cardPath, 'o', (no) => bodyWith(broken, no));
  if (isBusy(a)) {
    found.invalid = { ...card.card, card_number: broken };
    ev.learnt(
      'cardPayment.cards.invalid',
      broken,
      `the success card with its last digit changed (fails the Luhn check) was answered ${describe(a)}`,
    );
  }
  return { cards: found, declines, ...(pendingStatus === undefined ? {} : { pendingStatus }) };
}

export interface OtherCards {
  cards: Partial<Record<CardKind, Card>>;
  /** Decline cards beyond the first (profile version 3 `cardPayment.declines`). */
  declines: Card[];
  /**
   * The status the pending card's payment showed (it awaits its 3-D Secure step): `cardPayment.pendingStatus` where a new
   * checkout shows another.
   */
  pendingStatus?: string;
}
