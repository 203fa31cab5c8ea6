import type { ClauseId } from '../../harness/clauses/registry.js';
/**
 * Failures a sandbox causes by a magic value or a header (sandbox.triggers, harness/profile/triggers.ts): the request
 * that carries the value, built where the way says it goes. A payment query fails for the payment that carries it (its
 * number, amount, card, e-mail) or for the header on the query; a payment's creation for what its body or headers
 * carry; a refund's creation for the refund's amount, number, reason or header, or the refunded payment's number, card
 * or e-mail. The switch (`{ "way": "control" }`) is harness/ops.ts `underArmedFailure`'s, not this module's.
 */
import { expectString, expectSuccess } from '../../harness/check/expect.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import type { Exchange } from '../../harness/exchange.js';
import { valueOfCents } from '../../harness/money.js';
import { cardFixture, cardPaymentBody, checkoutBody, completeCheckout, createRefund, queryPayment, usd } from '../../harness/ops.js';
import { centsCarrying, DEFAULT_EMAIL_FIELD, describeTrigger, isRefundKind, triggersOf } from '../../harness/profile/triggers.js';
import type { ArmFailureKind, FailureTrigger } from '../../harness/profile/types.js';
import type { Target } from '../../harness/target.js';
import { channelSpans } from '../../harness/limits.js';
import { defaultCents, methodsWithSupport, payableMethods, supportOf } from './paid-orders.js';

export type MagicTrigger = Exclude<FailureTrigger, { way: 'control' }>;

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

/** The way's header, for the request it is sent on. */
function headersOf(w: MagicTrigger): Record<string, string> | undefined {
  return w.way === 'header' ? { [w.name]: w.value } : undefined;
}

/** A merchant number carrying the way's prefix or suffix, where the way is about that number. */
function numberFor(t: Target, w: MagicTrigger, which: 'merchantOrderNo' | 'merchantRefundNo'): string {
  const no = t.newNo(which === 'merchantOrderNo' ? 'order' : 'refund');
  if ((w.way === 'numberPrefix' || w.way === 'numberSuffix') && w.number === which)
    return w.way === 'numberPrefix' ? `${w.value}${no}` : `${no}${w.value}`;
  return no;
}

/** Sets a dotted field of a body (creating the objects on its way). */
function setAt(body: Record<string, unknown>, path: string, value: unknown): void {
  const segs = path.split('.');
  let node = body;
  for (const s of segs.slice(0, -1)) {
    const next = node[s];
    node[s] = next !== null && typeof next === 'object' && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
    node = node[s] as Record<string, unknown>;
  }
  node[segs[segs.length - 1]!] = value;
}

/** Cents of a payment of `method` that carry an amount way, inside the method's declared channels; skips when none does. */
function carryingCents(t: Target, w: MagicTrigger, method: string): number {
  const lim = t.profile.limits?.payments?.[method];
  const spans = lim ? channelSpans(lim) : [{ min: 1, max: 1_000_000_00 }];
  const near = BigInt(defaultCents(t, method));
  for (const s of spans) {
    const c = centsCarrying(w, { min: BigInt(s.min), max: BigInt(s.max) }, near);
    if (c !== undefined) return Number(c);
  }
  throw new PreconditionSkip(`no ${method} amount the profile's limits allow carries ${describeTrigger(w)}`, {
    declare: [`limits.payments.${method}`],
  });
}

const amountWay = (w: MagicTrigger) => w.way === 'amount' || w.way === 'amountEnding';

/**
 * A payment's creation request carrying the way's value (or header): by card for a card or e-mail way, else a checkout.
 * `w` undefined: one that carries nothing.
 */
export function paymentCarrying(
  t: Target,
  w: MagicTrigger | undefined,
  opts: { method?: string; cents?: number; label: string },
): { send: () => Promise<Exchange>; merchantOrderNo: string; method: string; cents: number; byCard: boolean } {
  const card = t.profile.methods.card ?? 'CARD';
  const byCard = w?.way === 'card' || w?.way === 'email' || opts.method === card;
  if (byCard && !(t.profile.cardPayment && t.has('cardPayment')))
    throw new PreconditionSkip(
      `a payment carrying ${w ? describeTrigger(w) : 'nothing'} is made by card; the profile declares no card payment`,
      {
        declare: ['cardPayment'],
      },
    );
  const method = byCard ? card : (opts.method ?? t.profile.methods.checkout[0]!);
  const merchantOrderNo = w ? numberFor(t, w, 'merchantOrderNo') : t.newNo('order');
  const cents = opts.cents ?? (w && amountWay(w) ? carryingCents(t, w, method) : defaultCents(t, method));
  const amount = usd(valueOfCents(cents));
  const magicCard = w?.way === 'card' ? { card: { ...cardFixture(t, 'success'), card_number: w.value } } : {};
  const body = byCard
    ? cardPaymentBody(t, { merchantOrderNo, amount, ...magicCard })
    : checkoutBody(t, { method, merchantOrderNo, amount });
  if (w?.way === 'email') setAt(body, w.field ?? DEFAULT_EMAIL_FIELD, w.value);
  const path = t.path(byCard ? 'cardPayment' : 'checkout', { merchant_order_no: merchantOrderNo });
  const send = () => t.post(path, body, { label: opts.label, headers: w ? headersOf(w) : undefined });
  return { send, merchantOrderNo, method, cents, byCard };
}

/** A payment that exists (created, not necessarily paid) and carries the way's value, to query. */
export async function orderToQuery(t: Target, w: MagicTrigger, clause: ClauseId): Promise<{ orderNo: string; merchantOrderNo: string }> {
  // A header is the query's own: the payment carries nothing.
  const p = paymentCarrying(t, w.way === 'header' ? undefined : w, { label: `create a payment carrying ${describeTrigger(w)}` });
  const ex = await p.send();
  const data = expectSuccess(ex, clause, { what: `creating a payment carrying ${describeTrigger(w)} (only its query fails)` });
  const at = p.byCard ? t.profile.cardPayment!.data.orderNo : (t.profile.checkout?.data.orderNo ?? 'order_no');
  return { orderNo: expectString(data, at, clause, ex), merchantOrderNo: p.merchantOrderNo };
}

/** The payment query the way fails: by the merchant's number, with the way's header. */
export function queryCarrying(t: Target, w: MagicTrigger, merchantOrderNo: string, label: string): Promise<Exchange> {
  return queryPayment(t, { merchant_order_no: merchantOrderNo }, { label, headers: headersOf(w) });
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
  const inPayment = w.way === 'card' || w.way === 'email';
  const card = t.profile.methods.card ?? 'CARD';
  const method = inPayment ? card : methodsWithSupport(t, ['partial', 'full']).find((m) => payableMethods(t).includes(m));
  if (!method || !['partial', 'full'].includes(String(supportOf(t, method))))
    throw new PreconditionSkip(`no payment the kit can make and refund carries ${describeTrigger(w)} (refunds.support, cardPayment)`, {
      declare: ['refunds.support'],
    });
  const cents = amountWay(w) ? carryingCents(t, w, method) : defaultCents(t, method);
  // The payment carries only what is the payment's (its number, card, e-mail): an amount or header is the refund's.
  const inPaymentWay = (w.way === 'numberPrefix' || w.way === 'numberSuffix') && w.number === 'merchantOrderNo' ? w : undefined;
  const p = paymentCarrying(t, inPayment ? w : inPaymentWay, { method, cents, label: 'create the payment to refund' });
  const ex = await p.send();
  const data = expectSuccess(ex, clause, { what: `creating the payment to refund, carrying ${describeTrigger(w)}` });
  const orderNo = expectString(
    data,
    p.byCard ? t.profile.cardPayment!.data.orderNo : (t.profile.checkout?.data.orderNo ?? 'order_no'),
    clause,
    ex,
  );
  const order = { orderNo, merchantOrderNo: p.merchantOrderNo };
  if (!p.byCard) await completeCheckout(t, order, 'success', clause);
  return {
    send: (label) =>
      createRefund(
        t,
        {
          refundNo: numberFor(t, w, 'merchantRefundNo'),
          order,
          amount: usd(valueOfCents(cents)),
          ...(w.way === 'reason' ? { reason: w.value } : {}),
        },
        { label, headers: headersOf(w) },
      ),
  };
}
