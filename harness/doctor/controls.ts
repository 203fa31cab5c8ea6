/**
 * The sandbox controls, each on a fresh record: completeCheckout (both outcomes), expireCheckout,
 * chargeback, completeCard, and each armed failure (the next request of its kind fails).
 */
import type { Exchange } from '../http/exchange.js';
import { type ArmFailureControl, armCount, armSection, armVariables, REFUND_KINDS, subjectOf } from '../profile/arm-failure.js';
import type { ArmFailureKind, ArmFailureValue } from '../profile/types.js';
import { cardPayment, createRefund, queryPayment, usd } from '../ops.js';
import { add, doubt, type DoctorContext } from './context.js';
import { accepted, answerOf, describeAnswer, refused, unknownPath } from './model.js';
import { control, controlItem, type ControlName } from './control.js';
import { amountFor, pay, readPath } from './payments.js';
import type { PaidOrder } from './cards.js';
import { paidOrder } from './cards.js';
import { kind } from './kinds.js';

/** A fresh unpaid checkout of the primary (its first method). */
async function freshCheckout(
  ctx: DoctorContext,
  label: string,
): Promise<{ orderNo: string; merchantOrderNo: string; ex: Exchange } | undefined> {
  const p = ctx.loaded.profile;
  const method = p.methods.checkout[0]!;
  const r = await pay(ctx, 'primary', method, amountFor(ctx, method), label);
  const orderNo = readPath(r.a.data, p.checkout?.data.orderNo ?? 'order_no');
  return accepted(r.a) && typeof orderNo === 'string' ? { orderNo, merchantOrderNo: r.merchantOrderNo, ex: r.ex } : undefined;
}

function noRecord(ctx: DoctorContext, name: ControlName, claim: string, why: string): void {
  add(ctx, 'not-verifiable', `sandbox.${name}`, claim, { answered: why });
}

/** The status of a payment now, as the record shows it. */
async function recordStatus(ctx: DoctorContext, orderNo: string): Promise<{ status: unknown; ex: Exchange }> {
  const rec = ctx.loaded.profile.paymentRecord;
  const ex = await queryPayment(ctx.t, { order_no: orderNo }, { label: 'doctor: status after the control' });
  return { status: rec ? readPath(answerOf(ex).data, rec.status) : undefined, ex };
}

/**
 * The status after a control that answered code 0 and left the record pending: asked again once the
 * order's webhook came (a target may show a change only then). A webhook that shows the change while
 * the query still does not is the target's to answer for (webhook.recover-by-query), not the outcome's.
 */
async function stillPending(
  ctx: DoctorContext,
  orderNo: string,
  merchantOrderNo: string,
  pending: unknown,
  path: string,
  claim: string,
  ex: Exchange[],
): Promise<boolean> {
  let hooks: { status?: unknown }[] = [];
  try {
    const wait = ctx.loaded.profile.webhooks?.deliveryWaitMs ?? 0;
    const got = await ctx.t.receiver().waitFor({ merchantNo: merchantOrderNo }, (ds) => ds.length > 0, wait);
    hooks = got.map((d) => (d.json ?? {}) as { status?: unknown });
  } catch {
    // No receiver: only the query can tell.
  }
  const again = await recordStatus(ctx, orderNo);
  if (again.status !== pending) return false;
  const changed = hooks.find((h) => h.status !== undefined && h.status !== pending);
  if (changed)
    doubt(ctx, path, claim, ['webhook.recover-by-query'], {
      expected: `a status other than ${pending}`,
      answered: `a webhook says ${JSON.stringify(changed.status)}, but the payment query still shows ${JSON.stringify(again.status)}`,
      fix: `give in ${path} the value the vendor's control takes`,
      ex: [...ex, again.ex],
    });
  else
    add(ctx, 'wrong', path, claim, {
      expected: `a status other than ${pending}`,
      answered: `the control answered code 0 but the payment is still ${JSON.stringify(again.status)}`,
      fix: `give in ${path} the value the vendor's control takes`,
      ex: [...ex, again.ex],
    });
  return true;
}

/**
 * The key of the refusal each armed failure is (INTERFACE.md › Errors: queryFailed; order creation and refund systemBusy; refundFailed).
 */
const ARMED_KEYS: Readonly<Record<ArmFailureKind, string>> = {
  queryFailed: 'queryFailed',
  orderCreationFailed: 'systemBusy',
  refundSystemBusy: 'systemBusy',
  refundFailed: 'refundFailed',
};
export async function checkControls(ctx: DoctorContext, cards: { paid?: PaidOrder; pending?: PaidOrder }): Promise<void> {
  const s = ctx.loaded.profile.sandbox;
  if (!s) return;
  ctx.progress('sandbox controls');
  const pending = ctx.loaded.profile.checkout?.pendingStatus;
  const tasks: Promise<void>[] = [];
  if (s.completeCheckout) {
    for (const outcome of ['success', 'failed'] as const) {
      tasks.push(
        kind(ctx, 'sandbox.completeCheckout', async () => {
          const claim = `completes a fresh checkout as ${s.completeCheckout!.outcomes[outcome]}`;
          const o = await freshCheckout(ctx, `doctor: a checkout to complete as ${outcome}`);
          if (!o) return noRecord(ctx, 'completeCheckout', claim, 'no checkout could be created (see above)');
          const ex = await control(ctx, 'completeCheckout', {
            orderNo: o.orderNo,
            merchantOrderNo: o.merchantOrderNo,
            outcome: s.completeCheckout!.outcomes[outcome],
          });
          if (!accepted(answerOf(ex))) {
            controlItem(ctx, 'completeCheckout', claim, ex, [o.ex]);
            return;
          }
          const after = await recordStatus(ctx, o.orderNo);
          if (
            after.status !== undefined &&
            after.status === pending &&
            (await stillPending(ctx, o.orderNo, o.merchantOrderNo, pending, `sandbox.completeCheckout.outcomes.${outcome}`, claim, [
              o.ex,
              ex,
              after.ex,
            ]))
          )
            return;
          controlItem(ctx, 'completeCheckout', claim, ex, [o.ex, after.ex]);
        }),
      );
    }
  }
  if (s.expireCheckout) {
    tasks.push(
      kind(ctx, 'sandbox.expireCheckout', async () => {
        const o = await freshCheckout(ctx, 'doctor: a checkout to expire');
        if (!o) return noRecord(ctx, 'expireCheckout', 'expires a fresh checkout', 'no checkout could be created (see above)');
        controlItem(
          ctx,
          'expireCheckout',
          'expires a fresh checkout',
          await control(ctx, 'expireCheckout', { orderNo: o.orderNo, merchantOrderNo: o.merchantOrderNo }),
          [o.ex],
        );
      }),
    );
  }
  if (s.chargeback) {
    tasks.push(
      kind(ctx, 'sandbox.chargeback', async () => {
        const { order, ex } = await paidOrder(ctx, 'doctor: a paid order to charge back');
        if (!order)
          return noRecord(
            ctx,
            'chargeback',
            'records a chargeback on a paid order',
            'no paid order could be made (cardPayment.cards.success, or sandbox.completeCheckout)',
          );
        controlItem(
          ctx,
          'chargeback',
          'records a chargeback on a paid order',
          await control(ctx, 'chargeback', { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo }),
          ex ? [ex] : [],
        );
      }),
    );
  }
  if (s.completeCard) {
    tasks.push(
      kind(ctx, 'sandbox.completeCard', async () => {
        const claim = 'completes a pending card payment';
        if (!cards.pending) return noRecord(ctx, 'completeCard', claim, 'no pending card payment was made (cardPayment.cards.pending)');
        const ex = await control(ctx, 'completeCard', {
          orderNo: cards.pending.orderNo,
          merchantOrderNo: cards.pending.merchantOrderNo,
          outcome: s.completeCard!.outcomes.success,
        });
        if (!accepted(answerOf(ex))) {
          controlItem(ctx, 'completeCard', claim, ex);
          return;
        }
        const after = await recordStatus(ctx, cards.pending.orderNo);
        // A pending card may have a status name of its own (cardPayment.pendingStatus, version 4).
        const cardPending = ctx.loaded.profile.cardPayment?.pendingStatus ?? pending;
        if (
          !(
            after.status !== undefined &&
            after.status === cardPending &&
            (await stillPending(
              ctx,
              cards.pending.orderNo,
              cards.pending.merchantOrderNo,
              cardPending,
              'sandbox.completeCard.outcomes.success',
              claim,
              [ex, after.ex],
            ))
          )
        )
          controlItem(ctx, 'completeCard', claim, ex, [after.ex]);
        // The failed outcome on a second pending card payment.
        const cp = ctx.loaded.profile.cardPayment!;
        const merchantOrderNo = ctx.t.newNo('order');
        const pex = await cardPayment(
          ctx.t,
          { merchantOrderNo, amount: usd(cards.pending.value), card: cp.cards.pending! },
          { label: 'doctor: a pending card payment to complete as failed' },
        );
        const orderNo = readPath(answerOf(pex).data, cp.data.orderNo);
        if (typeof orderNo !== 'string') return;
        const fex = await control(ctx, 'completeCard', { orderNo, merchantOrderNo, outcome: s.completeCard!.outcomes.failed });
        controlItem(ctx, 'completeCard', `completes a pending card payment as ${s.completeCard!.outcomes.failed}`, fex, [pex]);
      }),
    );
  }
  await Promise.all(tasks);
}

/** What each armed failure is tried on: a paid order for a refund kind, an unpaid checkout for queryFailed. */
export type ArmSubjects = ReadonlyMap<ArmFailureKind, PaidOrder | undefined>;

/**
 * The orders the armed failures need, made before any is armed, side by side and beside the stage before them (they
 * are plain payments: nothing is armed yet). Made between the arms, they lengthened the doctor's one chain
 * that must stay alone by 3 round trips.
 */
export async function armSubjects(ctx: DoctorContext): Promise<ArmSubjects> {
  const arm = ctx.loaded.profile.sandbox?.armFailure;
  const kinds = (Object.entries(arm?.failures ?? {}) as [ArmFailureKind, ArmFailureValue | undefined][])
    .filter(([kind, value]) => value !== undefined && (REFUND_KINDS.includes(kind) || kind === 'queryFailed'))
    .map(([kind]) => kind);
  const made = await Promise.all(
    kinds.map(async (kind): Promise<PaidOrder | undefined> => {
      // An order the target refunds, refunded as it takes refunds: a "not supported" refusal is no armed failure.
      if (kind !== 'queryFailed') return (await paidOrder(ctx, `doctor: a paid order for ${kind}`, { refundable: true })).order;
      // The query must be one that succeeds unarmed: it asks for an order that exists.
      const fresh = await freshCheckout(ctx, 'doctor: an order to query with queryFailed armed');
      return (
        fresh && {
          orderNo: fresh.orderNo,
          merchantOrderNo: fresh.merchantOrderNo,
          method: ctx.loaded.profile.methods.checkout[0]!,
          value: '',
        }
      );
    }),
  );
  return new Map(kinds.map((kind, i) => [kind, made[i]]));
}

/**
 * Each armed failure: the control answers code 0, and the next request of its kind is refused. One at a time: they are one-shot per
 * merchant. A refund kind is armed with the number the refund is then created with (the switch may match it: refundSubject).
 * `subjects`: the orders made for them beforehand (armSubjects), beside the stage before this one.
 */
export async function checkArmedFailures(ctx: DoctorContext, subjects: ArmSubjects): Promise<void> {
  const arm = ctx.loaded.profile.sandbox?.armFailure;
  if (!arm) return;
  ctx.progress('armed failures');
  for (const [kind, value] of Object.entries(arm.failures) as [ArmFailureKind, ArmFailureValue | undefined][]) {
    if (value === undefined) continue;
    const path = `sandbox.armFailure.failures.${kind}`;
    const refundKind = REFUND_KINDS.includes(kind);
    const bySubject = refundKind && subjectOf(arm, kind) === 'merchantRefundNo' ? ' (matched by the refund number)' : '';
    const claim =
      `arms a one-shot ${kind}${bySubject}: the next ` +
      `${refundKind ? 'refund' : kind === 'queryFailed' ? 'payment query' : 'checkout'} fails`;
    const order = subjects.get(kind);
    if (refundKind && (!order || !ctx.loaded.profile.refunds || !ctx.t.has('refundCreate'))) {
      add(ctx, 'not-verifiable', path, claim, { answered: 'no paid order and refund could be made (cardPayment, refunds)' });
      continue;
    }
    if (kind === 'queryFailed' && !order) {
      add(ctx, 'not-verifiable', path, claim, { answered: 'no checkout could be created (see above)' });
      continue;
    }
    const subjectNo = order?.merchantOrderNo ?? ctx.t.newNo('order');
    const refundNo = refundKind ? ctx.t.newNo('refund') : undefined;
    // Alone for what the switch may hit (sandbox.armFailure.scope): from arming until every failure it armed was met.
    const section = armSection(arm, kind, ctx.loaded.merchants.primary.id);
    await ctx.t.exclusive(section, async () => {
      const armEx = await control(ctx, 'armFailure', armVariables(arm, kind, { merchantOrderNo: subjectNo, merchantRefundNo: refundNo }));
      const armed = answerOf(armEx);
      if (!accepted(armed)) {
        // Refused by the target's own envelope: the switch did not take this kind's values (a missing path is the path's).
        if (unknownPath(armed)) controlItem(ctx, 'armFailure', claim, armEx);
        else
          add(ctx, 'wrong', path, claim, {
            expected: 'code 0',
            answered: `arm: ${describeAnswer(armed)}`,
            fix: `give in ${path} the value(s) the vendor's control takes for ${kind} (and check sandbox.armFailure.template)`,
            ex: [armEx],
          });
        return;
      }
      // The request it was armed for; then, for a switch that fails several (sandbox.armFailure.count), the same kind
      // again about the number it was armed for (a request any switch of that arming hits): the same query, the same
      // order number, a refund of the same payment (numbered anew, unless the switch matches refunds by their number).
      const probe = async (again: boolean, fresh = false): Promise<Exchange> => {
        if (kind === 'queryFailed')
          return queryPayment(ctx.t, { merchant_order_no: subjectNo }, { label: 'doctor: the query after queryFailed was armed' });
        if (kind === 'orderCreationFailed') {
          const method = ctx.loaded.profile.methods.checkout[0]!;
          // A target may arm the failure for one order number (the template's merchantOrderNo): use that one.
          const label = 'doctor: the checkout after orderCreationFailed was armed';
          return (await pay(ctx, 'primary', method, amountFor(ctx, method), label, fresh ? ctx.t.newNo('order') : subjectNo)).ex;
        }
        const full = ctx.loaded.profile.refunds?.support[order!.method] === 'full';
        const byNumber = subjectOf(arm, kind) === 'merchantRefundNo';
        return createRefund(
          ctx.t,
          {
            refundNo: fresh || (again && !byNumber) ? ctx.t.newNo('refund') : refundNo,
            order: order!,
            amount: usd(full ? order!.value : '1.00'),
          },
          { label: `doctor: the refund after ${kind} was armed` },
        );
      };
      const ex = await probe(false);
      const a = answerOf(ex);
      // Only the refusal the armed kind names shows the switch worked; another (the amount, a field, a balance) is about
      // something else and proves nothing either way.
      if (refused(a) && a.key !== ARMED_KEYS[kind]) {
        add(ctx, 'not-verifiable', path, claim, {
          answered: `arm: code 0; then ${describeAnswer(a)}: a refusal whose key is not the armed failure's (${ARMED_KEYS[kind]})`,
          ex: [armEx, ex],
        });
        return;
      }
      if (!refused(a)) {
        if (!(refundKind && (await otherSubjectArms(ctx, arm, kind, [armEx, ex]))))
          add(ctx, 'wrong', path, claim, {
            expected: 'the next request refused',
            answered: `arm: code 0; then ${describeAnswer(a)}: the armed failure did not happen`,
            fix:
              `give in ${path} the value the vendor's control takes for ${kind}` +
              (refundKind ? ' (or in sandbox.armFailure.refundSubject the number its switch matches a refund by)' : ''),
            ex: [armEx, ex],
          });
        return;
      }
      const more: Exchange[] = [];
      // Each further failure the arming armed is the same refusal as the first (whatever its code and key).
      const same = describeAnswer(a);
      for (let n = 1; n < armCount(arm); n++) {
        let next = await probe(true);
        more.push(next);
        let fresh = false;
        // Refused for another reason (the same number again: a duplicate): a request about new numbers, which a switch
        // of the merchant's operation or of the target hits, and one of those numbers does not.
        if (refused(answerOf(next)) && describeAnswer(answerOf(next)) !== same && kind !== 'queryFailed') {
          next = await probe(true, true);
          more.push(next);
          fresh = true;
        }
        const b = answerOf(next);
        if (refused(b) && describeAnswer(b) === same) continue;
        // A switch that matches the number it was armed for (the profile need not say so) does not reach the new numbers
        // the duplicate forced: their acceptance says nothing of the count.
        if (refused(b) || fresh) {
          add(ctx, 'not-verifiable', 'sandbox.armFailure.count', `one arming fails ${armCount(arm)} requests`, {
            answered: fresh
              ? `arm: code 0; then ${n} refused as armed; the same number again was a duplicate, and a request about new ` +
                `numbers, which a switch matching the armed number does not reach, ${describeAnswer(b)}`
              : `arm: code 0; then ${n} refused as armed, and the next ${describeAnswer(b)}, for another reason`,
            ex: [armEx, ex, ...more],
          });
          break;
        }
        add(ctx, 'wrong', 'sandbox.armFailure.count', `one arming fails ${armCount(arm)} requests`, {
          expected: `${armCount(arm)} requests of its kind refused after one arming`,
          answered: `arm: code 0; then ${n} refused, and the next ${describeAnswer(b)}`,
          fix: `set sandbox.armFailure.count to ${n}`,
          ex: [armEx, ex, ...more],
        });
        return;
      }
      add(ctx, 'verified', path, claim, { answered: `arm: code 0; then ${describeAnswer(a)}`, ex: [armEx, ex, ...more] });
    });
  }
}

/**
 * A refund failure armed and not seen: armed for the other number (the payment's instead of the refund's, or the reverse)
 * on a fresh paid order, does it happen? Then the profile is wrong about what the switch matches (refundSubject): WRONG
 * naming it. False when it does not happen either (the kind's values are then in question).
 */
async function otherSubjectArms(ctx: DoctorContext, arm: ArmFailureControl, kind: ArmFailureKind, before: Exchange[]): Promise<boolean> {
  const other = subjectOf(arm, kind) === 'merchantRefundNo' ? 'merchantOrderNo' : 'merchantRefundNo';
  const flipped: ArmFailureControl = { ...arm, refundSubject: other };
  // A template that sends both numbers sends the same body either way: nothing to tell apart.
  const body = (a: ArmFailureControl) =>
    JSON.stringify(ctx.t.fill(arm.template, armVariables(a, kind, { merchantOrderNo: 'O', merchantRefundNo: 'R' })));
  if (body(flipped) === body(arm)) return false;
  const order = (await paidOrder(ctx, `doctor: a paid order for ${kind}, armed by the other number`, { refundable: true })).order;
  if (!order) return false;
  const refundNo = ctx.t.newNo('refund');
  const nums = { merchantOrderNo: order.merchantOrderNo, merchantRefundNo: refundNo };
  const armEx = await control(ctx, 'armFailure', armVariables(flipped, kind, nums));
  if (!accepted(answerOf(armEx))) return false;
  const full = ctx.loaded.profile.refunds?.support[order.method] === 'full';
  const ex = await createRefund(
    ctx.t,
    { refundNo, order, amount: usd(full ? order.value : '1.00') },
    { label: `doctor: the refund after ${kind} was armed by the other number` },
  );
  const a = answerOf(ex);
  if (!refused(a)) return false;
  add(ctx, 'wrong', 'sandbox.armFailure.refundSubject', `a refund failure is matched by the ${subjectOf(arm, kind)}`, {
    expected: `the refund armed by its ${subjectOf(arm, kind)} refused`,
    answered: `it was not; armed by its ${other}, the next refund: ${describeAnswer(a)}`,
    fix: `set sandbox.armFailure.refundSubject to "${other}"`,
    ex: [...before, armEx, ex],
  });
  return true;
}
