/**
 * The doctor spends its budget breadth first (harness/doctor/budget.ts): a profile listing 102 price points against a
 * target that has them once spent all 400 requests on two per tier, and refunds, five of six sandbox controls and the
 * webhooks were never verified. Now a long list is sampled (its ends, its middle, a seeded spread), the rest said as
 * not verifiable, and every kind of fact is verified within the budget; under a tight budget, the depth of one kind
 * is what goes unasked, never another kind's first probe.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { BREADTH, FIRST_PROBE, sampleOf } from '../../harness/doctor/budget.js';
import type { DoctorReport } from '../../harness/doctor/model.js';
import { type RunningReference, startReference } from '../../reference/index.js';
import { longListProfile, longListTarget } from './long-list.js';

/** One fact of each kind the reference profile states: a verified item must name each (a prefix of its path). */
const KINDS = [
  'merchants.primary',
  'methods.checkout',
  'limits.payments.CASH_APP',
  'pricePoints.tiers',
  'pricePoints.rounding',
  'checkout.data',
  'paymentRecord',
  'cardPayment.cards',
  'refunds.queryBy',
  'refunds.support',
  'payouts.methods.BANK_TRANSFER',
  'payouts.methods.PAYPAL',
  'sandbox.completeCheckout',
  'sandbox.expireCheckout',
  'sandbox.chargeback',
  'sandbox.settleRefund',
  'sandbox.settlePayout',
  'sandbox.completeCard',
  'sandbox.armFailure.failures.queryFailed',
  'sandbox.armFailure.failures.refundFailed',
  'webhooks.receiver',
  'internalFieldNames',
];

function verifiedKinds(r: DoctorReport): string[] {
  const verified = r.items.filter((i) => i.status === 'verified').map((i) => i.path);
  return KINDS.filter((k) => verified.some((p) => p === k || p.startsWith(`${k}.`) || p.startsWith(`${k}[`)));
}

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ target: longListTarget(), timeScale: 0.005 });
});
afterAll(async () => {
  await ref?.close();
});

describe('the doctor budget, breadth first', () => {
  it('samples a long list the same way for the same seed: both ends, the middle and a spread', () => {
    const a = sampleOf(102, 'pricePoints.tiers APPLE_PAY', 7);
    expect(a).toEqual(sampleOf(102, 'pricePoints.tiers APPLE_PAY', 7));
    expect(a).toHaveLength(9);
    expect(a).toEqual(expect.arrayContaining([0, 50, 101]));
    expect(new Set(a).size).toBe(9);
    expect(sampleOf(102, 'pricePoints.tiers APPLE_PAY', 8)).not.toEqual(a);
    expect(sampleOf(5, 'x', 1)).toEqual([0, 1, 2, 3, 4]);
  });

  it('verifies every kind of fact of a profile with a 102-tier price-point list within its 400 requests', async () => {
    const r = await runDoctor({ loaded: longListProfile(), baseUrl: ref.url, seed: 11, maxMs: 300_000 });
    expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    expect(r.requests).toBeLessThanOrEqual(400);
    expect(verifiedKinds(r)).toEqual(KINDS);
    // The tiers left out are said, with how the sample was drawn, and none is called verified.
    const rest = r.items.filter((i) => i.path === 'pricePoints.tiers' && i.status === 'not-verifiable');
    expect(rest.map((i) => i.assumption)).toEqual(['APPLE_PAY: the 93 tiers not probed', 'GOOGLE_PAY: the 93 tiers not probed']);
    expect(rest[0]!.answered).toMatch(/a list of 102 is probed by a sample of 9 .*seed 11/);
    const tiersVerified = r.items.filter((i) => i.status === 'verified' && /^pricePoints\.tiers\[\d+\]$/.test(i.path));
    expect(tiersVerified.length).toBe(18);
    expect(r.items.some((i) => i.path === 'top level')).toBe(false);
  }, 320_000);

  it('under a tight budget gives up a kind depth, never another kind first probe', async () => {
    const r = await runDoctor({ loaded: longListProfile(), baseUrl: ref.url, seed: 11, maxRequests: 150, maxMs: 300_000 });
    expect(r.requests).toBeLessThanOrEqual(150);
    expect(r.items.some((i) => i.path === 'top level')).toBe(false);
    expect(r.budget!.depthRefused).toBeGreaterThan(0);
    // What was refused is depth: some kind had its breadth and more, and the probes refused say why.
    expect(Object.values(r.budget!.byKind).some((n) => n >= BREADTH)).toBe(true);
    const refused = r.items.filter(
      (i) => i.status === 'not-verifiable' && /the doctor's budget \(150 requests\) keeps \d+ for \d+ other kind/.test(i.answered ?? ''),
    );
    expect(refused.length).toBeGreaterThan(0);
    // The kinds after the first stage were still asked, and left unspent what depth the first stage could not use.
    expect(r.budget!.byKind['pricePoints.APPLE_PAY']).toBeGreaterThanOrEqual(FIRST_PROBE);
    expect(r.budget!.byKind['pricePoints.APPLE_PAY']).toBeLessThanOrEqual(BREADTH);
    for (const k of ['sandbox.chargeback', 'sandbox.settleRefund', 'sandbox.settlePayout', 'refunds.queryBy', 'webhooks.receiver'])
      expect(verifiedKinds(r), k).toContain(k);
  }, 320_000);
});
