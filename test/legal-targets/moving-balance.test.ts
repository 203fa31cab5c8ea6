/**
 * err.po.insufficient-funds where successful payments credit the USD payout balance (balances.paymentsCredit): the check
 * finds the balance from the target (suites/support/moving-balance.ts) rather than skip or judge the declared balance
 * as a constant. On the reference it ends on a 5004 refusal; on a target that never checks the balance it skips, naming
 * the risen balance, and never passes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';
import { ladder } from '../../suites/support/moving-balance.js';
import { loadTrueProfile } from './genome.js';

const MOVING: TargetGenome = {
  readings: [],
  target: { ...REFERENCE_GENES, money: { ...REFERENCE_GENES.money!, paymentsCredit: ['payout'] } },
};
const CHECK = 'payout-errors/refuses-a-payout-above-the-merchant-payout-balance-with-5004-insufficientfunds';

let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

async function runCheck(faults: string[] = []) {
  const loaded = loadTrueProfile(MOVING);
  const ref = await startEmbeddedReference(loaded.profile, faults);
  try {
    const [r] = await runInProcess({
      loaded,
      baseUrl: ref.url,
      suites,
      settings: { seed: 35, numRuns: 3, webhooks: 'off' },
      filter: (s, c) => `${s.name}/${c.id}` === CHECK || c.id === CHECK,
    });
    return r!.result;
  } finally {
    await ref.close();
  }
}

describe('the insufficient-funds check on a USD payout balance that payments credit', () => {
  it('climbs from a cent above the declared balance, doubling, to the method maximum, inside its channels', () => {
    expect(ladder('2.01', { min: '0.05', max: '20.00' })).toEqual(['2.01', '4.02', '8.04', '16.08', '20.00']);
    expect(ladder('5.00', { min: '0.05', max: '5.00' })).toEqual(['5.00']);
    // A fee larger than the balance: the first amount above it is a cent, below the method's minimum.
    expect(ladder('0.01', { min: '0.05', max: '0.30' })).toEqual(['0.05', '0.10', '0.20', '0.30']);
    // A gap between channels: an amount in it moves up to the next channel.
    const gapped = {
      min: '1.00',
      max: '100.00',
      channels: [
        { min: '1.00', max: '3.00' },
        { min: '50.00', max: '100.00' },
      ],
    };
    expect(ladder('2.00', gapped)).toEqual(['2.00', '50.00', '100.00']);
  });

  it('runs on the reference and ends on the first refusal, 5004 insufficientFunds', async () => {
    const r = await runCheck();
    expect(r.checkId).toBe(CHECK);
    expect(r.status, r.reason).toBe('passed');
  }, 120_000);

  it('skips, naming the risen balance, on a target that never refuses for funds: it never passes', async () => {
    const r = await runCheck(['payout-insufficient-funds-ignored']);
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/has risen beyond what the method reaches/);
  }, 120_000);
});
