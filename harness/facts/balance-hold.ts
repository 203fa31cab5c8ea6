/**
 * A check that judges a merchant's balance holds it while it does (INTERFACE.md › Payout errors 5004 insufficientFunds,
 * Refund errors "Merchant balance does not cover the refund and its fee"): between establishing the balance and reading
 * the answer that depends on it, nothing else may move it — no other check's payout, refund or payment of that merchant
 * (a payment may credit it: profile `balances.paymentsCredit`), from any worker, the doctor included.
 *
 * It is an exclusive section of the run-wide pool (harness/http/exclusive.ts) over every request signed as that merchant:
 * a balance is the merchant's own (the document: "Insufficient merchant payout balance"), and every request that can
 * move it — its payments, refunds, payouts and sandbox controls — is signed as that merchant. The checks still make
 * their amounts robust to what the profile says moves: a balance the profile says moves is never judged as a constant
 * (harness/facts/fees.ts `balanceMoves`), and fees are counted in every amount at a balance's edge.
 */
import type { MerchantRole, Target } from '../target.js';

/** Runs `fn` while no request of `merchant` but `fn`'s own is sent to the target, by any check or worker. */
export async function withBalanceHeld<T>(t: Target, merchant: MerchantRole, fn: () => Promise<T>): Promise<T> {
  return t.exclusive(
    { scope: 'merchant', merchant: t.merchant(merchant).id, operation: 'payout.create', label: `the ${merchant} merchant's balances` },
    fn,
  );
}
