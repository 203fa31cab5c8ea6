/**
 * POST /api/v1/payouts/create. The amount and the method's payout fee (when the target description gives one) are
 * reserved from the payout balance of the payout's currency on creation and released if the payout fails or is canceled.
 * A method may have its own range in a currency other than USD. A new payout is PENDING and sends no webhook:
 * the interface lists payout.updated only for SUCCESS, FAILED and CANCELED.
 */
import { amountCents, readAmount } from '../amount.js';
import { ApiError, E } from '../errors.js';
import { checkNumberFree, claimNumber } from '../idempotency.js';
import { feeOn } from '../fees.js';
import type { Handler } from '../service.js';
import { movePayoutBalance, type Payee, type Payout, payoutBalance } from '../store.js';
import { Fields } from '../validate.js';
import { payoutView } from '../views.js';
import { ensureActive } from './payment-input.js';
import { balanceCurrency, settleDuePayouts } from './payout-state.js';

const KEYS = ['payment_method', 'merchant_payout_no', 'trans_amount', 'payee', 'notify_url'];

export const payoutCreate: Handler = (svc, call) => {
  // Money a payout that ended by itself gave back is there again (target payoutsSettleAfter).
  settleDuePayouts(svc, call.now);
  const b = svc.behaviour;
  const f = Fields.of(call.body, KEYS);
  const method = f.requiredString('payment_method', { max: 32 });
  const merchantPayoutNo = f.requiredString('merchant_payout_no', { max: 64 });
  const amount = readAmount(f, 'trans_amount');
  const payee = readPayee(f, svc.target.payeeFields.get(method) ?? []);
  const notifyUrl = f.url('notify_url', true) ?? '';

  ensureActive(call.merchant, b.enforces('payout.merchant-active'));
  const cents = amountCents(amount, b.maxAmountDecimals, 'invalidAmount', b.isPositiveAmount);
  if (!svc.target.knownMethods.has(method)) throw E.unsupportedPaymentMethod(5007, method);
  // A fault that skips the method rule pays out through the first payout channel. A merchant's own channel (its
  // currencies and ranges) is its own; a fault applies the first merchant's (the primary's) to every merchant.
  const own = (b.enforces('payout.merchant-channels') ? call.merchant : svc.target.merchants[0]!).payoutChannels;
  const channels = own ? new Map([...svc.target.payoutChannels, ...own]) : svc.target.payoutChannels;
  const channel = channels.get(method) ?? (b.enforces('payout.method') ? undefined : channels.values().next().value);
  // A payout method not enabled for this merchant is, for it, not available for payouts.
  const ownMethods = call.merchant.payoutMethods;
  if (ownMethods !== undefined && !ownMethods.includes(method) && b.enforces('payout.merchant-methods')) {
    throw new ApiError(5007, 'unsupportedPayoutMethod', `${method} is not available for payouts`);
  }
  if (channel === undefined) throw new ApiError(5007, 'unsupportedPayoutMethod', `${method} is not available for payouts`);
  if (!b.payoutCurrencies(method, channel.currencies).includes(amount.currency) && b.enforces('payout.currency')) {
    throw new ApiError(5008, 'amountOutOfRange', `Currency ${amount.currency} is not accepted by ${method}`);
  }
  const range = (b.enforces('payout.currency-range') ? channel.byCurrency?.get(amount.currency) : undefined) ?? channel;
  if (cents < range.minCents || cents > range.maxCents) {
    throw new ApiError(5008, 'amountOutOfRange', `Amount is outside the ${method} payout range`);
  }
  const replay = checkNumberFree(svc, call.merchant.id, 'payout', merchantPayoutNo);
  if (replay !== undefined) return replay;
  const balances = svc.store.balancesOf(call.merchant.id);
  const pot = balanceCurrency(svc, amount.currency);
  const funds = svc.store.balancesOf(b.payoutFundsOf(call.merchant.id, svc.target.merchants[0]!.id));
  const ownFee = b.enforces('fee.merchant') ? call.merchant.payoutFees?.get(method) : undefined;
  const fee = feeOn(ownFee ?? svc.target.fees.payouts.get(method), cents, {
    minimum: b.enforces('fee.minimum'),
    // A fault may keep the cap for USD payouts alone (as if the cap were a USD amount only).
    maximum: amount.currency === 'USD' || b.enforces('fee.maximum-any-currency'),
  });
  const cost = cents + (b.enforces('payout.fee') ? fee : 0n);
  if (payoutBalance(funds, pot) < cost && b.enforces('payout.balance'))
    throw new ApiError(5004, 'insufficientFunds', 'Insufficient merchant payout balance');

  const payout: Payout = {
    payoutNo: svc.store.nextServiceNo('T', call.now),
    merchantId: call.merchant.id,
    merchantPayoutNo,
    method,
    amountCents: cents,
    reservedCents: cents + fee,
    currency: amount.currency,
    payee,
    notifyUrl,
    status: 'PENDING',
    createdAt: call.now,
  };
  movePayoutBalance(balances, pot, -(cents + fee));
  svc.store.addPayout(payout);
  claimNumber(svc, call.merchant.id, 'payout', merchantPayoutNo, payout.payoutNo);
  return payoutView(payout, b);
};

/** The payee fields the method requires (any method: every field optional, none unknown). */
function readPayee(f: Fields, need: readonly string[]): Payee {
  const p = f.requiredObject('payee', ['name', 'account', 'email']);
  const read = (k: 'name' | 'account' | 'email', max: number): string | undefined =>
    need.includes(k) ? p.requiredString(k, { max }) : p.optionalString(k, { max });
  const out: Payee = {};
  const name = read('name', 128);
  const account = read('account', 64);
  const email = read('email', 254);
  if (name !== undefined) out.name = name;
  if (account !== undefined) out.account = account;
  if (email !== undefined) out.email = email;
  return out;
}
