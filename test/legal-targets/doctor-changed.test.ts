/**
 * The doctor on a true profile with one fact changed, over generated targets: a fact only the
 * profile can be wrong about (a path, a data path, an id, a balance, a merchant's methods, a payout method's currency
 * or cancel rule, a sandbox control) exits 2 with a WRONG item naming the field; a fact whose contrary answer the
 * document fixes (a narrower limit, a partial refund on a full-only method, a method not for payouts, a payout
 * declared not cancellable, a tier refused or charged as another amount) gives a doubt naming the field, exit 0, and
 * leaves the verdict to the checks. Fixed changes on the reference's genome, then LEGAL_TARGETS_DOCTOR_RUNS (default
 * 4) drawn (genome, change) pairs; the seed is printed, LEGAL_TARGETS_SEED=<seed> replays a run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { targetGenome, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import { parseProfile } from '../../harness/profile/load.js';
import { doctorOnChange, oneFactChanges } from './changes.js';
import { trueProfile } from './genome.js';
import { runSeed } from './properties.js';

const SEED = runSeed();
const RANDOM = Number(process.env['LEGAL_TARGETS_DOCTOR_RUNS'] ?? 4);
const REFERENCE: TargetGenome = { readings: [] };
/** One change of each family on the reference's genome, by field. */
const FIXED_FIELDS = [
  'endpoints.refundQuery',
  'payouts.data.status',
  'merchants.lowBalance.payoutBalance',
  'merchants.lowBalance.paymentMethods',
  'payouts.methods.PAYPAL.usdOnly',
  'sandbox.settlePayout.path',
  'sandbox.armFailure.failures.queryFailed',
  'pricePoints.tiers',
  'limits.payments.CARD.max',
  'refunds.support.CASH_APP',
  'payouts.notForPayouts',
  'methods.pricePoint',
  'internalFieldNames["trade_info.goods_name"]',
];

describe('doctor: one fact of a true profile changed', () => {
  // A changed profile the loader refuses is no profile a user could run: the property threw on it instead of judging the
  // doctor (the doctor-changed sweep: a tier moved half-way between two tiers, onto an unroundable example).
  it(`every change drawn is a profile that loads (seed ${SEED})`, () => {
    fc.assert(
      fc.property(targetGenome(), (g) => {
        for (const c of oneFactChanges(trueProfile(g))) {
          const changed = structuredClone(trueProfile(g));
          c.apply(changed);
          try {
            parseProfile(JSON.stringify(changed), 'changed.json');
          } catch (e) {
            throw new Error(`${c.field} changed to ${JSON.stringify(c.to)} does not load: ${(e as Error).message}`);
          }
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
    // Pure CPU (60 genomes, each with every one-fact change loaded): about 11 s alone, several times that beside other runs.
  }, 240_000);

  it('names the changed field: WRONG and exit 2, or a doubt and exit 0 where the document fixes the answer', async () => {
    const all = oneFactChanges(trueProfile(REFERENCE));
    const fixed = FIXED_FIELDS.map((f) => all.findIndex((c) => c.field === f));
    expect(fixed).not.toContain(-1);
    console.log(`doctor one fact changed: seed ${SEED} (replay: LEGAL_TARGETS_SEED=${SEED}), ${fixed.length} fixed + ${RANDOM} drawn`);
    const seen: string[] = [];
    const details = await fc.check(
      fc.asyncProperty(targetGenome(), fc.nat(), async (g, n) => {
        const changes = oneFactChanges(trueProfile(g));
        const c = changes[n % changes.length]!;
        const problems = await doctorOnChange(g, c);
        const outcome = problems.length ? 'BROKE' : 'ok';
        seen.push(`${g.readings.length} readings, ${c.field} → ${JSON.stringify(c.to)} (${c.expect}): ${outcome}`);
        if (problems.length > 0) throw new Error(problems.join('\n'));
      }),
      {
        seed: SEED,
        numRuns: fixed.length + RANDOM,
        examples: fixed.map((i) => [REFERENCE, i] as [TargetGenome, number]),
        endOnFailure: false,
      },
    );
    console.log(seen.join('\n'));
    if (details.failed)
      throw new Error(
        `broke on seed ${details.seed} (replay: LEGAL_TARGETS_SEED=${details.seed}), ${details.numShrinks} shrink(s); ` +
          `smallest: genome ${JSON.stringify(details.counterexample?.[0])}, change #${details.counterexample?.[1]}\n` +
          `${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
      );
  }, 900_000);
});
