/**
 * The ways the profile says the sandbox causes a failure by a magic value or a header (sandbox.triggers,
 * harness/profile/triggers.ts), each verified by the request that carries it (harness/triggered.ts): the payment then
 * queried, the payment's creation, the refund of a paid payment. The switch's ways are controls.ts's; refunds.failingReason
 * is cards.ts's. A magic value fails only the request that carries it, so these probes need no exclusive section and run
 * beside the other stages.
 *
 * The verdicts: the failure's refusal (its code and key) verifies the way; an acceptance is WRONG on the way (the value
 * caused nothing: a profile without it explains the answer); the refusal of another failure kind is WRONG naming the kind
 * it causes; the failure's key with another code is a doubt against the failure's clause (the document fixes the code); any
 * other refusal is about something else and leaves the way not verifiable. A way with a count: each of its `count`
 * requests must fail (the one after may too: that is the checks' to judge, query.transient).
 */
import type { Exchange } from '../http/exchange.js';
import { PreconditionSkip } from '../check/failure.js';
import { describeTrigger, FAILURE_KINDS, isRefundKind, triggerPath } from '../profile/triggers.js';
import type { ArmFailureKind } from '../profile/types.js';
import { carryingCents, type MagicTrigger, paymentCarrying, paymentPartOf, queryCarrying, refundCarrying } from '../triggered.js';
import { add, doubt, type DoctorContext } from './context.js';
import { control } from './control.js';
import { accepted, answerOf, describeAnswer, refused } from './model.js';
import { readPath } from './payments.js';

/** The refusal each failure is (INTERFACE.md › Errors), and the clause that fixes it. */
const REFUSALS: Readonly<Record<ArmFailureKind, { code: number; key: string; clause: string; what: string }>> = {
  queryFailed: { code: 500, key: 'queryFailed', clause: 'err.pay.query-failed', what: 'the payment query' },
  orderCreationFailed: { code: 422, key: 'systemBusy', clause: 'err.pay.creation-failed', what: "the payment's creation" },
  refundSystemBusy: { code: 422, key: 'systemBusy', clause: 'err.ref.system-busy', what: "the refund's creation" },
  refundFailed: { code: 422, key: 'refundFailed', clause: 'err.ref.failed', what: "the refund's creation" },
};

/** Each declared magic-value or header way of each failure kind, side by side. */
export async function checkTriggers(ctx: DoctorContext): Promise<void> {
  const listed = ctx.loaded.profile.sandbox?.triggers;
  if (!listed) return;
  ctx.progress('failure triggers');
  const ways = FAILURE_KINDS.flatMap((kind) =>
    (listed[kind] ?? []).filter((w): w is MagicTrigger => w.way !== 'control').map((w) => ({ kind, w })),
  );
  await Promise.all(ways.map(({ kind, w }) => checkWay(ctx, kind, w)));
}

/** What a way's probe came to: the requests, the one that should have failed, and those after it (a count). */
interface Probe {
  ex: Exchange[];
  carrying: Exchange;
  more: Exchange[];
}

async function checkWay(ctx: DoctorContext, kind: ArmFailureKind, w: MagicTrigger): Promise<void> {
  const path = triggerPath(ctx.loaded.profile, kind, w);
  const want = REFUSALS[kind];
  const claim = `${describeTrigger(w)} makes ${want.what} fail with ${want.code} ${want.key}`;
  let probe: Probe | string;
  try {
    probe = await probeWay(ctx, kind, w);
  } catch (e) {
    if (e instanceof PreconditionSkip) return void add(ctx, 'not-verifiable', path, claim, { answered: e.message });
    throw e;
  }
  if (typeof probe === 'string') return void add(ctx, 'not-verifiable', path, claim, { answered: probe });
  const a = answerOf(probe.carrying);
  const ex = [...probe.ex, probe.carrying];
  if (accepted(a)) {
    add(ctx, 'wrong', path, claim, {
      expected: `${want.code} ${want.key}`,
      answered: `${describeAnswer(a)}: the value caused no failure`,
      fix: `give in ${path} the value (or header) the vendor's sandbox causes ${kind} with, or leave the way out`,
      ex,
    });
    return;
  }
  if (!refused(a)) return void add(ctx, 'not-verifiable', path, claim, { answered: `${describeAnswer(a)}: no envelope`, ex });
  if (a.key === want.key && a.code !== want.code) {
    doubt(ctx, path, claim, [want.clause], {
      expected: `${want.code} ${want.key}`,
      answered: describeAnswer(a),
      fix: `give in ${path} the value the vendor's sandbox causes ${kind} with`,
      ex,
    });
    return;
  }
  if (a.key !== want.key) {
    // The refusal of another failure the same request can have: the way is that kind's.
    // Only a refund's creation has two failures; a query's and a payment's creation have one each.
    const other = FAILURE_KINDS.find(
      (k) => k !== kind && isRefundKind(k) && isRefundKind(kind) && REFUSALS[k].key === a.key && REFUSALS[k].code === a.code,
    );
    if (other)
      add(ctx, 'wrong', path, claim, {
        expected: `${want.code} ${want.key}`,
        answered: `${describeAnswer(a)}: the refusal of ${other}`,
        fix: `move the way to sandbox.triggers.${other}`,
        ex,
      });
    else
      add(ctx, 'not-verifiable', path, claim, {
        answered: `${describeAnswer(a)}: a refusal whose key is not the failure's (${want.key}), about something else`,
        ex,
      });
    return;
  }
  const early = probe.more.findIndex((x) => describeAnswer(answerOf(x)) !== describeAnswer(a));
  if (early >= 0) {
    add(ctx, 'wrong', `${path}.count`, `${describeTrigger(w)} fails ${w.count} requests carrying it`, {
      expected: `${w.count} requests refused ${want.key}`,
      answered: `${early + 1} refused, then ${describeAnswer(answerOf(probe.more[early]!))}`,
      fix: `set ${path}.count to ${early + 1}`,
      ex: [...ex, ...probe.more],
    });
    return;
  }
  add(ctx, 'verified', path, claim, { answered: describeAnswer(a), ex: [...ex, ...probe.more] });
}

/** The request that carries the way, after what it needs (a payment to query or to refund); a string says why none went. */
async function probeWay(ctx: DoctorContext, kind: ArmFailureKind, w: MagicTrigger): Promise<Probe | string> {
  const t = ctx.t;
  const p = ctx.loaded.profile;
  const label = `doctor: ${kind} by ${describeTrigger(w)}`;
  if (kind === 'orderCreationFailed') return { ex: [], carrying: await paymentCarrying(t, w, { label }).send(), more: [] };
  const method = isRefundKind(kind) ? refundMethod(ctx, w) : undefined;
  if (isRefundKind(kind) && method === undefined) return 'no payment the doctor can make takes refunds (refunds.support, cardPayment)';
  const part = kind === 'queryFailed' ? (w.way === 'header' ? undefined : w) : paymentPartOf(w);
  // A refund's amount way: the payment is of that amount, refunded whole.
  const cents = method && (w.way === 'amount' || w.way === 'amountEnding') ? carryingCents(t, w, method) : undefined;
  const pay = paymentCarrying(t, part, { ...(method ? { method } : {}), ...(cents ? { cents } : {}), label: `${label}: the payment` });
  const made = await pay.send();
  const orderNo = readPath(answerOf(made).data, pay.orderNoAt);
  if (!accepted(answerOf(made)) || typeof orderNo !== 'string')
    return `the payment it needs was not made: ${describeAnswer(answerOf(made))}`;
  const order = { orderNo, merchantOrderNo: pay.merchantOrderNo };
  if (kind === 'queryFailed') {
    const carrying = await queryCarrying(t, w, order.merchantOrderNo, label);
    const more: Exchange[] = [];
    for (let n = 1; n < (w.count ?? 1); n++) more.push(await queryCarrying(t, w, order.merchantOrderNo, `${label}: again`));
    return { ex: [made], carrying, more };
  }
  const ex = [made];
  if (!pay.byCard) {
    const c = p.sandbox?.completeCheckout;
    if (!c) return 'no paid payment to refund: the payment is a checkout and no sandbox.completeCheckout pays it';
    const done = await control(ctx, 'completeCheckout', { ...order, outcome: c.outcomes.success });
    ex.push(done);
    if (!accepted(answerOf(done))) return `the checkout to refund was not completed: ${describeAnswer(answerOf(done))}`;
  }
  return { ex, carrying: await refundCarrying(t, w, order, pay.cents, label), more: [] };
}

/** A method whose payment the doctor can make and refund whole: the card method for a card or e-mail way. */
function refundMethod(ctx: DoctorContext, w: MagicTrigger): string | undefined {
  const p = ctx.loaded.profile;
  const card = p.cardPayment && ctx.t.has('cardPayment') ? (p.methods.card ?? 'CARD') : undefined;
  const refunds = (m: string) => ['partial', 'full'].includes(String(p.refunds?.support[m]));
  if (w.way === 'card' || w.way === 'email') return card && refunds(card) ? card : undefined;
  if (card && refunds(card)) return card;
  return p.sandbox?.completeCheckout ? p.methods.checkout.find(refunds) : undefined;
}
