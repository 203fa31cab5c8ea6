/** The stateful model's `refund` command: what it is called, when it applies, and what it sends, judges and records. */
import { recordReading } from '../../../../harness/check/context.js';
import { expectEqual, expectString, failCheck, held, pick } from '../../../../harness/check/expect.js';
import type { Exchange } from '../../../../harness/http/exchange.js';
import { createRefund, sentAtOf, usd } from '../../../../harness/ops.js';
import type { Target } from '../../../../harness/target.js';
import { predictRefund, refundCents } from '../predict.js';
import { type Model, paymentOf, type RefundRec } from '../state.js';
import { judge } from '../verdict.js';
import { type CommandKind, type Op, type Real, numberSlot, send } from '../real.js';
import { valueOfCents } from '../../../../harness/facts/money.js';

function describe(s: Op<'refund'>, resolvedCents?: number): string {
  const known = resolvedCents === undefined ? '' : ` (${valueOfCents(resolvedCents)})`;
  const amount =
    s.amount.mode === 'fixed'
      ? valueOfCents(s.amount.cents)
      : s.amount.mode === 'rest'
        ? `the rest${known}`
        : `the rest + ${valueOfCents(s.amount.cents)}${known}`;
  return `refund ${amount} of ${s.order} as ${s.as}${s.failing ? ' with the failing reason' : ''}`;
}

function applicable(m: Readonly<Model>, s: Op<'refund'>): boolean {
  if (!m.numbers.has(s.order)) return false;
  const p = paymentOf(m, s.order);
  if (m.caps.refundNeedsOrderNo && p?.orderNo === undefined) return false;
  const cents = refundCents(m, s);
  // A refund the sandbox fails by design (a declared magic amount) is never sent.
  return cents !== undefined && !m.caps.magicCents?.(cents);
}

async function refund(m: Model, r: Real, s: Op<'refund'>): Promise<void> {
  const t = r.target;
  const failingReason = t.profile.refunds?.failingReason;
  const cents = refundCents(m, s)!;
  const pred = predictRefund(m, s, cents, failingReason !== undefined);
  const orderSlot = m.numbers.get(s.order)!;
  const p = orderSlot.payment;
  const slot = numberSlot(m, r, s.as);
  const what = r.steps.at(-1)?.command ?? describe(s, cents);
  const ex = await send(
    r,
    createRefund(
      t,
      {
        refundNo: slot.no,
        order: { orderNo: p?.orderNo ?? '', merchantOrderNo: orderSlot.no },
        amount: usd(valueOfCents(cents)),
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
      failCheck('state.refund.values', {
        code: 'WRONG_STATUS',
        title: `${what}: a refund is created as PENDING or SUCCESS`,
        expected: 'PENDING or SUCCESS',
        seen: JSON.stringify(status),
        exchange: ex,
      });
    }
    held('state.refund.values');
    recordReading('stateful.refund-status-on-creation', status);
    checkRefundAmount(t, verdict.data, cents, ex, what);
    const rec: RefundRec = {
      name: s.as,
      merchantRefundNo: slot.no,
      refundNo,
      payment: p!,
      cents,
      status,
      failedAtCreation: false,
      sentAt: sentAtOf(ex),
    };
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

export function checkRefundAmount(t: Target, data: Record<string, unknown>, cents: number, ex: Exchange, what: string): void {
  const path = t.profile.refunds?.data.amount;
  if (!path) return;
  expectEqual(pick(data, `${path}.value`), valueOfCents(cents), 'refund.amount.positive-2-decimals', {
    code: 'WRONG_AMOUNT',
    title: `${what}: the refund record shows another amount`,
    exchange: ex,
  });
}

export const refundCommand: CommandKind<'refund'> = { describe, applicable, run: refund };
