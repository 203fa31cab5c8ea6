import { factsOf } from '../../harness/facts/index.js';
import type { ClauseId } from '../../harness/clauses/registry.js';
/**
 * Payments in a given state, for the refund and idempotency suites: paid (card success, or a
 * checkout completed through the sandbox), pending, failed. Everything comes from the profile;
 * what it does not declare skips the check. Unlike the builders in harness/ops.ts these can act
 * as any fixture merchant (the low-balance merchant pays and refunds its own orders).
 */
import { expectError, expectString, expectSuccess } from '../../harness/check/expect.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { cardFixture, cardPayment, checkout, completeCheckout, defaultAmount, paymentMethodsOf, sentAtOf, usd } from '../../harness/ops.js';
import type { MerchantRole, Target } from '../../harness/target.js';
import { centsNumberOf, valueOfCents } from '../../harness/facts/money.js';

export type RefundSupport = 'none' | 'full' | 'partial';

export interface Payment {
  orderNo: string;
  merchantOrderNo: string;
  method: string;
  /** The amount sent, in cents. */
  cents: number;
  as: MerchantRole;
  /** When its creation request was sent, epoch ms (a checkout's expiry by itself runs from no earlier). */
  sentAt?: number;
}

export interface PayOptions {
  cents?: number;
  as?: MerchantRole;
  merchantOrderNo?: string;
}

function refundsProfile(t: Target) {
  const r = t.profile.refunds;
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)', { declare: ['refunds'] });
  return r;
}

/**
 * Refund support the profile declares for a method, of one merchant: its own (refunds.supportByMerchant, version 4: the
 * same method on another merchant's channel), else the method's (undefined when the profile says nothing).
 */
export function supportOf(t: Target, method: string, as: MerchantRole = 'primary'): RefundSupport | undefined {
  refundsProfile(t);
  // The merchant's facts (harness/facts/): its own facts and refunds.supportByMerchant laid over refunds.support.
  return factsOf(t, as).refundSupport(method);
}

function cardMethod(t: Target): string | undefined {
  return t.profile.cardPayment && t.has('cardPayment') ? (t.profile.methods.card ?? 'CARD') : undefined;
}

/** Methods the kit can drive to a successful payment: the card method, and checkout methods the sandbox can complete. */
export function payableMethods(t: Target): string[] {
  const out: string[] = [];
  const card = cardMethod(t);
  if (card) out.push(card);
  if (t.profile.sandbox?.completeCheckout) for (const m of t.profile.methods.checkout) if (!out.includes(m)) out.push(m);
  return out;
}

/**
 * Methods a merchant other than the primary can be paid with: the card method where it has it, and with
 * sandbox.completeCheckout the checkout methods of its own list (a method only it has included).
 */
export function payableMethodsOf(t: Target, as: MerchantRole): string[] {
  if (as === 'primary') return payableMethods(t);
  const own = paymentMethodsOf(t, as);
  const card = cardMethod(t);
  const noCheckout = new Set([card, t.profile.methods.noChannel, ...(t.profile.methods.pricePoint ?? [])]);
  const out = card && own.includes(card) ? [card] : [];
  if (t.profile.sandbox?.completeCheckout) for (const m of own) if (!noCheckout.has(m) && !out.includes(m)) out.push(m);
  return out;
}

/**
 * Payments the kit can make, by method and merchant, whose declared refund support is one of `wants`: the primary's
 * methods, then those of `others` it lacks (a method only the second merchant has); skips the check when there is none.
 */
export function paymentsWithSupport(
  t: Target,
  wants: RefundSupport[],
  others: MerchantRole[] = [],
): { method: string; as: MerchantRole }[] {
  const out: { method: string; as: MerchantRole }[] = [];
  for (const as of ['primary', ...others] as MerchantRole[]) {
    if (as !== 'primary' && !t.merchants[as]) continue;
    for (const method of payableMethodsOf(t, as)) {
      const s = supportOf(t, method, as);
      if (s !== undefined && wants.includes(s) && !out.some((o) => o.method === method)) out.push({ method, as });
    }
  }
  if (out.length === 0)
    throw new PreconditionSkip(
      `the profile declares no payable method (card, or checkout with sandbox.completeCheckout) of the ` +
        `${['primary', ...others].join(' or ')} merchant with refund support ${wants.join(' or ')} (refunds.support)`,
      { declare: ['refunds.support'] },
    );
  return out;
}

/** Payable methods whose declared refund support is one of `wants`; skips the check when there is none. */
export function methodsWithSupport(t: Target, wants: RefundSupport[]): string[] {
  const found = payableMethods(t).filter((m) => {
    const s = supportOf(t, m);
    return s !== undefined && wants.includes(s);
  });
  if (found.length === 0) {
    throw new PreconditionSkip(
      `the profile declares no payable method (card, or checkout with ` +
        `sandbox.completeCheckout) with refund support ${wants.join(' or ')} (refunds.support)`,
      { declare: ['refunds.support'] },
    );
  }
  return found;
}

/** The default amount for a method, in cents. */
export function defaultCents(t: Target, method: string, as: MerchantRole = 'primary'): number {
  return centsNumberOf(defaultAmount(t, method, as));
}

/** A payment that must succeed: the card endpoint with the success card, or a checkout completed as SUCCESS. */
export async function payOrder(t: Target, method: string, clause: ClauseId, o: PayOptions = {}): Promise<Payment> {
  const as = o.as ?? 'primary';
  ensureMerchantMethod(t, method, as);
  const merchantOrderNo = o.merchantOrderNo ?? t.newNo('order');
  const cents = o.cents ?? defaultCents(t, method);
  const amount = usd(valueOfCents(cents));
  if (method === cardMethod(t)) {
    const ex = await cardPayment(t, { merchantOrderNo, amount }, { as });
    const data = expectSuccess(ex, clause, { what: 'paying with the success card' });
    const orderNo = expectString(data, t.profile.cardPayment!.data.orderNo, clause, ex);
    return { orderNo, merchantOrderNo, method, cents, as };
  }
  const order = await pendingCheckout(t, method, clause, { cents, as, merchantOrderNo });
  await completeCheckout(t, order, 'success', clause);
  return order;
}

/** A paid payment of the first payable method with one of the wanted refund supports. */
export async function paidOrderWithSupport(t: Target, wants: RefundSupport[], clause: ClauseId, o: PayOptions = {}): Promise<Payment> {
  return payOrder(t, methodsWithSupport(t, wants)[0]!, clause, o);
}

/** A checkout not yet paid. */
export async function pendingCheckout(t: Target, method: string, clause: ClauseId, o: PayOptions = {}): Promise<Payment> {
  // A method of another merchant's own list (one the primary lacks) is a checkout method of that merchant.
  const own = o.as !== undefined && o.as !== 'primary' && t.profile.merchants[o.as]?.paymentMethods?.includes(method);
  if (!t.profile.methods.checkout.includes(method) && !own)
    throw new PreconditionSkip(`${method} is not a checkout method of the profile (methods.checkout)`, { declare: ['methods.checkout'] });
  const as = o.as ?? 'primary';
  ensureMerchantMethod(t, method, as);
  const merchantOrderNo = o.merchantOrderNo ?? t.newNo('order');
  const cents = o.cents ?? defaultCents(t, method);
  const ex = await checkout(t, { method, merchantOrderNo, amount: usd(valueOfCents(cents)) }, { as });
  const data = expectSuccess(ex, clause, { what: 'creating a checkout' });
  const orderNo = expectString(data, t.profile.checkout?.data.orderNo ?? 'order_no', clause, ex);
  return { orderNo, merchantOrderNo, method, cents, as, sentAt: sentAtOf(ex) };
}

/**
 * A card payment with the decline card: refused by the provider and recorded as FAILED.
 * Returns the refusal's exchange with the numbers (the service number is unknown: the refusal has no data).
 */
export async function declinedCardPayment(
  t: Target,
  o: PayOptions = {},
): Promise<{ merchantOrderNo: string; method: string; cents: number; exchange: Exchange }> {
  const method = cardMethod(t);
  if (!method)
    throw new PreconditionSkip('the profile declares no card payment (cardPayment, endpoints.cardPayment)', {
      declare: ['cardPayment', 'endpoints.cardPayment'],
    });
  const merchantOrderNo = o.merchantOrderNo ?? t.newNo('order');
  const cents = o.cents ?? defaultCents(t, method);
  const ex = await cardPayment(
    t,
    { merchantOrderNo, amount: usd(valueOfCents(cents)), card: cardFixture(t, 'decline') },
    { as: o.as ?? 'primary', label: 'pay with the decline card' },
  );
  // The provider's decline is the recorded-then-refused case the document names (422 paymentFailed).
  expectError(ex, { code: 422, key: 'paymentFailed' }, 'err.pay.declined', { what: 'a payment with the decline card' });
  return { merchantOrderNo, method, cents, exchange: ex };
}

/** A merchant acts only with the methods enabled for it (merchants.X.paymentMethods). */
function ensureMerchantMethod(t: Target, method: string, as: MerchantRole): void {
  if (!paymentMethodsOf(t, as).includes(method))
    throw new PreconditionSkip(`${method} is not enabled for the ${as} merchant (merchants.${as}.paymentMethods)`, {
      declare: [`merchants.${as}.paymentMethods`],
    });
}
