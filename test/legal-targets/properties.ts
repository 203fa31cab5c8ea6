/**
 * The kit's properties over one generated target, without vitest: the checks through `runCheck`
 * (harness/proof/run.ts, as the kill matrix runs them) and the doctor in process. Shared by
 * test/legal-targets/properties.test.ts and bench/legal-targets.ts.
 */
import type fc from 'fast-check';
import type { TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { conformantRun } from '../../harness/proof/run.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadTrueProfile } from './genome.js';

/** Fixed genomes every run includes: the reference's own configuration, the alt one, and the findings where the reference can express them. */
export const FIXED_GENOMES: readonly { why: string; genome: TargetGenome }[] = [
  { why: "the reference's own configuration", genome: { readings: [] } },
  {
    why: 'every reading at once (fixtures/profiles/reference-alt.json)',
    genome: {
      readings: [
        'foreign-merchant-order-no-denied', 'non-utc-offset-times', 'other-record-field-names', 'refund-webhook-own-metadata',
        'refunds-created-pending', 'unnamed-payment-statuses', 'uuid-service-numbers', 'content-type-unauthorized',
        'empty-lookup-counts-as-sent', 'invalid-json-unreadable', 'other-endpoint-paths', 'other-internal-field-names',
        'other-request-field-names', 'plain-english-anywhere-in-list', 'payout-cancel-status-first', 'payout-currency-not-supported',
        'payout-duplicate-shared-key', 'refund-number-free-of-payments', 'unknown-payout-method-3003', 'unroundable-amount-out-of-range',
        'bad-timestamp-unauthorized', 'nonce-reuse-allowed', 'google-pay-own-tiers', 'price-point-nearest-within', 'retry-waits-other',
      ],
    },
  },
  // Issue 24: the payout amount field named otherwise (`amount`), in requests and in the record, on the default paths.
  { why: 'the payout amount field named otherwise (issue 24)', genome: { readings: ['other-record-field-names', 'other-request-field-names'] } },
  // Price points: Google Pay's own tiers under rounding up (the unroundable amounts move above 100.00).
  { why: 'per-method tiers, rounding up', genome: { readings: ['google-pay-own-tiers'] } },
];

/** The seed of a run: LEGAL_TARGETS_SEED replays one, otherwise a fresh one (printed by the caller). */
export function runSeed(env: NodeJS.ProcessEnv = process.env): number {
  const s = env['LEGAL_TARGETS_SEED'];
  if (s === undefined || s === '') return Math.floor(Math.random() * 0x7fffffff);
  const n = Number(s);
  if (!Number.isInteger(n)) throw new Error(`LEGAL_TARGETS_SEED must be an integer, got ${JSON.stringify(s)}`);
  return n;
}

/** Checks that failed (or broke) on a conformant target with its true profile: every one is a false verdict. */
export async function falseVerdicts(g: TargetGenome, suites: SuiteDef[], seed: number, numRuns: number): Promise<{ failed: string[]; passed: number; skipped: number }> {
  const run = await conformantRun(loadTrueProfile(g), suites, seed, numRuns, 'quick');
  return { failed: run.failed, passed: run.passed, skipped: run.skipped };
}

/** Items the doctor calls WRONG in a true profile: every one is a false verdict of the doctor. */
export async function doctorWrong(g: TargetGenome, target: TargetGenome = g): Promise<{ wrong: string[]; verified: number }> {
  // The target built from `target` (the genome itself unless a test wants a profile that lies), on port 0.
  const ref = await startEmbeddedReference(loadTrueProfile(target).profile);
  try {
    const report = await runDoctor({ loaded: loadTrueProfile(g), baseUrl: ref.url, webhooks: false });
    return {
      wrong: report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered ?? i.assumption}`),
      verified: report.items.filter((i) => i.status === 'verified').length,
    };
  } finally {
    await ref.close();
  }
}

/** fast-check's settings for a property over genomes: the fixed ones as examples, then `random` generated ones. */
export function genomeRunSettings(seed: number, random: number): fc.Parameters<[TargetGenome]> {
  // fast-check counts the examples among numRuns.
  return { seed, numRuns: FIXED_GENOMES.length + random, examples: FIXED_GENOMES.map((f) => [f.genome] as [TargetGenome]), endOnFailure: false };
}
