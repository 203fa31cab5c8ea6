/**
 * A target whose merchants have payout facts of their own (profile version 5, `merchants.<role>.facts`): BANK_TRANSFER
 * takes EUR only for the second and low-balance merchants and USD and EUR for the primary, PAYPAL has another minimum
 * for the low-balance merchant, and BANK_TRANSFER's fee has a minimum. Found on a service written apart from the kit:
 * `err.po.insufficient-funds` drew a USD payout of the EUR-only method for the low-balance merchant and judged the legal
 * 5008 a deviation. With the true profile the payout checks pass and the doctor calls nothing WRONG; the faults of
 * these facts are each killed by a check of their own clause.
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
import { loadTrueProfile } from './genome.js';

/** The primary takes USD and EUR by BANK_TRANSFER; the two other active merchants EUR only; PAYPAL from 2.00 for lowBalance. */
const EUR_ONLY_FOR_TWO: TargetGenome = {
  readings: [],
  target: {
    ...REFERENCE_GENES,
    lowBalance: { ...REFERENCE_GENES.lowBalance, payoutMethods: ['BANK_TRANSFER', 'PAYPAL'] },
    merchantPayouts: {
      second: { BANK_TRANSFER: { currencies: ['EUR'] } },
      lowBalance: { BANK_TRANSFER: { currencies: ['EUR'] }, PAYPAL: { minCents: 200 } },
    },
  },
};

const PAYOUT_SUITES = ['payout-errors', 'payouts', 'stateful', 'idempotency'];
let suites: SuiteDef[];

beforeAll(async () => {
  suites = (await loadSuites()).filter((s) => PAYOUT_SUITES.includes(s.name));
  expect(suites.map((s) => s.name).sort()).toEqual([...PAYOUT_SUITES].sort());
});

describe('a payout method that takes EUR only for two merchants', () => {
  const loaded = loadTrueProfile(EUR_ONLY_FOR_TWO);

  it('says each merchant its own currencies and ranges in the true profile', () => {
    const p = loaded.profile;
    expect(p.profileVersion).toBe(5);
    expect(factsOf(p, 'primary').takesCurrency('BANK_TRANSFER', 'USD')).toBe(true);
    expect(factsOf(p, 'lowBalance').takesCurrency('BANK_TRANSFER', 'USD')).toBe(false);
    expect(factsOf(p, 'second').payoutCurrencies('BANK_TRANSFER')).toEqual(['EUR']);
    expect(factsOf(p, 'lowBalance').payoutLimits('PAYPAL')?.min).toBe('2.00');
    expect(factsOf(p, 'primary').payoutLimits('PAYPAL')?.min).toBe('1.00');
    // A fact said only for another merchant is not this one's.
    expect(factsOf(p, 'second').payoutLimits('PAYPAL')?.min).toBe('1.00');
  });

  it('passes the payout checks (CONFORMANT): the low-balance merchant is never asked a USD payout of its EUR-only method', async () => {
    const run = await conformantRun(loaded, suites, 7, 5, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.inconclusive).toEqual([]);
    // The checks of another merchant's own facts ran, and err.po.insufficient-funds judged the low-balance merchant.
    const ran = Object.values(run.exercised ?? {}).flat();
    for (const title of [
      'refuses-a-payout-outside-another-merchant-s-own-range-of-the-method',
      'refuses-a-payout-in-a-currency-another-merchant-s-method-does-not-take-for-it',
      'refuses-a-payout-above-the-merchant-payout-balance-with-5004-insufficientfunds',
    ])
      expect(ran.some((id) => id.includes(title))).toBe(true);
  }, 300_000);

  it("runs the doctor on each merchant's own facts: nothing WRONG, the EUR-only method paid out in EUR", async () => {
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
      expect(report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered}`)).toEqual([]);
      const low = report.items.find((i) => i.path === 'merchants.lowBalance.payoutMethods[0]');
      expect(low?.assumption).toContain('BANK_TRANSFER payouts are enabled for lowBalance');
      expect(low?.assumption).toContain('EUR');
      expect(low?.status).toBe('verified');
      // The low-balance merchant's own PAYPAL minimum is the one it is paid out at.
      const paypal = report.items.find((i) => i.path === 'merchants.lowBalance.payoutMethods[1]');
      expect(paypal?.assumption).toContain('(2.00 USD)');
    } finally {
      await ref.close();
    }
  }, 300_000);

  it("kills each fault of a merchant's own facts by a check of its clause", async () => {
    const names = ['merchant-payout-range-of-primary', 'payout-balance-usd-only', 'payout-fee-minimum-ignored'];
    const faults = faultCatalogue.filter((f) => names.includes(f.name));
    expect(faults.map((f) => f.name).sort()).toEqual([...names].sort());
    const rows = await runKillMatrix({ loaded, suites, seed: 1, numRuns: 5, faults, parallel: 2 });
    expect(rows.map((r) => `${r.name}: ${r.verdict}${r.errors.length > 0 ? ` ${r.errors.join('; ')}` : ''}`)).toEqual(
      faults.map((f) => `${f.name}: killed`),
    );
  }, 300_000);
});
