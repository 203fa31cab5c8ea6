/**
 * The kit's properties over one generated target, without vitest: the checks through `runCheck`
 * (harness/proof/run.ts, as the kill matrix runs them) and the doctor in process. Shared by
 * test/legal-targets/properties.test.ts and bench/legal-targets.ts.
 */
import type fc from 'fast-check';
import { NOT_DRAWN, READING_NAMES, REFERENCE_GENES, type TargetGenes, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { conformantRun } from '../../harness/proof/run.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadTrueProfile } from './genome.js';

/** Readings the alt set leaves out (reference/readings/index.ts BY_NAME_ONLY, restated: reference stays out of fixtures). */
const ALT_LEFT_OUT: ReadonlySet<string> = new Set(['extra-money-fields', 'payout-amount-field']);

/** The reference's accounts and channels with some changed (the low-balance merchant keeps only methods still enabled). */
function genes(over: Partial<TargetGenes>): TargetGenes {
  const g = { ...REFERENCE_GENES, ...over };
  const enabled: readonly string[] = ['CARD', ...g.methods];
  return { ...g, lowBalance: { ...g.lowBalance, paymentMethods: g.lowBalance.paymentMethods.filter((m) => enabled.includes(m)) } };
}

/**
 * Fixed genomes every run includes: the reference's own configuration, the alt one, and the findings where the reference can
 * express them.
 */
export const FIXED_GENOMES: readonly { why: string; genome: TargetGenome }[] = [
  { why: "the reference's own configuration", genome: { readings: [] } },
  { why: 'the alt set (fixtures/profiles/reference-alt.json)', genome: { readings: READING_NAMES.filter((n) => !ALT_LEFT_OUT.has(n)) } },
  { why: 'every drawn reading at once', genome: { readings: READING_NAMES.filter((n) => !NOT_DRAWN.has(n)) } },
  // The payment record carries another money field, `refunded_amount` (init took it for the amount charged).
  { why: 'an extra money field refunded_amount in the payment record', genome: { readings: ['extra-money-fields'] } },
  // The payout amount field named otherwise (`amount`), in requests and in the record, on the default paths.
  {
    why: 'the payout amount field named otherwise',
    genome: { readings: ['other-record-field-names', 'other-request-field-names'] },
  },
  // Price points: Google Pay's own tiers under rounding up (the unroundable amounts move above 100.00).
  { why: 'per-method tiers, rounding up', genome: { readings: ['google-pay-own-tiers'] } },
  // Found by the wider genomes: webhook-body took the shared tiers for a method with its own (its only price-point method here).
  {
    why: 'the only price-point method charges its own tiers',
    genome: { readings: ['google-pay-own-tiers', 'price-point-nearest-within'], target: genes({ methods: ['CASH_APP', 'GOOGLE_PAY'] }) },
  },
  {
    why: 'accounts and channels the reference fixtures do not have',
    genome: {
      readings: ['refund-number-free-of-payments'],
      target: genes({
        methods: ['PAYPAL', 'APPLE_PAY'],
        channels: {
          CARD: [
            { minCents: 50, maxCents: 500_000 },
            { minCents: 10_000, maxCents: 2_000_000 },
          ],
          PAYPAL: [
            { minCents: 300, maxCents: 9_000 },
            { minCents: 20_000, maxCents: 80_000 },
          ],
          CASH_APP: REFERENCE_GENES.channels.CASH_APP,
        },
        refunds: {
          CARD: { support: 'full-only', createdSuccess: true },
          PAYPAL: { support: 'none', createdSuccess: false },
          CASH_APP: { support: 'partial', createdSuccess: true },
        },
        payouts: {
          BANK_TRANSFER: { minCents: 1, maxCents: 300_000, usdOnly: true, cancelable: false },
          PAYPAL: { minCents: 50, maxCents: 2_000_000, usdOnly: false, cancelable: true },
        },
        lowBalance: { usdCents: 201, eurCents: 0, refundCoverCents: 50, paymentMethods: ['APPLE_PAY', 'CARD'], payoutMethods: ['PAYPAL'] },
        secondOnly: 'KLARNA',
        // The doctor called the no-channel method in a merchant's method list WRONG (it is enabled, channels down).
        noChannelListed: true,
        declineCards: ['4000000000000069', '4000000000000341'],
        primaryName: 'Kettle & Co',
        primaryLogin: 'kettle.ops',
        // Whole-dollar tiers, a second merchant whose balance a payout can exceed, ids and keys of
        // another shape, a PayPal payee that needs a name, and a retry schedule of the target's own.
        tiersCents: { APPLE_PAY: [100, 300, 1_000, 5_000], GOOGLE_PAY: [99, 199, 499] },
        secondBalance: { usdCents: 12_345, eurCents: 6_789 },
        frozenBalance: { usdCents: 1_000, eurCents: 0 },
        keys: {
          primary: { id: 'MCH10001', secret: 'sk_test_0a1b2c3d4e5f60718293a4b5', productionSecret: 'live_5b4a3928170f6e5d4c3b2a10' },
          second: { id: 'MCH10008', secret: 'sk_test_1f2e3d4c5b6a79881726354a', productionSecret: 'live_a4536271889a6b5c4d3e2f10' },
          lowBalance: { id: 'MCH10015', secret: 'sk_test_2c3d4e5f60718293a4b5c6d7' },
          frozen: { id: 'MCH10022', secret: 'sk_test_3d4e5f60718293a4b5c6d7e8' },
        },
        payeeFields: { BANK_TRANSFER: ['account'], PAYPAL: ['email', 'name'] },
        retryWaitsMs: [14_000, 50_000, 200_000, 400_000, 700_000, 1_000_000, 1_200_000, 2_100_000],
      }),
    },
  },
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
export async function falseVerdicts(
  g: TargetGenome,
  suites: SuiteDef[],
  seed: number,
  numRuns: number,
): Promise<{ failed: string[]; passed: number; skipped: number }> {
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
  return {
    seed,
    numRuns: FIXED_GENOMES.length + random,
    examples: FIXED_GENOMES.map((f) => [f.genome] as [TargetGenome]),
    endOnFailure: false,
  };
}
