/**
 * Card payments and refunds: the card endpoint's body (completed from what the target says is
 * missing), a published test card that charges, the answer's fields; then a refund of that payment:
 * its body, which field carries the amount, its answer's fields and the card channel's refund support.
 */
import { SUCCESS_CARD_CANDIDATES, STATUS_KEYS } from './candidates.js';
import type { Evidence } from './evidence.js';
import { amount, completeBody, defaultFiller, entries, getPath, PROBE_GOODS_NAME, pathsOf, variable } from './fields.js';
import { againWhileBusy, describe, type Prober } from './prober.js';
import { carriedBy, type PathNumber, pathFor } from '../profile/endpoint-path.js';

/** A card payment that charged: the merchant's number, the service's (when answered) and the amount. */
export interface Paid {
  no: string;
  orderNo?: string;
  cents: bigint;
}

export interface CardResult {
  method: string;
  template: Record<string, unknown>;
  card: { card_number: string; cardholder_name: string; exp_month: number; exp_year: number; cvc: string };
  data: { orderNo: string; status?: string };
  /** The status a charged card payment is answered with. */
  successStatus?: unknown;
  /** A paid order: its merchant number, amount, and the service's number when the answer showed it. */
  paid: Paid;
  /** Builds a fresh card payment body for another amount. */
  body(no: string, cents: bigint, notifyUrl: string): Record<string, unknown>;
}

function cardOf(number: string): CardResult['card'] {
  return { card_number: number, cardholder_name: 'Init Probe', exp_month: 12, exp_year: new Date().getUTCFullYear() + 5, cvc: '123' };
}

/** The profile template: our literal values replaced by the template's variables. */
function templateOf(body: Record<string, unknown>): Record<string, unknown> {
  const t = structuredClone(body);
  t.payment_method = variable('method');
  t.merchant_order_no = variable('merchantOrderNo');
  t.trans_amount = variable('amount');
  t.card = variable('card');
  if (t.notify_url !== undefined) t.notify_url = variable('notifyUrl');
  if (t.metadata !== undefined) t.metadata = variable('metadata');
  if (t.trade_info && typeof t.trade_info === 'object') (t.trade_info as Record<string, unknown>).goods_name = variable('goodsName');
  return t;
}

export async function learnCard(
  p: Prober,
  ev: Evidence,
  path: string,
  methods: string[],
  orderNoKey: string | undefined,
  notifyUrl: string,
  /** Per method, an amount its checkout accepted: 10.00 may lie outside every channel of a method. */
  acceptedCents: Readonly<Record<string, bigint>> = {},
): Promise<CardResult | undefined> {
  p.phase('card payments: body, test card, answer');
  // What each method's last card request was answered: the TODO says what was tried, never more.
  const tried: string[] = [];
  for (const method of methods) {
    const cents = acceptedCents[method] ?? 1000n;
    for (const number of SUCCESS_CARD_CANDIDATES) {
      const base: Record<string, unknown> = {
        payment_method: method,
        merchant_order_no: '',
        trans_amount: amount(cents),
        notify_url: notifyUrl,
        trade_info: { goods_name: PROBE_GOODS_NAME },
        metadata: 'init',
        card: cardOf(number),
      };
      const done = await completeBody(
        p,
        path,
        base,
        defaultFiller(notifyUrl, () => amount(cents)),
        (b) => {
          b.merchant_order_no = p.newNo('o');
        },
      );
      // A number the sandbox fails by design (a magic suffix) is not the card's answer: another number asks again.
      const { answer: a } = await againWhileBusy(p, path, 'o', (n) => Object.assign(done.body, { merchant_order_no: n }), {
        answer: done.answer,
        no: String(done.body.merchant_order_no),
      });
      tried.push(`${method} with card ${number.slice(0, 6)}…: ${describe(a)}`);
      if (a.key === 'paymentMethodUnavailable' || a.key === 'unsupportedPaymentMethod') break;
      if (a.code !== 0 || !a.data) continue;
      const no = done.body.merchant_order_no as string;
      const orderNo =
        (orderNoKey && getPath(a.data, orderNoKey) !== undefined ? orderNoKey : undefined) ??
        entries(a.data).find(([k, v]) => typeof v === 'string' && v !== no && /order_no$|_no$|(^|\.)id$/.test(k))?.[0];
      if (!orderNo) continue;
      const status = entries(a.data).find(([k, v]) => typeof v === 'string' && STATUS_KEYS.includes(k.split('.').pop()!))?.[0];
      const template = templateOf(done.body);
      ev.learnt('methods.card', method, `the card endpoint charged ${method} (${describe(a)})`);
      ev.learnt(
        'cardPayment.cards.success',
        number,
        `a published test card number; a ${amount(cents).value} card payment was answered ${describe(a)}`,
      );
      if (done.added.length > 0)
        ev.learnt('cardPayment.template', template, `fields added because the target said they were required: ${done.added.join(', ')}`);
      ev.learnt('cardPayment.data.orderNo', orderNo, `holds the service's number in the card payment answer`);
      if (status)
        ev.learnt('cardPayment.data.status', status, `status-named field, ${JSON.stringify(getPath(a.data, status))} for a charged card`);
      const bodyFor = (n: string, c: bigint, url: string): Record<string, unknown> => {
        const b = structuredClone(done.body);
        b.merchant_order_no = n;
        b.trans_amount = amount(c);
        if (b.notify_url !== undefined) b.notify_url = url;
        return b;
      };
      const serviceNo = getPath(a.data, orderNo);
      return {
        method,
        template,
        card: cardOf(number),
        data: { orderNo, status },
        successStatus: status ? getPath(a.data, status) : undefined,
        paid: { no, cents, ...(typeof serviceNo === 'string' ? { orderNo: serviceNo } : {}) },
        body: bodyFor,
      };
    }
  }
  ev.todo(
    'cardPayment',
    tried.length === 0
      ? `the card payment body and a test card that charges (no card request was sent: no ` +
          `plain accepted checkout method to try${methods.length ? '' : ', as none was found'})`
      : `the card payment body and a test card that charges (no published test card number charged: ${tried.slice(-6).join('; ')})`,
  );
  return undefined;
}

export interface RefundResult {
  template: Record<string, unknown>;
  amountField?: string;
  data: { refundNo?: string; status?: string; amount?: string };
  queryBy?: { serviceNo: string; merchantNo: string };
  cardSupport?: 'none' | 'full' | 'partial';
  /** The status two new card refunds were created with, when they agree on PENDING or SUCCESS. */
  createdStatus?: 'PENDING' | 'SUCCESS';
  /** The answer showing a refund of the payment init made was served through the creation path (served.ts), if one did. */
  served?: string;
}

/** Refusals of a refund that only a route reading the payment can give (its channel, its amount, its state, the number used). */
const ABOUT_THE_PAYMENT = new Set(['notSupported', 'refundAmountExceeded', 'refundOrderNotPaid', 'duplicateRefundOrder']);

export async function learnRefunds(
  p: Prober,
  ev: Evidence,
  /** `queryName`: the service number's field name in a query, as the vendor gives it (tried first). */
  paths: { create: string; query?: string; queryName?: string },
  card: CardResult,
  pay: (cents: bigint) => Promise<Omit<Paid, 'cents'> | undefined>,
  notifyUrl: string,
): Promise<RefundResult | undefined> {
  p.phase('refunds: body, amount field, answer, card refund support');
  // A part of the payment: 1.00, or half of a payment too small for it (the card's amount follows its channels).
  const part = card.paid.cents >= 200n ? 100n : card.paid.cents / 2n > 0n ? card.paid.cents / 2n : 1n;
  // A refund created under its payment's path names the payment there, and its body does not (harness/profile/endpoint-path.ts).
  const carried = carriedBy(paths.create);
  if (carried.has('merchant_refund_no')) {
    ev.todo('refunds', `the refund section: init does not probe a refund path carrying {merchant_refund_no} (${paths.create})`);
    return undefined;
  }
  const underPayment = carried.has('order_no') || carried.has('merchant_order_no');
  const createAt = (paid: Omit<Paid, 'cents'>) => pathFor(paths.create, { order_no: paid.orderNo, merchant_order_no: paid.no });
  const firstPath = createAt(card.paid);
  if (!firstPath) {
    ev.todo(
      'refunds',
      `the refund section: the refund path ${paths.create} needs the payment's service number, which the card answer did not show`,
    );
    return undefined;
  }
  const paymentField = (no: string) => (underPayment ? {} : { original_merchant_order_no: no });
  const base: Record<string, unknown> = { merchant_refund_no: '', ...paymentField(card.paid.no) };
  const done = await completeBody(
    p,
    firstPath,
    base,
    defaultFiller(notifyUrl, () => amount(part)),
    (b) => {
      b.merchant_refund_no = p.newNo('r');
    },
  );
  // Busy (the document's transient answer, or a refund number the sandbox fails by design): another number asks again.
  const { answer: a } = await againWhileBusy(p, firstPath, 'r', (n) => Object.assign(done.body, { merchant_refund_no: n }), {
    answer: done.answer,
    no: String(done.body.merchant_refund_no),
  });
  const amountField = done.added.find((f) => /amount$/.test(f));
  if (!amountField) {
    ev.todo('refunds.template', `the refund request's amount field (the target never said one was required; last answer ${describe(a)})`);
    return undefined;
  }
  ev.learnt(
    'refunds.template (amount field)',
    amountField,
    `the target answered "required" for it; a refund of ${amount(part).value} sent in it was answered ${describe(a)}`,
  );
  const template: Record<string, unknown> = structuredClone(done.body);
  template.merchant_refund_no = variable('refundNo');
  if (!underPayment) template.original_merchant_order_no = variable('merchantOrderNo');
  template[amountField] = variable('amount');
  const reasonField = done.added.find((f) => /(^|_)reason$/.test(f) && !f.includes('.'));
  if (reasonField) template[reasonField] = variable('reason');
  ev.learnt('refunds.template', template, `completed from the target's "required" answers: ${done.added.join(', ')}`);
  const out: RefundResult = { template, amountField, data: {} };
  if (a.code === 0 || ABOUT_THE_PAYMENT.has(a.key ?? ''))
    out.served = `a refund of the card payment ${card.paid.no} sent there was answered ${describe(a)}`;
  let cardSupport: RefundResult['cardSupport'];
  let first: Record<string, unknown> | undefined;
  /**
   * The status a new card refund has, when two new refunds agree on one of the document's words: one could have been
   * settled at once by chance; two that agree are the method's rule as far as init can see, and the evidence says both.
   */
  const createdStatus = async (
    firstData: Record<string, unknown>,
    support: 'partial' | 'full',
    statusPath: string,
  ): Promise<'PENDING' | 'SUCCESS' | undefined> => {
    const again =
      support === 'partial'
        ? { ...card.paid, cents: part }
        : await pay(card.paid.cents).then((paid) => (paid ? { ...paid, cents: card.paid.cents } : undefined));
    const at = again && createAt(again);
    if (!again || !at) return undefined;
    const b = await p.post(at, {
      ...structuredClone(done.body),
      merchant_refund_no: p.newNo('r'),
      ...paymentField(again.no),
      [amountField]: amount(again.cents),
    });
    const seen = [getPath(firstData, statusPath), b.code === 0 && b.data ? getPath(b.data, statusPath) : undefined];
    const statuses = seen.map((x) => JSON.stringify(x)).join(' and ');
    const evidence = `two new ${card.method} refunds (${support}) were created with status ${statuses}`;
    if (seen[0] === seen[1] && (seen[0] === 'PENDING' || seen[0] === 'SUCCESS')) {
      ev.learnt(`refunds.createdStatus.${card.method}`, seen[0], evidence);
      return seen[0];
    }
    ev.todo(
      `refunds.createdStatus.${card.method}`,
      `whether a new ${card.method} refund is PENDING or SUCCESS: ${evidence} (${describe(b)})`,
    );
    return undefined;
  };
  /** The fields of a refund answer: where its number, status and amount are, and how a refund is looked up. */
  const readRecord = async (data: Record<string, unknown>, myNo: string, refunded: bigint, what: string) => {
    out.data.amount = pathsOf(data, amount(refunded)).sort((x, y) => x.length - y.length)[0];
    out.data.status = entries(data).find(([k, v]) => typeof v === 'string' && STATUS_KEYS.includes(k.split('.').pop()!))?.[0];
    const candidates = entries(data).filter(
      ([k, v]) =>
        typeof v === 'string' &&
        v !== myNo &&
        v !== card.paid.no &&
        v !== card.paid.orderNo &&
        /_no$|(^|\.)id$/.test(k) &&
        !/original/.test(k),
    );
    const found = paths.query
      ? await lookUp(p, paths.query, candidates, myNo, 'refund_no', 'merchant_refund_no', paths.queryName)
      : undefined;
    if (found) {
      out.data.refundNo = found.path;
      out.queryBy = found.queryBy;
      ev.learnt('refunds.data.refundNo', found.path, found.evidence);
      ev.learnt('refunds.queryBy', out.queryBy, found.evidence);
    }
    if (out.data.status)
      ev.learnt(
        'refunds.data.status',
        out.data.status,
        `status-named field (${JSON.stringify(getPath(data, out.data.status))} for ${what})`,
      );
    if (out.data.amount) ev.learnt('refunds.data.amount', out.data.amount, `holds the ${amount(refunded).value} refunded (${what})`);
  };
  if (a.code === 0 && a.data) {
    cardSupport = 'partial';
    ev.learnt(
      `refunds.support.${card.method}`,
      'partial',
      `a refund of ${amount(part).value} of a ${amount(card.paid.cents).value} payment was accepted`,
    );
    await readRecord(a.data, done.body.merchant_refund_no as string, part, 'a new partial card refund');
    first = a.data;
  } else if (a.key === 'notSupported') {
    // Partial refused: try the full amount on a fresh payment.
    const paid = await pay(card.paid.cents);
    const body = {
      ...structuredClone(done.body),
      merchant_refund_no: p.newNo('r'),
      ...(paid ? paymentField(paid.no) : {}),
      [amountField]: amount(card.paid.cents),
    };
    const at = paid && createAt(paid);
    const full = at ? await p.post(at, body) : undefined;
    cardSupport = full?.code === 0 ? 'full' : full?.key === 'notSupported' ? 'none' : undefined;
    if (cardSupport)
      ev.learnt(
        `refunds.support.${card.method}`,
        cardSupport,
        `a partial refund was refused (notSupported); a full one: ${full ? describe(full) : 'not sent'}`,
      );
    if (full?.code === 0 && full.data) {
      await readRecord(full.data, body.merchant_refund_no, card.paid.cents, 'a new full card refund');
      first = full.data;
    }
  }
  out.cardSupport = cardSupport;
  if (first && out.data.status && (cardSupport === 'partial' || cardSupport === 'full'))
    out.createdStatus = await createdStatus(first, cardSupport, out.data.status);
  if (!out.data.refundNo) ev.todo('refunds.data.refundNo', "where a refund answer puts the service's refund number (and refunds.queryBy)");
  return out;
}

/** Where a record's answer holds the service's number, the fields a lookup names it by, and how that was seen. */
export interface LookedUp {
  path: string;
  queryBy: { serviceNo: string; merchantNo: string };
  evidence: string;
}

/**
 * Which answer field holds the service's number, and which query fields look a record up: the field's
 * own name first (a target that answers `refund_order_no` is likely queried by it), then the document's.
 */
export async function lookUp(
  p: Prober,
  queryPath: string,
  candidates: [string, unknown][],
  myNo: string,
  documentServiceName: PathNumber,
  merchantName: PathNumber,
  /** The service number's field name the vendor gives (refunds.queryBy.serviceNo): tried first. */
  toldServiceName?: string,
): Promise<LookedUp | undefined> {
  if (carriedBy(queryPath).size > 0) return lookUpByPath(p, queryPath, candidates, myNo, documentServiceName, merchantName);
  const byMine = await p.post(queryPath, { [merchantName]: myNo });
  if (byMine.code !== 0) return undefined;
  for (const [path, v] of candidates.slice(0, 4)) {
    const leaf = path.split('.').pop()!;
    for (const name of [...new Set([...(toldServiceName ? [toldServiceName] : []), leaf, documentServiceName])]) {
      const q = await p.post(queryPath, { [name]: v });
      if (q.code === 0 && q.data && pathsOf(q.data, myNo).length > 0) {
        return {
          path,
          queryBy: { serviceNo: name, merchantNo: merchantName },
          evidence:
            `querying ${name} ${JSON.stringify(v)} (from data.${path}) ` + `returned ${myNo}; querying ${merchantName} ${describe(byMine)}`,
        };
      }
    }
  }
  return undefined;
}

/**
 * lookUp where the query path carries the record's number (harness/profile/endpoint-path.ts): the request names the record
 * there and its body nothing (harness/ops.ts lookupRequest), so the lookup's field names are never sent and are written
 * as the document's. The service's number is the candidate whose value, in the path, answers the record of ours; where
 * the path carries our own number only, the one candidate its answer repeats in the same place, else nothing.
 */
async function lookUpByPath(
  p: Prober,
  queryPath: string,
  candidates: [string, unknown][],
  myNo: string,
  serviceName: PathNumber,
  merchantName: PathNumber,
): Promise<LookedUp | undefined> {
  const queryBy = { serviceNo: serviceName, merchantNo: merchantName };
  const unsent = `the path carries the number, so the lookup's field names are never sent (written as the document's)`;
  if (carriedBy(queryPath).has(serviceName)) {
    for (const [path, v] of candidates.slice(0, 4)) {
      const at = pathFor(queryPath, { [serviceName]: v });
      const q = at ? await p.post(at, {}) : undefined;
      if (q?.code === 0 && q.data && pathsOf(q.data, myNo).length > 0)
        return { path, queryBy, evidence: `${at} (data.${path} of the creation answer) answered the record of ${myNo}; ${unsent}` };
    }
    return undefined;
  }
  const at = pathFor(queryPath, { [merchantName]: myNo });
  const byMine = at ? await p.post(at, {}) : undefined;
  if (byMine?.code !== 0 || !byMine.data) return undefined;
  const same = candidates.filter(([path, v]) => getPath(byMine.data, path) === v);
  if (same.length !== 1) return undefined;
  const [path, v] = same[0]!;
  return {
    path,
    queryBy,
    evidence:
      `${at} answered the record of ${myNo} with data.${path} ` +
      `${JSON.stringify(v)}, as its creation did, and no other number; ${unsent}`,
  };
}
