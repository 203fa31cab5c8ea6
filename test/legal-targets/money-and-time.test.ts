/**
 * The money and time terms a vendor keeps (genome 5, profile version 5): proceeds that wait as a pending balance
 * (balances.proceeds: a delay, or until released), what a chargeback takes (balances.chargeback), and payouts, refunds
 * and checkouts that end by themselves (sandbox.autoSettle). Drawn targets with these genes are judged CONFORMANT with
 * their true profile and the doctor calls nothing WRONG; the fault "pending proceeds paid out early" is killed by a check
 * of its own clause, on the reference's own pending proceeds and on a genome's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { runKillMatrix } from '../../harness/proof/kill-matrix.js';
import { conformantRun } from '../../harness/proof/run.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue } from '../../reference/index.js';
import { loadTrueProfile } from './genome.js';
import { showing } from './kill-showable.js';

const MONEY = REFERENCE_GENES.money!;

/** Payments credit both balances after a delay; a chargeback takes its amount and 15.00 from the payout balance. */
const DELAYED_PROCEEDS: TargetGenome = {
  readings: [],
  target: {
    ...REFERENCE_GENES,
    money: { ...MONEY, paymentsCredit: ['payout', 'refund'] },
    moneyTerms: { proceedsAfter: 1_500, chargeback: { from: 'payout', feeCents: 1_500 } },
  },
};

/** Payments credit the payout balance once released (never here); a chargeback takes from the refund balance. */
const RELEASED_PROCEEDS: TargetGenome = {
  readings: [],
  target: {
    ...REFERENCE_GENES,
    money: { ...MONEY, paymentsCredit: ['payout'] },
    moneyTerms: { proceedsAfter: 'control', chargeback: { from: 'refund', feeCents: 0 } },
  },
};

/** Every record that may end by itself does so within a check's own requests. */
const ENDING_BY_THEMSELVES: TargetGenome = {
  readings: [],
  target: {
    ...REFERENCE_GENES,
    autoSettle: {
      payouts: { afterMs: 400, status: 'SUCCESS' },
      refunds: { afterMs: 400, status: 'SUCCESS' },
      checkouts: { afterMs: 1_500 },
    },
  },
};

const SUITES = ['payout-errors', 'payouts', 'refunds', 'refund-errors', 'stateful', 'checkout', 'webhook-no-event'];
let suites: SuiteDef[];

beforeAll(async () => {
  suites = (await loadSuites()).filter((s) => SUITES.includes(s.name));
  expect(suites.map((s) => s.name).sort()).toEqual([...SUITES].sort());
});

async function doctorWrong(g: TargetGenome): Promise<string[]> {
  const loaded = loadTrueProfile(g);
  const ref = await startEmbeddedReference(loaded.profile);
  try {
    const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
    return report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered}`);
  } finally {
    await ref.close();
  }
}

describe.each([
  ['proceeds that wait a delay, and a chargeback that takes from the payout balance', DELAYED_PROCEEDS],
  ['proceeds that wait until released, and a chargeback that takes from the refund balance', RELEASED_PROCEEDS],
  ['payouts, refunds and checkouts that end by themselves', ENDING_BY_THEMSELVES],
])('%s', (_, genome) => {
  const loaded = loadTrueProfile(genome);

  it('says it in a version-5 profile', () => {
    expect(loaded.profile.profileVersion).toBe(5);
    const p = loaded.profile;
    const said = [p.balances?.proceeds, p.balances?.chargeback, p.sandbox?.autoSettle].filter((x) => x !== undefined);
    expect(said.length).toBeGreaterThan(0);
  });

  it('is judged CONFORMANT with its true profile', async () => {
    const run = await conformantRun(loaded, suites, 11, 5, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.inconclusive).toEqual([]);
    expect(run.passed).toBeGreaterThan(40);
  }, 400_000);

  it('has nothing WRONG in the doctor', async () => {
    expect(await doctorWrong(genome)).toEqual([]);
  }, 300_000);
});

describe('pending proceeds paid out early', () => {
  it('are shown to the checks where proceeds stay pending until released, and not where they wait a delay', () => {
    expect(showing(RELEASED_PROCEEDS, 'pending-proceeds-paid-out-early')).toEqual({ show: true });
    expect(showing({ readings: [], target: REFERENCE_GENES }, 'pending-proceeds-paid-out-early')).toEqual({ show: true });
    expect(showing(DELAYED_PROCEEDS, 'pending-proceeds-paid-out-early')).toMatchObject({ show: false, kind: 'check-blind' });
  });

  it('is killed by err.po.insufficient-funds on the reference\'s own pending proceeds and on a genome that says "control"', async () => {
    const faults = faultCatalogue.filter((f) => f.name === 'pending-proceeds-paid-out-early');
    const released: TargetGenome = {
      readings: [],
      target: { ...REFERENCE_GENES, money: { ...MONEY, paymentsCredit: ['payout'] }, moneyTerms: { proceedsAfter: 'control' } },
    };
    for (const g of [{ readings: [] }, released] as TargetGenome[]) {
      const rows = await runKillMatrix({ loaded: loadTrueProfile(g), suites, seed: 1, numRuns: 5, faults, parallel: 1 });
      expect(rows.map((r) => `${r.name}: ${r.verdict} by ${r.killedBy.join(', ')}`)).toEqual([
        expect.stringMatching(
          /^pending-proceeds-paid-out-early: killed by payout-errors\/refuses-a-payout-above-the-merchant-payout-balance/,
        ),
      ]);
    }
  }, 400_000);
});
