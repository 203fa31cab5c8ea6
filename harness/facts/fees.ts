/**
 * Fees and balances (profile `fees`, `balances`, version 4): what a payout or refund costs the balance it draws on, and
 * which balances move while the kit runs. The document names a refund's fee ("Merchant balance does not cover the
 * refund and its fee") and shows no amount; a vendor may charge on payments and payouts as well, and credit each
 * successful payment (amount less its fee) to a balance. Every amount a check computes just above or within a balance
 * goes through here, so a fee is never left out of "a cent above".
 *
 * Pure: cents as bigint (harness/facts/money.ts), no floating point. Which fee a merchant pays is its facts' (harness/facts/).
 */
import { factsOf, type FeeKind, type MerchantRole } from './index.js';
import { centsOf } from './money.js';
import type { FeeModel, Profile } from '../profile/types.js';

export type { FeeKind };

/**
 * The fee model the merchant acting as `as` (default primary) pays on `method` for `kind`: its own facts, else the
 * shared table (its own method, else "*"; refunds fall back to `refunds.fee`). harness/facts/ resolves it.
 */
export function feeModelOf(profile: Profile, kind: FeeKind, method: string, as: MerchantRole = 'primary'): FeeModel | undefined {
  return factsOf(profile, as).feeModel(kind, method);
}

/** The percentage as a fraction in ten-thousandths of a percent ("2.9" → 29000n of 1,000,000n). */
function percentMillionths(percent: string): bigint {
  const [whole, frac = ''] = percent.split('.');
  return BigInt(whole!) * 10_000n + BigInt(frac.padEnd(4, '0'));
}

/**
 * The fee in cents on `amountCents` of `currency`, or undefined when it cannot be added to the amount (its fixed part, or
 * a bound, is in another currency). No model: zero. Version 5: never below `min`, never above `max`.
 */
export function feeCents(model: FeeModel | undefined, amountCents: bigint, currency: string): bigint | undefined {
  if (!model) return 0n;
  const inOther = model.currency !== undefined && model.currency !== currency;
  if (inOther && (model.fixed !== undefined || model.min !== undefined || model.max !== undefined)) return undefined;
  const fee = uncappedFee(model, amountCents);
  const min = model.min !== undefined ? centsOf(model.min) : undefined;
  const max = model.max !== undefined ? centsOf(model.max) : undefined;
  if (max !== undefined && fee > max) return max;
  if (min !== undefined && fee < min) return min;
  return fee;
}

/** The fixed part plus the percentage part, rounded as the model says. */
function uncappedFee(model: FeeModel, amountCents: bigint): bigint {
  const fixed = model.fixed !== undefined ? centsOf(model.fixed) : 0n;
  if (model.percent === undefined) return fixed;
  const scaled = amountCents * percentMillionths(model.percent); // cents × 1,000,000
  const unit = 1_000_000n;
  const down = scaled / unit;
  const rest = scaled % unit;
  const rounding = model.rounding ?? 'halfUp';
  const part = rest === 0n ? down : rounding === 'down' ? down : rounding === 'up' ? down + 1n : rest * 2n >= unit ? down + 1n : down;
  return fixed + part;
}

/** Whether a payout's fee is drawn from the payout balance with it (`balances.payoutFee`, default yes). */
function payoutFeeFromBalance(profile: Profile): boolean {
  return profile.balances?.payoutFee !== 'elsewhere';
}

/**
 * What a payout of `amountCents` draws from the payout balance of its currency: the amount and, unless the profile says
 * it is taken elsewhere, its fee. Undefined when the fee cannot be added (another currency's).
 */
export function payoutCost(
  profile: Profile,
  method: string,
  amountCents: bigint,
  currency: string,
  as: MerchantRole = 'primary',
): bigint | undefined {
  if (!payoutFeeFromBalance(profile)) return amountCents;
  const fee = feeCents(feeModelOf(profile, 'payouts', method, as), amountCents, currency);
  return fee === undefined ? undefined : amountCents + fee;
}

/** What a refund of `amountCents` (USD) by the merchant `as` must find in its refund balance: the refund and its fee. */
export function refundCost(profile: Profile, method: string, amountCents: bigint, as: MerchantRole = 'primary'): bigint | undefined {
  const fee = feeCents(feeModelOf(profile, 'refunds', method, as), amountCents, 'USD');
  return fee === undefined ? undefined : amountCents + fee;
}

/**
 * The largest amount whose cost is within `balanceCents` (cost is non-decreasing in the amount), or undefined when
 * none is (or the cost cannot be computed). `cost` is `payoutCost`/`refundCost` bound to a method.
 */
export function largestWithin(cost: (cents: bigint) => bigint | undefined, balanceCents: bigint): bigint | undefined {
  if (balanceCents < 1n) return undefined;
  const first = cost(1n);
  if (first === undefined || first > balanceCents) return undefined;
  let lo = 1n; // cost(lo) <= balance
  let hi = balanceCents; // the amount alone never exceeds its cost, so nothing above the balance fits
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    const c = cost(mid);
    if (c === undefined) return undefined;
    if (c <= balanceCents) lo = mid;
    else hi = mid - 1n;
  }
  return lo;
}

/** The smallest amount whose cost exceeds `balanceCents`: "a cent above the balance", fee included. */
export function smallestAbove(cost: (cents: bigint) => bigint | undefined, balanceCents: bigint): bigint | undefined {
  const within = largestWithin(cost, balanceCents);
  const next = (within ?? 0n) + 1n;
  const c = cost(next);
  return c === undefined ? undefined : next;
}

/**
 * Whether the profile says the merchants' balance of `which` in `currency` moves while the kit runs: a successful
 * payment credits it and its proceeds may become available meanwhile (`balances.proceeds` absent, or a delay; proceeds
 * released only by a control the kit never sends stay pending), or a chargeback the kit may record debits it
 * (`balances.chargeback`). Such a balance is never judged as a constant: the declared value is where it started, and
 * every payment of the merchant, the kit's or anyone's, may have raised it since.
 */
export function balanceMoves(profile: Profile, which: 'payout' | 'refund', currency = 'USD'): boolean {
  // A payment is charged in USD (INTERFACE.md › Webhook body: trans_amount is the USD amount charged).
  if (which === 'payout' && currency !== 'USD') return false;
  return creditsMove(profile, which) || chargebacksMove(profile, which);
}

/** Payments credit `which`, and their proceeds may become available while the kit runs. */
export function creditsMove(profile: Profile, which: 'payout' | 'refund'): boolean {
  const credited = profile.balances?.paymentsCredit ?? [];
  return credited.includes(which) && profile.balances?.proceeds?.after !== 'control';
}

/** A chargeback the kit may record (it has the sandbox's control) debits `which` (`balances.chargeback`). */
export function chargebacksMove(profile: Profile, which: 'payout' | 'refund'): boolean {
  return profile.balances?.chargeback?.from === which && profile.sandbox?.chargeback !== undefined;
}

/**
 * Whether payments credit `which` with proceeds that stay pending while the kit runs (`balances.proceeds.after`
 * "control"): the balance is a constant the kit's own payments cannot raise, and a payout or refund drawn against those
 * proceeds must be refused as one above the balance.
 */
export function proceedsStayPending(profile: Profile, which: 'payout' | 'refund'): boolean {
  return (profile.balances?.paymentsCredit ?? []).includes(which) && profile.balances?.proceeds?.after === 'control';
}
