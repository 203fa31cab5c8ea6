import type { ClauseId } from '../../harness/clauses/registry.js';
/**
 * Reading refunds the target returns, and settling the ones it left PENDING, from the profile's
 * refund section.
 */
import { expectString, expectSuccess, pick } from '../../harness/check/expect.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { type Amount, createRefund, settleRefund, underArmedFailure, usd } from '../../harness/ops.js';
import type { Target } from '../../harness/target.js';
import { valueOfCents } from '../../harness/facts/money.js';
import type { Payment } from './paid-orders.js';

export interface CreatedRefund {
  refundNo: string;
  merchantRefundNo: string;
  status: unknown;
  exchange: Exchange;
}

/** A refund that must be accepted; returns its numbers and the status the create answer shows. */
export async function refundAccepted(
  t: Target,
  order: Payment,
  cents: number,
  clause: ClauseId,
  what = 'the refund',
): Promise<CreatedRefund> {
  const r = t.profile.refunds;
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)', { declare: ['refunds'] });
  const merchantRefundNo = t.newNo('refund');
  const ex = await createRefund(
    t,
    { refundNo: merchantRefundNo, order, amount: usd(valueOfCents(cents)) },
    { as: order.as, label: `refund ${valueOfCents(cents)} of ${valueOfCents(order.cents)}` },
  );
  const data = expectSuccess(ex, clause, { what });
  const refundNo = expectString(data, r.data.refundNo, clause, ex);
  return { refundNo, merchantRefundNo, status: pick(data, r.data.status), exchange: ex };
}

/** Settles as SUCCESS every refund the target left PENDING; skips the check when it must and cannot. */
export async function settlePending(t: Target, refunds: CreatedRefund[], clause: ClauseId): Promise<void> {
  for (const r of refunds) {
    if (r.status !== 'PENDING') continue;
    if (!t.profile.sandbox?.settleRefund)
      throw new PreconditionSkip('a refund is PENDING and the profile declares no sandbox control to settle it (sandbox.settleRefund)', {
        declare: ['sandbox.settleRefund'],
      });
    await settleRefund(t, { refundNo: r.refundNo, merchantRefundNo: r.merchantRefundNo }, 'success', clause);
  }
}

/**
 * Sends a refund of `order` under `refundNo` that the sandbox makes fail, by the first way the profile declares: the
 * failing reason (`refunds.failingReason`), else the armed failure (`sandbox.armFailure.failures.refundFailed`), the
 * request then sent inside the switch's exclusive section (harness/ops.ts `underArmedFailure`). `judge` runs on the
 * answer while the failure is armed. Skips naming both when the profile declares neither.
 */
export async function refundMadeToFail<T>(
  t: Target,
  req: { refundNo: string; order: Payment; amount: Amount },
  clause: ClauseId,
  judge: (ex: Exchange) => T,
): Promise<T> {
  const reason = t.profile.refunds?.failingReason;
  const label = 'refund that the sandbox makes fail';
  if (reason) return judge(await createRefund(t, { ...req, reason }, { as: req.order.as, label }));
  if (!t.profile.sandbox?.armFailure?.failures.refundFailed)
    throw new PreconditionSkip(
      'the profile declares no way to make a refund fail (sandbox.triggers.refundFailed, refunds.failingReason, ' +
        'sandbox.armFailure.failures.refundFailed)',
      { declare: ['sandbox.triggers.refundFailed, refunds.failingReason or sandbox.armFailure.failures.refundFailed'] },
    );
  const again = () =>
    createRefund(t, { order: req.order, amount: req.amount }, { as: req.order.as, label: 'another refund while the failure may be armed' });
  const subjects = { merchantOrderNo: req.order.merchantOrderNo, merchantRefundNo: req.refundNo, again, as: req.order.as };
  return underArmedFailure(t, 'refundFailed', clause, subjects, async () => judge(await createRefund(t, req, { as: req.order.as, label })));
}
