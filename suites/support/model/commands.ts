/**
 * fast-check commands over the model: `check` keeps a command to states where it makes sense,
 * `run` sends the request through harness/ops.ts, compares the answer with the model's
 * prediction, updates the model from the answer, and then checks the money invariants.
 */
import type { AsyncCommand } from 'fast-check';
import type { CommandSpec, NumberName, PayoutMerchant, PayoutName } from '../../../fixtures/arbitraries/commands.js';
import { recordReading } from '../../../harness/check/context.js';
import { expectEqual, expectError, expectOneOf, expectString, expectSuccess, failCheck, held, pick } from '../../../harness/check/expect.js';
import { splitMsg } from '../../../harness/envelope.js';
import type { Exchange } from '../../../harness/exchange.js';
import {
  cancelPayout,
  cardFixture,
  cardPayment,
  checkout,
  createPayout,
  createRefund,
  queryPayment,
  queryPayout,
  queryRefund,
  usd,
} from '../../../harness/ops.js';
import type { Target } from '../../../harness/target.js';
import { expectedPaymentStatus, moneyBreaches, predictPayment, predictPayout, predictPayoutCancel, predictRefund, refundCents } from './predict.js';
import { sandboxControl } from './sandbox.js';
import {
  type Model,
  money,
  type NumberSlot,
  type PaymentBase,
  type PaymentRec,
  type PayoutRec,
  type PayoutSlot,
  paymentOf,
  payoutKey,
  payoutSlotOf,
  type RefundRec,
  refundOf,
} from './state.js';
import { judge } from './verdict.js';

/** One step of a sequence as it ran: the command and the exchanges it caused. */
export interface Step {
  command: string;
  exchanges: Exchange[];
}

/** The system under test for one sequence, and the log of what the sequence sent. */
export interface Real {
  target: Target;
  steps: Step[];
}

export function newReal(target: Target): Real {
  return { target, steps: [] };
}

async function send(r: Real, pending: Promise<Exchange>): Promise<Exchange> {
  const ex = await pending;
  r.steps.at(-1)?.exchanges.push(ex);
  return ex;
}

const FINAL_PAYOUT = new Set(['SUCCESS', 'FAILED', 'CANCELED']);
const lb = (merchant: PayoutMerchant) => (merchant === 'lowBalance' ? ' of the low-balance merchant' : '');
const STATUS = { success: 'SUCCESS', failed: 'FAILED' } as const;

/** A readable name for a command: "refund 12.34 of order#2 as refund#1". */
export function describeCommand(s: CommandSpec, resolvedCents?: number): string {
  switch (s.op) {
    case 'pay':
      return s.via === 'checkout'
        ? `create a ${s.method} checkout of ${money(s.cents)} as ${s.as}`
        : `pay ${money(s.cents)} by card with the ${s.via === 'card-success' ? 'success' : 'decline'} card as ${s.as}`;
    case 'complete':
      return `complete the checkout of ${s.order} as ${STATUS[s.outcome]}`;
    case 'chargeback':
      return `charge back ${s.order}`;
    case 'expire':
      return `expire the checkout of ${s.order}`;
    case 'query-payment':
      return `query the payment ${s.order} by ${s.by === 'merchant' ? 'merchant_order_no' : 'order_no'}`;
    case 'refund': {
      const known = resolvedCents === undefined ? '' : ` (${money(resolvedCents)})`;
      const amount = s.amount.mode === 'fixed' ? money(s.amount.cents) : s.amount.mode === 'rest' ? `the rest${known}` : `the rest + ${money(s.amount.cents)}${known}`;
      return `refund ${amount} of ${s.order} as ${s.as}${s.failing ? ' with the failing reason' : ''}`;
    }
    case 'settle-refund':
      return `settle the refund ${s.refund} as ${STATUS[s.outcome]}`;
    case 'query-refund':
      return `query the refund ${s.refund} by ${s.by === 'merchant' ? 'merchant_refund_no' : 'refund_no'}`;
    case 'payout':
      return `create a ${s.method} payout of ${money(s.cents)} as ${s.as}${lb(s.merchant)}`;
    case 'cancel-payout':
      return `cancel the payout ${s.payout}${lb(s.merchant)}`;
    case 'settle-payout':
      return `settle the payout ${s.payout}${lb(s.merchant)} as ${STATUS[s.outcome]}`;
    case 'query-payout':
      return `query the payout ${s.payout}${lb(s.merchant)} by ${s.by === 'merchant' ? 'merchant_payout_no' : 'payout_no'}`;
  }
}

/** Whether the command makes sense in this state (fast-check skips it otherwise). */
export function applicable(m: Readonly<Model>, s: CommandSpec): boolean {
  switch (s.op) {
    case 'pay': {
      const lim = m.caps.paymentLimits[s.method];
      return !lim || lim.some((c) => s.cents >= c.min && s.cents <= c.max);
    }
    case 'complete':
    case 'expire': {
      const p = paymentOf(m, s.order);
      return p?.base === 'pending' && p.orderNo !== undefined;
    }
    case 'chargeback': {
      const p = paymentOf(m, s.order);
      return p?.base === 'SUCCESS' && !p.chargedBack && p.refunds.length === 0 && p.orderNo !== undefined;
    }
    case 'query-payment':
      return s.by === 'merchant' ? m.numbers.has(s.order) : paymentOf(m, s.order)?.orderNo !== undefined;
    case 'refund': {
      if (!m.numbers.has(s.order)) return false;
      const p = paymentOf(m, s.order);
      if (m.caps.refundNeedsOrderNo && p?.orderNo === undefined) return false;
      return refundCents(m, s) !== undefined;
    }
    case 'settle-refund': {
      const r = refundOf(m, s.refund);
      return r?.status === 'PENDING' && r.refundNo !== undefined;
    }
    case 'query-refund':
      return s.by === 'merchant' ? m.numbers.has(s.refund) : refundOf(m, s.refund)?.refundNo !== undefined;
    case 'payout': {
      const lim = m.caps.payoutLimits[s.method];
      const own = m.caps.payoutMethods[s.merchant];
      return (!own || own.includes(s.method)) && (!lim || lim.some((c) => s.cents >= c.min && s.cents <= c.max));
    }
    case 'cancel-payout':
      return payoutSlotOf(m, s.merchant, s.payout) !== undefined;
    case 'settle-payout':
      return payoutSlotOf(m, s.merchant, s.payout)?.payout?.status === 'open';
    case 'query-payout': {
      const slot = payoutSlotOf(m, s.merchant, s.payout);
      return s.by === 'merchant' ? slot !== undefined : slot?.payout !== undefined;
    }
  }
}

export class SpecCommand implements AsyncCommand<Model, Real> {
  /** `limit`: most commands a sequence runs; later ones are skipped. */
  constructor(
    readonly spec: CommandSpec,
    readonly limit = Number.POSITIVE_INFINITY,
  ) {}

  check(m: Readonly<Model>): boolean {
    return m.ran < this.limit && applicable(m, this.spec);
  }

  async run(m: Model, r: Real): Promise<void> {
    const s = this.spec;
    m.ran += 1;
    r.steps.push({ command: describeCommand(s, s.op === 'refund' && s.amount.mode !== 'fixed' ? refundCents(m, s) : undefined), exchanges: [] });
    await execute(m, r, s);
    const breach = moneyBreaches(m)[0];
    if (breach) failCheck(breach.code, breach.clause, `money invariant broken after "${this.toString()}": ${breach.message}`, { expected: breach.expected, seen: breach.seen });
  }

  toString(): string {
    return describeCommand(this.spec);
  }
}

function numberSlot(m: Model, r: Real, name: NumberName): NumberSlot {
  let slot = m.numbers.get(name);
  if (!slot) {
    slot = { name, no: r.target.newNo(name.startsWith('order') ? 'order' : 'refund') };
    m.numbers.set(name, slot);
  }
  return slot;
}

function payoutSlot(m: Model, r: Real, merchant: PayoutMerchant, name: PayoutName): PayoutSlot {
  const key = payoutKey(merchant, name);
  let slot = m.payoutNumbers.get(key);
  if (!slot) {
    slot = { name, merchant, no: r.target.newNo('payout') };
    m.payoutNumbers.set(key, slot);
  }
  return slot;
}

function execute(m: Model, r: Real, s: CommandSpec): Promise<void> {
  switch (s.op) {
    case 'pay':
      return pay(m, r, s);
    case 'complete':
    case 'chargeback':
    case 'expire':
      return paymentOutcome(m, r, s);
    case 'query-payment':
      return queryPaymentCmd(m, r, s);
    case 'refund':
      return refund(m, r, s);
    case 'settle-refund':
      return settleRefundCmd(m, r, s);
    case 'query-refund':
      return queryRefundCmd(m, r, s);
    case 'payout':
      return payout(m, r, s);
    case 'cancel-payout':
      return cancelPayoutCmd(m, r, s);
    case 'settle-payout':
      return settlePayoutCmd(m, r, s);
    case 'query-payout':
      return queryPayoutCmd(m, r, s);
  }
}

type Op<K extends CommandSpec['op']> = Extract<CommandSpec, { op: K }>;

async function pay(m: Model, r: Real, s: Op<'pay'>): Promise<void> {
  const t = r.target;
  const pred = predictPayment(m, s);
  const slot = numberSlot(m, r, s.as);
  const amount = usd(money(s.cents));
  const what = describeCommand(s);
  const ex = await send(
    r,
    s.via === 'checkout'
      ? checkout(t, { merchantOrderNo: slot.no, method: s.method, amount }, { label: what })
      : cardPayment(t, { merchantOrderNo: slot.no, amount, card: cardFixture(t, s.via === 'card-decline' ? 'decline' : 'success') }, { label: what }),
  );
  const paths =
    s.via === 'checkout'
      ? { orderNo: t.profile.checkout?.data.orderNo ?? 'order_no', status: t.profile.checkout?.data.status }
      : { orderNo: t.profile.cardPayment?.data.orderNo ?? 'order_no', status: t.profile.cardPayment?.data.status };
  const original = slot.payment;
  const verdict = judge(ex, pred, what, (data) => {
    // A declined payment's service number may be unknown; its FAILED record answered to a new request is the replay.
    if (original?.declined && paths.status && pick(data, paths.status) === 'FAILED') return `declined payment under ${original.merchantOrderNo}`;
    if (original?.orderNo === undefined) return undefined;
    const where = [paths.orderNo, t.profile.paymentRecord?.orderNo].filter((p): p is string => p !== undefined);
    return where.some((p) => pick(data, p) === original.orderNo) ? `payment ${original.orderNo}` : undefined;
  });
  if (verdict.accepted) {
    const orderNo = expectString(verdict.data, paths.orderNo, pred.successClause, ex);
    const seen = paths.status ? pick(verdict.data, paths.status) : undefined;
    let base: PaymentBase = s.via === 'checkout' ? 'pending' : 'SUCCESS';
    if (s.via !== 'checkout' && typeof seen === 'string' && seen !== 'SUCCESS') base = 'pending';
    if (s.via === 'checkout' && typeof seen === 'string') recordReading('stateful.checkout-status-on-creation', seen);
    slot.payment = {
      name: s.as,
      merchantOrderNo: slot.no,
      orderNo,
      method: s.method,
      via: s.via === 'checkout' ? 'checkout' : 'card',
      cents: s.cents,
      base,
      ...(base === 'pending' && typeof seen === 'string' ? { pendingSeen: seen } : {}),
      declined: false,
      chargedBack: false,
      refunds: [],
      refusedRepeats: 0,
    };
    return;
  }
  if (slot.payment) {
    slot.payment.refusedRepeats += 1;
    return;
  }
  if (!slot.refund && verdict.outcome.key === 'paymentFailed') {
    // Declined: recorded as FAILED, its service number shown only by a query.
    slot.payment = {
      name: s.as,
      merchantOrderNo: slot.no,
      method: s.method,
      via: 'card',
      cents: s.cents,
      base: 'FAILED',
      declined: true,
      chargedBack: false,
      refunds: [],
      refusedRepeats: 0,
    };
  }
}

async function paymentOutcome(m: Model, r: Real, s: Op<'complete'> | Op<'chargeback'> | Op<'expire'>): Promise<void> {
  const p = paymentOf(m, s.order)!;
  const vars = { orderNo: p.orderNo, merchantOrderNo: p.merchantOrderNo };
  const what = describeCommand(s);
  if (s.op === 'complete') {
    const ex = await send(r, sandboxControl(r.target, 'completeCheckout', vars, { outcome: s.outcome, label: what }));
    expectSuccess(ex, 'state.payment.values', `the sandbox control to ${what}`);
    p.base = s.outcome === 'success' ? 'SUCCESS' : 'FAILED';
  } else if (s.op === 'chargeback') {
    const ex = await send(r, sandboxControl(r.target, 'chargeback', vars, { label: what }));
    expectSuccess(ex, 'state.refund.charged-back', `the sandbox control to ${what}`);
    p.chargedBack = true;
  } else {
    const ex = await send(r, sandboxControl(r.target, 'expireCheckout', vars, { label: what }));
    expectSuccess(ex, 'state.no-webhook.expiry-chargeback', `the sandbox control to ${what}`);
    p.base = 'expired';
  }
}

async function queryPaymentCmd(m: Model, r: Real, s: Op<'query-payment'>): Promise<void> {
  const t = r.target;
  const slot = numberSlot(m, r, s.order);
  const p = slot.payment;
  const what = describeCommand(s);
  const ex = await send(r, queryPayment(t, s.by === 'merchant' ? { merchant_order_no: slot.no } : { order_no: p!.orderNo }, { label: what }));
  if (!p) {
    const held = slot.refund || slot.maybeRefund ? ` (${s.order} is a refund's number, not a payment's)` : ` (${s.order} was never used for a payment)`;
    expectError(ex, { code: 2002, key: 'orderNotFound' }, 'query.not-found', `${what}${held}`);
    return;
  }
  const data = expectSuccess(ex, 'query.returns-record', what);
  checkPaymentRecord(m, t, p, data, ex, what);
}

function checkPaymentRecord(m: Model, t: Target, p: PaymentRec, data: Record<string, unknown>, ex: Exchange, what: string): void {
  const rec = t.profile.paymentRecord;
  if (!rec) return;
  expectEqual(pick(data, rec.merchantOrderNo), p.merchantOrderNo, 'WRONG_RECORD', 'query.returns-record', `${what} returned another payment's record (merchant_order_no)`, ex);
  if (p.orderNo === undefined) p.orderNo = expectString(data, rec.orderNo, 'query.returns-record', ex);
  else expectEqual(pick(data, rec.orderNo), p.orderNo, 'WRONG_RECORD', 'query.returns-record', `${what} returned another payment's record (order_no)`, ex);
  const amountClause = p.refusedRepeats > 0 ? 'idem.original-unchanged' : 'payment.trans-amount.usd-charged';
  const amountNote = p.refusedRepeats > 0 ? ` after ${p.refusedRepeats} refused repeat(s) of its number` : '';
  expectEqual(pick(data, `${rec.transAmount}.value`), money(p.cents), 'WRONG_AMOUNT', amountClause, `${what}: the amount charged is not the amount of ${p.name}${amountNote}`, ex);
  expectEqual(pick(data, `${rec.transAmount}.currency`), 'USD', 'WRONG_AMOUNT', amountClause, `${what}: the amount charged is not in USD`, ex);
  const status = pick(data, rec.status);
  const want = expectedPaymentStatus(m, p);
  if (want.values === undefined) {
    recordReading(want.topic, String(status));
    return;
  }
  if (typeof status !== 'string' || !want.values.includes(status)) {
    failCheck('WRONG_STATUS', want.clause, `${what}: the status does not follow from the sequence (${statusStory(p)})`, {
      expected: want.values.join(' or '),
      seen: JSON.stringify(status),
      exchange: ex,
    });
  }
  held(want.clause);
  if (want.topic) recordReading(want.topic, status);
}

function statusStory(p: PaymentRec): string {
  const parts = [`${p.name} is ${p.base}${p.declined ? ' (declined)' : ''}`];
  if (p.chargedBack) parts.push('charged back (visible only in the merchant portal)');
  for (const r of p.refunds) parts.push(`refund ${r.name} of ${money(r.cents)} is ${r.status}`);
  return parts.join(', ');
}

async function refund(m: Model, r: Real, s: Op<'refund'>): Promise<void> {
  const t = r.target;
  const failingReason = t.profile.refunds?.failingReason;
  const cents = refundCents(m, s)!;
  const pred = predictRefund(m, s, cents, failingReason !== undefined);
  const orderSlot = m.numbers.get(s.order)!;
  const p = orderSlot.payment;
  const slot = numberSlot(m, r, s.as);
  const what = r.steps.at(-1)?.command ?? describeCommand(s, cents);
  const ex = await send(
    r,
    createRefund(
      t,
      {
        refundNo: slot.no,
        order: { orderNo: p?.orderNo ?? '', merchantOrderNo: orderSlot.no },
        amount: usd(money(cents)),
        ...(s.failing && failingReason !== undefined ? { reason: failingReason } : {}),
      },
      { label: what },
    ),
  );
  const dataPaths = t.profile.refunds!.data;
  const original = slot.refund;
  const verdict = judge(ex, pred, what, (data) =>
    original?.refundNo !== undefined && pick(data, dataPaths.refundNo) === original.refundNo ? `refund ${original.refundNo}` : undefined,
  );
  if (verdict.accepted) {
    const refundNo = expectString(verdict.data, dataPaths.refundNo, 'refund.ids', ex);
    const status = pick(verdict.data, dataPaths.status);
    if (status !== 'PENDING' && status !== 'SUCCESS') {
      failCheck('WRONG_STATUS', 'state.refund.values', `${what}: a refund is created as PENDING or SUCCESS`, { expected: 'PENDING or SUCCESS', seen: JSON.stringify(status), exchange: ex });
    }
    held('state.refund.values');
    recordReading('stateful.refund-status-on-creation', status);
    checkRefundAmount(t, verdict.data, cents, ex, what);
    const rec: RefundRec = { name: s.as, merchantRefundNo: slot.no, refundNo, payment: p!, cents, status, failedAtCreation: false };
    p!.refunds.push(rec);
    slot.refund = rec;
    return;
  }
  if (slot.refund) return;
  if (verdict.outcome.key === 'refundFailed' && p) {
    // Recorded as FAILED and refused: the number stays used.
    const rec: RefundRec = { name: s.as, merchantRefundNo: slot.no, payment: p, cents, status: 'FAILED', failedAtCreation: true };
    p.refunds.push(rec);
    slot.refund = rec;
    return;
  }
  if (verdict.outcome.key !== 'duplicateRefundOrder' && verdict.outcome.key !== 'duplicateMerchantOrder') slot.maybeRefund = true;
}

function checkRefundAmount(t: Target, data: Record<string, unknown>, cents: number, ex: Exchange, what: string): void {
  const path = t.profile.refunds?.data.amount;
  if (!path) return;
  expectEqual(pick(data, `${path}.value`), money(cents), 'WRONG_AMOUNT', 'refund.amount.positive-2-decimals', `${what}: the refund record shows another amount`, ex);
}

async function settleRefundCmd(m: Model, r: Real, s: Op<'settle-refund'>): Promise<void> {
  const rec = refundOf(m, s.refund)!;
  const what = describeCommand(s);
  const ex = await send(r, sandboxControl(r.target, 'settleRefund', { refundNo: rec.refundNo, merchantRefundNo: rec.merchantRefundNo }, { outcome: s.outcome, label: what }));
  expectSuccess(ex, 'state.refund.values', `the sandbox control to ${what}`);
  rec.status = STATUS[s.outcome];
}

async function queryRefundCmd(m: Model, r: Real, s: Op<'query-refund'>): Promise<void> {
  const t = r.target;
  const slot = numberSlot(m, r, s.refund);
  const rec = slot.refund;
  const what = describeCommand(s);
  const ex = await send(r, queryRefund(t, s.by === 'merchant' ? { merchantNo: slot.no } : { serviceNo: rec!.refundNo }, { label: what }));
  if (!rec) {
    const notFound = { code: 2002, key: 'refundNotFound' };
    if (slot.maybeRefund) {
      const code = (ex.response?.json as { code?: unknown } | undefined)?.code;
      if (code === 0) recordReading('stateful.refused-refund-queried', 'found');
      else expectOneOf(ex, [notFound], 'err.ref.not-found', 'stateful.refused-refund-queried', what);
      return;
    }
    expectError(ex, notFound, 'err.ref.not-found', `${what} (${s.refund} is not a refund's number)`);
    return;
  }
  const data = expectSuccess(ex, 'refund.ids', what);
  const paths = t.profile.refunds!.data;
  if (rec.refundNo === undefined) rec.refundNo = expectString(data, paths.refundNo, 'refund.ids', ex);
  else expectEqual(pick(data, paths.refundNo), rec.refundNo, 'WRONG_RECORD', 'refund.ids', `${what} returned another refund's record`, ex);
  const status = pick(data, paths.status);
  const clause = rec.failedAtCreation ? 'idem.refused-stays-used' : 'state.refund.values';
  expectEqual(status, rec.status, 'WRONG_STATUS', clause, `${what}: the status does not follow from the sequence${rec.failedAtCreation ? ' (recorded as failed and refused)' : ''}`, ex);
  checkRefundAmount(t, data, rec.cents, ex, what);
}

function payoutStatusOf(seen: unknown): { status: PayoutRec['status']; openSeen?: string } {
  if (typeof seen === 'string' && FINAL_PAYOUT.has(seen)) return { status: seen as PayoutRec['status'] };
  return typeof seen === 'string' ? { status: 'open', openSeen: seen } : { status: 'open' };
}

async function payout(m: Model, r: Real, s: Op<'payout'>): Promise<void> {
  const t = r.target;
  const pred = predictPayout(m, s);
  const slot = payoutSlot(m, r, s.merchant, s.as);
  const what = describeCommand(s);
  const ex = await send(r, createPayout(t, { payoutNo: slot.no, method: s.method, amount: usd(money(s.cents)) }, { label: what, as: s.merchant }));
  const paths = t.profile.payouts!.data;
  const original = slot.payout;
  const verdict = judge(ex, pred, what, (data) => (original && pick(data, paths.payoutNo) === original.payoutNo ? `payout ${original.payoutNo}` : undefined));
  if (!verdict.accepted) {
    if (!slot.payout) slot.maybe = true;
    return;
  }
  const payoutNo = expectString(verdict.data, paths.payoutNo, 'payout.ids', ex);
  const seen = pick(verdict.data, paths.status);
  recordReading('stateful.payout-status-on-creation', String(seen));
  slot.payout = { name: s.as, merchant: s.merchant, merchantPayoutNo: slot.no, payoutNo, method: s.method, cents: s.cents, ...payoutStatusOf(seen) };
}

async function cancelPayoutCmd(m: Model, r: Real, s: Op<'cancel-payout'>): Promise<void> {
  const t = r.target;
  const slot = payoutSlot(m, r, s.merchant, s.payout);
  const pred = predictPayoutCancel(m, s);
  const what = describeCommand(s);
  const ex = await send(r, cancelPayout(t, { merchantNo: slot.no }, { label: what, as: s.merchant }));
  const verdict = judge(ex, pred, what);
  const po = slot.payout;
  if (!po) return;
  if (verdict.accepted) {
    const seen = pick(verdict.data, t.profile.payouts!.data.status);
    if (seen !== undefined) expectEqual(seen, 'CANCELED', 'WRONG_STATUS', 'state.payout.values', `${what}: a cancelled payout shows CANCELED`, ex);
    po.status = 'CANCELED';
    return;
  }
  if (verdict.outcome.key === 'payoutNotCancelable' && po.status !== 'open') {
    const msg = (ex.response?.json as { msg?: unknown } | undefined)?.msg;
    const message = typeof msg === 'string' ? splitMsg(msg).message : '';
    if (!message.toUpperCase().includes(po.status)) {
      failCheck('STATUS_NOT_NAMED', 'state.payout.not-cancelable', `${what}: the payoutNotCancelable message names the current status`, { expected: `a message naming ${po.status}`, seen: JSON.stringify(msg), exchange: ex });
    }
    held('state.payout.not-cancelable');
  }
}

async function settlePayoutCmd(m: Model, r: Real, s: Op<'settle-payout'>): Promise<void> {
  const po = payoutSlotOf(m, s.merchant, s.payout)!.payout!;
  const what = describeCommand(s);
  const ex = await send(r, sandboxControl(r.target, 'settlePayout', { payoutNo: po.payoutNo, merchantPayoutNo: po.merchantPayoutNo }, { outcome: s.outcome, label: what, as: s.merchant }));
  expectSuccess(ex, 'state.payout.values', `the sandbox control to ${what}`);
  po.status = STATUS[s.outcome];
}

async function queryPayoutCmd(m: Model, r: Real, s: Op<'query-payout'>): Promise<void> {
  const t = r.target;
  const slot = payoutSlot(m, r, s.merchant, s.payout);
  const po = slot.payout;
  const what = describeCommand(s);
  const ex = await send(r, queryPayout(t, s.by === 'merchant' ? { merchantNo: slot.no } : { serviceNo: po!.payoutNo }, { label: what, as: s.merchant }));
  if (!po) {
    const notFound = { code: 5002, key: 'notFound' };
    if (slot.maybe) {
      const code = (ex.response?.json as { code?: unknown } | undefined)?.code;
      if (code === 0) recordReading('stateful.refused-payout-queried', 'found');
      else expectOneOf(ex, [notFound], 'err.po.query-not-found', 'stateful.refused-payout-queried', what);
      return;
    }
    expectError(ex, notFound, 'err.po.query-not-found', `${what} (${s.payout} was never used for a payout)`);
    return;
  }
  const data = expectSuccess(ex, 'payout.ids', what);
  const paths = t.profile.payouts!.data;
  expectEqual(pick(data, paths.payoutNo), po.payoutNo, 'WRONG_RECORD', 'payout.ids', `${what} returned another payout's record`, ex);
  const seen = pick(data, paths.status);
  if (po.status === 'open') {
    if (po.openSeen !== undefined) expectEqual(seen, po.openSeen, 'WRONG_STATUS', 'state.payout.values', `${what}: the payout is still open`, ex);
    else if (typeof seen === 'string' && FINAL_PAYOUT.has(seen)) failCheck('WRONG_STATUS', 'state.payout.values', `${what}: the payout is still open`, { expected: 'a status other than SUCCESS, FAILED, CANCELED', seen, exchange: ex });
    else if (typeof seen === 'string') held('state.payout.values');
  } else {
    expectEqual(seen, po.status, 'WRONG_STATUS', 'state.payout.values', `${what}: the status does not follow from the sequence`, ex);
  }
}
