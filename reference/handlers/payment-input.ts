/**
 * The request fields checkout and card payments share, and the business checks they run in the
 * same order: frozen merchant, amount decimals, positivity, currency, method, channel limits.
 */
import { amountCents, readAmount, type AmountInput } from '../amount.js';
import type { Behaviour } from '../behaviour.js';
import { ApiError, E, quote } from '../errors.js';
import type { MerchantFixture } from '../fixtures.js';
import { MAX_AMOUNT_CENTS } from '../money.js';
import { channelAccepts } from '../methods.js';
import type { TradeInfo } from '../store.js';
import type { Target } from '../sandbox-data.js';
import type { Fields } from '../validate.js';

export const PAYMENT_KEYS = [
  'payment_method',
  'merchant_order_no',
  'trans_amount',
  'notify_url',
  'return_url',
  'trade_info',
  'metadata',
] as const;

export interface PaymentInput {
  method: string;
  merchantOrderNo: string;
  amount: AmountInput;
  tradeInfo: TradeInfo;
  notifyUrl?: string;
  returnUrl?: string;
  metadata: string;
}

/**
 * `requiredBy` (checkout): notify_url always, and the fields the method (or every method, `*`) requires, from the
 * target's `checkoutRequiredFields`; absent (card payments), the URLs and metadata are optional.
 */
export function readPaymentInput(
  f: Fields,
  requiredBy: ReadonlyMap<string, readonly string[]> | undefined,
  goodsNameRequired = true,
): PaymentInput {
  const method = f.requiredString('payment_method', { max: 32 });
  const urlsRequired = requiredBy !== undefined;
  const byMethod = [...(requiredBy?.get(method) ?? []), ...(requiredBy?.get('*') ?? [])];
  const merchantOrderNo = f.requiredString('merchant_order_no', { max: 64 });
  const amount = readAmount(f, 'trans_amount');
  const tradeInfo = readTradeInfo(f, goodsNameRequired);
  const notifyUrl = f.url('notify_url', urlsRequired);
  const returnUrl = f.url('return_url', urlsRequired && byMethod.includes('return_url'));
  const metadata = byMethod.includes('metadata')
    ? f.requiredString('metadata', { max: 4096 })
    : (f.optionalString('metadata', { max: 4096 }) ?? '');
  const out: PaymentInput = { method, merchantOrderNo, amount, tradeInfo, metadata };
  if (notifyUrl !== undefined) out.notifyUrl = notifyUrl;
  if (returnUrl !== undefined) out.returnUrl = returnUrl;
  return out;
}

function readTradeInfo(f: Fields, goodsNameRequired: boolean): TradeInfo {
  if (!goodsNameRequired && !f.has('trade_info')) return { goods_name: '' };
  // Without trade_info at all, the field actually missing is the goods name: name that one.
  if (!f.has('trade_info')) throw E.invalidRequest(`Field ${f.name('trade_info')}.GoodsName is required`);
  const t = f.requiredObject('trade_info', ['goods_name', 'description']);
  const goodsName = goodsNameRequired ? t.requiredString('goods_name', { max: 256 }) : (t.optionalString('goods_name', { max: 256 }) ?? '');
  const info: TradeInfo = { goods_name: goodsName };
  const description = t.optionalString('description', { max: 1024 });
  if (description !== undefined) info.description = description;
  return info;
}

/** `enforced` is false only in a fault that lets a frozen merchant through. */
export function ensureActive(m: MerchantFixture, enforced = true): void {
  if (m.frozen && enforced) throw E.merchantFrozen();
}

/** Decimals, positivity, then currency: USD only, conversion is unavailable. */
export function paymentCents(a: AmountInput, b: Behaviour): bigint {
  const cents = amountCents(a, b.maxAmountDecimals, 'invalidAmount', b.isPositiveAmount);
  if (a.currency !== 'USD' && b.enforces('payment.currency-usd')) {
    throw new ApiError(422, 'notSupported', `Currency ${a.currency} is not supported (conversion unavailable)`);
  }
  return cents;
}

/**
 * Unknown names are "unsupported"; known but not enabled (or not for this endpoint, or not for this
 * merchant) are "unavailable". A merchant with a list of its own has exactly those methods, which may
 * include one no other merchant has. `ownListEnforced` false (a fault) lets a merchant use every merchant's
 * methods too, on top of its own: it takes nothing away, so it shows only as a method accepted that should not be.
 */
export function ensurePaymentMethod(
  method: string,
  target: Target,
  merchant: MerchantFixture,
  ownListEnforced: boolean,
  endpointMethods?: readonly string[],
): void {
  if (!target.knownMethods.has(method)) throw E.unsupportedPaymentMethod(3003, method);
  if (endpointMethods !== undefined && !endpointMethods.includes(method)) throw E.paymentMethodUnavailable(method);
  const own = merchant.paymentMethods;
  const enabled = own === undefined ? target.paymentMethods : ownListEnforced ? own : [...own, ...target.paymentMethods];
  if (!enabled.includes(method)) throw E.paymentMethodUnavailable(method);
}

export interface Priced {
  chargedCents: bigint;
  requestedCents?: bigint;
}

/**
 * Channel limits, or rounding up to a price point for wallets that only charge fixed tiers. A merchant's own ranges of
 * a method are its own; a fault applies the first merchant's (the primary's) to every merchant.
 */
export function priceFor(method: string, cents: bigint, b: Behaviour, target: Target, merchant?: MerchantFixture): Priced {
  if (target.noChannelMethods.has(method)) {
    if (b.enforces('payment.no-channel')) throw E.validationFailed('No payment channel available');
    return { chargedCents: cents };
  }
  const shared = target.paymentChannels.get(method);
  if (shared === undefined) throw E.paymentMethodUnavailable(method);
  const whose = b.enforces('payment.merchant-channels') ? merchant : target.merchants[0];
  const own = shared.tiersCents === undefined ? whose?.paymentChannels?.get(method) : undefined;
  const { ranges: _, ...single } = shared;
  const ch = own ? { ...single, ...own } : shared;
  if (ch.tiersCents !== undefined) {
    if (ch.maxCents !== undefined && cents > ch.maxCents && b.enforces('payment.channel-range'))
      throw new ApiError(2006, 'amountOutOfRange', `No available ${quote(method)} channel accepts the amount`);
    const tier = cents > MAX_AMOUNT_CENTS ? undefined : b.roundToTier(cents, b.tiersFor(method, ch.tiersCents), ch.rounding);
    if (tier === undefined && !b.enforces('payment.price-point')) return { chargedCents: cents };
    if (tier === undefined) {
      throw new ApiError(422, 'notSupported', `Amount cannot be rounded to a ${method} price point`);
    }
    return tier === cents ? { chargedCents: cents } : { chargedCents: tier, requestedCents: cents };
  }
  const outside = b.channelRanges
    ? !channelAccepts(ch, cents)
    : (ch.minCents !== undefined && cents < ch.minCents) || (ch.maxCents !== undefined && cents > ch.maxCents);
  if (outside && b.enforces('payment.channel-range')) {
    throw new ApiError(2006, 'amountOutOfRange', `No available ${quote(method)} channel accepts the amount`);
  }
  return { chargedCents: cents };
}
