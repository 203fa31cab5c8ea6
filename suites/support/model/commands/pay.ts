/** The stateful model's `pay` command: what it is called, when it applies, and what it sends, judges and records. */
import { recordReading } from '../../../../harness/check/context.js';
import { expectString, pick } from '../../../../harness/check/expect.js';
import { cardFixture, cardPayment, checkout, sentAtOf, usd } from '../../../../harness/ops.js';
import { predictPayment } from '../predict.js';
import type { Model, PaymentBase } from '../state.js';
import { judge } from '../verdict.js';
import { type CommandKind, type Op, type Real, numberSlot, send } from '../real.js';
import { valueOfCents } from '../../../../harness/facts/money.js';

function describe(s: Op<'pay'>): string {
  return s.via === 'checkout'
    ? `create a ${s.method} checkout of ${valueOfCents(s.cents)} as ${s.as}`
    : `pay ${valueOfCents(s.cents)} by card with the ${s.via === 'card-success' ? 'success' : 'decline'} card as ${s.as}`;
}

function applicable(m: Readonly<Model>, s: Op<'pay'>): boolean {
  const lim = m.caps.paymentLimits[s.method];
  if (m.caps.magicCents?.(s.cents)) return false;
  return !lim || lim.some((c) => s.cents >= c.min && s.cents <= c.max);
}

async function pay(m: Model, r: Real, s: Op<'pay'>): Promise<void> {
  const t = r.target;
  const pred = predictPayment(m, s);
  const slot = numberSlot(m, r, s.as);
  const amount = usd(valueOfCents(s.cents));
  const what = describe(s);
  const ex = await send(
    r,
    s.via === 'checkout'
      ? checkout(t, { merchantOrderNo: slot.no, method: s.method, amount }, { label: what })
      : cardPayment(
          t,
          { merchantOrderNo: slot.no, amount, card: cardFixture(t, s.via === 'card-decline' ? 'decline' : 'success') },
          { label: what },
        ),
  );
  const paths =
    s.via === 'checkout'
      ? { orderNo: t.profile.checkout?.data.orderNo ?? 'order_no', status: t.profile.checkout?.data.status }
      : { orderNo: t.profile.cardPayment?.data.orderNo ?? 'order_no', status: t.profile.cardPayment?.data.status };
  const original = slot.payment;
  const verdict = judge(ex, pred, what, (data) => {
    // A declined payment's service number may be unknown; its FAILED record answered to a new request is the replay.
    if (original?.declined && paths.status && pick(data, paths.status) === 'FAILED')
      return `declined payment under ${original.merchantOrderNo}`;
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
      sentAt: sentAtOf(ex),
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

export const payCommand: CommandKind<'pay'> = { describe, applicable, run: pay };
