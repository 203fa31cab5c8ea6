import type { ClauseId } from './clauses/registry.js';
import type { Exchange } from './http/exchange.js';
import { type ArmFailureControl, type ArmSubjects, armCount, armSection, armVariables } from './profile/arm-failure.js';
import { currentRecorder } from './check/context.js';
import type { Operation } from './http/exclusive.js';
import type { ArmFailureKind, Card, Profile } from './profile/types.js';
import type { MerchantRole, PostOptions, Target } from './target.js';
import { expectControlDone, expectSuccess, expectString, pick } from './check/expect.js';
import { PreconditionSkip } from './check/failure.js';
import { acceptsCents, amountInside } from './facts/limits.js';
import { MagicValues } from './profile/triggers.js';
import { centsNumberOf, centsOf, valueOfCents } from './facts/money.js';
import { factsOf } from './facts/index.js';
import { fitLength } from './profile/lengths.js';
import { type QueryKind, withQueryParams } from './profile/query-params.js';
import { carriedBy, type PathNumber } from './profile/endpoint-path.js';
import type { EndpointName } from './target.js';

/**
 * Request builders and drivers for every operation, from the profile's choices. Suites build on
 * these so a vendor's field names and paths live in its profile, never in a check. A request made as a merchant is
 * built from that merchant's facts (harness/facts/): its methods, ranges, currencies and required fields.
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
  /** The merchant the checkout is made as: the default method is one enabled for it. */
  as?: MerchantRole;
}

/** Payment methods enabled for a merchant: its own list, else its methods.checkout plus methods.card (harness/facts/). */
export function paymentMethodsOf(t: Target, as: MerchantRole = 'primary'): string[] {
  return [...factsOf(t, as).paymentMethods];
}

/** Checkout methods (its methods.checkout, in order) the merchant may use; skips when there is none. */
export function checkoutMethodsOf(t: Target, as: MerchantRole = 'primary'): string[] {
  const out = [...factsOf(t, as).checkoutMethods];
  if (out.length === 0)
    throw new PreconditionSkip(`the profile declares no checkout method enabled for the ${as} merchant (merchants.${as}.paymentMethods)`, {
      declare: [`merchants.${as}.paymentMethods`],
    });
  return out;
}

/** Payout methods enabled for a merchant: its payouts.methods, narrowed by its own list (harness/facts/). */
export function payoutMethodsOf(t: Target, as: MerchantRole = 'primary'): string[] {
  return [...factsOf(t, as).payoutMethods];
}

/** The merchant's checkout extras for a method: `extras`, then `extrasByMethod[method]` on top (null removes a field). */
export function checkoutExtras(t: Target, method: string, as: MerchantRole = 'primary'): Record<string, unknown> {
  return factsOf(t, as).extrasFor(method);
}

/** A valid checkout body (the four required fields, trade_info, and the profile's extras for the method). */
export function checkoutBody(t: Target, input: CheckoutInput = {}): Record<string, unknown> {
  const method = input.method ?? (input.as && input.as !== 'primary' ? checkoutMethodsOf(t, input.as)[0]! : t.profile.methods.checkout[0]!);
  const body: Record<string, unknown> = {
    payment_method: method,
    merchant_order_no: input.merchantOrderNo ?? t.newNo('order'),
    trans_amount: input.amount ?? usd(defaultAmount(t, method, input.as)),
    trade_info: {
      goods_name: fitLength(t.profile, 'goodsName', input.goodsName ?? 'Conformance test item'),
      ...(input.description ? { description: fitLength(t.profile, 'description', input.description) } : {}),
    },
  };
  Object.assign(body, t.fill(checkoutExtras(t, method, input.as), { notifyUrl: notifyUrlOrPlaceholder(t) }));
  // A check's own metadata wins over the profile's (a method may require metadata; the check still sends it, its own).
  if (input.metadata !== undefined) body.metadata = fitLength(t.profile, 'metadata', input.metadata);
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

const MAGIC = new WeakMap<object, MagicValues>();
/** The magic values of the profile's failure triggers (harness/profile/triggers.ts): what the kit's own values avoid. */
export function magicOf(t: Pick<Target, 'profile'>): MagicValues {
  const known = MAGIC.get(t.profile);
  if (known) return known;
  const m = new MagicValues(t.profile);
  MAGIC.set(t.profile, m);
  return m;
}

/** A predicate of cents the kit's draws avoid (fixtures/arbitraries `AvoidCents`): the declared magic amounts. */
export function avoidMagic(t: Pick<Target, 'profile'>): (cents: number) => boolean {
  const m = magicOf(t);
  return (cents) => m.hasAmounts && m.amount(cents);
}

/**
 * An amount inside the method's channel range for the merchant (or a price point); 10.00 otherwise. Never one a declared
 * failure trigger fails (an amount, an amount's ending): the nearest other the method accepts.
 */
export function defaultAmount(t: Target, method: string, as: MerchantRole = 'primary'): string {
  const magic = magicOf(t);
  const facts = factsOf(t, as);
  if (facts.sections.methods.pricePoint?.includes(method)) {
    const tiers = t.profile.pricePoints?.tiersByMethod?.[method] ?? t.profile.pricePoints?.tiers ?? ['0.99'];
    return tiers.find((v) => !magic.amount(centsOf(v))) ?? tiers[0]!;
  }
  const lim = facts.paymentLimits(method);
  const value = lim ? amountInside(lim) : '10.00';
  if (!magic.hasAmounts || !magic.amount(centsOf(value))) return value;
  for (let d = 1; d <= 1000; d++)
    for (const c of [centsNumberOf(value) + d, centsNumberOf(value) - d])
      if (c > 0 && (!lim || acceptsCents(lim, c)) && !magic.amount(c)) return valueOfCents(c);
  return value;
}

export function checkout(t: Target, input: CheckoutInput = {}, opts: PostOptions = {}): Promise<Exchange> {
  const as = input.as ?? (typeof opts.as === 'string' ? opts.as : undefined);
  const body = checkoutBody(t, { ...input, as });
  return t.post(t.path('checkout', { merchant_order_no: body.merchant_order_no }), body, { label: 'create a checkout', ...opts });
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
export async function createCheckout(t: Target, clause: ClauseId, input: CheckoutInput = {}, as?: MerchantRole): Promise<CreatedOrder> {
  const merchantOrderNo = input.merchantOrderNo ?? t.newNo('order');
  const ex = await checkout(t, { ...input, merchantOrderNo }, { as });
  const data = expectSuccess(ex, clause, { what: 'creating a checkout' });
  const orderNo = expectString(data, t.profile.checkout?.data.orderNo ?? 'order_no', clause, ex);
  return { orderNo, merchantOrderNo, exchange: ex, data, as };
}

export function queryPayment(
  t: Target,
  by: { order_no?: unknown; merchant_order_no?: unknown },
  opts: PostOptions = {},
): Promise<Exchange> {
  const { path, body } = lookupRequest(
    t,
    'paymentQuery',
    { serviceNo: 'order_no', merchantNo: 'merchant_order_no' },
    { serviceNo: 'order_no', merchantNo: 'merchant_order_no' },
    { serviceNo: by.order_no, merchantNo: by.merchant_order_no },
  );
  // Keys sent as undefined stay out of the body, as JSON.stringify leaves them out.
  return t.post(path, queryBody(t, 'payment', body, opts), { label: 'query a payment', ...opts });
}

/**
 * A query's body with the parameters the profile says it needs beside the lookup numbers (queryParams, version 5), for
 * the merchant it is sent as.
 */
export function queryBody(t: Target, kind: QueryKind, body: Record<string, unknown>, opts: PostOptions = {}): Record<string, unknown> {
  const id = typeof opts.as === 'object' ? opts.as.id : t.merchant(opts.as ?? 'primary').id;
  return withQueryParams(t.profile, kind, id, body);
}

/** A record's two numbers, as a lookup request gives them. */
export interface LookupBy {
  serviceNo?: unknown;
  merchantNo?: unknown;
}

/**
 * A lookup's path and body. Where the endpoint's path carries the record's number ({payout_no}, …), that number goes
 * into the path and not into the body; such a path says by which number the record is found, so a request looking it up
 * by any other set of numbers (the other one, both, neither) cannot be sent there and skips. Without placeholders the
 * numbers go into the body under the profile's field names, as given.
 */
export function lookupRequest(
  t: Target,
  endpoint: EndpointName,
  numbers: { serviceNo: PathNumber; merchantNo: PathNumber },
  names: { serviceNo: string; merchantNo: string },
  by: LookupBy,
): { path: string; body: Record<string, unknown> } {
  const carried = carriedBy(t.pathTemplate(endpoint));
  const body: Record<string, unknown> = {};
  for (const k of ['serviceNo', 'merchantNo'] as const) {
    const inPath = carried.has(numbers[k]);
    if (carried.size > 0 && inPath !== (by[k] !== undefined))
      throw new PreconditionSkip(
        `endpoints.${endpoint} carries ${[...carried].map((n) => `{${n}}`).join(', ')} in its path: ` +
          `this request, ${by[k] === undefined ? 'without' : 'with'} a ${numbers[k]}, cannot be sent there`,
      );
    if (!inPath && by[k] !== undefined) body[names[k]] = by[k];
  }
  return { path: t.path(endpoint, { [numbers.serviceNo]: by.serviceNo, [numbers.merchantNo]: by.merchantNo }), body };
}

/**
 * Which of a record's numbers a lookup at `endpoint` can use: the one its path carries, else `prefer` when known, else the
 * other. The doctor's probes ask this so they never send a lookup the path cannot carry.
 */
export function lookupFor(
  t: Target,
  endpoint: EndpointName,
  numbers: { serviceNo: PathNumber; merchantNo: PathNumber },
  record: { serviceNo?: string; merchantNo?: string },
  prefer: 'serviceNo' | 'merchantNo' = 'serviceNo',
): { serviceNo?: string; merchantNo?: string } {
  const carried = carriedBy(t.pathTemplate(endpoint));
  if (carried.has(numbers.serviceNo) || carried.has(numbers.merchantNo)) {
    const by: { serviceNo?: string; merchantNo?: string } = {};
    if (carried.has(numbers.serviceNo)) by.serviceNo = record.serviceNo;
    if (carried.has(numbers.merchantNo)) by.merchantNo = record.merchantNo;
    return by;
  }
  const other = prefer === 'serviceNo' ? 'merchantNo' : 'serviceNo';
  return record[prefer] !== undefined ? { [prefer]: record[prefer] } : { [other]: record[other] };
}

/**
 * The lookups a check sends for one record at `endpoint`: by each of its numbers in turn, or, where the endpoint's path
 * carries the record's number, only by what the path carries (a path says how the record is found).
 */
export function lookupsAt<T>(
  t: Target,
  endpoint: EndpointName,
  numbers: { serviceNo: PathNumber; merchantNo: PathNumber },
  record: { serviceNo: T; merchantNo: T },
): { serviceNo?: T; merchantNo?: T }[] {
  const carried = carriedBy(t.pathTemplate(endpoint));
  const service = carried.has(numbers.serviceNo);
  const merchant = carried.has(numbers.merchantNo);
  if (!service && !merchant) return [{ serviceNo: record.serviceNo }, { merchantNo: record.merchantNo }];
  return [{ ...(service ? { serviceNo: record.serviceNo } : {}), ...(merchant ? { merchantNo: record.merchantNo } : {}) }];
}

export const PAYOUT_NUMBERS = { serviceNo: 'payout_no', merchantNo: 'merchant_payout_no' } as const;
export const REFUND_NUMBERS = { serviceNo: 'refund_no', merchantNo: 'merchant_refund_no' } as const;
export const ORDER_NUMBERS = { serviceNo: 'order_no', merchantNo: 'merchant_order_no' } as const;

export function cardFixture(t: Target, kind: keyof NonNullable<Target['profile']['cardPayment']>['cards']): Card {
  const cp = t.profile.cardPayment;
  if (!cp) throw new PreconditionSkip('the profile declares no card payment (cardPayment)', { declare: ['cardPayment'] });
  const card = cp.cards[kind];
  if (!card)
    throw new PreconditionSkip(`the profile declares no ${kind} card (cardPayment.cards.${kind})`, {
      declare: [`cardPayment.cards.${kind}`],
    });
  return card;
}

export interface CardInput {
  merchantOrderNo?: string;
  amount?: unknown;
  card?: Card;
  metadata?: string;
  goodsName?: string;
}

export function cardPaymentBody(t: Target, input: CardInput = {}, as: MerchantRole = 'primary'): Record<string, unknown> {
  const cp = t.profile.cardPayment;
  if (!cp) throw new PreconditionSkip('the profile declares no card payment (cardPayment)', { declare: ['cardPayment'] });
  const method = t.profile.methods.card ?? 'CARD';
  return t.fill(cp.template, {
    method,
    merchantOrderNo: input.merchantOrderNo ?? t.newNo('order'),
    amount: input.amount ?? usd(defaultAmount(t, method, as)),
    card: input.card ?? cardFixture(t, 'success'),
    notifyUrl: notifyUrlOrPlaceholder(t),
    goodsName: fitLength(t.profile, 'goodsName', input.goodsName ?? 'Conformance test item'),
    metadata: fitLength(t.profile, 'metadata', input.metadata ?? ''),
  });
}

export function cardPayment(t: Target, input: CardInput = {}, opts: PostOptions = {}): Promise<Exchange> {
  const card = t.profile.methods.card ?? 'CARD';
  if (typeof opts.as === 'string' && !paymentMethodsOf(t, opts.as).includes(card)) {
    throw new PreconditionSkip(`the card method ${card} is not enabled for the ${opts.as} merchant (merchants.${opts.as}.paymentMethods)`, {
      declare: [`merchants.${opts.as}.paymentMethods`],
    });
  }
  const merchantOrderNo = input.merchantOrderNo ?? t.newNo('order');
  const as = typeof opts.as === 'string' ? opts.as : undefined;
  return t.post(t.path('cardPayment', { merchant_order_no: merchantOrderNo }), cardPaymentBody(t, { ...input, merchantOrderNo }, as), {
    label: 'create a card payment',
    ...opts,
  });
}

/** A card payment that must succeed, as `as` (default primary). */
export async function createPaidOrder(t: Target, clause: ClauseId, input: CardInput = {}, as?: MerchantRole): Promise<CreatedOrder> {
  const merchantOrderNo = input.merchantOrderNo ?? t.newNo('order');
  const ex = await cardPayment(t, { ...input, merchantOrderNo }, { as });
  const data = expectSuccess(ex, clause, { what: 'creating a card payment' });
  const orderNo = expectString(data, t.profile.cardPayment!.data.orderNo, clause, ex);
  return { orderNo, merchantOrderNo, exchange: ex, data, as };
}

/** Drives a checkout to SUCCESS or FAILED through the sandbox control. */
/** The records the sandbox controls act on carry the merchant that owns them (default primary). */
export type Owned = { as?: MerchantRole };

export async function completeCheckout(
  t: Target,
  order: { orderNo: string; merchantOrderNo: string; sentAt?: number } & Owned,
  outcome: 'success' | 'failed',
  clause: ClauseId,
): Promise<Exchange> {
  const c = t.profile.sandbox?.completeCheckout;
  if (!c)
    throw new PreconditionSkip('the profile declares no sandbox control to complete a checkout (sandbox.completeCheckout)', {
      declare: ['sandbox.completeCheckout'],
    });
  const ex = await t.post(
    c.path,
    t.fill(c.template, { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo, outcome: c.outcomes[outcome] }),
    { as: order.as, label: `sandbox: complete checkout as ${outcome}` },
  );
  // Time the vendor keeps: a checkout whose delay may have passed may have expired by itself (sandbox.autoSettle.checkouts).
  if (refusedControl(ex) && checkoutMayHaveExpired(t, order.sentAt ?? 0))
    throw new PreconditionSkip(
      `the checkout may have expired by itself (sandbox.autoSettle.checkouts) before the control to complete it as ${outcome} reached it`,
    );
  expectControlDone(ex, clause, { what: 'the sandbox control completing the checkout' });
  return ex;
}

export async function sandboxOrderControl(
  t: Target,
  control: 'chargeback' | 'expireCheckout',
  order: { orderNo: string; merchantOrderNo: string; sentAt?: number } & Owned,
  clause: ClauseId,
): Promise<Exchange> {
  const c = t.profile.sandbox?.[control];
  if (!c) throw new PreconditionSkip(`the profile declares no sandbox control sandbox.${control}`, { declare: [`sandbox.${control}`] });
  const ex = await t.post(c.path, t.fill(c.template, { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo }), {
    as: order.as,
    label: `sandbox: ${control}`,
  });
  // A checkout that may have expired by itself already is what the control asks for (sandbox.autoSettle.checkouts).
  if (control === 'expireCheckout' && refusedControl(ex) && checkoutMayHaveExpired(t, order.sentAt ?? 0)) return ex;
  expectControlDone(ex, clause, { what: `the sandbox control ${control}` });
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
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)', { declare: ['refunds'] });
  t.require('refundCreate');
  return t.fill(r.template, {
    refundNo: input.refundNo ?? t.newNo('refund'),
    orderNo: input.order.orderNo,
    merchantOrderNo: input.order.merchantOrderNo,
    amount: input.amount,
    // The kit's own reason within its said length; a reason the check gives (the vendor's failing one) is sent as it is.
    reason: input.reason ?? fitLength(t.profile, 'reason', 'Customer returned the item'),
  });
}

export function createRefund(t: Target, input: RefundInput, opts: PostOptions = {}): Promise<Exchange> {
  const refundNo = input.refundNo ?? t.newNo('refund');
  const path = t.path('refundCreate', {
    order_no: input.order.orderNo,
    merchant_order_no: input.order.merchantOrderNo,
    merchant_refund_no: refundNo,
  });
  return t.post(path, refundBody(t, { ...input, refundNo }), { label: 'create a refund', ...opts });
}

export function queryRefund(t: Target, by: { serviceNo?: unknown; merchantNo?: unknown }, opts: PostOptions = {}): Promise<Exchange> {
  const r = t.profile.refunds;
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)', { declare: ['refunds'] });
  const { path, body } = lookupRequest(t, 'refundQuery', REFUND_NUMBERS, r.queryBy, by);
  return t.post(path, queryBody(t, 'refund', body, opts), { label: 'query a refund', ...opts });
}

export async function settleRefund(
  t: Target,
  refund: { refundNo: string; merchantRefundNo: string; sentAt?: number } & Owned,
  outcome: 'success' | 'failed',
  clause: ClauseId,
): Promise<Exchange> {
  const c = t.profile.sandbox?.settleRefund;
  if (!c)
    throw new PreconditionSkip('the profile declares no sandbox control to settle a refund (sandbox.settleRefund)', {
      declare: ['sandbox.settleRefund'],
    });
  const ex = await t.post(
    c.path,
    t.fill(c.template, { refundNo: refund.refundNo, merchantRefundNo: refund.merchantRefundNo, outcome: c.outcomes[outcome] }),
    { as: refund.as, label: `sandbox: settle refund as ${outcome}` },
  );
  // Time the vendor keeps (sandbox.autoSettle.refunds): a refund whose delay may have passed may have ended by itself;
  // where it ended as asked the check goes on, else it is skipped, never failed.
  const ended = refusedControl(ex) ? refundMayHaveSettled(t, refund.sentAt ?? 0) : undefined;
  if (ended === (outcome === 'success' ? 'SUCCESS' : 'FAILED')) return ex;
  if (ended !== undefined)
    throw new PreconditionSkip(
      `the refund may have ended ${ended} by itself (sandbox.autoSettle.refunds) before the control to settle it as ${outcome} reached it`,
    );
  expectControlDone(ex, clause, { what: 'the sandbox control settling the refund' });
  return ex;
}

export interface PayoutInput {
  payoutNo?: string;
  method?: string;
  amount?: unknown;
  /** The merchant the payout is made as: the default method is one enabled for it. */
  as?: MerchantRole;
}

/** The profile's payouts section; a check that needs it skips naming the field when the profile declares none. */
export function payoutsOf(t: Target): NonNullable<Profile['payouts']> {
  const p = t.profile.payouts;
  if (!p) throw new PreconditionSkip('the profile declares no payouts (payouts)', { declare: ['payouts'] });
  return p;
}

/**
 * The first payout method (of those enabled for `as`, default primary) with the wanted cancel support; one that takes USD
 * for that merchant first, as a payout's default amount is in USD where the method takes it.
 */
export function payoutMethod(t: Target, want: { cancel?: boolean; as?: MerchantRole } = {}): string {
  payoutsOf(t);
  const facts = factsOf(t, want.as);
  const fits = facts.payoutMethods.filter((name) => want.cancel === undefined || facts.payoutMethod(name)?.cancel === want.cancel);
  const chosen = fits.find((name) => facts.takesCurrency(name, 'USD') !== false) ?? fits[0];
  if (chosen === undefined) {
    const who = want.as && want.as !== 'primary' ? ` enabled for the ${want.as} merchant (merchants.${want.as}.payoutMethods)` : '';
    throw new PreconditionSkip(
      `the profile declares no payout method${want.cancel === undefined ? '' : ` with cancel=${want.cancel}`}${who}`,
      {
        declare: [
          `a payout method${want.cancel === undefined ? '' : ` with "cancel": ${want.cancel}`}` +
            ` (payouts.methods${who ? ", and the merchant's payoutMethods" : ''})`,
        ],
      },
    );
  }
  return chosen;
}

/**
 * A payout's default amount for the merchant: inside the method's range, in USD where the method takes it for that
 * merchant, else in the first currency it takes.
 */
export function defaultPayoutAmount(t: Target, method: string, as: MerchantRole = 'primary'): Amount {
  const facts = factsOf(t, as);
  const currency = facts.takesCurrency(method, 'USD') === false ? (facts.payoutCurrencies(method)?.[0] ?? 'USD') : 'USD';
  const lim = facts.payoutLimits(method, currency);
  return { currency, value: lim ? amountInside(lim) : '10.00' };
}

export function payoutBody(t: Target, input: PayoutInput = {}): Record<string, unknown> {
  const p = t.profile.payouts;
  if (!p) throw new PreconditionSkip('the profile declares no payouts (payouts)', { declare: ['payouts'] });
  const method = input.method ?? payoutMethod(t, { as: input.as });
  return t.fill(p.template, {
    payoutNo: input.payoutNo ?? t.newNo('payout'),
    method,
    amount: input.amount ?? defaultPayoutAmount(t, method, input.as),
    notifyUrl: notifyUrlOrPlaceholder(t),
    // The method's own payee fields (payouts.methods[m].payee); absent, a template field "${payee}" is left out.
    payee: payeeFor(t, method, input.as),
  });
}

/**
 * The method's payee fields for the merchant (payouts.methods[m].payee). A method with none declared (one not for
 * payouts, an unknown one) gets the first declared payee, so the body is refused for its method only.
 */
function payeeFor(t: Target, method: string, as: MerchantRole = 'primary'): Record<string, unknown> | undefined {
  const methods = { ...(t.profile.payouts?.methods ?? {}), ...factsOf(t, as).sections.payouts.methods };
  const payee = methods[method]?.payee ?? Object.values(methods).find((m) => m.payee !== undefined)?.payee;
  return payee === undefined ? undefined : t.fill(payee, { notifyUrl: notifyUrlOrPlaceholder(t) });
}

export function createPayout(t: Target, input: PayoutInput = {}, opts: PostOptions = {}): Promise<Exchange> {
  const as = input.as ?? (typeof opts.as === 'string' ? opts.as : undefined);
  const payoutNo = input.payoutNo ?? t.newNo('payout');
  return t.post(t.path('payoutCreate', { merchant_payout_no: payoutNo }), payoutBody(t, { ...input, payoutNo, as }), {
    label: 'create a payout',
    ...opts,
  });
}

export function payoutLookup(
  t: Target,
  which: 'queryBy' | 'cancelBy',
  by: { serviceNo?: unknown; merchantNo?: unknown },
): Record<string, unknown> {
  const p = t.profile.payouts;
  if (!p) throw new PreconditionSkip('the profile declares no payouts (payouts)', { declare: ['payouts'] });
  const body: Record<string, unknown> = {};
  if (by.serviceNo !== undefined) body[p[which].serviceNo] = by.serviceNo;
  if (by.merchantNo !== undefined) body[p[which].merchantNo] = by.merchantNo;
  return body;
}

export function queryPayout(t: Target, by: LookupBy, opts: PostOptions = {}): Promise<Exchange> {
  const p = t.profile.payouts;
  if (!p) throw new PreconditionSkip('the profile declares no payouts (payouts)', { declare: ['payouts'] });
  const { path, body } = lookupRequest(t, 'payoutQuery', PAYOUT_NUMBERS, p.queryBy, by);
  return t.post(path, queryBody(t, 'payout', body, opts), { label: 'query a payout', ...opts });
}

export function cancelPayout(t: Target, by: LookupBy, opts: PostOptions = {}): Promise<Exchange> {
  const p = t.profile.payouts;
  if (!p) throw new PreconditionSkip('the profile declares no payouts (payouts)', { declare: ['payouts'] });
  const { path, body } = lookupRequest(t, 'payoutCancel', PAYOUT_NUMBERS, p.cancelBy, by);
  return t.post(path, body, { label: 'cancel a payout', ...opts });
}

/**
 * Settles a payout by the sandbox's control. Time the vendor keeps (sandbox.autoSettle.payouts): a payout whose delay
 * may have passed (since `sentAt`, its creation request; unknown: any time) may have ended by itself, and a control then
 * refused shows nothing against the target: where it ended in the status asked for, the check goes on (what it judges
 * next reads that status); else the check is skipped, never failed.
 */
export async function settlePayout(
  t: Target,
  payout: { payoutNo: string; merchantPayoutNo: string; sentAt?: number } & Owned,
  outcome: 'success' | 'failed',
  clause: ClauseId,
): Promise<Exchange> {
  const c = t.profile.sandbox?.settlePayout;
  if (!c)
    throw new PreconditionSkip('the profile declares no sandbox control to settle a payout (sandbox.settlePayout)', {
      declare: ['sandbox.settlePayout'],
    });
  const ex = await t.post(
    c.path,
    t.fill(c.template, {
      payoutNo: payout.payoutNo,
      merchantPayoutNo: payout.merchantPayoutNo,
      outcome: c.outcomes[outcome],
      reason: c.reason,
    }),
    { as: payout.as, label: `sandbox: settle payout as ${outcome}` },
  );
  const code = (ex.response?.json as { code?: unknown } | undefined)?.code;
  const ended = code !== 0 && ex.response ? payoutMayHaveSettled(t, payout.sentAt ?? 0) : undefined;
  if (ended === (outcome === 'success' ? 'SUCCESS' : 'FAILED')) return ex;
  if (ended !== undefined)
    throw new PreconditionSkip(
      `the payout may have ended ${ended} by itself (sandbox.autoSettle.payouts) before the control to settle it as ${outcome} ` +
        'reached it',
    );
  expectControlDone(ex, clause, { what: 'the sandbox control settling the payout' });
  return ex;
}

/**
 * Gives a payout's money back to its merchant's balance: cancels it where its method cancels
 * (payouts.methods.<method>.cancel), else has the sandbox settle it as failed (sandbox.settlePayout); neither: nothing.
 * How either answers is judged by their own checks.
 */
export async function givePayoutBack(
  t: Target,
  payout: { payoutNo: string; merchantPayoutNo: string } & Owned,
  method: string,
  clause: ClauseId,
  label: string,
): Promise<void> {
  if (!canGivePayoutBack(t, method, payout.as)) return;
  if (factsOf(t, payout.as).payoutMethod(method)?.cancel) {
    const by = lookupFor(t, 'payoutCancel', PAYOUT_NUMBERS, { serviceNo: payout.payoutNo, merchantNo: payout.merchantPayoutNo });
    await cancelPayout(t, by, { as: payout.as, label });
  } else await settlePayout(t, payout, 'failed', clause);
}

/**
 * Whether givePayoutBack can give a payout of this method back: a cancel it declares for the merchant, or the sandbox's
 * settle as failed.
 */
export function canGivePayoutBack(t: Target, method: string, as: MerchantRole = 'primary'): boolean {
  return Boolean(factsOf(t, as).payoutMethod(method)?.cancel || t.profile.sandbox?.settlePayout);
}

/** Reads a field of a record by the profile's dotted path. */
export { pick };

/** Completes a pending card payment (cardPayment.cards.pending) through sandbox.completeCard. */
export async function completeCard(
  t: Target,
  order: { orderNo: string; merchantOrderNo: string } & Owned,
  outcome: 'success' | 'failed',
  clause: ClauseId,
): Promise<Exchange> {
  const c = t.profile.sandbox?.completeCard;
  if (!c)
    throw new PreconditionSkip('the profile declares no sandbox control to complete a pending card payment (sandbox.completeCard)', {
      declare: ['sandbox.completeCard'],
    });
  const ex = await t.post(
    c.path,
    t.fill(c.template, { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo, outcome: c.outcomes[outcome] }),
    { as: order.as, label: `sandbox: complete the pending card payment as ${outcome}` },
  );
  expectControlDone(ex, clause, { what: 'the sandbox control completing the pending card payment' });
  return ex;
}

export type ArmableFailure = ArmFailureKind;

/** The profile's failure switch, when it can arm `failure`; otherwise the check is skipped, naming what to declare. */
function armControl(t: Target, failure: ArmableFailure): ArmFailureControl {
  const c = t.profile.sandbox?.armFailure;
  if (!c)
    throw new PreconditionSkip('the profile declares no sandbox control that arms a one-shot failure (sandbox.armFailure)', {
      declare: ['sandbox.armFailure'],
    });
  if (c.failures[failure] === undefined)
    throw new PreconditionSkip(`the profile's sandbox.armFailure cannot arm ${failure} (sandbox.armFailure.failures.${failure})`, {
      declare: [`sandbox.armFailure.failures.${failure}`],
    });
  return c;
}

/**
 * Arms a one-shot failure through sandbox.armFailure: the merchant's next request of that kind (about `merchantOrderNo`,
 * or for a refund kind the refund numbered `merchantRefundNo` where the switch matches refunds by number) fails once.
 * Call it only inside the switch's exclusive section: `underArmedFailure` does both.
 */
export async function armFailure(
  t: Target,
  failure: ArmableFailure,
  clause: ClauseId,
  opts: { as?: MerchantRole } & ArmSubjects = {},
): Promise<Exchange> {
  const c = armControl(t, failure);
  const vars = armVariables(c, failure, { merchantOrderNo: opts.merchantOrderNo, merchantRefundNo: opts.merchantRefundNo });
  const ex = await t.post(c.path, t.fill(c.template, vars), {
    as: opts.as,
    label: `sandbox: arm a one-shot ${failure}`,
  });
  expectControlDone(ex, clause, { what: `the sandbox control arming ${failure}` });
  return ex;
}

export interface ArmedRun extends ArmSubjects {
  as?: MerchantRole;
  /**
   * Sends one more request of the failure's kind (one the switch may hit: for a query, the same one; for a creation, a
   * new one): used, inside the section, until every failure the arming armed was seen.
   */
  again: () => Promise<Exchange>;
}

/**
 * Arms `failure` and runs `fn`, which sends the request it was armed for, inside the exclusive section the switch
 * needs (harness/http/exclusive.ts; sandbox.armFailure.scope, default every request to the target): no request of another
 * check that the switch could hit is sent meanwhile. Before the section closes, the failures the arming left
 * (sandbox.armFailure.count, less those the section's requests of that kind already met) are used up with `again`, so
 * that no other check's request meets one.
 */
export async function underArmedFailure<T>(
  t: Target,
  failure: ArmableFailure,
  clause: ClauseId,
  run: ArmedRun,
  fn: (armed: Exchange) => Promise<T>,
): Promise<T> {
  const c = armControl(t, failure);
  const section = armSection(c, failure, t.merchant(run.as ?? 'primary').id);
  return t.exclusive(section, async () => {
    const armed = await armFailure(t, failure, clause, run);
    let done = false;
    try {
      const out = await fn(armed);
      done = true;
      return out;
    } finally {
      // Only a switch of the check's own numbers leaves nothing another check's request could meet.
      if (section.scope !== 'subject') {
        const used = useUp(t, section.operation, armCount(c), armed, run.again);
        if (done) await used;
        else await used.catch(() => undefined);
      }
    }
  });
}

/**
 * Sends `again` until `count` answers of `operation` since `armed` in this check were the armed failure: the same
 * refusal (code and key) as the first one met, whatever it is (a broken target may give another than the document's).
 * A refusal for another reason is no failure used up: tried again, within `count + 2` tries; an acceptance ends it
 * (the switch has no more).
 */
async function useUp(t: Target, operation: Operation, count: number, armed: Exchange, again: () => Promise<Exchange>): Promise<void> {
  const after = exchangeNumber(armed.id);
  const own = (currentRecorder()?.exchanges ?? []).filter(
    (x) => exchangeNumber(x.id) > after && t.operationOf(requestPathOf(t, x.request.url)) === operation,
  );
  const failure = own.map(refusalOf).find((r) => r !== undefined);
  let seen = failure === undefined ? 0 : own.filter((x) => refusalOf(x) === failure).length;
  for (let tries = 0; seen < count && tries < count + 2; tries++) {
    const answer = refusalOf(await again());
    if (answer === undefined) return;
    if (failure === undefined || answer === failure) seen += 1;
  }
}

/** A refusal's code and key (`422 systemBusy`); undefined for an acceptance or no envelope. */
function refusalOf(ex: Exchange): string | undefined {
  const j = ex.response?.json as { code?: unknown; msg?: unknown } | undefined;
  if (typeof j?.code !== 'number' || j.code === 0) return undefined;
  return `${j.code} ${typeof j.msg === 'string' ? j.msg.split('|').pop() : ''}`;
}

/** A request's path as the profile writes it: after the path the target's base URL may carry (https://host/gateway). */
export function requestPathOf(t: Pick<Target, 'baseUrl'>, url: string): string {
  return new URL(url).pathname.slice(new URL(t.baseUrl).pathname.replace(/\/+$/, '').length);
}

/** The sequence number of an exchange of this process (`x-000123`). */
function exchangeNumber(id: string): number {
  return Number(id.replace(/^x-/, ''));
}

/**
 * Time the vendor keeps (profile `sandbox.autoSettle.payouts`, version 5): the status a payout whose creation request was
 * sent at `sentAt` (epoch ms) may have ended in by itself by `now`, or undefined while it surely still waits (the
 * documented delay has not passed since the request was sent, so not since the target created it either) or when the
 * profile says payouts wait for a cancel or a control. A check never takes a payout as waiting once this says otherwise.
 */
export function payoutMayHaveSettled(t: Pick<Target, 'profile'>, sentAt: number, now = Date.now()): 'SUCCESS' | 'FAILED' | undefined {
  const auto = t.profile.sandbox?.autoSettle?.payouts;
  return auto !== undefined && now - sentAt >= auto.afterMs ? auto.status : undefined;
}

/** The status a PENDING refund created by a request sent at `sentAt` may have ended in by itself (sandbox.autoSettle.refunds). */
export function refundMayHaveSettled(t: Pick<Target, 'profile'>, sentAt: number, now = Date.now()): 'SUCCESS' | 'FAILED' | undefined {
  const auto = t.profile.sandbox?.autoSettle?.refunds;
  return auto !== undefined && now - sentAt >= auto.afterMs ? auto.status : undefined;
}

/** Whether an unpaid checkout created by a request sent at `sentAt` may have expired by itself (sandbox.autoSettle.checkouts). */
export function checkoutMayHaveExpired(t: Pick<Target, 'profile'>, sentAt: number, now = Date.now()): boolean {
  const auto = t.profile.sandbox?.autoSettle?.checkouts;
  return auto !== undefined && now - sentAt >= auto.afterMs;
}

/** A control answered with a refusal (an answer came, and it is not code 0). */
function refusedControl(ex: Exchange): boolean {
  return ex.response !== undefined && (ex.response.json as { code?: unknown } | undefined)?.code !== 0;
}

/** When a request was sent, epoch ms (its exchange's start: the target received it no earlier). */
export function sentAtOf(ex: Pick<Exchange, 'timings'>): number {
  return Date.parse(ex.timings.startedAt);
}
