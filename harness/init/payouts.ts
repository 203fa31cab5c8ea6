/**
 * Payouts: the create body (completed from the target's "required" answers), which methods pay out
 * (5007 says which do not, and how), each method's limits (5008 boundary), USD-only methods, cancel
 * support, and where the answers put the payout's number and status.
 */
import { FIRST_AMOUNTS_CENTS, MAX_AMOUNT_CENTS, METHOD_CANDIDATES, STATUS_KEYS, UNKNOWN_METHOD } from './candidates.js';
import type { Evidence } from './evidence.js';
import { amount, completeBody, defaultFiller, entries, getPath, variable } from './fields.js';
import { bisectLimits, channelsTodo, Inconclusive } from './limits.js';
import { describe, type Answer, type Prober } from './prober.js';
import { lookUp } from './card-refund.js';
import { carriedBy, pathFor } from '../profile/endpoint-path.js';
import type { ChannelLimits } from '../profile/types.js';
import { valueOfCents } from '../facts/money.js';

export interface PayoutResult {
  template: Record<string, unknown>;
  methods: Record<string, { cancel: boolean; usdOnly?: boolean; payee?: Record<string, unknown> }>;
  notForPayouts?: string;
  limits: Record<string, ChannelLimits>;
  data: { payoutNo?: string; status?: string };
  queryBy?: { serviceNo: string; merchantNo: string };
  cancelBy?: { serviceNo: string; merchantNo: string };
  /**
   * The answers that show a payout init created was served through a path: its creation answer carrying the merchant
   * number sent (`create`), a cancel of it answered as one about that payout (`cancel`). The query's is queryBy's evidence.
   */
  served: { create?: string; cancel?: string };
}

/** A 5008 refusal for the amount or its currency (the document's two keys under 5008). */
const refusedForAmount = (a: Answer): boolean => a.code === 5008 && (a.key === 'amountOutOfRange' || a.key === 'notSupported');

export async function learnPayouts(
  p: Prober,
  ev: Evidence,
  /** `queryName`: the service number's field name in a query, as the vendor gives it (tried first). */
  paths: { create: string; query?: string; cancel?: string; queryName?: string },
  notifyUrl: string,
  names: readonly string[] = METHOD_CANDIDATES,
  firstMethod = 'BANK_TRANSFER',
): Promise<PayoutResult | undefined> {
  p.phase('payouts: body');
  const first = 1000n;
  const base: Record<string, unknown> = { payment_method: firstMethod, merchant_payout_no: '', trans_amount: amount(first) };
  const shape = await completeBody(
    p,
    paths.create,
    base,
    defaultFiller(notifyUrl, () => amount(first)),
    (b) => {
      b.merchant_payout_no = p.newNo('p');
    },
  );
  // The document shows no payout request fields: the amount's field is the one the target names as
  // required (payout_amount, amount…), else trans_amount only when the target answered as one reading an
  // amount (accepted, 5008, insufficientFunds). Anything else: the body is a TODO, nothing is assumed.
  const named = shape.added.filter((f) => /(^|_)amount$/.test(f.split('.').pop()!) && !f.includes('.'));
  const read = shape.answer.code === 0 || shape.answer.key === 'insufficientFunds' || refusedForAmount(shape.answer);
  if (named.length > 1 || (named.length === 0 && !read)) {
    ev.todo(
      'payouts.template',
      `the payout request's fields: a ${firstMethod} payout with ${Object.keys(shape.body).join(', ')}` +
        ` was answered ${describe(shape.answer)}${named.length > 1 ? ` (several amount fields asked for: ${named.join(', ')})` : ''}` +
        `; write the create body from the vendor's documentation`,
    );
    return undefined;
  }
  const amountField = named[0] ?? 'trans_amount';
  if (amountField !== 'trans_amount') delete shape.body.trans_amount;
  // The method's and the merchant number's fields as the target names them: one it asked for (payout_method,
  // payout_order_no) replaces the document's name, which it then does not read.
  const top = shape.added.filter((f) => !f.includes('.'));
  const methodField = top.find((f) => /(^|_)method$/.test(f)) ?? 'payment_method';
  const numberField = top.find((f) => /_no$/.test(f) && /merchant|payout/.test(f)) ?? 'merchant_payout_no';
  if (methodField !== 'payment_method') delete shape.body.payment_method;
  if (numberField !== 'merchant_payout_no') delete shape.body.merchant_payout_no;
  // An object the target asked for field by field (the payee) may differ per method: each method's own.
  const perMethod = shape.added.find((f) => shape.added.some((g) => g.startsWith(`${f}.`)));
  const own: Record<string, unknown> = {};
  const bodyFor = (method: string, cents: bigint, no: string, currency = 'USD'): Record<string, unknown> => {
    const b: Record<string, unknown> = {
      ...structuredClone(shape.body),
      [methodField]: method,
      [numberField]: no,
      [amountField]: amount(cents, currency),
    };
    if (perMethod && own[method] !== undefined) b[perMethod] = structuredClone(own[method]);
    return b;
  };
  const template: Record<string, unknown> = {
    ...structuredClone(shape.body),
    [methodField]: variable('method'),
    [numberField]: variable('payoutNo'),
    [amountField]: variable('amount'),
  };
  if (template.notify_url !== undefined) template.notify_url = variable('notifyUrl');

  p.phase(`payouts: methods (${names.length} candidates and one unknown name)`);
  const out: PayoutResult = { template, methods: {}, limits: {}, data: {}, served: {} };
  const accepted: { method: string; cents: bigint; no: string; data?: Record<string, unknown> }[] = [];
  const unsure: string[] = [];
  for (const method of [...names, UNKNOWN_METHOD]) {
    let done = false;
    for (const cents of FIRST_AMOUNTS_CENTS) {
      let no = p.newNo('p');
      let a: Answer;
      if (perMethod && own[method] === undefined) {
        // The method's own fields of that object: start it empty and add what the target asks for.
        const start = { ...bodyFor(method, cents, no), [perMethod]: {} };
        const c = await completeBody(
          p,
          paths.create,
          start,
          defaultFiller(notifyUrl, () => amount(cents)),
          (b) => {
            no = p.newNo('p');
            b[numberField] = no;
          },
        );
        a = c.answer;
        if (a.code === 0 || a.key === 'insufficientFunds') own[method] = c.body[perMethod];
      } else a = await p.post(paths.create, bodyFor(method, cents, no));
      if (a.key === 'unsupportedPayoutMethod') {
        out.notForPayouts ??= method;
        if (out.notForPayouts === method) ev.learnt('payouts.notForPayouts', method, describe(a));
      } else if (a.code === 0 || a.key === 'insufficientFunds') {
        accepted.push({ method, cents, no, data: a.data });
        if (a.code === 0 && a.data && entries(a.data).some(([, v]) => v === no))
          out.served.create ??= `a ${method} payout created there was answered with the merchant number sent, ${no}`;
        ev.learnt(`payouts.methods.${method}`, 'pays out', `${amount(cents).value}: ${describe(a)}`);
      } else if (a.code === 5008) continue;
      else if (a.key === 'invalidRequest' || !a.envelope) {
        // The body init built is not one this method takes, or the method is none of the target's (a target that checks
        // the body before the method answers both alike): gathered into one TODO, never one per name tried.
        unsure.push(`${method} (${describe(a)})`);
      }
      done = true;
      break;
    }
    if (!done) accepted.push({ method, cents: 0n, no: '' });
  }

  if (unsure.length)
    ev.todo(
      'payouts.methods',
      `which of these pay out, if any (their payouts of ${amountField} were refused for the body, not the method, so the ` +
        `answers do not say whether the target has them): ${unsure.join('; ')}`,
    );

  // An object the target asked for field by field is bound to "${payee}", each method's own fields in
  // payouts.methods.<m>.payee: which fields a method requires is a fact of that method, even where two methods
  // happen to ask for the same ones (the values are init's fillers, the merchant's to replace).
  const distinct = perMethod !== undefined;
  if (distinct) template[perMethod] = variable('payee');
  ev.learnt(
    'payouts.template',
    template,
    `the target answered "required" for ${shape.added.join(', ') || 'nothing'}` +
      `${distinct ? `; ${perMethod} is each method's own (payouts.methods.*.payee)` : ''}; the payout amount is ${amountField} (` +
      `${named.length ? 'the target named it as required' : `the target read it: ${describe(shape.answer)}`})`,
  );

  for (const acc of accepted) {
    if (distinct && own[acc.method] !== undefined)
      ev.learnt(
        `payouts.methods.${acc.method}.payee`,
        own[acc.method],
        `a ${acc.method} payout started with an empty ${perMethod}: the target asked for these fields`,
      );
    else if (distinct)
      ev.todo(
        `payouts.methods.${acc.method}.payee`,
        `the ${perMethod} fields ${acc.method} requires: no ${acc.method} payout started with an empty ${perMethod} was ` +
          'accepted, so its answers never showed them complete',
      );
    if (acc.cents === 0n) {
      ev.todo(`limits.payouts.${acc.method}`, `${acc.method} refused every probe amount for its range: write its limits`);
      continue;
    }
    p.phase(`payouts: ${acc.method} limits by bisection`);
    // Whether the range is checked before the balance: an amount no balance covers refused for its range.
    // Only then is insufficientFunds an answer "in range" (otherwise it hides the maximum).
    const huge = await p.post(paths.create, bodyFor(acc.method, MAX_AMOUNT_CENTS, p.newNo('p')));
    const rangeFirst = refusedForAmount(huge);
    const inRange = (a: Answer): boolean | undefined =>
      a.code === 0 || (rangeFirst && a.key === 'insufficientFunds') ? true : refusedForAmount(a) ? false : undefined;
    try {
      const b = await bisectLimits(
        {
          send: (c, no) => p.post(paths.create, bodyFor(acc.method, c, no)),
          newNo: () => p.newNo('p'),
          inRange,
          isDuplicate: (a) => a.code !== 0 && /duplicate/i.test(a.key ?? ''),
        },
        acc.cents,
        acc.no,
      );
      out.limits[acc.method] = b.limits;
      ev.learnt(
        `limits.payouts.${acc.method}`,
        b.limits,
        `the 5008 boundary (${amountField}), ${b.probes} probes` +
          `${b.reusedNumber ? ' reusing one payout number (nothing created)' : ''}; ${b.resolution}; ` +
          `at the edges: ${b.edges}; ${valueOfCents(MAX_AMOUNT_CENTS)} was answered ${describe(huge)}`,
      );
      if (!b.limits.channels) channelsTodo(ev, `limits.payouts.${acc.method}`, b);
    } catch (err) {
      if (!(err instanceof Inconclusive)) throw err;
      ev.todo(
        `limits.payouts.${acc.method}`,
        `the method's limits (bisection on ${amountField} stopped: ${err.message}; ` +
          `${
            rangeFirst ? '' : `insufficientFunds not read as in range, as ${valueOfCents(MAX_AMOUNT_CENTS)} was answered ${describe(huge)}`
          })`,
      );
    }
    p.phase(`payouts: ${acc.method} currency and cancel`);
    // A fresh number: a duplicate answer says nothing of the currency.
    const eurNo = p.newNo('p');
    const eur = await p.post(paths.create, bodyFor(acc.method, acc.cents, eurNo, 'EUR'));
    const usdOnly = refusedForAmount(eur) ? true : eur.code === 0 || (rangeFirst && eur.key === 'insufficientFunds') ? false : undefined;
    const eurSent = `a ${acc.method} payout of ${valueOfCents(acc.cents)} EUR (${amountField}, new number ${eurNo})`;
    if (usdOnly !== undefined) ev.learnt(`payouts.methods.${acc.method}.usdOnly`, usdOnly, `${eurSent}: ${describe(eur)}`);
    else
      ev.todo(
        `payouts.methods.${acc.method}.usdOnly`,
        `whether ${acc.method} pays out only in USD: ${eurSent} was answered ` +
          `${describe(eur)}, which names neither the currency nor the range`,
      );
    let cancel = false;
    const data = acc.data;
    const cancelAt = data && paths.cancel ? cancelRequest(paths.cancel, acc.no, data) : undefined;
    if (data && paths.cancel && !cancelAt)
      ev.todo(
        `payouts.methods.${acc.method}.cancel`,
        `whether ${acc.method} payouts can be cancelled: the cancel path ${paths.cancel} carries the payout's service number, ` +
          `and the payout answer did not show one number alone`,
      );
    else if (data && cancelAt) {
      // By the merchant's number, which the document names: the service number's field is learnt later.
      const c = await p.post(cancelAt.path, cancelAt.body);
      // Answers about the payout itself: a route reading the path's last word as a number answers notFound instead.
      if (c.code === 0 || c.key === 'notSupported' || c.key === 'payoutNotCancelable')
        out.served.cancel ??= `a cancel of a ${acc.method} payout init created was answered ${describe(c)}`;
      if (c.code === 0 || c.key === 'notSupported') {
        cancel = c.code === 0;
        ev.learnt(`payouts.methods.${acc.method}.cancel`, cancel, `cancelling a new payout by merchant_payout_no: ${describe(c)}`);
      } else
        ev.todo(
          `payouts.methods.${acc.method}.cancel`,
          `whether ${acc.method} payouts can be cancelled (the cancel answered ${describe(c)})`,
        );
    }
    // No cancel path found (one carrying the payout's number is only in the vendor's documentation), or no payout made.
    else
      ev.todo(
        `payouts.methods.${acc.method}.cancel`,
        `whether ${acc.method} payouts can be cancelled: ${paths.cancel ? 'no payout was made to cancel' : 'init found no cancel path'}`,
      );
    out.methods[acc.method] = {
      cancel,
      ...(usdOnly !== undefined ? { usdOnly } : {}),
      ...(distinct && own[acc.method] !== undefined ? { payee: own[acc.method] as Record<string, unknown> } : {}),
    };
  }

  const sample = accepted.find((a) => a.data);
  if (sample?.data) {
    out.data.status = entries(sample.data).find(([k, v]) => typeof v === 'string' && STATUS_KEYS.includes(k.split('.').pop()!))?.[0];
    if (out.data.status)
      ev.learnt(
        'payouts.data.status',
        out.data.status,
        `status-named field of a payout answer (${JSON.stringify(getPath(sample.data, out.data.status))} when new)`,
      );
    const found = paths.query
      ? await lookUp(p, paths.query, numberFields(sample.data, sample.no), sample.no, 'payout_no', 'merchant_payout_no', paths.queryName)
      : undefined;
    if (found) {
      out.data.payoutNo = found.path;
      out.queryBy = found.queryBy;
      ev.learnt('payouts.data.payoutNo', found.path, found.evidence);
      ev.learnt('payouts.queryBy', out.queryBy, found.evidence);
      // The cancel's names: cancel a fresh payout of a cancellable method by its service number.
      const cancellable = accepted.find((a) => out.methods[a.method]?.cancel);
      if (cancellable && paths.cancel) {
        const no = p.newNo('p');
        const created = await p.post(paths.create, bodyFor(cancellable.method, cancellable.cents, no));
        const serviceNo = created.data ? getPath(created.data, found.path) : undefined;
        const at = pathFor(paths.cancel, { payout_no: serviceNo, merchant_payout_no: no });
        const body = carriedBy(paths.cancel).size > 0 ? {} : { [found.queryBy.serviceNo]: serviceNo };
        const c = serviceNo === undefined || at === undefined ? undefined : await p.post(at, body);
        if (c?.code === 0) {
          out.served.cancel ??= `a ${cancellable.method} payout init created was cancelled there (${describe(c)})`;
          out.cancelBy = { serviceNo: found.queryBy.serviceNo, merchantNo: 'merchant_payout_no' };
          ev.learnt(
            'payouts.cancelBy',
            out.cancelBy,
            `a new ${cancellable.method} payout was cancelled by ` +
              `${found.queryBy.serviceNo} (${describe(c)}), another by merchant_payout_no`,
          );
        }
      }
    }
  }
  if (!out.data.payoutNo)
    ev.todo('payouts.data.payoutNo', "where a payout answer puts the service's payout number (and payouts.queryBy, cancelBy)");
  return out;
}

/**
 * A first cancel of a new payout: by the merchant's number, in the body or in the path; by the service's where the
 * path carries that alone, when the answer shows one number to take for it (else undefined).
 */
function cancelRequest(
  cancel: string,
  no: string,
  data: Record<string, unknown>,
): { path: string; body: Record<string, unknown> } | undefined {
  const carried = carriedBy(cancel);
  if (carried.size === 0) return { path: cancel, body: { merchant_payout_no: no } };
  const numbers = numberFields(data, no);
  const serviceNo = numbers.length === 1 ? numbers[0]![1] : undefined;
  const path = pathFor(cancel, { merchant_payout_no: no, payout_no: serviceNo });
  return path === undefined ? undefined : { path, body: {} };
}

/** String fields that may hold the service's number: named like a number or an id, not the merchant's own. */
function numberFields(data: Record<string, unknown>, ours: string): [string, unknown][] {
  return entries(data).filter(([k, v]) => typeof v === 'string' && v !== ours && /_no$|(^|\.)id$/.test(k) && !/merchant/.test(k));
}
