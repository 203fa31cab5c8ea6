/**
 * sandbox.autoSettle: records that end by themselves after the delay the vendor documents (time the vendor keeps;
 * "Transitions between states (from-state, trigger, condition): not shown."). For each kind declared whose delay the
 * doctor can wait (at most WAIT_LIMIT_MS), one record is made and left alone: looked at as soon as it is made, it must
 * not have ended yet where the delay has not passed (ended before: WRONG on `afterMs`); looked at again once the delay
 * and a margin have passed, it has ended as declared (verified), or in another status (WRONG on `status`), or not yet
 * (not verifiable: the profile says it may end any time after the delay, never that it has). A record is left as it
 * is: the payout is the primary's at its method's minimum, which its balance covers, and the money account counts it.
 */
import type { Exchange } from '../http/exchange.js';
import {
  checkout,
  createPayout,
  createRefund,
  lookupFor,
  PAYOUT_NUMBERS,
  queryPayment,
  queryPayout,
  queryRefund,
  REFUND_NUMBERS,
  sentAtOf,
  usd,
} from '../ops.js';
import { factsOf } from '../facts/index.js';
import { add, type DoctorContext } from './context.js';
import { accepted, answerOf, describeAnswer } from './model.js';
import { readPath } from './payments.js';
import { paidOrder } from './cards.js';

/** The longest delay the doctor waits for (a longer one is not asked). */
export const WAIT_LIMIT_MS = 10_000;
/** How long past the delay the doctor looks again: the target's clock and ours, and the request's travel. */
const MARGIN_MS = 1_500;

type Kind = 'payouts' | 'refunds' | 'checkouts';

interface Made {
  /** Looks the record up and returns its status (undefined where the answer shows none) and the exchange. */
  look(label: string): Promise<{ status: unknown; ex: Exchange }>;
  sentAt: number;
  ex: Exchange;
}

export async function checkAutoSettle(ctx: DoctorContext): Promise<void> {
  const auto = ctx.loaded.profile.sandbox?.autoSettle;
  if (!auto) return;
  ctx.progress('records that end by themselves (sandbox.autoSettle)');
  await Promise.all((['payouts', 'refunds', 'checkouts'] as const).filter((k) => auto[k] !== undefined).map((k) => checkKind(ctx, k)));
}

async function checkKind(ctx: DoctorContext, kind: Kind): Promise<void> {
  const declared = ctx.loaded.profile.sandbox!.autoSettle![kind]!;
  const path = `sandbox.autoSettle.${kind}`;
  const ends = 'status' in declared ? `ends ${declared.status}` : 'expires';
  const claim = `a ${kind.slice(0, -1)} left alone ${ends} by itself ${declared.afterMs} ms after its creation, never before`;
  if (declared.afterMs > WAIT_LIMIT_MS) {
    add(ctx, 'not-verifiable', path, claim, {
      answered: `not asked: the doctor waits at most ${WAIT_LIMIT_MS} ms; the checks accept what it allows`,
    });
    return;
  }
  const made = await make(ctx, kind);
  if (typeof made === 'string') {
    add(ctx, 'not-verifiable', path, claim, { answered: made });
    return;
  }
  const first = await made.look(`doctor: look at the fresh ${kind.slice(0, -1)} before its delay`);
  const open = first.status;
  const early = Date.now() - made.sentAt < declared.afterMs;
  const endedAs = (s: unknown) => ('status' in declared ? s === declared.status : s !== open);
  if (early && 'status' in declared && open === declared.status) {
    add(ctx, 'wrong', path, claim, {
      expected: `still open before ${declared.afterMs} ms`,
      answered: `${String(open)} ${Date.now() - made.sentAt} ms after its creation was sent`,
      fix: `give in ${path}.afterMs the delay the target keeps`,
      ex: [made.ex, first.ex],
    });
    return;
  }
  await new Promise((r) => setTimeout(r, Math.max(0, made.sentAt + declared.afterMs + MARGIN_MS - Date.now())));
  const later = await made.look(`doctor: look at the ${kind.slice(0, -1)} once its delay has passed`);
  const s = later.status;
  if (s === undefined) {
    add(ctx, 'not-verifiable', path, claim, { answered: `${describeAnswer(answerOf(later.ex))}: no status shown`, ex: [later.ex] });
  } else if (endedAs(s)) {
    add(ctx, 'verified', path, claim, { answered: `${String(s)} after the delay`, ex: [made.ex, later.ex] });
  } else if (s === open) {
    add(ctx, 'not-verifiable', path, claim, {
      answered: `still ${String(s)} after the delay: it may end any time after it, which no look proves`,
      ex: [later.ex],
    });
  } else {
    add(ctx, 'wrong', path, claim, {
      expected: 'status' in declared ? declared.status : 'expired',
      answered: String(s),
      fix: `give in ${path}.status the status it ends in`,
      ex: [made.ex, later.ex],
    });
  }
}

/** One fresh record of the kind by the primary merchant, or why none could be made. */
async function make(ctx: DoctorContext, kind: Kind): Promise<Made | string> {
  const p = ctx.loaded.profile;
  if (kind === 'checkouts') {
    const method = p.methods.checkout.find((m) => !p.methods.pricePoint?.includes(m) && m !== p.methods.noChannel);
    if (!method || !ctx.t.has('checkout')) return 'not asked: the profile declares no checkout method the doctor can pay';
    const merchantOrderNo = ctx.t.newNo('order');
    const lim = factsOf(p, 'primary').paymentLimits(method);
    const ex = await checkout(
      ctx.t,
      { merchantOrderNo, method, amount: usd(lim?.min ?? '10.00') },
      { label: 'doctor: a checkout left unpaid' },
    );
    if (!accepted(answerOf(ex))) return `not asked: the checkout was refused (${describeAnswer(answerOf(ex))})`;
    const path = p.paymentRecord?.status ?? p.checkout?.data.status;
    if (!path) return 'not asked: the profile says where no record shows its status (paymentRecord.status)';
    return {
      ex,
      sentAt: sentAtOf(ex),
      look: async (label) => {
        const q = await queryPayment(ctx.t, { merchant_order_no: merchantOrderNo }, { label });
        return { status: readPath(answerOf(q).data, path), ex: q };
      },
    };
  }
  if (kind === 'payouts') {
    const payouts = p.payouts;
    const method = factsOf(p, 'primary').payoutMethods.find((m) => factsOf(p, 'primary').takesCurrency(m, 'USD') !== false);
    if (!payouts || !method || !payouts.data.status) return 'not asked: no payout method of the primary, or no payout status path';
    const lim = factsOf(p, 'primary').payoutLimits(method, 'USD');
    const merchantPayoutNo = ctx.t.newNo('payout');
    const ex = await createPayout(
      ctx.t,
      { payoutNo: merchantPayoutNo, method, amount: usd(lim?.min ?? '1.00') },
      { label: 'doctor: a payout left alone' },
    );
    const a = answerOf(ex);
    if (!accepted(a)) return `not asked: the payout was refused (${describeAnswer(a)})`;
    const no = readPath(a.data, payouts.data.payoutNo);
    const statusPath = payouts.data.status;
    return {
      ex,
      sentAt: sentAtOf(ex),
      look: async (label) => {
        const record = { ...(typeof no === 'string' ? { serviceNo: no } : {}), merchantNo: merchantPayoutNo };
        const q = await queryPayout(ctx.t, lookupFor(ctx.t, 'payoutQuery', PAYOUT_NUMBERS, record), { label });
        return { status: readPath(answerOf(q).data, statusPath), ex: q };
      },
    };
  }
  const refunds = p.refunds;
  if (!refunds?.data.status) return 'not asked: the profile declares no refunds, or no refund status path';
  const { order } = await paidOrder(ctx, 'doctor: a payment to refund', { refundable: true });
  if (!order) return 'not asked: no payment the doctor could pay and refund';
  const merchantRefundNo = ctx.t.newNo('refund');
  const ex = await createRefund(
    ctx.t,
    { refundNo: merchantRefundNo, order, amount: usd(order.value) },
    { label: 'doctor: a refund left alone' },
  );
  const a = answerOf(ex);
  if (!accepted(a)) return `not asked: the refund was refused (${describeAnswer(a)})`;
  const no = readPath(a.data, refunds.data.refundNo);
  if (readPath(a.data, refunds.data.status) !== 'PENDING') return 'not asked: the refund was created already ended (not PENDING)';
  const statusPath = refunds.data.status;
  return {
    ex,
    sentAt: sentAtOf(ex),
    look: async (label) => {
      const record = { ...(typeof no === 'string' ? { serviceNo: no } : {}), merchantNo: merchantRefundNo };
      const q = await queryRefund(ctx.t, lookupFor(ctx.t, 'refundQuery', REFUND_NUMBERS, record), { label });
      return { status: readPath(answerOf(q).data, statusPath), ex: q };
    },
  };
}
