/**
 * The money and time genes (fixtures/arbitraries/genes/money-and-time.ts) as the reference is given them and as the true
 * profile says them: pending proceeds (`proceedsAfter` / balances.proceeds), a chargeback's debit (`chargebackDebit` /
 * balances.chargeback), records that end by themselves (`payoutsSettleAfter`, `refundsSettleAfter`,
 * `checkoutsExpireAfter` / sandbox.autoSettle). All version-5 fields.
 */
import type { TargetGenes } from '../../../fixtures/arbitraries/genome.js';
import { valueOfCents } from '../../../harness/facts/money.js';
import type { Profile } from '../../../harness/profile/types.js';
import type { TargetDescription } from '../../../reference/index.js';

type Described = Pick<
  TargetDescription,
  'proceedsAfter' | 'chargebackDebit' | 'payoutsSettleAfter' | 'refundsSettleAfter' | 'checkoutsExpireAfter'
>;

/** Proceeds wait only where payments credit a balance (the money gene's `paymentsCredit`). */
function pendingProceeds(t: TargetGenes): number | 'control' | undefined {
  return (t.money?.paymentsCredit.length ?? 0) > 0 ? t.moneyTerms?.proceedsAfter : undefined;
}

export function moneyAndTimeDescription(t: TargetGenes): Described {
  const proceeds = pendingProceeds(t);
  const cb = t.moneyTerms?.chargeback;
  const auto = t.autoSettle;
  return {
    ...(proceeds !== undefined ? { proceedsAfter: proceeds } : {}),
    ...(cb ? { chargebackDebit: { from: cb.from, ...(cb.feeCents > 0 ? { fee: { fixedCents: cb.feeCents } } : {}) } } : {}),
    ...(auto?.payouts ? { payoutsSettleAfter: { ...auto.payouts } } : {}),
    ...(auto?.refunds ? { refundsSettleAfter: { ...auto.refunds } } : {}),
    ...(auto?.checkouts ? { checkoutsExpireAfter: { ...auto.checkouts } } : {}),
  };
}

/** The true profile's words for them; a profile that says one is version 5. */
export function editMoneyAndTime(p: Profile, t: TargetGenes): void {
  const proceeds = pendingProceeds(t);
  const cb = t.moneyTerms?.chargeback;
  const auto = t.autoSettle;
  if (proceeds !== undefined) p.balances = { ...p.balances, proceeds: { after: proceeds } };
  // A target whose payments credit nothing at once is the reference's own: proceeds credit the payout balance once
  // released in the portal, which never happens (reference/README.md), and its true profile says so.
  const readmeProceeds = (t.money?.paymentsCredit.length ?? 0) === 0;
  if (readmeProceeds) p.balances = { paymentsCredit: ['payout'], proceeds: { after: 'control' }, ...p.balances };
  if (cb)
    p.balances = {
      ...p.balances,
      chargeback: { from: cb.from, ...(cb.feeCents > 0 ? { fee: { fixed: valueOfCents(cb.feeCents) } } : {}) },
    };
  if (auto)
    p.sandbox = {
      ...p.sandbox,
      autoSettle: {
        ...(auto.payouts ? { payouts: { ...auto.payouts } } : {}),
        ...(auto.refunds ? { refunds: { ...auto.refunds } } : {}),
        ...(auto.checkouts ? { checkouts: { ...auto.checkouts } } : {}),
      },
    };
  if (proceeds !== undefined || readmeProceeds || cb || auto) p.profileVersion = 5;
}
