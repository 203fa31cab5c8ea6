import type { ClauseId } from '../../harness/clauses/registry.js';
/**
 * Reading refunds the target returns, and settling the ones it left PENDING, from the profile's
 * refund section.
 */
import { expectString, expectSuccess, pick } from '../../harness/check/expect.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import type { Exchange } from '../../harness/exchange.js';
import { createRefund, settleRefund, usd } from '../../harness/ops.js';
import type { Target } from '../../harness/target.js';
import { valueOfCents } from '../../harness/money.js';
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
