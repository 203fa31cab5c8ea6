import type { ClauseId } from '../../harness/clauses/registry.js';
/**
 * The checks' side of failures a sandbox causes by a magic value or a header (sandbox.triggers): the ways of a kind, a
 * payment to query that carries one, a paid payment and its refund that carry one (the requests are
 * harness/triggered.ts's). The switch (`{ "way": "control" }`) is harness/ops.ts `underArmedFailure`'s.
 */
import { expectString, expectSuccess } from '../../harness/check/expect.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { completeCheckout } from '../../harness/ops.js';
import { describeTrigger, isRefundKind, triggersOf } from '../../harness/profile/triggers.js';
import type { ArmFailureKind, FailureTrigger } from '../../harness/profile/types.js';
import type { Target } from '../../harness/target.js';
import {
  carryingCents,
  type MagicTrigger,
  paymentCarrying,
  paymentPartOf,
  refundCarrying as refundRequest,
} from '../../harness/triggered.js';
import { defaultCents, methodsWithSupport, payableMethods, supportOf } from './paid-orders.js';

export type { MagicTrigger };
export { queryCarrying, paymentCarrying } from '../../harness/triggered.js';

/** The ways the profile says `kind` is caused; none skips the check, naming where to say one. */
export function waysOf(t: Target, kind: ArmFailureKind): FailureTrigger[] {
  const ways = triggersOf(t.profile, kind);
  if (ways.length === 0)
    throw new PreconditionSkip(
      `the profile declares no way the sandbox causes ${kind} (sandbox.triggers.${kind}, or sandbox.armFailure.failures.${kind})`,
      { declare: [`sandbox.triggers.${kind}`] },
    );
  return ways;
}

/** A payment that exists (created, not necessarily paid) and carries the way's value, to query. */
export async function orderToQuery(t: Target, w: MagicTrigger, clause: ClauseId): Promise<{ orderNo: string; merchantOrderNo: string }> {
  // A header is the query's own: the payment carries nothing.
  const p = paymentCarrying(t, w.way === 'header' ? undefined : w, { label: `create a payment carrying ${describeTrigger(w)}` });
  const ex = await p.send();
  const data = expectSuccess(ex, clause, { what: `creating a payment carrying ${describeTrigger(w)} (only its query fails)` });
  return { orderNo: expectString(data, p.orderNoAt, clause, ex), merchantOrderNo: p.merchantOrderNo };
}

/**
 * A paid payment, and the refund request that carries the way's value: the refunded payment's number, card or e-mail,
 * or the refund's own number, amount, reason or header. An amount way pays that amount and refunds it whole, which any
 * method with refunds takes.
 */
export async function refundCarrying(
  t: Target,
  w: MagicTrigger,
  kind: ArmFailureKind,
  clause: ClauseId,
): Promise<{ send: (label: string) => Promise<Exchange> }> {
  if (!isRefundKind(kind)) throw new Error(`${kind} is no refund's failure`);
  const card = t.profile.methods.card ?? 'CARD';
  const method =
    w.way === 'card' || w.way === 'email' ? card : methodsWithSupport(t, ['partial', 'full']).find((m) => payableMethods(t).includes(m));
  if (!method || !['partial', 'full'].includes(String(supportOf(t, method))))
    throw new PreconditionSkip(`no payment the kit can make and refund carries ${describeTrigger(w)} (refunds.support, cardPayment)`, {
      declare: ['refunds.support'],
    });
  const cents = w.way === 'amount' || w.way === 'amountEnding' ? carryingCents(t, w, method) : defaultCents(t, method);
  const p = paymentCarrying(t, paymentPartOf(w), { method, cents, label: 'create the payment to refund' });
  const ex = await p.send();
  const data = expectSuccess(ex, clause, { what: `creating the payment to refund, carrying ${describeTrigger(w)}` });
  const order = { orderNo: expectString(data, p.orderNoAt, clause, ex), merchantOrderNo: p.merchantOrderNo };
  if (!p.byCard) await completeCheckout(t, order, 'success', clause);
  return { send: (label) => refundRequest(t, w, order, cents, label) };
}
