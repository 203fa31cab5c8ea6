/**
 * The fee genes (fixtures/arbitraries/genes/fees.ts) mapped: a merchant's own fees as the reference is given them
 * (`merchants[].paymentFees`, `refundFees`, `payoutFees`, reference/sandbox-data.ts) and as the true profile says them
 * (merchants.<role>.facts.fees, version 5). A fee's bounds ride on the drawn fees themselves (genome.ts `feeModel`).
 */
import type { FeeGene, MerchantRole } from '../../../fixtures/arbitraries/genome.js';
import type { MerchantFeesGene, OwnFeesGene } from '../../../fixtures/arbitraries/genes/fees.js';
import type { FeeModel, Profile } from '../../../harness/profile/types.js';
import type { TargetDescription } from '../../../reference/index.js';

type MerchantEntry = NonNullable<TargetDescription['merchants']>[number];

/** Every payment method a genome may enable: an own payment or refund fee is the merchant's on each. */
const PAID_METHODS = ['CARD', 'PAYPAL', 'CASH_APP', 'APPLE_PAY', 'GOOGLE_PAY', 'VENMO', 'KLARNA'];

const every = (f: FeeGene) => Object.fromEntries(PAID_METHODS.map((m) => [m, { ...f }]));

/** What the reference is given for a merchant's own fees. */
export function ownFeesDescription(
  g: MerchantFeesGene | undefined,
  role: MerchantRole,
): Pick<MerchantEntry, 'paymentFees' | 'refundFees' | 'payoutFees'> {
  const own: OwnFeesGene | undefined = role === 'second' || role === 'lowBalance' ? g?.[role] : undefined;
  if (!own) return {};
  const payouts = Object.entries(own.payouts ?? {});
  return {
    ...(own.payments ? { paymentFees: every(own.payments) } : {}),
    ...(own.refunds ? { refundFees: every(own.refunds) } : {}),
    ...(payouts.length > 0 ? { payoutFees: Object.fromEntries(payouts.map(([m, f]) => [m, { ...f! }])) } : {}),
  };
}

/** The true profile's facts of each merchant's own fees (merchants.<role>.facts.fees), beside its other own facts. */
export function editOwnFees(p: Profile, g: MerchantFeesGene | undefined, model: (f: FeeGene) => FeeModel): void {
  if (!g) return;
  for (const role of ['second', 'lowBalance'] as const) {
    const own = g[role];
    const ref = p.merchants[role];
    if (!own || !ref) continue;
    const payouts = Object.entries(own.payouts ?? {});
    const fees = {
      ...(own.payments ? { payments: { '*': model(own.payments) } } : {}),
      ...(own.refunds ? { refunds: { '*': model(own.refunds) } } : {}),
      ...(payouts.length > 0 ? { payouts: Object.fromEntries(payouts.map(([m, f]) => [m, model(f!)])) } : {}),
    };
    if (Object.keys(fees).length === 0) continue;
    ref.facts = { ...(ref.facts ?? {}), fees };
    p.profileVersion = 5;
  }
}
