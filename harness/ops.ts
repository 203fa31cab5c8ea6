import type { Exchange } from './exchange.js';
import type { Card } from './profile/types.js';
import type { MerchantRole, PostOptions, Target } from './target.js';
import { expectSuccess, expectString, pick } from './check/expect.js';
import { PreconditionSkip } from './check/failure.js';

/**
 * Request builders and drivers for every operation, from the profile's choices. Suites build on
 * these so a vendor's field names and paths live in its profile, never in a check.
 */
export interface Amount {
  currency: string;
  value: string;
}
export const usd = (value: string): Amount => ({ currency: 'USD', value });

export interface CheckoutInput {
  merchantOrderNo?: string;
  method?: string;
  amount?: unknown;
  goodsName?: string;
  description?: string;
  metadata?: string;
  /** Fields to add or replace at top level (after building). */
  extra?: Record<string, unknown>;
  /** Top-level fields to remove (after building). */
  omit?: string[];
}

/** A valid checkout body (the four required fields, trade_info, and the profile's extras). */
export function checkoutBody(t: Target, input: CheckoutInput = {}): Record<string, unknown> {
  const method = input.method ?? t.profile.methods.checkout[0]!;
  const body: Record<string, unknown> = {
    payment_method: method,
    merchant_order_no: input.merchantOrderNo ?? t.newNo('order'),
    trans_amount: input.amount ?? usd(defaultAmount(t, method)),
    trade_info: { goods_name: input.goodsName ?? 'Conformance test item', ...(input.description ? { description: input.description } : {}) },
  };
  if (input.metadata !== undefined) body.metadata = input.metadata;
  const extras = t.profile.checkout?.extras ?? {};
  Object.assign(body, t.fill(extras, { notifyUrl: notifyUrlOrPlaceholder(t) }));
  Object.assign(body, input.extra ?? {});
  for (const k of input.omit ?? []) delete body[k];
  return body;
}

/** Webhook target when a receiver runs; otherwise an address that accepts nothing (reserved TLD). */
export function notifyUrlOrPlaceholder(t: Target): string {
  try {
    return t.notifyUrl();
  } catch (e) {
    if (e instanceof PreconditionSkip) return 'https://merchant.invalid/notify';
    throw e;
  }
}

/** An amount inside the method's declared channel range (or a price point); 10.00 otherwise. */
export function defaultAmount(t: Target, method: string): string {
  if (t.profile.methods.pricePoint?.includes(method)) return t.profile.pricePoints?.tiers[0] ?? '0.99';
  const lim = t.profile.limits?.payments?.[method];
  if (lim && (Number(lim.min) > 10 || Number(lim.max) < 10)) return lim.min;
  return '10.00';
}

export function checkout(t: Target, input: CheckoutInput = {}, opts: PostOptions = {}): Promise<Exchange> {
  return t.post(t.path('checkout'), checkoutBody(t, input), { label: 'create a checkout', ...opts });
}

export interface CreatedOrder {
  orderNo: string;
  merchantOrderNo: string;
  exchange: Exchange;
  data: Record<string, unknown>;
  /** The merchant that created it: the sandbox controls act as the same one. */
  as?: MerchantRole;
}

/** Creates a checkout that must succeed, as `as` (default primary); returns its numbers. */
export async function createCheckout(t: Target, clause: string, input: CheckoutInput = {}, as?: MerchantRole): Promise<CreatedOrder> {
  const merchantOrderNo = input.merchantOrderNo ?? t.newNo('order');
  const ex = await checkout(t, { ...input, merchantOrderNo }, { as });
  const data = expectSuccess(ex, clause, 'creating a checkout');
  const orderNo = expectString(data, t.profile.checkout?.data.orderNo ?? 'order_no', clause, ex);
  return { orderNo, merchantOrderNo, exchange: ex, data, as };
}

export function queryPayment(t: Target, by: { order_no?: unknown; merchant_order_no?: unknown }, opts: PostOptions = {}): Promise<Exchange> {
  return t.post(t.path('paymentQuery'), by, { label: 'query a payment', ...opts });
}

export function cardFixture(t: Target, kind: keyof NonNullable<Target['profile']['cardPayment']>['cards']): Card {
  const cp = t.profile.cardPayment;
  if (!cp) throw new PreconditionSkip('the profile declares no card payment (cardPayment)');
  const card = cp.cards[kind];
  if (!card) throw new PreconditionSkip(`the profile declares no ${kind} card (cardPayment.cards.${kind})`);
  return card;
}

export interface CardInput {
  merchantOrderNo?: string;
  amount?: unknown;
  card?: Card;
  metadata?: string;
  goodsName?: string;
}

export function cardPaymentBody(t: Target, input: CardInput = {}): Record<string, unknown> {
  const cp = t.profile.cardPayment;
  if (!cp) throw new PreconditionSkip('the profile declares no card payment (cardPayment)');
  const method = t.profile.methods.card ?? 'CARD';
  return t.fill(cp.template, {
    method,
    merchantOrderNo: input.merchantOrderNo ?? t.newNo('order'),
    amount: input.amount ?? usd(defaultAmount(t, method)),
    card: input.card ?? cardFixture(t, 'success'),
    notifyUrl: notifyUrlOrPlaceholder(t),
    goodsName: input.goodsName ?? 'Conformance test item',
    metadata: input.metadata ?? '',
  });
}

export function cardPayment(t: Target, input: CardInput = {}, opts: PostOptions = {}): Promise<Exchange> {
  return t.post(t.path('cardPayment'), cardPaymentBody(t, input), { label: 'create a card payment', ...opts });
}

/** A card payment that must succeed, as `as` (default primary). */
export async function createPaidOrder(t: Target, clause: string, input: CardInput = {}, as?: MerchantRole): Promise<CreatedOrder> {
  const merchantOrderNo = input.merchantOrderNo ?? t.newNo('order');
  const ex = await cardPayment(t, { ...input, merchantOrderNo }, { as });
  const data = expectSuccess(ex, clause, 'creating a card payment');
  const orderNo = expectString(data, t.profile.cardPayment!.data.orderNo, clause, ex);
  return { orderNo, merchantOrderNo, exchange: ex, data, as };
}

/** Drives a checkout to SUCCESS or FAILED through the sandbox control. */
/** The records the sandbox controls act on carry the merchant that owns them (default primary). */
export type Owned = { as?: MerchantRole };

export async function completeCheckout(t: Target, order: { orderNo: string; merchantOrderNo: string } & Owned, outcome: 'success' | 'failed', clause: string): Promise<Exchange> {
  const c = t.profile.sandbox?.completeCheckout;
  if (!c) throw new PreconditionSkip('the profile declares no sandbox control to complete a checkout (sandbox.completeCheckout)');
  const ex = await t.post(c.path, t.fill(c.template, { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo, outcome: c.outcomes[outcome] }), { as: order.as, label: `sandbox: complete checkout as ${outcome}` });
  expectSuccess(ex, clause, 'the sandbox control completing the checkout');
  return ex;
}

export async function sandboxOrderControl(t: Target, control: 'chargeback' | 'expireCheckout', order: { orderNo: string; merchantOrderNo: string } & Owned, clause: string): Promise<Exchange> {
  const c = t.profile.sandbox?.[control];
  if (!c) throw new PreconditionSkip(`the profile declares no sandbox control sandbox.${control}`);
  const ex = await t.post(c.path, t.fill(c.template, { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo }), { as: order.as, label: `sandbox: ${control}` });
  expectSuccess(ex, clause, `the sandbox control ${control}`);
  return ex;
}

export interface RefundInput {
  refundNo?: string;
  order: { orderNo: string; merchantOrderNo: string };
  amount: unknown;
  reason?: string;
}

export function refundBody(t: Target, input: RefundInput): Record<string, unknown> {
  const r = t.profile.refunds;
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)');
  t.path('refundCreate');
  return t.fill(r.template, {
    refundNo: input.refundNo ?? t.newNo('refund'),
    orderNo: input.order.orderNo,
    merchantOrderNo: input.order.merchantOrderNo,
    amount: input.amount,
    reason: input.reason ?? 'Customer returned the item',
  });
}

export function createRefund(t: Target, input: RefundInput, opts: PostOptions = {}): Promise<Exchange> {
  return t.post(t.path('refundCreate'), refundBody(t, input), { label: 'create a refund', ...opts });
}

export function queryRefund(t: Target, by: { serviceNo?: unknown; merchantNo?: unknown }, opts: PostOptions = {}): Promise<Exchange> {
  const r = t.profile.refunds;
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)');
  const body: Record<string, unknown> = {};
  if (by.serviceNo !== undefined) body[r.queryBy.serviceNo] = by.serviceNo;
  if (by.merchantNo !== undefined) body[r.queryBy.merchantNo] = by.merchantNo;
  return t.post(t.path('refundQuery'), body, { label: 'query a refund', ...opts });
}

export async function settleRefund(t: Target, refund: { refundNo: string; merchantRefundNo: string } & Owned, outcome: 'success' | 'failed', clause: string): Promise<Exchange> {
  const c = t.profile.sandbox?.settleRefund;
  if (!c) throw new PreconditionSkip('the profile declares no sandbox control to settle a refund (sandbox.settleRefund)');
  const ex = await t.post(c.path, t.fill(c.template, { refundNo: refund.refundNo, merchantRefundNo: refund.merchantRefundNo, outcome: c.outcomes[outcome] }), { as: refund.as, label: `sandbox: settle refund as ${outcome}` });
  expectSuccess(ex, clause, 'the sandbox control settling the refund');
  return ex;
}

export interface PayoutInput {
  payoutNo?: string;
  method?: string;
  amount?: unknown;
}

export function payoutMethod(t: Target, want: { cancel?: boolean } = {}): string {
  const p = t.profile.payouts;
  if (!p) throw new PreconditionSkip('the profile declares no payouts (payouts)');
  const entry = Object.entries(p.methods).find(([, m]) => want.cancel === undefined || m.cancel === want.cancel);
  if (!entry) throw new PreconditionSkip(`the profile declares no payout method with cancel=${want.cancel}`);
  return entry[0];
}

export function payoutBody(t: Target, input: PayoutInput = {}): Record<string, unknown> {
  const p = t.profile.payouts;
  if (!p) throw new PreconditionSkip('the profile declares no payouts (payouts)');
  const method = input.method ?? payoutMethod(t);
  const lim = t.profile.limits?.payouts?.[method];
  return t.fill(p.template, {
    payoutNo: input.payoutNo ?? t.newNo('payout'),
    method,
    amount: input.amount ?? usd(lim && Number(lim.min) > 10 ? lim.min : '10.00'),
    notifyUrl: notifyUrlOrPlaceholder(t),
  });
}

export function createPayout(t: Target, input: PayoutInput = {}, opts: PostOptions = {}): Promise<Exchange> {
  return t.post(t.path('payoutCreate'), payoutBody(t, input), { label: 'create a payout', ...opts });
}

export function payoutLookup(t: Target, which: 'queryBy' | 'cancelBy', by: { serviceNo?: unknown; merchantNo?: unknown }): Record<string, unknown> {
  const p = t.profile.payouts;
  if (!p) throw new PreconditionSkip('the profile declares no payouts (payouts)');
  const body: Record<string, unknown> = {};
  if (by.serviceNo !== undefined) body[p[which].serviceNo] = by.serviceNo;
  if (by.merchantNo !== undefined) body[p[which].merchantNo] = by.merchantNo;
  return body;
}

export function queryPayout(t: Target, by: { serviceNo?: unknown; merchantNo?: unknown }, opts: PostOptions = {}): Promise<Exchange> {
  return t.post(t.path('payoutQuery'), payoutLookup(t, 'queryBy', by), { label: 'query a payout', ...opts });
}

export function cancelPayout(t: Target, by: { serviceNo?: unknown; merchantNo?: unknown }, opts: PostOptions = {}): Promise<Exchange> {
  return t.post(t.path('payoutCancel'), payoutLookup(t, 'cancelBy', by), { label: 'cancel a payout', ...opts });
}

export async function settlePayout(t: Target, payout: { payoutNo: string; merchantPayoutNo: string } & Owned, outcome: 'success' | 'failed', clause: string): Promise<Exchange> {
  const c = t.profile.sandbox?.settlePayout;
  if (!c) throw new PreconditionSkip('the profile declares no sandbox control to settle a payout (sandbox.settlePayout)');
  const ex = await t.post(c.path, t.fill(c.template, { payoutNo: payout.payoutNo, merchantPayoutNo: payout.merchantPayoutNo, outcome: c.outcomes[outcome] }), { as: payout.as, label: `sandbox: settle payout as ${outcome}` });
  expectSuccess(ex, clause, 'the sandbox control settling the payout');
  return ex;
}

/** Reads a field of a record by the profile's dotted path. */
export { pick };
