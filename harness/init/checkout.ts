/**
 * Checkout: the fields a checkout needs beyond the document's four, which methods it accepts (and how it
 * refuses the others), where the answers put the order's number, status and amounts, and the internal
 * field names of its invalidRequest messages.
 */
import {
  FIRST_AMOUNTS_CENTS,
  INTERNAL_NAME_FIELDS,
  METHOD_CANDIDATES,
  QUERY_INTERNAL_NAME_FIELDS,
  STATUS_KEYS,
  UNKNOWN_METHOD,
} from './candidates.js';
import type { Evidence } from './evidence.js';
import {
  amount,
  completeBody,
  defaultFiller,
  deletePath,
  entries,
  fieldTokens,
  getPath,
  internalNameIn,
  isRequiredMessage,
  PROBE_GOODS_NAME,
  pathsOf,
  setPath,
  variable,
} from './fields.js';
import { describe, type Answer, isBusy, type Prober, postFresh } from './prober.js';
import { tryCentsOf } from '../facts/money.js';

export interface CheckoutShape {
  path: string;
  /** Literal extra fields; notify_url holds the receiver URL (written "${notifyUrl}" in the profile). */
  extras: Record<string, unknown>;
  /** Fields one method requires on top of `extras` (checkout.extrasByMethod). */
  byMethod: Record<string, Record<string, unknown>>;
  notifyUrl: string;
}

export function checkoutBody(shape: CheckoutShape, method: string, cents: bigint, no: string): Record<string, unknown> {
  return {
    payment_method: method,
    merchant_order_no: no,
    trans_amount: amount(cents),
    trade_info: { goods_name: PROBE_GOODS_NAME },
    ...structuredClone(shape.extras),
    ...structuredClone(shape.byMethod[method] ?? {}),
  };
}

/** Top-level fields added by a completion, with their values. */
function topLevel(body: Record<string, unknown>, added: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of added) {
    const top = f.split('.')[0]!;
    out[top] = structuredClone(body[top]);
  }
  return out;
}

export async function learnCheckoutShape(
  p: Prober,
  ev: Evidence,
  path: string,
  notifyUrl: string,
  firstMethod: string = METHOD_CANDIDATES[0]!,
  /** The vendor's checkout.extras (--hint, --hints, --openapi): a field asked for gets the value told, not init's guess. */
  toldExtras: Record<string, unknown> = {},
): Promise<CheckoutShape> {
  p.phase('checkout: required fields');
  const base = {
    payment_method: firstMethod,
    merchant_order_no: '',
    trans_amount: amount(1000n),
    trade_info: { goods_name: PROBE_GOODS_NAME },
  };
  const guess = defaultFiller(notifyUrl, () => amount(1000n));
  // A literal the vendor gave for a top-level field (a metadata value every payment must carry) is sent as given; a
  // variable of the template is init's to fill.
  const filler = (snake: string) => {
    const told = toldExtras[snake];
    const literal = told !== undefined && !(typeof told === 'string' && told.includes('${')) && !snake.includes('.');
    return literal ? structuredClone(told) : guess(snake);
  };
  const done = await completeBody(p, path, base, filler, (b) => {
    b.merchant_order_no = p.newNo('o');
  });
  const extras = topLevel(done.body, done.added);
  if (done.added.length > 0)
    ev.learnt(
      'checkout.extras',
      extrasTemplate(extras, notifyUrl),
      `a ${base.payment_method} checkout: the target answered "required" ` +
        `for ${done.added.join(', ')} (last answer: ${describe(done.answer)})`,
    );
  return { path, extras, byMethod: {}, notifyUrl };
}

/** The profile's form of the extras: the receiver's URL becomes the template variable. */
export function extrasTemplate(extras: Record<string, unknown>, notifyUrl: string): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(extras)
      .split(JSON.stringify(notifyUrl))
      .join(JSON.stringify(variable('notifyUrl'))),
  ) as Record<string, unknown>;
}

export type MethodClass = 'accepted' | 'unknown' | 'notEnabled' | 'noChannel' | 'other';

export interface MethodFinding {
  method: string;
  cls: MethodClass;
  /** An amount accepted (code 0), with the answer. */
  accepted?: { cents: bigint; no: string; data: Record<string, unknown> };
  /** Charged differently from the request: a price-point method. */
  pricePoint: boolean;
  evidence: string;
}

export function classify(a: Answer): MethodClass | 'amount' {
  if (!a.envelope) return 'other';
  if (a.code === 0) return 'accepted';
  if (a.key === 'unsupportedPaymentMethod') return 'unknown';
  if (a.key === 'paymentMethodUnavailable') return 'notEnabled';
  if (a.key === 'amountOutOfRange' || a.key === 'notSupported') return 'amount';
  if (a.key === 'validationFailed') return 'noChannel';
  return 'other';
}

/** Names of money fields that are not the amount charged (refunds, fees, balances, settlements). */
const NOT_CHARGED = /refund|fee|balance|settle|net|tax|tip|discount|requested|original/i;

/**
 * The amount charged, when an answer identifies it and it differs from the one asked: what a price point
 * rounded to. The record's charged amount is `trans_amount` where the answer has one (the document's name);
 * otherwise the one Amount object, among those not named like another money field, that differs from the
 * request. A zero is never a charge (amounts are positive): a `refunded_amount` of 0.00 proves nothing.
 * Undefined when nothing differs, or when the charged amount cannot be told apart.
 */
export function chargedOtherThan(data: Record<string, unknown>, cents: bigint): bigint | undefined {
  const amounts: [string, bigint][] = [];
  for (const [path, v] of entries(data)) {
    if (v && typeof v === 'object' && 'value' in v && 'currency' in v) {
      const c = tryCentsOf(String((v as { value: unknown }).value));
      if (c !== undefined) amounts.push([path.split('.').pop()!, c]);
    }
  }
  const named = amounts.filter(([k]) => k === 'trans_amount');
  if (named.length > 0) {
    const values = new Set(named.map(([, c]) => c));
    const [only] = [...values];
    return values.size === 1 && only !== undefined && only > 0n && only !== cents ? only : undefined;
  }
  const differing = amounts.filter(([k, c]) => !NOT_CHARGED.test(k) && c > 0n && c !== cents);
  return differing.length === 1 ? differing[0]![1] : undefined;
}

/** The names tried: the vendor's first (--hint, --hints, --openapi), then init's own candidates. */
export function candidateMethods(told: readonly string[]): string[] {
  return [...new Set([...told, ...METHOD_CANDIDATES])];
}

/** `out` is filled as methods are classified, so a budget spent midway keeps those already known. */
export async function classifyMethods(
  p: Prober,
  ev: Evidence,
  shape: CheckoutShape,
  out: MethodFinding[] = [],
  names: readonly string[] = METHOD_CANDIDATES,
): Promise<MethodFinding[]> {
  p.phase(`checkout: payment methods (${names.length} candidates and one unknown name)`);
  for (const method of [...names, UNKNOWN_METHOD]) {
    let finding: MethodFinding | undefined;
    const seen: string[] = [];
    let refusedForAmount = false;
    for (const cents of FIRST_AMOUNTS_CENTS) {
      // A number init happened to draw may be one the sandbox fails (systemBusy): postFresh tries another.
      let { answer: a, no } = await postFresh(p, shape.path, 'o', (n) => checkoutBody(shape, method, cents, n));
      if (isRequiredMessage(a)) {
        // This method needs more fields than the first one did: they are its extrasByMethod.
        const done = await completeBody(
          p,
          shape.path,
          checkoutBody(shape, method, cents, no),
          defaultFiller(shape.notifyUrl, () => amount(cents)),
          (b) => {
            no = p.newNo('o');
            b.merchant_order_no = no;
          },
        );
        a = done.answer;
        if (done.added.length > 0) {
          // Beside what the vendor said the method requires (run.ts seeds it), never instead of it.
          shape.byMethod[method] = { ...shape.byMethod[method], ...topLevel(done.body, done.added) };
          ev.learnt(
            `checkout.extrasByMethod.${method}`,
            extrasTemplate(shape.byMethod[method], shape.notifyUrl),
            `a ${method} checkout: the target answered "required" for ${done.added.join(', ')} (then ${describe(a)})`,
          );
        }
      }
      seen.push(`${amount(cents).value} → ${describe(a)}`);
      const c = classify(a);
      if (c === 'amount') refusedForAmount = true;
      // Busy under fresh numbers: the sandbox may fail this amount by design (a magic amount); another amount says more.
      if (c === 'amount' || (c === 'other' && isBusy(a))) continue;
      finding = { method, cls: c, pricePoint: false, evidence: seen.join('; ') };
      if (c === 'accepted' && a.data) {
        finding.accepted = { cents, no, data: a.data };
        const charged = chargedOtherThan(a.data, cents);
        finding.pricePoint = charged !== undefined;
        if (charged !== undefined) {
          // One rounded answer is not enough: a cent more must be rounded too (or refused for its amount),
          // never charged as asked, before the method is called a price-point one.
          seen[seen.length - 1] += ` (charged ${amount(charged).value})`;
          const { answer: b } = await postFresh(p, shape.path, 'o', (n) => checkoutBody(shape, method, cents + 1n, n));
          const again = b.code === 0 && b.data ? chargedOtherThan(b.data, cents + 1n) : undefined;
          seen.push(`${amount(cents + 1n).value} → ${describe(b)}${again !== undefined ? ` (charged ${amount(again).value})` : ''}`);
          if (b.code === 0 && again === undefined) {
            finding.pricePoint = false;
            ev.todo(`methods.pricePoint (${method})`, `whether ${method} rounds to price points: ${seen.slice(-2).join('; ')} disagree`);
          }
          finding.evidence = seen.join('; ');
        } else {
          // A cent more: a plain method charges it as asked; a price-point one whose tier was hit rounds it.
          const { answer: b, no: next } = await postFresh(p, shape.path, 'o', (n) => checkoutBody(shape, method, cents + 1n, n));
          seen.push(`${amount(cents + 1n).value} → ${describe(b)}`);
          const rounded = b.code === 0 && b.data ? chargedOtherThan(b.data, cents + 1n) : undefined;
          if (rounded !== undefined && b.data) {
            seen[seen.length - 1] += ` (charged ${amount(rounded).value})`;
            finding.accepted = { cents: cents + 1n, no: next, data: b.data };
            finding.pricePoint = true;
          }
          finding.evidence = seen.join('; ');
        }
      }
      break;
    }
    // Refused for its amount at every probe: known and enabled, limits not found at these amounts. Whether it rounds to
    // price points is not proven either way (a price-point method refuses every amount no tier takes): a TODO.
    if (!finding && !refusedForAmount) finding = { method, cls: 'other', pricePoint: false, evidence: seen.join('; ') };
    if (!finding) {
      finding = { method, cls: 'accepted', pricePoint: false, evidence: seen.join('; ') };
      ev.todo(
        `methods.pricePoint (${method})`,
        `whether ${method} rounds to price points: every amount probed was refused for its amount (${seen.join('; ')})`,
      );
      // If it does, its tiers and rule were never walked: the price-point section is the vendor's to give for it.
      ev.todo(`pricePoints (${method})`, `${method}'s tiers and rounding rule, if it rounds to price points (not walked: see above)`);
    }
    // An answer that places the method nowhere (not a known error of a method, not an envelope): the vendor's to say.
    if (finding.cls === 'other' && method !== UNKNOWN_METHOD) {
      ev.todo(
        `methods.checkout (${method})`,
        `whether ${method} is one of the target's checkout methods: no answer placed it (${finding.evidence})`,
      );
      ev.todo(`methods.pricePoint (${method})`, `whether ${method} rounds to price points, if it is a checkout method (see above)`);
      ev.todo(`pricePoints (${method})`, `${method}'s tiers and rounding rule, if it rounds to price points (not walked: see above)`);
    }
    out.push(finding);
  }
  return out;
}

export interface CheckoutFields {
  orderNo?: string;
  status?: string;
  pendingStatus?: string;
  record?: { orderNo?: string; merchantOrderNo?: string; status?: string; transAmount?: string; requestedAmount?: string };
}

function statusPath(data: Record<string, unknown>): string | undefined {
  const all = entries(data).filter(([, v]) => typeof v === 'string');
  for (const k of STATUS_KEYS) {
    const hit = all.find(([path]) => path.split('.').pop() === k);
    if (hit) return hit[0];
  }
  return undefined;
}

/** Prefers the path whose last key holds `hint`, then the shortest. */
function best(paths: string[], hint: string): string | undefined {
  return [...paths].sort(
    (a, b) => Number(!a.split('.').pop()!.includes(hint)) - Number(!b.split('.').pop()!.includes(hint)) || a.length - b.length,
  )[0];
}

/** Where checkout and query answers put the order's number, status and amounts; verified by querying. */
export async function learnCheckoutFields(
  p: Prober,
  ev: Evidence,
  queryPath: string,
  plain: MethodFinding,
  rounded?: MethodFinding,
): Promise<CheckoutFields> {
  p.phase('checkout and query: answer fields');
  const out: CheckoutFields = {};
  const acc = plain.accepted!;
  const ours = new Set([acc.no, plain.method]);
  const candidates = entries(acc.data).filter(
    ([, v]) => typeof v === 'string' && !ours.has(v as string) && !/^https?:/.test(v as string) && !/\d{4}-\d\d-\d\dT/.test(v as string),
  );
  let record: Record<string, unknown> | undefined;
  for (const [path, v] of candidates.slice(0, 6)) {
    if (STATUS_KEYS.includes(path.split('.').pop()!)) continue;
    const a = await p.post(queryPath, { order_no: v });
    if (a.code === 0 && a.data && pathsOf(a.data, acc.no).length > 0) {
      out.orderNo = path;
      record = a.data;
      ev.learnt(
        'checkout.data.orderNo',
        path,
        `querying order_no ${JSON.stringify(v)} (from data.${path} of a checkout) returned the order with merchant_order_no ${acc.no}`,
      );
      break;
    }
  }
  if (!out.orderNo)
    ev.todo('checkout.data.orderNo', "the path of the service's order number in a checkout's data (no string in it looked up the order)");
  out.status = statusPath(acc.data);
  if (out.status) {
    out.pendingStatus = String(getPath(acc.data, out.status));
    ev.learnt('checkout.data.status', out.status, `a status-named field of the checkout answer's data`);
    ev.learnt('checkout.pendingStatus', out.pendingStatus, `the status of a new ${plain.method} checkout of ${amount(acc.cents).value}`);
  } else ev.todo('checkout.pendingStatus', 'the status a new checkout has, and checkout.data.status where it is found');
  if (!record) {
    ev.todo('paymentRecord', 'where a payment query answer puts order_no, merchant_order_no, status and trans_amount');
    return out;
  }
  const orderNoValue = getPath(acc.data, out.orderNo!);
  const r: NonNullable<CheckoutFields['record']> = {};
  r.orderNo = best(pathsOf(record, orderNoValue), 'order_no');
  r.merchantOrderNo = best(pathsOf(record, acc.no), 'merchant');
  r.status = statusPath(record);
  r.transAmount = best(pathsOf(record, amount(acc.cents)), 'trans');
  if (rounded?.accepted) {
    const ra = rounded.accepted;
    const q = ra.data && out.orderNo ? await p.post(queryPath, { order_no: getPath(ra.data, out.orderNo) }) : undefined;
    const charged = chargedOtherThan(ra.data, ra.cents);
    if (q?.code === 0 && q.data && charged !== undefined) {
      r.requestedAmount = best(pathsOf(q.data, amount(ra.cents)), 'requested');
      const t = best(pathsOf(q.data, amount(charged)), 'trans');
      if (t && t !== r.transAmount)
        ev.todo(
          'paymentRecord.transAmount',
          `the charged amount of a rounded ${rounded.method} payment is at ${t}, of a plain one at ${r.transAmount}: check which`,
        );
    }
  }
  for (const [k, v] of Object.entries(r)) {
    if (v)
      ev.learnt(
        `paymentRecord.${k}`,
        v,
        `in the payment query answer for ${acc.no}, this path holds the ` +
          `${k === 'requestedAmount' ? 'amount asked for a rounded price-point payment' : k === 'transAmount' ? 'amount charged' : k}`,
      );
    else if (k !== 'requestedAmount') ev.todo(`paymentRecord.${k}`, `where a payment query answer puts the ${k}`);
  }
  // A price-point method was found but no rounded payment identified the asked-for amount in its record: say so.
  if (rounded && !r.requestedAmount)
    ev.todo(
      'paymentRecord.requestedAmount',
      `where a payment query answer puts the amount asked for a rounded ${rounded.method} payment (no rounded payment identified it)`,
    );
  else if (!rounded)
    ev.todo(
      'paymentRecord.requestedAmount',
      'where a payment query answer puts the amount asked for (requested_amount, present only when a payment was rounded to a ' +
        'price point): no method of this merchant rounded an amount, so no record showed it',
    );
  out.record = r;
  return out;
}

/**
 * The name a message gives the one field that was broken: the token spelling that field (any case or
 * separators), else the message's only field-like token (a name of the target's own, e.g. PayMethod).
 */
export function nameFor(message: string, field: string): string | undefined {
  const spelled = internalNameIn(message, field);
  if (spelled) return spelled;
  // A message about a field the target does not know names that field, not the one broken.
  if (/unknown|unexpected|not allowed|not permitted/i.test(message)) return undefined;
  const tokens = fieldTokens(message);
  // A nested field's name has as many parts as the field's path.
  return tokens.length === 1 && tokens[0]!.split('.').length === field.split('.').length ? tokens[0] : undefined;
}

/** Internal names: each document field is broken in turn (left out, or given the wrong type) and the message read. */
export async function learnInternalNames(
  p: Prober,
  ev: Evidence,
  shape: CheckoutShape,
  method: string,
  queryPath?: string,
): Promise<Record<string, string>> {
  p.phase('checkout: internal field names from invalidRequest messages');
  const out: Record<string, string> = {};
  for (const field of INTERNAL_NAME_FIELDS) {
    for (const breakIt of [
      (b: Record<string, unknown>) => deletePath(b, field),
      (b: Record<string, unknown>) => setPath(b, field, 12345),
    ]) {
      const body = checkoutBody(shape, method, 1000n, p.newNo('o'));
      breakIt(body);
      const a = await p.post(shape.path, body);
      const name = a.key === 'invalidRequest' ? nameFor(a.message ?? '', field) : undefined;
      if (name) {
        out[field] = name;
        ev.learnt(
          `internalFieldNames["${field}"]`,
          name,
          `${describe(a)} for a checkout with only ${field} ${getPath(body, field) === undefined ? 'left out' : 'of the wrong type'}`,
        );
        break;
      }
    }
    if (!out[field])
      ev.todo(
        `internalFieldNames["${field}"]`,
        `the name the target's invalidRequest messages give ${field} (they named no field like it)`,
      );
  }
  if (queryPath) {
    for (const field of QUERY_INTERNAL_NAME_FIELDS) {
      const a = await p.post(queryPath, { [field]: 12345 });
      const name = a.key === 'invalidRequest' ? nameFor(a.message ?? '', field) : undefined;
      if (name) {
        out[field] = name;
        ev.learnt(`internalFieldNames["${field}"]`, name, `${describe(a)} for a payment query with only ${field} of the wrong type`);
      } else
        ev.todo(
          `internalFieldNames["${field}"]`,
          `the name the target's invalidRequest messages give ${field} (a ` +
            `payment query with it of the wrong type was answered ${describe(a)})`,
        );
    }
  }
  return out;
}
