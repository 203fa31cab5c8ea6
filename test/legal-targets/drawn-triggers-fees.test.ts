/**
 * Genome 5's magic-value triggers and fee terms: targets whose sandbox fails requests by values the kit could draw by
 * chance (a refund amount ending in .91, the amount 13.13, a one-letter order-number prefix), with or without the switch,
 * and whose fees have a minimum, a cap, or are a merchant's own. With the true profile each is CONFORMANT and the doctor
 * calls nothing WRONG: every value the kit draws avoids the declared magic ones, and every balance edge counts the fee
 * the merchant pays.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome, targetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { feeModelOf } from '../../harness/facts/fees.js';
import { runKillMatrix } from '../../harness/proof/kill-matrix.js';
import { conformantRun } from '../../harness/proof/run.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue } from '../../reference/index.js';
import { loadTrueProfile } from './genome.js';

/** The reference's accounts, its sandbox failing by magic values only (no switch said), fees with bounds and of a merchant's own. */
const MAGIC_AND_BOUNDS: TargetGenome = {
  readings: [],
  target: {
    ...REFERENCE_GENES,
    triggers: {
      ways: {
        queryFailed: [{ way: 'numberPrefix', number: 'merchantOrderNo', value: 'K', count: 1 }],
        orderCreationFailed: [{ way: 'amount', value: '13.13' }],
        refundSystemBusy: [{ way: 'reason', value: 'sandbox:busy' }],
        refundFailed: [{ way: 'amountEnding', value: '.91' }],
      },
      declareSwitch: false,
    },
    money: {
      ...REFERENCE_GENES.money!,
      payoutFees: { BANK_TRANSFER: { fixedCents: 25, percentMillionths: 5_000, minCents: 50, maxCents: 900 } },
      refundFee: { fixedCents: 10, percentMillionths: 29_000, minCents: 20, maxCents: 40 },
    },
    // The second merchant's own payout fee is the reference's (at least 15.00); the low-balance merchant's own refund fee
    // and a payout fee whose cap binds at both its balances (its balances' edges stay where every merchant's fee puts them:
    // the doctor's USD probes cannot tell them apart, the EUR payout within the balance can).
    merchantFees: {
      second: REFERENCE_GENES.merchantFees!.second!,
      lowBalance: {
        refunds: { fixedCents: 45, percentMillionths: 0 },
        payouts: { BANK_TRANSFER: { fixedCents: 25, percentMillionths: 120_000, maxCents: 50 } },
      },
    },
  },
};

const FIVE = ['err.pay.query-failed', 'query.transient', 'err.pay.creation-failed', 'err.ref.system-busy', 'err.ref.failed'];

let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

async function doctorWrong(g: TargetGenome): Promise<{ wrong: string[]; triggers: string[] }> {
  const loaded = loadTrueProfile(g);
  const ref = await startEmbeddedReference(loaded.profile);
  try {
    const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
    return {
      wrong: report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered ?? ''}`),
      triggers: report.items.filter((i) => i.path.startsWith('sandbox.triggers')).map((i) => `${i.path}: ${i.status}`),
    };
  } finally {
    await ref.close();
  }
}

describe('a target failing by magic values the kit could draw, with bounded and own fees', () => {
  const loaded = loadTrueProfile(MAGIC_AND_BOUNDS);

  it('says the ways, the bounds and the own fees in the true profile, and no switch', () => {
    const p = loaded.profile;
    expect(p.profileVersion).toBe(5);
    expect(p.sandbox?.armFailure).toBeUndefined();
    expect(p.sandbox?.triggers?.refundFailed).toEqual([{ way: 'amountEnding', value: '.91' }]);
    expect(p.sandbox?.triggers?.queryFailed).toEqual([{ way: 'numberPrefix', number: 'merchantOrderNo', value: 'K', count: 1 }]);
    expect(p.fees?.refunds?.['*']).toMatchObject({ min: '0.20', max: '0.40' });
    expect(p.fees?.payouts?.['BANK_TRANSFER']).toMatchObject({ min: '0.50', max: '9.00' });
    // The merchant's own fee replaces the shared one whole: no minimum of the shared one rides along.
    expect(feeModelOf(p, 'payouts', 'BANK_TRANSFER', 'lowBalance')).toEqual({
      fixed: '0.25',
      percent: '12',
      rounding: 'halfUp',
      max: '0.50',
    });
    expect(feeModelOf(p, 'payouts', 'BANK_TRANSFER', 'second')).toEqual({ percent: '0.5', rounding: 'halfUp', min: '15.00' });
    expect(feeModelOf(p, 'refunds', 'CARD', 'lowBalance')).toEqual({ fixed: '0.45', rounding: 'halfUp' });
    expect(feeModelOf(p, 'refunds', 'CARD', 'second')).toMatchObject({ min: '0.20', max: '0.40' });
  });

  it('the doctor verifies each way and calls nothing WRONG', async () => {
    const d = await doctorWrong(MAGIC_AND_BOUNDS);
    expect(d.wrong).toEqual([]);
    expect(d.triggers.sort()).toEqual([
      'sandbox.triggers.orderCreationFailed[0]: verified',
      'sandbox.triggers.queryFailed[0]: verified',
      'sandbox.triggers.refundFailed[0]: verified',
      'sandbox.triggers.refundSystemBusy[0]: verified',
    ]);
  }, 300_000);

  it('is CONFORMANT: the five clauses run by the magic values, every drawn amount and number avoids them', async () => {
    const run = await conformantRun(loaded, suites, 11, 5, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.inconclusive).toEqual([]);
    const proved = new Set(Object.keys(run.exercised ?? {}));
    expect(FIVE.filter((c) => !proved.has(c))).toEqual([]);
  }, 600_000);

  it('kills each magic-value fault (the .91 ending ignored among them) and each fee fault by a check of its own clause', async () => {
    const names = [
      ...faultCatalogue.filter((f) => f.name.startsWith('magic-')).map((f) => f.name),
      'payout-fee-cap-ignored',
      'merchant-payout-fee-ignored',
    ];
    const faults = faultCatalogue.filter((f) => names.includes(f.name));
    expect(faults).toHaveLength(7);
    const rows = await runKillMatrix({ loaded, suites, seed: 1, numRuns: 3, faults, parallel: 2 });
    expect(rows.map((r) => `${r.name}: ${r.verdict}${r.errors.length > 0 ? ` ${r.errors.join('; ')}` : ''}`)).toEqual(
      faults.map((f) => `${f.name}: killed`),
    );
  }, 900_000);
});

/**
 * Found by the sweep (bench/legal-targets.ts --seed 7707): a query failing for amounts ending in .37 met the doctor's own
 * "uneven" checkout (10.00 + 0.37), and the doctor called checkout.data.orderNo WRONG. Its amounts avoid the magic ones.
 */
describe("the doctor's own amounts avoid a declared ending", () => {
  it('calls nothing WRONG where queries of amounts ending in .37 fail', async () => {
    const g: TargetGenome = {
      readings: [],
      target: {
        ...REFERENCE_GENES,
        triggers: { ways: { queryFailed: [{ way: 'amountEnding', value: '.37', count: 2 }] }, declareSwitch: true },
      },
    };
    const d = await doctorWrong(g);
    expect(d.wrong).toEqual([]);
    expect(d.triggers).toEqual(['sandbox.triggers.queryFailed[0]: verified']);
  }, 300_000);
});

/**
 * Found by the combined sweep (bench/legal-targets.ts --seed 50001 and 50002, every open-world gene at once): a target
 * failing orders whose amount ends in .13 with a channel bound at 406.13 (the bound was probed as any other); queries
 * failing for order numbers starting "K" or ending "1" (every lead's first number ended "1", so the kit kept the magic
 * "K" and stepped its counter a million times per number); a required metadata under a metadata limit of 8.
 */
describe('a target whose magic values meet the kit’s bounds, prefix and counter, with a short required metadata', () => {
  const g: TargetGenome = {
    readings: [],
    target: {
      ...REFERENCE_GENES,
      channels: {
        ...REFERENCE_GENES.channels,
        CASH_APP: [
          { minCents: 100, maxCents: 5_334 },
          { minCents: 40_613, maxCents: 40_623 },
        ],
      },
      triggers: {
        ways: {
          orderCreationFailed: [{ way: 'amountEnding', value: '.13', count: 1 }],
          queryFailed: [
            { way: 'numberPrefix', number: 'merchantOrderNo', value: 'K', count: 2 },
            { way: 'numberSuffix', number: 'merchantOrderNo', value: '1' },
          ],
        },
        declareSwitch: true,
      },
      requiredFields: { every: ['metadata'], byMethod: {} },
      lengths: { maxLength: { metadata: 8, merchantOrderNo: 20 } },
    },
  };

  it('is CONFORMANT with the true profile, and the doctor calls nothing WRONG', async () => {
    expect((await doctorWrong(g)).wrong).toEqual([]);
    const run = await conformantRun(loadTrueProfile(g), suites, 5, 3, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.inconclusive).toEqual([]);
  }, 900_000);
});

/** Drawn genomes with triggers and fee bounds or own fees (genome 5), each judged whole. */
describe('drawn genomes with magic-value triggers and fee terms', () => {
  const drawn = fc
    .sample(targetGenome(), { seed: 5_505, numRuns: 400 })
    .filter((g) => {
      const t = g.target!;
      const bounded = [t.money?.paymentFee, t.money?.refundFee, ...Object.values(t.money?.payoutFees ?? {})].some(
        (f) => f?.minCents !== undefined || f?.maxCents !== undefined,
      );
      return Object.keys(t.triggers?.ways ?? {}).length >= 2 && (bounded || t.merchantFees !== undefined);
    })
    .slice(0, 2);

  it('draws some', () => {
    expect(drawn).toHaveLength(2);
  });

  for (const [i, g] of drawn.entries())
    it(`genome ${i}: the doctor calls nothing WRONG and the run is CONFORMANT`, async () => {
      expect((await doctorWrong(g)).wrong).toEqual([]);
      const run = await conformantRun(loadTrueProfile(g), suites, 3, 3, 'quick');
      expect(run.failed).toEqual([]);
      expect(run.inconclusive).toEqual([]);
    }, 900_000);
});
