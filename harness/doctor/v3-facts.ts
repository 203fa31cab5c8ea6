/**
 * The facts only a version-3 profile says (docs/PROFILE.md): each verified against the target, or listed as not
 * verifiable with the reason. Kept apart from the other phases so the doctor's own modules stay as they are.
 */
import type { Card } from '../profile/types.js';
import { cardPayment, createRefund, usd } from '../ops.js';
import { paidOrder } from './cards.js';
import { add, doubt, type DoctorContext } from './context.js';
import { accepted, answerOf, describeAnswer, unknownPath } from './model.js';
import { amountFor, readPath } from './payments.js';

const ROLES = ['primary', 'second', 'frozen', 'lowBalance'] as const;

export async function checkV3Facts(ctx: DoctorContext): Promise<void> {
  namesAndBalances(ctx);
  await Promise.all([declineCards(ctx), refundCreatedStatus(ctx)]);
}

/** Names, logins and the balances of merchants other than the low-balance one: said, but nothing shows them. */
function namesAndBalances(ctx: DoctorContext): void {
  const merchants = ctx.loaded.profile.merchants;
  for (const role of ROLES) {
    const m = merchants[role];
    if (!m) continue;
    for (const field of ['name', 'login'] as const) {
      if (m[field] === undefined) continue;
      add(ctx, 'not-verifiable', `merchants.${role}.${field}`, `the ${role} merchant's ${field}`, {
        answered:
          'the interface shows no merchant name or login in any answer; the ' +
          'checks send it as X-MerchantID and judge the refusal (auth.merchant-id)',
      });
    }
    if (role !== 'lowBalance' && m.payoutBalances !== undefined)
      add(ctx, 'not-verifiable', `merchants.${role}.payoutBalances`, `the ${role} merchant's payout balances`, {
        answered:
          role === 'frozen'
            ? 'no answer shows it (a disabled merchant is refused merchantFrozen), and no check uses it yet'
            : 'only a payout above a balance shows it (5004 insufficientFunds), and ' +
              'the doctor pays out only within the low-balance merchant’s balance',
      });
  }
}

/** Each of cardPayment.declines is declined (422 paymentFailed): the vendor documents it, so another answer is a doubt. */
async function declineCards(ctx: DoctorContext): Promise<void> {
  const cp = ctx.loaded.profile.cardPayment;
  if (!cp?.declines?.length || !ctx.t.has('cardPayment')) return;
  const value = amountFor(ctx, ctx.loaded.profile.methods.card ?? 'CARD');
  await Promise.all(
    cp.declines.map(async (card: Card, i) => {
      const path = `cardPayment.declines[${i}]`;
      const ex = await cardPayment(ctx.t, { amount: usd(value), card }, { label: `doctor: decline card ${i + 1}` });
      const a = answerOf(ex);
      // A wrong card path is the cards phase's item.
      if (unknownPath(a)) return;
      const what = 'the provider declines a payment with this card (422 paymentFailed)';
      if (a.envelope && a.code === 422 && a.key === 'paymentFailed')
        add(ctx, 'verified', path, what, { answered: describeAnswer(a), ex: [ex] });
      else
        doubt(ctx, path, what, ['err.pay.declined'], {
          expected: 'code 422, key paymentFailed',
          answered: describeAnswer(a),
          fix: `remove ${path}, or give the card number the vendor documents as declined`,
          ex: [ex],
        });
    }),
  );
}

/**
 * refunds.createdStatus of the card method, on a refund of a card payment: the document allows PENDING and SUCCESS,
 * so only the profile can be wrong about which. Other methods need a paid payment of theirs: not asked.
 */
async function refundCreatedStatus(ctx: DoctorContext): Promise<void> {
  const r = ctx.loaded.profile.refunds;
  const created = r?.createdStatus;
  if (!r || !created || !ctx.t.has('refundCreate')) return;
  const card = ctx.loaded.profile.methods.card ?? 'CARD';
  for (const method of Object.keys(created).filter((m) => m !== card))
    add(ctx, 'not-verifiable', `refunds.createdStatus.${method}`, `a new ${method} refund is ${created[method]}`, {
      answered: `not asked: the doctor refunds only card payments (a ${method} payment needs a completed checkout)`,
    });
  const want = created[card];
  if (want === undefined || (r.support[card] ?? 'partial') === 'none' || !ctx.loaded.profile.cardPayment?.cards.success) return;
  const path = `refunds.createdStatus.${card}`;
  const what = `a new ${card} refund is ${want}`;
  const { order } = await paidOrder(ctx, 'doctor: a card payment to refund (refunds.createdStatus)');
  if (!order || order.method !== card) {
    add(ctx, 'not-verifiable', path, what, { answered: 'no card payment could be made (cardPayment.cards.success)' });
    return;
  }
  const amount = r.support[card] === 'full' ? order.value : '1.00';
  const ex = await createRefund(ctx.t, { order, amount: usd(amount) }, { label: 'doctor: a refund (refunds.createdStatus)' });
  const a = answerOf(ex);
  const status = accepted(a) ? readPath(a.data, r.data.status) : undefined;
  if (typeof status !== 'string') {
    add(ctx, 'not-verifiable', path, what, { answered: `${describeAnswer(a)}: no refund status to compare (refunds phase)`, ex: [ex] });
    return;
  }
  if (status === want) add(ctx, 'verified', path, what, { answered: `status ${JSON.stringify(status)}`, ex: [ex] });
  else
    add(ctx, 'wrong', path, what, {
      expected: `status ${JSON.stringify(want)}`,
      answered: `status ${JSON.stringify(status)}`,
      fix: `set ${path} to ${JSON.stringify(status === 'SUCCESS' ? 'SUCCESS' : 'PENDING')}, as the target creates it`,
      ex: [ex],
    });
}
