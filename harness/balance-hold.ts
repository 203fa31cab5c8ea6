/**
 * A check that judges a merchant's balance holds it while it does (INTERFACE.md › Payout errors 5004 insufficientFunds,
 * Refund errors "Merchant balance does not cover the refund and its fee"): between establishing the balance and reading
 * the answer that depends on it, nothing else may move it — no other check's payout, refund or payment of that merchant
 * (a payment may credit it: profile `balances.paymentsCredit`).
 *
 * What it must become: the run-wide request pool's exclusive section (harness/run/pool.ts) over every request that can
 * move that merchant's balances — its payouts, refunds and payments, from every worker, the doctor included — held from
 * the first request of `fn` to its last answer. Until the pool offers it, this serialises the balance checks of one
 * worker among themselves per target and merchant, and the checks make their amounts robust to what the section does
 * not yet exclude: a balance the profile says moves is never judged as a constant (harness/fees.ts `balanceMoves`), and
 * every other check's payout of that merchant is given back before its check ends.
 */
import type { MerchantRole, Target } from './target.js';

const held = new Map<string, Promise<unknown>>();

/** Runs `fn` while no other balance check of this worker holds `merchant`'s balances on this target. */
export async function withBalanceHeld<T>(t: Target, merchant: MerchantRole, fn: () => Promise<T>): Promise<T> {
  const key = `${t.baseUrl}\u0000${merchant}`;
  const before = held.get(key) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(fn);
  const tail = mine.catch(() => undefined);
  held.set(key, tail);
  try {
    return await mine;
  } finally {
    if (held.get(key) === tail) held.delete(key);
  }
}
