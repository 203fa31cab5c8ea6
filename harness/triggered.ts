/**
 * The requests that carry a failure trigger's magic value or header (sandbox.triggers, harness/profile/triggers.ts),
 * built where the way says it goes, for the checks (suites/support/triggered.ts) and the doctor (harness/doctor/triggers.ts).
 * A payment query fails for the payment that carries it (its number, amount, card, e-mail) or for the header on the
 * query; a payment's creation for what its body or headers carry; a refund's creation for the refund's amount, number,
 * reason or header, or the refunded payment's number, card or e-mail.
 */
import { PreconditionSkip } from './check/failure.js';
import type { Exchange } from './http/exchange.js';
import { channelSpans } from './facts/limits.js';
import { centsNumberOf, valueOfCents } from './facts/money.js';
import { cardFixture, cardPaymentBody, checkoutBody, createRefund, defaultAmount, queryPayment, usd } from './ops.js';
import { maxLengthOf } from './profile/lengths.js';
import { centsCarrying, DEFAULT_EMAIL_FIELD, describeTrigger } from './profile/triggers.js';
import type { FailureTrigger } from './profile/types.js';
import type { Target } from './target.js';

export type MagicTrigger = Exclude<FailureTrigger, { way: 'control' }>;

/** The way's header, for the request it is sent on. */
function headersOf(w: MagicTrigger | undefined): Record<string, string> | undefined {
  return w?.way === 'header' ? { [w.name]: w.value } : undefined;
}

/** A merchant number carrying the way's prefix or suffix, where the way is about that number. */
export function numberFor(t: Target, w: MagicTrigger | undefined, which: 'merchantOrderNo' | 'merchantRefundNo'): string {
  const no = t.newNo(which === 'merchantOrderNo' ? 'order' : 'refund');
  if (!(w && (w.way === 'numberPrefix' || w.way === 'numberSuffix') && w.number === which)) return no;
  // Within the number's said length (lengths.maxLength; the checks use either number as the other): the magic value stays
  // whole, our number gives way from its front, its counter last.
  const said = (['merchantOrderNo', 'merchantRefundNo'] as const).map((f) => maxLengthOf(t.profile, f)).filter((n) => n !== undefined);
  const room = said.length > 0 ? Math.max(1, Math.min(...said) - w.value.length) : no.length;
  const own = no.slice(-room);
  return w.way === 'numberPrefix' ? `${w.value}${own}` : `${own}${w.value}`;
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

const amountWay = (w: MagicTrigger | undefined) => w?.way === 'amount' || w?.way === 'amountEnding';

/** Cents of a payment of `method` that carry an amount way, inside the method's declared channels; skips when none does. */
export function carryingCents(t: Target, w: MagicTrigger, method: string): number {
  const lim = t.profile.limits?.payments?.[method];
  const spans = lim ? channelSpans(lim) : [{ min: 1, max: 100_000_000 }];
  const near = BigInt(centsNumberOf(defaultAmount(t, method)));
  for (const s of spans) {
    const c = centsCarrying(w, { min: BigInt(s.min), max: BigInt(s.max) }, near);
    if (c !== undefined) return Number(c);
  }
  throw new PreconditionSkip(`no ${method} amount the profile's limits allow carries ${describeTrigger(w)}`, {
    declare: [`limits.payments.${method}`],
  });
}

/** A payment's creation request that carries a way's value. */
export interface CarryingPayment {
  send: () => Promise<Exchange>;
  merchantOrderNo: string;
  method: string;
  cents: number;
  byCard: boolean;
  /** Where its answer's data holds the service's order number. */
  orderNoAt: string;
}

/**
 * A payment's creation request carrying the way's value (or header): by card for a card or e-mail way (or `method` the
 * card method), else a checkout. `w` undefined: one that carries nothing.
 */
export function paymentCarrying(
  t: Target,
  w: MagicTrigger | undefined,
  opts: { method?: string; cents?: number; label: string },
): CarryingPayment {
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
  const merchantOrderNo = numberFor(t, w, 'merchantOrderNo');
  const cents = opts.cents ?? (w && amountWay(w) ? carryingCents(t, w, method) : centsNumberOf(defaultAmount(t, method)));
  const amount = usd(valueOfCents(cents));
  const magicCard = w?.way === 'card' ? { card: { ...cardFixture(t, 'success'), card_number: w.value } } : {};
  const body = byCard
    ? cardPaymentBody(t, { merchantOrderNo, amount, ...magicCard })
    : checkoutBody(t, { method, merchantOrderNo, amount });
  if (w?.way === 'email') setAt(body, w.field ?? DEFAULT_EMAIL_FIELD, w.value);
  const path = t.path(byCard ? 'cardPayment' : 'checkout', { merchant_order_no: merchantOrderNo });
  const orderNoAt = byCard ? t.profile.cardPayment!.data.orderNo : (t.profile.checkout?.data.orderNo ?? 'order_no');
  return {
    send: () => t.post(path, body, { label: opts.label, headers: headersOf(w) }),
    merchantOrderNo,
    method,
    cents,
    byCard,
    orderNoAt,
  };
}

/** The payment query the way fails: by the merchant's number, with the way's header. */
export function queryCarrying(t: Target, w: MagicTrigger, merchantOrderNo: string, label: string): Promise<Exchange> {
  return queryPayment(t, { merchant_order_no: merchantOrderNo }, { label, headers: headersOf(w) });
}

/** What of a refund way the refunded payment carries (its number, card, e-mail); the rest is the refund's own. */
export function paymentPartOf(w: MagicTrigger): MagicTrigger | undefined {
  if (w.way === 'card' || w.way === 'email') return w;
  return (w.way === 'numberPrefix' || w.way === 'numberSuffix') && w.number === 'merchantOrderNo' ? w : undefined;
}

/** The refund of `order` (paid `cents`, refunded whole) that carries the way's own part: amount, number, reason, header. */
export function refundCarrying(
  t: Target,
  w: MagicTrigger,
  order: { orderNo: string; merchantOrderNo: string },
  cents: number,
  label: string,
): Promise<Exchange> {
  return createRefund(
    t,
    {
      refundNo: numberFor(t, w, 'merchantRefundNo'),
      order,
      amount: usd(valueOfCents(cents)),
      ...(w.way === 'reason' ? { reason: w.value } : {}),
    },
    { label, headers: headersOf(w) },
  );
}
