/**
 * A target whose methods are its own (genome 5): names none of the reference knows (SEPA_DEBIT for Cash App, WALLET_PAY
 * for PayPal, WIRE for the bank transfer), metadata required by every checkout and return_url by SEPA_DEBIT's, APPLE_PAY
 * the method named not for payouts, and payment ranges of the second and low-balance merchants' own. With the true
 * profile the checks pass and the doctor calls nothing WRONG; the fault applying the primary's ranges to every merchant
 * is killed by a check of its clause.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { factsOf } from '../../harness/facts/index.js';
import { runKillMatrix } from '../../harness/proof/kill-matrix.js';
import { conformantRun } from '../../harness/proof/run.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue } from '../../reference/index.js';
import { parseProfile } from '../../harness/profile/load.js';
import { loadTrueProfile, trueProfile } from './genome.js';

const OWN_METHODS: TargetGenome = {
  readings: [],
  target: {
    ...REFERENCE_GENES,
    methodNames: { CASH_APP: 'SEPA_DEBIT', PAYPAL: 'WALLET_PAY', BANK_TRANSFER: 'WIRE' },
    requiredFields: { every: ['metadata'], byMethod: { CASH_APP: ['return_url'] } },
    notForPayouts: 'APPLE_PAY',
    merchantPayments: {
      second: { CARD: { minCents: 100, maxCents: 500_000 } },
      lowBalance: { PAYPAL: { minCents: 300, maxCents: 20_000 } },
    },
  },
};

const SUITES = ['amounts', 'payment-methods', 'checkout', 'payout-errors', 'payouts', 'refunds', 'naming'];
let suites: SuiteDef[];

beforeAll(async () => {
  suites = (await loadSuites()).filter((s) => SUITES.includes(s.name));
  expect(suites.map((s) => s.name).sort()).toEqual([...SUITES].sort());
});

describe('a target with method names, required fields and payment ranges of its own', () => {
  const loaded = loadTrueProfile(OWN_METHODS);

  it('says them in the true profile and gives them to the reference', () => {
    const p = loaded.profile;
    expect(p.profileVersion).toBe(5);
    expect(p.methods.checkout).toEqual(expect.arrayContaining(['WALLET_PAY', 'SEPA_DEBIT', 'CARD']));
    expect(Object.keys(p.payouts!.methods)).toEqual(['WIRE', 'WALLET_PAY']);
    expect(p.payouts!.notForPayouts).toBe('APPLE_PAY');
    expect(factsOf(p).extrasFor('SEPA_DEBIT')).toMatchObject({ metadata: expect.any(String), return_url: expect.any(String) });
    expect(factsOf(p).extrasFor('CARD')).not.toHaveProperty('return_url');
    expect(factsOf(p, 'lowBalance').paymentLimits('WALLET_PAY')).toEqual({ min: '3.00', max: '200.00' });
    expect(factsOf(p, 'primary').paymentLimits('WALLET_PAY')?.min).toBe('1.00');
    const target = p.embedded?.target as Record<string, unknown>;
    expect(target['otherMethodNames']).toEqual(['SEPA_DEBIT', 'WALLET_PAY', 'WIRE']);
    expect(JSON.stringify(target)).not.toMatch(/CASH_APP|PAYPAL|BANK_TRANSFER/);
  });

  it('passes the payment and payout checks (CONFORMANT), the own ranges judged as their merchants', async () => {
    const run = await conformantRun(loaded, suites, 7, 5, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.inconclusive).toEqual([]);
    const ran = Object.values(run.exercised ?? {}).flat();
    for (const title of ['keeps-to-a-merchant-s-own-channel-range', 'refuses-a-payout-with-a-payment-method-not-available-for-payouts'])
      expect(ran.some((id) => id.includes(title))).toBe(true);
  }, 600_000);

  it('runs the doctor on them: nothing WRONG', async () => {
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
      expect(report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered}`)).toEqual([]);
      expect(report.items.find((i) => i.path === 'payouts.notForPayouts')?.status).toBe('verified');
    } finally {
      await ref.close();
    }
  }, 300_000);

  it('calls WRONG the extras of a method whose required field the profile leaves out, and only them', async () => {
    const p = trueProfile(OWN_METHODS);
    delete p.checkout!.extrasByMethod!['SEPA_DEBIT'];
    const without = parseProfile(JSON.stringify(p), 'without-return-url.json');
    const ref = await startEmbeddedReference(without.profile);
    try {
      const report = await runDoctor({ loaded: without, baseUrl: ref.url, webhooks: false });
      const wrong = report.items.filter((i) => i.status === 'wrong');
      expect(wrong.map((i) => i.path)).toEqual(['checkout.extrasByMethod.SEPA_DEBIT']);
      expect(wrong[0]!.answered).toContain('accepted with return_url added');
      expect(report.items.find((i) => i.path === 'methods.checkout[1]')?.status).toBe('verified');
    } finally {
      await ref.close();
    }
  }, 300_000);

  it("kills the fault applying the primary's payment ranges to every merchant by a check of its clause", async () => {
    const faults = faultCatalogue.filter((f) => f.name === 'merchant-payment-range-of-primary');
    expect(faults).toHaveLength(1);
    const rows = await runKillMatrix({ loaded, suites, seed: 1, numRuns: 5, faults, parallel: 2 });
    expect(rows.map((r) => `${r.name}: ${r.verdict}${r.errors.length > 0 ? ` ${r.errors.join('; ')}` : ''}`)).toEqual([
      'merchant-payment-range-of-primary: killed',
    ]);
  }, 300_000);
});
