/**
 * The legal-target properties (no false verdict, doctor 0 false WRONG) on the money genomes: the fixed one of
 * properties.ts (payments credit the balances, fees on payments, refunds and payouts, a EUR range of its own), and a
 * few drawn with money genes, each with its true profile. A failure prints the genome.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { targetGenome, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { loadSuites } from '../../harness/run/suites.js';
import { doctorWrong, falseVerdicts, FIXED_GENOMES, runSeed } from './properties.js';

const SEED = runSeed();
const MONEY = FIXED_GENOMES.filter((f) => f.genome.target?.money?.paymentsCredit.length);
/** Drawn genomes (every drawn target has money genes: fees, credits, EUR ranges, each possibly none). */
const DRAWN: TargetGenome[] = fc.sample(targetGenome(), { seed: SEED, numRuns: Number(process.env['LEGAL_TARGETS_RUNS'] ?? 2) });
let suites: SuiteDef[];

beforeAll(async () => {
  suites = await loadSuites();
  console.log(`money genomes: seed ${SEED} (replay: LEGAL_TARGETS_SEED=${SEED})`);
});

describe('legal targets with fees and moving balances', () => {
  it('has a fixed genome whose payments credit the balances', () => {
    expect(MONEY.length).toBeGreaterThan(0);
  });
  for (const [i, g] of [...MONEY.map((f) => f.genome), ...DRAWN].entries()) {
    it(`money genome ${i}: no false verdict, and the doctor calls nothing WRONG`, async () => {
      const wrong = await doctorWrong(g);
      expect(wrong.wrong, JSON.stringify(g)).toEqual([]);
      const run = await falseVerdicts(g, suites, SEED, 5);
      expect(run.failed, JSON.stringify(g)).toEqual([]);
    }, 600_000);
  }
});
