/**
 * The ways a sandbox causes each failure no ordinary request provokes (queryFailed, order creation systemBusy, refund
 * systemBusy, refundFailed): the switch sandbox.armFailure, and (version 5, sandbox.triggers) a magic value in a request
 * or a request header. Real sandboxes mostly use magic values: an order-number prefix, a refund amount ending in .91, a
 * card number, an e-mail, a mock-response header. One reading of the profile for the checks, the doctor and the loader:
 * the ways of each kind (`triggersOf`), and the magic values every value the kit draws must avoid (`MagicValues`), since
 * a drawn partial refund of 7.91 on a sandbox that fails refunds ending in .91 fails by the vendor's design, not by a
 * broken rule.
 *
 * Pure and import-free but for types and money, so fixtures may use it like the other pure profile helpers.
 */
import { isAmountValue, tryCentsOf, valueOfCents } from '../facts/money.js';
import type { ArmFailureKind, FailureTrigger, Profile, TriggerWay } from './types.js';

export const FAILURE_KINDS: readonly ArmFailureKind[] = ['queryFailed', 'orderCreationFailed', 'refundSystemBusy', 'refundFailed'];
const REFUND_KIND_SET: ReadonlySet<string> = new Set(['refundSystemBusy', 'refundFailed']);
export const TRIGGER_WAYS: readonly TriggerWay[] = [
  'control',
  'amount',
  'amountEnding',
  'numberPrefix',
  'numberSuffix',
  'card',
  'email',
  'reason',
  'header',
];
/** Where an e-mail trigger goes in a payment's creation body when the profile names no field. */
export const DEFAULT_EMAIL_FIELD = 'billing_address.email';

/**
 * The ways `kind` is caused, in the profile's order: those sandbox.triggers lists, then the switch where its failures
 * name the kind (a version-4 profile keeps meaning what it meant), then for refundFailed refunds.failingReason.
 */
export function triggersOf(p: Pick<Profile, 'sandbox' | 'refunds'>, kind: ArmFailureKind): FailureTrigger[] {
  const out: FailureTrigger[] = [...(p.sandbox?.triggers?.[kind] ?? [])];
  if (p.sandbox?.armFailure?.failures[kind] !== undefined && !out.some((w) => w.way === 'control')) out.push({ way: 'control' });
  const reason = p.refunds?.failingReason;
  if (kind === 'refundFailed' && reason !== undefined && !out.some((w) => w.way === 'reason' && w.value === reason))
    out.push({ way: 'reason', value: reason });
  return out;
}

/** The profile's field a way is declared at, for a finding, a skip or the doctor: `sandbox.triggers.refundFailed[1]`. */
export function triggerPath(p: Pick<Profile, 'sandbox' | 'refunds'>, kind: ArmFailureKind, w: FailureTrigger): string {
  const i = (p.sandbox?.triggers?.[kind] ?? []).indexOf(w);
  if (i >= 0) return `sandbox.triggers.${kind}[${i}]`;
  if (w.way === 'control') return `sandbox.armFailure.failures.${kind}`;
  return 'refunds.failingReason';
}

/** A way in words: "the order number's prefix QF-", "a refund amount ending in .91", "the header X-Mock: BUSY". */
export function describeTrigger(w: FailureTrigger): string {
  switch (w.way) {
    case 'control':
      return 'the switch sandbox.armFailure';
    case 'amount':
      return `the amount ${w.value}`;
    case 'amountEnding':
      return `an amount ending in ${w.value}`;
    case 'numberPrefix':
      return `the prefix ${JSON.stringify(w.value)} of ${w.number}`;
    case 'numberSuffix':
      return `the suffix ${JSON.stringify(w.value)} of ${w.number}`;
    case 'card':
      return `the card ${w.value}`;
    case 'email':
      return `the e-mail ${w.value} (${w.field ?? DEFAULT_EMAIL_FIELD})`;
    case 'reason':
      return `the refund reason ${JSON.stringify(w.value)}`;
    case 'header':
      return `the header ${w.name}: ${w.value}`;
  }
}

/** Whether `kind` is a refund's creation (its amount and numbers are the refund's). */
export function isRefundKind(kind: ArmFailureKind): boolean {
  return REFUND_KIND_SET.has(kind);
}

/** Whether a two-decimal amount is the magic one or ends with the magic ending. */
export function amountHits(w: FailureTrigger, cents: bigint): boolean {
  if (w.way === 'amount') return tryCentsOf(w.value) === cents;
  if (w.way === 'amountEnding') return valueOfCents(cents).endsWith(w.value);
  return false;
}

/**
 * The cents of an amount that carries an amount trigger, inside `[min, max]` and as near `near` as it can: the exact
 * amount, or `near` with its ending replaced; undefined when none lies inside.
 */
export function centsCarrying(w: FailureTrigger, range: { min: bigint; max: bigint }, near: bigint): bigint | undefined {
  const inside = (c: bigint) => c >= range.min && c <= range.max && c > 0n;
  if (w.way === 'amount') {
    const c = tryCentsOf(w.value);
    return c !== undefined && inside(c) ? c : undefined;
  }
  if (w.way !== 'amountEnding') return undefined;
  const digits = w.value.replace('.', '');
  const step = 10n ** BigInt(digits.length);
  const end = BigInt(digits);
  const base = (near / step) * step + end;
  for (const c of [base, base - step, base + step, range.min - (range.min % step) + end, range.min - (range.min % step) + end + step])
    if (inside(c)) return c;
  return undefined;
}

/** The magic values every value the kit draws must avoid, from every kind's ways. */
export class MagicValues {
  readonly ways: readonly FailureTrigger[];
  constructor(p: Pick<Profile, 'sandbox' | 'refunds'>) {
    this.ways = FAILURE_KINDS.flatMap((k) => triggersOf(p, k)).filter((w) => w.way !== 'control');
  }
  /** Whether an amount (in cents) is one a declared way fails. */
  amount(cents: bigint | number): boolean {
    const c = BigInt(cents);
    return this.ways.some((w) => amountHits(w, c));
  }
  /** Whether a merchant number starts or ends as a declared way's (every number kind: they share one account). */
  number(no: string): boolean {
    return this.ways.some(
      (w) => (w.way === 'numberPrefix' && no.startsWith(w.value)) || (w.way === 'numberSuffix' && no.endsWith(w.value)),
    );
  }
  /** Whether a merchant number starts as a declared way's (a run's prefix must not: no counter after it helps). */
  numberStart(no: string): boolean {
    return this.ways.some((w) => w.way === 'numberPrefix' && no.startsWith(w.value));
  }
  /** Whether any amount is magic: callers with nothing to avoid skip the filtering. */
  get hasAmounts(): boolean {
    return this.ways.some((w) => w.way === 'amount' || w.way === 'amountEnding');
  }
  /** The nearest cents to `cents` (upwards first, then downwards) within `[min, max]` that no way fails; `cents` when none. */
  avoidAmount(cents: bigint, min = 1n, max = cents + 1000n): bigint {
    if (!this.amount(cents)) return cents;
    for (let d = 1n; d <= 1000n; d++) {
      if (cents + d <= max && !this.amount(cents + d)) return cents + d;
      if (cents - d >= min && !this.amount(cents - d)) return cents - d;
    }
    return cents;
  }
}

/** No magic values: what a profile without triggers has. */
export const NO_MAGIC = new MagicValues({});

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const ENDING = /^(\.\d{2}|\d{1,2})$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const SIGNING_HEADERS = ['x-merchantid', 'x-timestamp', 'x-nonce', 'x-sign', 'content-type', 'content-length', 'host'];

/** Problems of one way (dotted paths), for the loader: each way complete, and used where its kind can carry it. */
function wayProblems(w: Obj, kind: string, at: string, profile: Obj): string[] {
  const out: string[] = [];
  const way = w['way'];
  const value = w['value'];
  const str = (k: string) => typeof w[k] === 'string' && (w[k] as string).length > 0;
  const need = (k: string, what: string) => {
    if (!str(k)) out.push(`${at}.${k}: a "${String(way)}" way needs ${what}`);
  };
  if (way !== 'control' && way !== 'header' && !str('value')) need('value', 'its magic value (a non-empty string)');
  const sandbox = isObj(profile['sandbox']) ? profile['sandbox'] : {};
  const arm = isObj(sandbox['armFailure']) ? sandbox['armFailure'] : undefined;
  switch (way) {
    case 'control':
      if (!arm || !isObj(arm['failures']) || arm['failures'][kind] === undefined)
        out.push(`${at}: the switch causes ${kind} only when sandbox.armFailure.failures.${kind} says with what value; declare it there`);
      if (w['count'] !== undefined) out.push(`${at}.count: a switch's count is sandbox.armFailure.count`);
      break;
    case 'amount':
      if (typeof value === 'string' && (!isAmountValue(value) || tryCentsOf(value) === 0n))
        out.push(`${at}.value: a positive amount with at most two decimals, e.g. "5.02", got ${JSON.stringify(value)}`);
      break;
    case 'amountEnding':
      if (typeof value === 'string' && !ENDING.test(value))
        out.push(
          `${at}.value: the end of an amount written with two decimals: ".91" or "91" (7.91), "5" (1.05), got ${JSON.stringify(value)}`,
        );
      break;
    case 'numberPrefix':
    case 'numberSuffix':
      if (w['number'] !== 'merchantOrderNo' && w['number'] !== 'merchantRefundNo')
        out.push(`${at}.number: which number carries it: "merchantOrderNo" or "merchantRefundNo"`);
      else if (w['number'] === 'merchantRefundNo' && !REFUND_KIND_SET.has(kind))
        out.push(`${at}.number: ${kind} is no refund's: only the order number (merchantOrderNo) can carry it`);
      break;
    case 'card':
      if (typeof value === 'string' && !/^\d{8,19}$/.test(value)) out.push(`${at}.value: a card number of 8 to 19 digits`);
      if (!isObj(profile['cardPayment'])) out.push(`${at}: a card trigger needs a card payment (cardPayment) to send the card with`);
      break;
    case 'email':
      if (typeof value === 'string' && !/^[^\s@]+@[^\s@]+$/.test(value)) out.push(`${at}.value: an e-mail address`);
      if (w['field'] !== undefined && (typeof w['field'] !== 'string' || !/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/.test(w['field'])))
        out.push(`${at}.field: a dotted path of the payment's creation body, e.g. "billing_address.email"`);
      break;
    case 'reason':
      if (kind !== 'refundFailed' && kind !== 'refundSystemBusy') out.push(`${at}: a refund reason causes only a refund's failure`);
      break;
    case 'header':
      if (!str('name') || !HEADER_NAME.test(w['name'] as string)) out.push(`${at}.name: a header name, e.g. "X-Mock-Response"`);
      else if (SIGNING_HEADERS.includes((w['name'] as string).toLowerCase()))
        out.push(`${at}.name: ${String(w['name'])} is a header every request sends; a trigger needs a header of its own`);
      if (typeof w['value'] !== 'string') out.push(`${at}.value: the header's value (a string)`);
      break;
    default:
      out.push(`${at}.way: one of ${TRIGGER_WAYS.join(', ')}, got ${JSON.stringify(way)}`);
  }
  if (w['count'] !== undefined && (!Number.isSafeInteger(w['count']) || (w['count'] as number) < 1 || (w['count'] as number) > 20))
    out.push(`${at}.count: how many requests carrying it fail, 1 to 20 (absent: every one)`);
  return out;
}

/**
 * Problems of sandbox.triggers for the loader: each way complete (harness/profile/types.ts `FailureTrigger`), and no
 * value the kit sends by default a magic one (a success card, an e-mail of a template): every payment would then fail.
 */
export function triggerProblems(profile: Obj, secrets: readonly string[] = []): string[] {
  const sandbox = isObj(profile['sandbox']) ? profile['sandbox'] : {};
  const triggers = sandbox['triggers'];
  if (triggers === undefined) return [];
  if (!isObj(triggers)) return ['sandbox.triggers: an object of failure kinds, each a list of ways'];
  const out: string[] = [];
  for (const [kind, list] of Object.entries(triggers)) {
    const at = `sandbox.triggers.${kind}`;
    if (!(FAILURE_KINDS as readonly string[]).includes(kind)) {
      out.push(`${at}: not a failure kind (${FAILURE_KINDS.join(', ')})`);
      continue;
    }
    if (!Array.isArray(list) || list.length === 0) {
      out.push(`${at}: a non-empty list of ways`);
      continue;
    }
    list.forEach((w, i) => {
      if (!isObj(w)) out.push(`${at}[${i}]: a way, e.g. {"way": "numberPrefix", "number": "merchantOrderNo", "value": "QF-"}`);
      else out.push(...wayProblems(w, kind, `${at}[${i}]`, profile));
    });
  }
  if (out.length > 0) return out;
  const magic = new MagicValues(profile as Pick<Profile, 'sandbox' | 'refunds'>);
  const cp = isObj(profile['cardPayment']) ? profile['cardPayment'] : {};
  const cards = isObj(cp['cards']) ? cp['cards'] : {};
  for (const [name, card] of Object.entries(cards)) {
    const no = isObj(card) ? card['card_number'] : undefined;
    const hit = magic.ways.find((w) => w.way === 'card' && w.value === no);
    if (hit) out.push(`cardPayment.cards.${name}: its number is a trigger's magic card (${describeTrigger(hit)}); give another card`);
  }
  const texts = JSON.stringify([cp['template'], profile['checkout']]);
  for (const w of magic.ways)
    if (w.way === 'email' && texts.includes(JSON.stringify(w.value)) && !secrets.includes(w.value))
      out.push(`cardPayment.template or checkout.extras: sends the magic e-mail of a trigger (${describeTrigger(w)}); give another one`);
  return out;
}
