/**
 * init over generated legal targets: against the target built from each genome, init (the CLI,
 * in process) always writes a draft that validates as drafted (no part left out as its own bug) and a `.todo.md`,
 * and exits 0; every fact it writes is the genome's truth (0 wrong values; a limit that misses an accepted range
 * narrower than init's probe spacing is counted apart as unseen, see onlyUnseenRanges); every fact it leaves out is named by a
 * TODO; and the draft completed from the true profile at its TODOs runs the quick suite against that very target
 * with no check failing. Five fixed genomes and LEGAL_TARGETS_INIT_RUNS (default 2) generated ones, with accounts and channels; the seed is
 * printed and LEGAL_TARGETS_SEED=<seed> replays a run; a failure is shrunk to the smallest genome that still breaks.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  NOT_DRAWN,
  READING_NAMES,
  REFERENCE_GENES,
  type TargetGenes,
  targetGenome,
  type TargetGenome,
} from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { loadSuites } from '../../harness/run/suites.js';
import { trueProfile } from './genome.js';
import { initOverGenome, judgeDraft, onlyUnseenRanges } from './init.js';
import { runSeed } from './properties.js';

const SEED = runSeed();
const RANDOM = Number(process.env['LEGAL_TARGETS_INIT_RUNS'] ?? 2);
const CHECK_RUNS = 5;
const FIXED: readonly { why: string; genome: TargetGenome }[] = [
  { why: "the reference's own configuration", genome: { readings: [] } },
  { why: 'every drawn reading at once', genome: { readings: READING_NAMES.filter((n) => !NOT_DRAWN.has(n)) } },
  // Another money field in the payment record (init took it for the amount charged).
  { why: 'an extra money field refunded_amount', genome: { readings: ['extra-money-fields'] } },
  // Found by bench/legal-targets.ts (seed 2027): Apple Pay refuses 100.00, Google Pay's top tier; init listed it as unroundable for both.
  { why: "per-method tiers: one method's refused amount is another's tier", genome: { readings: ['google-pay-own-tiers'] } },
  // LEGAL_TARGETS_SEED=716206771: CARD's second channel lies beyond a decade of refusals above the first; the old
  // search went up by tens, met a refusal and wrote the first channel's 50.64 as the max. Widened here to 207.43–600.00,
  // which any search that probes above a refusal must find (the drawn one is 12 cents wide: see onlyUnseenRanges).
  { why: 'a second card channel beyond a decade of refusals', genome: withAccounts() },
];
let suites: SuiteDef[];

function withAccounts(): TargetGenome {
  const channels = (min: number, max: number) => ({ minCents: min, maxCents: max });
  const target: TargetGenes = {
    ...REFERENCE_GENES,
    methods: ['PAYPAL'],
    channels: {
      CARD: [channels(57, 5064), channels(20743, 60000)],
      PAYPAL: [channels(53, 131968)],
      CASH_APP: [channels(411, 182849), channels(207281, 2007269)],
    },
    refunds: {
      CARD: { support: 'partial', createdSuccess: false },
      PAYPAL: { support: 'full-only', createdSuccess: true },
      CASH_APP: { support: 'partial', createdSuccess: true },
    },
    noChannelListed: true,
    lowBalance: { usdCents: 204, eurCents: 1000, refundCoverCents: 281, paymentMethods: ['CARD'], payoutMethods: ['PAYPAL'] },
  };
  return { readings: ['unnamed-payment-statuses', 'uuid-service-numbers', 'price-point-nearest-within'], target };
}

beforeAll(async () => {
  suites = await loadSuites();
  console.log(`init over legal targets: seed ${SEED} (replay: LEGAL_TARGETS_SEED=${SEED}), ${FIXED.length} fixed + ${RANDOM} generated`);
});

describe('init over legal targets', () => {
  it('writes a draft and a TODO file, no wrong value, a TODO for every fact it leaves out, and completed it runs green', async () => {
    const seen: string[] = [];
    // No shrinking: each genome costs an init and a run (20–60 s); the failing genome is printed whole and the seed replays it.
    const details = await fc.check(
      fc.asyncProperty(targetGenome(), async (g) => {
        const r = await initOverGenome(g, { run: { suites, seed: SEED, numRuns: CHECK_RUNS } });
        const problems = [
          ...(r.exit === 0 ? [] : [`init exited ${r.exit}: ${r.stdout.slice(-400)}`]),
          ...(r.wroteDraft && r.wroteTodo ? [] : ['init wrote no draft or no .todo.md']),
          ...(r.selfReported
            ? [`init drafted a part that did not validate: ${r.stdout.split('\n').find((l) => /did not validate/.test(l))}`]
            : []),
          ...r.wrong.map((w) => `wrong value: ${w}`),
          ...r.untold.map((u) => `left out without a TODO: ${u}`),
          ...(r.run?.failed ?? []).map((f) => `completed draft, check failed: ${f}`),
          // A completed draft that skipped checks the true profile passes would prove less than it claims (measured against the
          // truth's own run, not a fixed count: a genome with the card alone skips some 50 checks whatever the profile).
          // By check, not by count: which checks pass can vary by one between two runs on a target whose state they change.
          ...(r.run && r.run.skippedTruthPassed.length > 0
            ? [`completed draft skipped checks the true profile passes: ${r.run.skippedTruthPassed.join(', ')}`]
            : []),
        ];
        seen.push(
          `${g.readings.length} readings, ${g.target ? 'drawn' : "the reference's"} accounts: ${r.written}/${r.facts} facts written, ` +
            `${r.unseen.length} unseen (${r.unseen.join('; ') || '-'}), ${r.todos.length} TODOs, ${r.probes} requests; ` +
            `run ${r.run?.passed} passed (true profile ${r.run?.truthPassed}), ${r.run?.failed.length} failed, ` +
            `${r.run?.inconclusive.length} no verdict; ` +
            `${problems.length} problem(s)`,
        );
        if (problems.length > 0) throw new Error(problems.join('\n'));
      }),
      { seed: SEED, numRuns: FIXED.length + RANDOM, examples: FIXED.map((f) => [f.genome] as [TargetGenome]), endOnFailure: true },
    );
    console.log(seen.join('\n'));
    if (details.failed)
      throw new Error(
        `init broke on seed ${details.seed} (replay: LEGAL_TARGETS_SEED=${details.seed}) after ${details.numRuns} genome(s), ` +
          `${details.numShrinks} shrink(s).\nsmallest genome: ${JSON.stringify(details.counterexample?.[0])}\n` +
          `${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`,
      );
    expect(seen.length).toBeGreaterThanOrEqual(FIXED.length + RANDOM);
  }, 1_200_000);
});

describe('the judgement of a draft (the property can fail)', () => {
  const g: TargetGenome = { readings: ['other-request-field-names'] };
  const truth = trueProfile(g);

  it('finds nothing wrong or untold in the true profile itself', () => {
    const j = judgeDraft(truth, [], truth, g);
    expect(j.wrong).toEqual([]);
    expect(j.untold).toEqual([]);
    expect(j.written).toBe(j.facts);
  });

  it('calls a changed limit, a renamed request field and a refunded-amount price point wrong', () => {
    const d = structuredClone(truth);
    d.limits!.payments!['CARD']!.max = '10000.01';
    d.payouts!.template = { ...d.payouts!.template, payout_amount: d.payouts!.template['amount'] };
    delete d.payouts!.template['amount'];
    d.pricePoints!.unroundable = ['0.01'];
    const j = judgeDraft(d, [], truth, g);
    expect(j.wrong).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^limits\.payments\.CARD\.max/),
        expect.stringMatching(/^payouts\.template\.payout_amount/),
        expect.stringMatching(/^pricePoints\.unroundable/),
      ]),
    );
  });

  it('takes a lookup field in a spelling the target also takes, and no other', () => {
    // Found by bench/legal-targets.ts (seed 2027): this target takes refund_no beside refund_order_no.
    const d = structuredClone(truth);
    d.refunds!.queryBy!.serviceNo = 'refund_no';
    expect(judgeDraft(d, [], truth, g).wrong).toEqual([]);
    d.refunds!.queryBy!.serviceNo = 'refund_id';
    expect(judgeDraft(d, [], truth, g).wrong).toEqual([expect.stringMatching(/^refunds\.queryBy\.serviceNo/)]);
  });

  it('takes as methods.notEnabled any method the primary merchant lacks, never one it has', () => {
    // Found when the genome began to draw accounts: PAYPAL left off for every merchant is as true an answer as KLARNA.
    const withoutPaypal = structuredClone(truth);
    withoutPaypal.methods.checkout = withoutPaypal.methods.checkout.filter((m) => m !== 'PAYPAL');
    const d = structuredClone(withoutPaypal);
    d.methods.notEnabled = 'PAYPAL';
    expect(judgeDraft(d, [], withoutPaypal, g).wrong).toEqual([]);
    d.methods.notEnabled = truth.methods.card;
    expect(judgeDraft(d, [], withoutPaypal, g).wrong).toEqual([expect.stringMatching(/^methods\.notEnabled/)]);
  });

  it('counts a limit apart as unseen only where the true range it misses is narrower than the probe spacing', () => {
    // The drawn case LEGAL_TARGETS_SEED=716206771: CARD 0.57–50.64 and 207.43–207.55.
    const trueCard = {
      min: '0.57',
      max: '207.55',
      channels: [
        { min: '0.57', max: '50.64' },
        { min: '207.43', max: '207.55' },
      ],
    };
    expect(onlyUnseenRanges({ min: '0.57', max: '50.64' }, trueCard)).toBe(true);
    // Found, it is written; a wide range missed, or a bound off by a cent, is wrong.
    expect(onlyUnseenRanges({ min: '0.57', max: '50.63' }, trueCard)).toBe(false);
    const wide = {
      min: '0.57',
      max: '600.00',
      channels: [
        { min: '0.57', max: '50.64' },
        { min: '207.43', max: '600.00' },
      ],
    };
    expect(onlyUnseenRanges({ min: '0.57', max: '50.64' }, wide)).toBe(false);
    const d = structuredClone(truth);
    const t = structuredClone(truth);
    t.limits!.payments!['CARD'] = wide;
    d.limits!.payments!['CARD'] = { min: '0.57', max: '50.64' };
    expect(judgeDraft(d, [], t, g).wrong).toEqual([expect.stringMatching(/^limits\.payments\.CARD\.max/)]);
    t.limits!.payments!['CARD'] = trueCard;
    const j = judgeDraft(d, [], t, g);
    expect(j.wrong).toEqual([]);
    expect(j.unseen).toEqual([expect.stringMatching(/^limits\.payments\.CARD\.max/)]);
  });

  it("judges price points by each method's tiers: the global tiers no enabled method uses are no fact", () => {
    // Found by bench/legal-targets.ts (seed 2411): Google Pay alone, with its own tiers; init drafted them as the tiers.
    const gp: TargetGenome = { readings: ['google-pay-own-tiers'], target: { ...REFERENCE_GENES, methods: ['GOOGLE_PAY'] } };
    // The genome now says the first price-point method's tiers as the shared ones (Google Pay's, alone here): the truth as
    // the reference profile says it, Google Pay's own tiers beside shared ones no enabled method uses, is built by hand.
    const own = trueProfile(gp);
    expect(own.pricePoints!.tiersByMethod).toBeUndefined();
    const t = structuredClone(own);
    t.pricePoints!.tiers = trueProfile({ readings: [] }).pricePoints!.tiers;
    t.pricePoints!.tiersByMethod = { GOOGLE_PAY: own.pricePoints!.tiers };
    expect(t.pricePoints!.tiers).not.toEqual(own.pricePoints!.tiers);
    expect(judgeDraft(own, [], t, gp).wrong).toEqual([]);
    const d = structuredClone(t);
    d.pricePoints!.tiers = t.pricePoints!.tiersByMethod!['GOOGLE_PAY']!;
    delete d.pricePoints!.tiersByMethod;
    expect(judgeDraft(d, [], t, gp).wrong).toEqual([]);
    expect(judgeDraft(d, [], t, gp).untold).toEqual([]);
    d.pricePoints!.tiers = t.pricePoints!.tiers;
    expect(judgeDraft(d, [], t, gp).wrong).toEqual([expect.stringMatching(/^pricePoints \(GOOGLE_PAY's tiers\)/)]);
  });

  it("judges each price-point method's rule, shared or its own (ruleByMethod)", () => {
    const rounded: TargetGenome = { readings: [], target: { ...REFERENCE_GENES, methods: ['APPLE_PAY', 'GOOGLE_PAY'] } };
    const t = structuredClone(trueProfile(rounded));
    t.pricePoints!.ruleByMethod = { GOOGLE_PAY: { rounding: 'nearest', maxDistance: '0.20', tie: 'up' } };
    t.pricePoints!.unroundable = ['250.00', '9999.99'];
    expect(judgeDraft(t, [], t, rounded).wrong).toEqual([]);
    // The same rules said the other way round: Google Pay's shared, Apple Pay's its own.
    const swapped = structuredClone(t);
    Object.assign(swapped.pricePoints!, { rounding: 'nearest', maxDistance: '0.20', tie: 'up' });
    swapped.pricePoints!.ruleByMethod = { APPLE_PAY: { rounding: 'up' } };
    expect(judgeDraft(swapped, [], t, rounded).wrong).toEqual([]);
    // One rule for both (Google Pay's distance and tie then untold), or Google Pay's distance off by a cent: wrong for that method.
    const shared = structuredClone(t);
    delete shared.pricePoints!.ruleByMethod;
    expect(judgeDraft(shared, [], t, rounded).wrong).toEqual([expect.stringMatching(/^pricePoints \(GOOGLE_PAY's rounding\)/)]);
    expect(judgeDraft(shared, [], t, rounded).untold).toEqual(['pricePoints.maxDistance.GOOGLE_PAY', 'pricePoints.tie.GOOGLE_PAY']);
    const off = structuredClone(t);
    off.pricePoints!.ruleByMethod!['GOOGLE_PAY']!.maxDistance = '0.21';
    expect(judgeDraft(off, [], t, rounded).wrong).toEqual([expect.stringMatching(/^pricePoints \(GOOGLE_PAY's maxDistance\)/)]);
  });

  it("leaves a price-point method the draft does not list out of the shared tiers' judgement (it says nothing of it)", () => {
    // Found by bench/legal-targets.ts --seed 3002 (its 5th genome): Apple Pay (tiers 1.00 and 50.00, nearest within 0.24)
    // refused every amount init probed, so init listed Google Pay alone, drafted its tiers as the shared ones and asked about
    // Apple Pay in two TODOs; the judge read the shared tiers and rule as Apple Pay's and called them wrong.
    const gp = JSON.parse(
      readFileSync(new URL('./fixtures/genome-price-point-method-refused-beside-another.json', import.meta.url), 'utf8'),
    ) as TargetGenome;
    const t = trueProfile(gp);
    expect(t.methods.pricePoint).toEqual(['APPLE_PAY', 'GOOGLE_PAY']);
    const d = structuredClone(t);
    d.methods.pricePoint = ['GOOGLE_PAY'];
    d.pricePoints = { tiers: t.pricePoints!.tiersByMethod!['GOOGLE_PAY']!, rounding: 'up', unroundable: ['100.01', '150.01', '200.01'] };
    const todos = [
      { path: 'methods.pricePoint (APPLE_PAY)', what: '' },
      { path: 'pricePoints (APPLE_PAY)', what: '' },
    ];
    const j = judgeDraft(d, todos, t, gp);
    expect(j.wrong).toEqual([]);
    expect(j.untold).toEqual([]);
    expect(j.missing).toEqual(expect.arrayContaining(['methods.pricePoint', 'pricePoints.tiersByMethod.APPLE_PAY']));
    // Without its TODOs the list is wrong; and listed, Apple Pay is judged by the shared tiers, which are not its own.
    const bare = judgeDraft(d, [], t, gp);
    expect(bare.wrong).toEqual([expect.stringMatching(/^methods\.pricePoint:/)]);
    expect(bare.untold).toEqual([
      'pricePoints.tiersByMethod.APPLE_PAY',
      'pricePoints.rounding.APPLE_PAY',
      'pricePoints.maxDistance.APPLE_PAY',
      'pricePoints.tie.APPLE_PAY',
    ]);
    d.methods.pricePoint = ['APPLE_PAY', 'GOOGLE_PAY'];
    expect(judgeDraft(d, todos, t, gp).wrong).toEqual(
      expect.arrayContaining([expect.stringMatching(/^pricePoints \(APPLE_PAY's tiers\)/)]),
    );
  });

  it('judges the unroundable amounts by the price-point methods the draft lists, not one it leaves out with its TODOs', () => {
    // Found by bench/legal-targets.ts --seed 4013 (its 1st genome): Apple Pay (top tier 99.99, nearest within 0.10) refused
    // every amount init probed, so init listed Google Pay alone (rounding up, top tier 99.99) with 100.00, 150.00 and 200.00
    // as unroundable; the judge asked Apple Pay's rule too, which rounds 100.00 to 99.99, and called the list wrong.
    const gp = JSON.parse(
      readFileSync(new URL('./fixtures/genome-price-point-method-refused-unroundable-near-its-tier.json', import.meta.url), 'utf8'),
    ) as TargetGenome;
    const t = trueProfile(gp);
    expect(t.methods.pricePoint).toEqual(['APPLE_PAY', 'GOOGLE_PAY']);
    const d = structuredClone(t);
    d.methods.pricePoint = ['GOOGLE_PAY'];
    d.pricePoints = { tiers: t.pricePoints!.tiersByMethod!['GOOGLE_PAY']!, rounding: 'up', unroundable: ['100.00', '150.00', '200.00'] };
    const todos = [
      { path: 'methods.pricePoint (APPLE_PAY)', what: '' },
      { path: 'pricePoints (APPLE_PAY)', what: '' },
    ];
    expect(judgeDraft(d, todos, t, gp).wrong).toEqual([]);
    // An amount the listed method rounds is still wrong; and with Apple Pay listed, its rule judges the amounts too.
    const rounded = structuredClone(d);
    rounded.pricePoints!.unroundable = ['50.00'];
    expect(judgeDraft(rounded, todos, t, gp).wrong).toEqual([expect.stringMatching(/^pricePoints\.unroundable:/)]);
    d.methods.pricePoint = ['APPLE_PAY', 'GOOGLE_PAY'];
    expect(judgeDraft(d, todos, t, gp).wrong).toEqual(expect.arrayContaining([expect.stringMatching(/^pricePoints\.unroundable:/)]));
  });

  it('calls a fact left out untold unless a TODO names it or a field above it', () => {
    const d = structuredClone(truth);
    delete d.sandbox;
    delete d.refunds!.fee;
    expect(judgeDraft(d, [], truth, g).untold).toEqual(expect.arrayContaining(['refunds.fee', 'sandbox.completeCheckout.path']));
    const told = judgeDraft(
      d,
      [
        { path: 'sandbox', what: '' },
        { path: 'refunds.fee', what: '' },
      ],
      truth,
      g,
    );
    expect(told.untold).toEqual([]);
    expect(told.written).toBeLessThan(told.facts);
  });
});
