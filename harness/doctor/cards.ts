/**
 * Each test card's kind of outcome (charged / refused / pending), the card answer's data paths, and
 * what needs a paid order: refunds (data paths, query fields, settlement, the failing reason) and
 * the chargeback and complete-card controls.
 */
import type { Exchange } from '../http/exchange.js';
import { cardPayment, completeCheckout, createRefund, queryPayment, queryRefund, REFUND_NUMBERS, sentAtOf, usd } from '../ops.js';
import { carriedBy } from '../profile/endpoint-path.js';
import type { Card, Profile } from '../profile/types.js';
import { add, doubt, lookupItem, unexplained, type DoctorContext } from './context.js';
import { accepted, answerOf, describeAnswer, unknownPath, type Answer } from './model.js';
import { pathItem } from './basics.js';
import { amountFor, dataPathItem, pay, paymentMethodsOf, readPath } from './payments.js';
import { control, controlItem } from './control.js';
import { centsOf, valueOfCents } from '../facts/money.js';

type CardKind = keyof NonNullable<Profile['cardPayment']>['cards'];
type Outcome = 'charged' | 'refused' | 'pending';
const WANT: Record<CardKind, Outcome> = {
  success: 'charged',
  decline: 'refused',
  risk: 'refused',
  invalid: 'refused',
  noChannel: 'refused',
  pending: 'pending',
};

/** The refusals of a lookup's numbers (Request errors: merchant_order_no and order_no both empty, or both given). */
const LOOKUP_REFUSALS: ReadonlySet<string> = new Set([
  'refundNotFound',
  'mutuallyRequiredFieldsMissing',
  'mutuallyExclusiveFieldsConflict',
]);
/** Refund refusals the document names for the refund or its payment, which show the request was read. */
const REFUND_REFUSALS = new Set([
  'notSupported',
  'refundAmountExceeded',
  'refundOrderNotPaid',
  'validationFailed',
  'refundFailed',
  'invalidRefundAmount',
]);
/** Not-found answers: the target read the lookup and searched (a wrong field would be refused as invalid). */
const NOT_FOUND = new Set(['refundNotFound', 'orderNotFound', 'notFound']);

export interface PaidOrder {
  orderNo: string;
  merchantOrderNo: string;
  method: string;
  value: string;
}

/** The status of a new payment: from the answer when the profile says where, else from a query. */
async function statusOf(
  ctx: DoctorContext,
  a: Answer,
  dataPaths: { orderNo: string; status?: string },
  merchantOrderNo: string,
): Promise<unknown> {
  if (dataPaths.status !== undefined) return readPath(a.data, dataPaths.status);
  const rec = ctx.loaded.profile.paymentRecord;
  if (!rec) return undefined;
  const q = answerOf(await queryPayment(ctx.t, { merchant_order_no: merchantOrderNo }, { label: 'doctor: status of the card payment' }));
  return accepted(q) ? readPath(q.data, rec.status) : undefined;
}

/** The status the profile gives a pending card payment: its own (version 4), else a checkout's, else PENDING. */
function cardPendingStatus(p: Profile): string {
  return p.cardPayment?.pendingStatus ?? p.checkout?.pendingStatus ?? 'PENDING';
}

function outcomeOf(ctx: DoctorContext, a: Answer, status: unknown): Outcome {
  if (!accepted(a)) return 'refused';
  if (status === 'FAILED') return 'refused';
  return status === cardPendingStatus(ctx.loaded.profile) ? 'pending' : 'charged';
}

/** Card payments with each declared card; returns a charged order (for refunds) and a pending one. */
export async function checkCards(ctx: DoctorContext): Promise<{ paid?: PaidOrder; pending?: PaidOrder }> {
  const cp = ctx.loaded.profile.cardPayment;
  if (!cp || !ctx.t.has('cardPayment')) return {};
  ctx.progress('test cards');
  const method = ctx.loaded.profile.methods.card ?? 'CARD';
  const value = amountFor(ctx, method);
  const out: { paid?: PaidOrder; pending?: PaidOrder } = {};
  const kinds = (Object.keys(cp.cards) as CardKind[]).filter((k) => cp.cards[k] !== undefined);
  let pathChecked = false;
  await Promise.all(
    kinds.map(async (kind) => {
      const merchantOrderNo = ctx.t.newNo('order');
      const ex = await cardPayment(
        ctx.t,
        { merchantOrderNo, amount: usd(value), card: cp.cards[kind] as Card },
        { label: `doctor: the ${kind} card` },
      );
      const a = answerOf(ex);
      if (unknownPath(a)) {
        if (!pathChecked) pathItem(ctx, 'cardPayment', a, ex);
        pathChecked = true;
        return;
      }
      if (kind === 'success' && accepted(a)) {
        const orderNo = dataPathItem(ctx, 'cardPayment.data.orderNo', 'a card payment answer', a.data, cp.data.orderNo, ex) as
          | string
          | undefined;
        if (cp.data.status !== undefined)
          dataPathItem(ctx, 'cardPayment.data.status', 'a card payment answer', a.data, cp.data.status, ex, 'any');
        if (orderNo) out.paid = { orderNo, merchantOrderNo, method, value };
      }
      const status = await statusOf(ctx, a, cp.data, merchantOrderNo);
      const seen = outcomeOf(ctx, a, status);
      const what = `the ${kind} card's payment is ${WANT[kind]}`;
      const answered = `${describeAnswer(a)}${status !== undefined ? `, status ${JSON.stringify(status)}` : ''}: ${seen}`;
      if (seen === WANT[kind]) {
        add(ctx, 'verified', `cardPayment.cards.${kind}`, what, { answered, ex: [ex] });
        if (kind === 'pending' && cp.pendingStatus !== undefined)
          add(ctx, 'verified', 'cardPayment.pendingStatus', `a pending card payment has status ${cp.pendingStatus}`, {
            answered,
            ex: [ex],
          });
      }
      // Accepted with a status that is neither SUCCESS nor the declared pending one: the status name is what is in doubt.
      else if (kind === 'pending' && seen === 'charged' && typeof status === 'string' && status !== 'SUCCESS')
        add(ctx, 'wrong', cp.pendingStatus !== undefined ? 'cardPayment.pendingStatus' : `cardPayment.cards.${kind}`, what, {
          expected: `status ${cardPendingStatus(ctx.loaded.profile)}`,
          answered,
          fix: `set cardPayment.pendingStatus to ${JSON.stringify(status)} if that is how the vendor names a pending card payment`,
          ex: [ex],
        });
      // The document fixes that an invalid number, CVC or expiry fails: a charge may be the target's violation.
      else if (kind === 'invalid' && seen === 'charged')
        doubt(ctx, `cardPayment.cards.${kind}`, what, ['err.pay.invalid-card'], {
          expected: WANT[kind],
          answered,
          fix: `give in cardPayment.cards.${kind} card data that is invalid (number, CVC or expiry)`,
          ex: [ex],
        });
      else
        add(ctx, 'wrong', `cardPayment.cards.${kind}`, what, {
          expected: WANT[kind],
          answered,
          fix: `give in cardPayment.cards.${kind} the vendor's test card whose payment is ${WANT[kind]}`,
          ex: [ex],
        });
      if (kind === 'pending' && seen === 'pending') {
        const orderNo = readPath(a.data, cp.data.orderNo);
        if (typeof orderNo === 'string') out.pending = { orderNo, merchantOrderNo, method, value };
      }
    }),
  );
  return out;
}

/** A paid order of the primary: a charged card payment, else a checkout completed by the sandbox. */
export async function paidOrder(
  ctx: DoctorContext,
  label: string,
  opts: { refundable?: boolean; merchantOrderNo?: string } = {},
): Promise<{ order?: PaidOrder; ex?: Exchange }> {
  const p = ctx.loaded.profile;
  // A refund probe needs a method the profile says takes refunds: on a target whose card refunds nothing, another one.
  const refundable = (m: string): boolean => !opts.refundable || (p.refunds?.support[m] ?? 'partial') !== 'none';
  if (p.cardPayment?.cards.success && ctx.t.has('cardPayment') && refundable(p.methods.card ?? 'CARD')) {
    const method = p.methods.card ?? 'CARD';
    const value = amountFor(ctx, method);
    const merchantOrderNo = opts.merchantOrderNo ?? ctx.t.newNo('order');
    const ex = await cardPayment(ctx.t, { merchantOrderNo, amount: usd(value) }, { label });
    const a = answerOf(ex);
    const orderNo = readPath(a.data, p.cardPayment.data.orderNo);
    return { order: accepted(a) && typeof orderNo === 'string' ? { orderNo, merchantOrderNo, method, value } : undefined, ex };
  }
  const primaryHas = (m: string): boolean => p.merchants.primary.paymentMethods?.includes(m) ?? true;
  const methods = p.methods.checkout.filter((m) => refundable(m) && primaryHas(m));
  if (p.sandbox?.completeCheckout && methods.length > 0) {
    const method = methods.find((m) => !p.methods.pricePoint?.includes(m)) ?? methods[0]!;
    const value = amountFor(ctx, method);
    const r = await pay(ctx, 'primary', method, value, label, opts.merchantOrderNo);
    const orderNo = readPath(r.a.data, p.checkout?.data.orderNo ?? 'order_no');
    if (!accepted(r.a) || typeof orderNo !== 'string') return { ex: r.ex };
    try {
      // The doctor judges no clause: a refusal here is caught below; the id only types the call.
      await completeCheckout(ctx.t, { orderNo, merchantOrderNo: r.merchantOrderNo }, 'success', 'checkout.creates');
    } catch {
      return { ex: r.ex };
    }
    return { order: { orderNo, merchantOrderNo: r.merchantOrderNo, method, value }, ex: r.ex };
  }
  return {};
}

/**
 * With no pending refund to settle, the settle control's path is still asked, for a refund nobody made: a refusal in
 * the envelope shows the path, "no such path" names it (the one-fact-changed property found a moved path unnoticed
 * where every refund is created settled, or no method takes refunds).
 */
async function settleRefundPath(ctx: DoctorContext): Promise<void> {
  const settle = ctx.loaded.profile.sandbox?.settleRefund;
  if (!settle) return;
  const no = ctx.t.newNo('refund');
  const ex = await control(ctx, 'settleRefund', { refundNo: no, merchantRefundNo: no, outcome: settle.outcomes.success });
  pathItem(ctx, 'sandbox.settleRefund', answerOf(ex), ex);
}

/** Refund data paths and query fields, settlement of a pending refund, and the failing reason, on one paid order. */
export async function checkRefunds(ctx: DoctorContext, paid: PaidOrder | undefined): Promise<void> {
  const r = ctx.loaded.profile.refunds;
  if (!r || !ctx.t.has('refundCreate')) return;
  ctx.progress('refunds');
  const takesRefunds = (m: string): boolean => (r.support[m] ?? 'partial') !== 'none';
  const order =
    paid && takesRefunds(paid.method) ? paid : (await paidOrder(ctx, 'doctor: a paid order to refund', { refundable: true })).order;
  if (!order) {
    await settleRefundPath(ctx);
    add(ctx, 'not-verifiable', 'refunds', 'refunds: data paths and query fields', {
      answered: 'no paid order of a method that takes refunds could be made (cardPayment.cards.success, or sandbox.completeCheckout)',
    });
    return;
  }
  const support = r.support[order.method] ?? 'partial';
  if (support === 'none') {
    add(ctx, 'not-verifiable', 'refunds', 'refunds: data paths and query fields', { answered: `refunds.support.${order.method} is none` });
    return;
  }
  const amount = support === 'full' ? order.value : '1.00';
  const refundNo = ctx.t.newNo('refund');
  const ex = await createRefund(ctx.t, { refundNo, order, amount: usd(amount) }, { label: 'doctor: a refund' });
  const a = answerOf(ex);
  if (unknownPath(a)) return pathItem(ctx, 'refundCreate', a, ex);
  // Only a lookup answers refundNotFound (code 2002; refund creation's refusals are 422) or refuses two lookup numbers
  // at once, or none: another endpoint answered, as a path carrying a number does for a word in its place
  // (/refunds/{refund_no} for /refunds/create-moved, its number from the path and another from the body).
  if (!accepted(a) && (a.code === 2002 || LOOKUP_REFUSALS.has(a.key ?? ''))) {
    add(ctx, 'wrong', 'endpoints.refundCreate', `${ctx.t.pathTemplate('refundCreate')} creates a refund`, {
      expected: "a refund's answer (code 0, or a refusal of refund creation, code 422)",
      answered: `${describeAnswer(a)}: a refund query's answer, not a creation's`,
      fix: 'set endpoints.refundCreate to the path the vendor documents for creating a refund',
      ex: [ex],
    });
    return;
  }
  if (!accepted(a) && a.key === 'refundAmountExceeded' && centsOf(amount) <= centsOf(order.value)) {
    // A first refund within the amount paid "exceeds" it: no profile explains that (see judgeSupportAnswer); the data paths
    // are then not verifiable, as below.
    unexplained(
      ctx,
      `refunds.support.${order.method}`,
      `a refund of ${amount} USD of a paid ${order.method} order is accepted`,
      ['refund.channel-support', 'err.ref.amount-exceeded'],
      {
        expected: 'the refund accepted',
        answered: `${describeAnswer(a)}: a refund of ${amount} of a payment of ${order.value}, its first`,
        why: `a refund of ${amount} does not exceed the ${order.value} paid, whatever the method's refund support`,
        ex: [ex],
      },
    );
  }
  if (!accepted(a) && REFUND_REFUSALS.has(a.key ?? '')) {
    // A refusal the document names for the refund itself (not for its request): the template was read.
    add(ctx, 'not-verifiable', 'refunds.template', `a refund of ${amount} USD of a paid ${order.method} order is accepted`, {
      answered: `${describeAnswer(a)}: refused for a reason of the refund, not of its request (see refunds.support.${order.method})`,
      ex: [ex],
    });
    return;
  }
  if (!accepted(a)) {
    add(ctx, 'wrong', 'refunds.template', `a refund of ${amount} USD of a paid ${order.method} order is accepted`, {
      expected: 'code 0',
      answered: describeAnswer(a),
      fix: "check refunds.template against the vendor's refund request fields",
      ex: [ex],
    });
    return;
  }
  pathItem(ctx, 'refundCreate', a, ex);
  const serviceNo = dataPathItem(ctx, 'refunds.data.refundNo', 'a refund answer', a.data, r.data.refundNo, ex) as string | undefined;
  const status = dataPathItem(ctx, 'refunds.data.status', 'a refund answer', a.data, r.data.status, ex, 'any');
  if (r.data.amount !== undefined) dataPathItem(ctx, 'refunds.data.amount', 'a refund answer', a.data, r.data.amount, ex, 'any');
  for (const [field, by] of [
    ['serviceNo', { serviceNo }],
    ['merchantNo', { merchantNo: refundNo }],
  ] as const) {
    if (by.serviceNo === undefined && field === 'serviceNo') continue;
    // A path carrying the refund's number says how it is found: the body field it leaves out is not asked about.
    const carried = carriedBy(ctx.t.pathTemplate('refundQuery'));
    if (carried.size > 0 && !carried.has(REFUND_NUMBERS[field])) continue;
    const qex = await queryRefund(ctx.t, by, { label: `doctor: query the refund by ${field}` });
    const q = answerOf(qex);
    // A wrong query path is its own item (basics): the fields cannot be judged through it.
    if (unknownPath(q)) continue;
    const found = accepted(q) && (serviceNo === undefined || readPath(q.data, r.data.refundNo) === serviceNo);
    const item = {
      path: carried.size > 0 ? 'endpoints.refundQuery' : `refunds.queryBy.${field}`,
      assumption:
        carried.size > 0 ? `a refund is found by its ${REFUND_NUMBERS[field]} in the path` : `a refund is found by ${r.queryBy[field]}`,
      record: 'refund',
      clauses: ['refund.ids'],
    };
    lookupItem(ctx, item, found ? 'found' : NOT_FOUND.has(q.key ?? '') ? 'not-found' : 'other', describeAnswer(q), qex);
  }
  const settle = ctx.loaded.profile.sandbox?.settleRefund;
  if (settle && serviceNo !== undefined) {
    if (status === 'PENDING') {
      const sex = await control(ctx, 'settleRefund', { refundNo: serviceNo, merchantRefundNo: refundNo, outcome: settle.outcomes.success });
      controlItem(ctx, 'settleRefund', `settles a pending refund as ${settle.outcomes.success}`, sex, [], sentAtOf(ex));
      if (support === 'partial') {
        // The failed outcome on a second pending refund of the same order.
        const second = ctx.t.newNo('refund');
        const rex = await createRefund(
          ctx.t,
          { refundNo: second, order, amount: usd('1.00') },
          { label: 'doctor: a refund to settle as failed' },
        );
        const ra = answerOf(rex);
        const no = readPath(ra.data, r.data.refundNo);
        if (accepted(ra) && typeof no === 'string' && readPath(ra.data, r.data.status) === 'PENDING') {
          controlItem(
            ctx,
            'settleRefund',
            `settles a pending refund as ${settle.outcomes.failed}`,
            await control(ctx, 'settleRefund', { refundNo: no, merchantRefundNo: second, outcome: settle.outcomes.failed }),
            [rex],
            sentAtOf(rex),
          );
        }
      }
    } else {
      await settleRefundPath(ctx);
      add(ctx, 'not-verifiable', 'sandbox.settleRefund', 'settles a pending refund', {
        answered: `the refund was created ${JSON.stringify(status)}, not PENDING`,
        ex: [ex],
      });
    }
  }
  if (r.failingReason !== undefined && support === 'partial') {
    const fex = await createRefund(
      ctx.t,
      { order, amount: usd('1.00'), reason: r.failingReason },
      { label: 'doctor: a refund with the failing reason' },
    );
    const f = answerOf(fex);
    const st = accepted(f) ? readPath(f.data, r.data.status) : undefined;
    const what = 'a refund with refunds.failingReason fails';
    if (!accepted(f) || st === 'FAILED')
      add(ctx, 'verified', 'refunds.failingReason', what, {
        answered: `${describeAnswer(f)}${st !== undefined ? `, status ${JSON.stringify(st)}` : ''}`,
        ex: [fex],
      });
    else
      add(ctx, 'wrong', 'refunds.failingReason', what, {
        expected: 'a refusal or status FAILED',
        answered: `${describeAnswer(f)}, status ${JSON.stringify(st)}`,
        fix: "give in refunds.failingReason the reason the vendor's sandbox fails a refund with",
        ex: [fex],
      });
  }
}

/** A paid order of the primary with one method: its card payment (the card method), else a checkout completed by the sandbox. */
async function paidWith(ctx: DoctorContext, method: string, label: string): Promise<{ order?: PaidOrder; ex?: Exchange }> {
  const p = ctx.loaded.profile;
  const value = amountFor(ctx, method);
  if (method === (p.methods.card ?? 'CARD') && p.cardPayment?.cards.success && ctx.t.has('cardPayment')) {
    const merchantOrderNo = ctx.t.newNo('order');
    const ex = await cardPayment(ctx.t, { merchantOrderNo, amount: usd(value) }, { label });
    const a = answerOf(ex);
    const orderNo = readPath(a.data, p.cardPayment.data.orderNo);
    return { order: accepted(a) && typeof orderNo === 'string' ? { orderNo, merchantOrderNo, method, value } : undefined, ex };
  }
  if (!p.sandbox?.completeCheckout || !p.methods.checkout.includes(method)) return {};
  const r = await pay(ctx, 'primary', method, value, label);
  const orderNo = readPath(r.a.data, p.checkout?.data.orderNo ?? 'order_no');
  if (!accepted(r.a) || typeof orderNo !== 'string') return { ex: r.ex };
  const done = answerOf(await completeCheckoutQuietly(ctx, orderNo, r.merchantOrderNo));
  return { order: accepted(done) ? { orderNo, merchantOrderNo: r.merchantOrderNo, method, value } : undefined, ex: r.ex };
}

async function completeCheckoutQuietly(ctx: DoctorContext, orderNo: string, merchantOrderNo: string): Promise<Exchange> {
  const c = ctx.loaded.profile.sandbox!.completeCheckout!;
  const vars = { orderNo, merchantOrderNo, outcome: c.outcomes.success };
  const ex = await ctx.t.post(c.path, ctx.t.fill(c.template, vars), { label: 'doctor: pay the checkout (sandbox)' });
  ctx.ledger.control('completeCheckout', vars, ex);
  return ex;
}

/**
 * refunds.support per method: "none" refuses a full refund, "full" refuses a partial one and takes the full one, "partial" takes a partial
 * one.
 */
export async function checkRefundSupport(ctx: DoctorContext): Promise<void> {
  const r = ctx.loaded.profile.refunds;
  if (!r || !ctx.t.has('refundCreate')) return;
  ctx.progress('refund support per method');
  await Promise.all(
    Object.entries(r.support).map(async ([method, support]) => {
      const path = `refunds.support.${method}`;
      const tries: { part: boolean; want: 'accepted' | 'refused'; claim: string; clauses: string[] }[] =
        support === 'none'
          ? [
              {
                part: false,
                want: 'refused',
                claim: `${method} takes no refund: a full refund is refused`,
                clauses: ['err.ref.not-supported'],
              },
            ]
          : support === 'full'
            ? [
                {
                  part: true,
                  want: 'refused',
                  claim: `${method} takes full refunds only: a partial refund is refused`,
                  clauses: ['err.ref.full-only'],
                },
                { part: false, want: 'accepted', claim: `${method} takes full refunds: a full refund is accepted`, clauses: [] },
              ]
            : [
                {
                  part: true,
                  want: 'accepted',
                  claim: `${method} takes partial refunds: a partial refund is accepted`,
                  clauses: ['refund.channel-support'],
                },
              ];
      // Each try on a paid order of its own: an accepted partial refund would make the full one exceed the rest.
      for (const t of tries) {
        const { order, ex } = await paidWith(ctx, method, `doctor: a paid ${method} order to refund`);
        // The primary's methods as the doctor pays them (its own list, else methods.checkout and methods.card).
        const primaryLacks = !paymentMethodsOf(ctx, 'primary').some((m) => m.method === method);
        if (!order) {
          add(ctx, 'not-verifiable', path, `${method} refunds: ${support}`, {
            answered: primaryLacks
              ? `${method} is not a method of the primary merchant (merchants.primary.paymentMethods), ` +
                'and the doctor pays as the primary'
              : `no paid ${method} order could be made (` +
                `${
                  method === (ctx.loaded.profile.methods.card ?? 'CARD')
                    ? 'cardPayment.cards.success'
                    : 'methods.checkout and sandbox.completeCheckout'
                })`,
            ex: [ex],
          });
          return;
        }
        const value = t.part ? (centsOf(order.value) >= 200n ? '1.00' : valueOfCents(centsOf(order.value) / 2n)) : order.value;
        const rex = await createRefund(ctx.t, { order, amount: usd(value) }, { label: `doctor: ${t.claim}` });
        const a = answerOf(rex);
        if (unknownPath(a)) return;
        judgeSupportAnswer(ctx, { path, method, claim: t.claim, want: t.want, clauses: t.clauses, part: t.part }, a, value, order, [
          ex,
          rex,
        ]);
      }
    }),
  );
}

/**
 * One refund-support probe's answer. Only `notSupported` ("channel does not support refunds", "supports full refunds
 * only") speaks of the support a profile states, so only it can blame `refunds.support`: a full refund refused so is
 * explained by support "none", a partial one by "full" (a doubt: the target may also break refund.channel-support).
 * `refundAmountExceeded` for a refund within the amount paid is explained by no profile at all: a finding against the
 * target (a full refund refused so stopped a run as "the profile is wrong about refunds.support"). Any other refusal
 * (the merchant's balance and the refund fee, a transient failure, the payment's state, the request's fields) is
 * explained as well by a fact the probe did not isolate: not verifiable.
 */
function judgeSupportAnswer(
  ctx: DoctorContext,
  t: { path: string; method: string; claim: string; want: 'accepted' | 'refused'; clauses: string[]; part: boolean },
  a: Answer,
  value: string,
  order: PaidOrder,
  ex: (Exchange | undefined)[],
): void {
  const answered = describeAnswer(a);
  const fix = `give in ${t.path} what the vendor documents for ${t.method} refunds (none, full or partial)`;
  const ok = t.want === 'accepted' ? accepted(a) : !accepted(a);
  if (ok) add(ctx, 'verified', t.path, t.claim, { answered, ex });
  // A refund let through where the document fixes a refusal (not supported, full only), or a partial refund
  // refused as not supported on a channel declared to take it (refund.channel-support): the target may be wrong.
  else if (t.want === 'refused' || (t.part && a.key === 'notSupported'))
    doubt(ctx, t.path, t.claim, t.clauses, { expected: t.want === 'accepted' ? 'the refund accepted' : 'a refusal', answered, fix, ex });
  else if (a.key === 'notSupported') add(ctx, 'wrong', t.path, t.claim, { expected: 'the refund accepted', answered, fix, ex });
  else if (a.key === 'refundAmountExceeded' && centsOf(value) <= centsOf(order.value))
    unexplained(ctx, t.path, t.claim, ['refund.channel-support', 'err.ref.amount-exceeded'], {
      expected: 'the refund accepted',
      answered: `${answered}: a refund of ${value} of a payment of ${order.value}, its first`,
      why: `a refund of ${value} does not exceed the ${order.value} paid, whatever the method's refund support`,
      ex,
    });
  else
    add(ctx, 'not-verifiable', t.path, t.claim, {
      answered:
        `${answered}: a refusal whose key does not speak of the channel's refund support (notSupported does), which ` +
        "another fact explains as well (the merchant's balance and the refund fee, a transient failure, the payment's " +
        'state, refunds.template)',
      ex,
    });
}
