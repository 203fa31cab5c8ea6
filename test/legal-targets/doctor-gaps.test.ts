/**
 * Two changes the one-fact-changed property found the doctor blind to (LEGAL_TARGETS_SEED=1077596317, shrunk): on a
 * target whose payout methods all refuse a cancel, a moved `endpoints.payoutCancel` was read as "this method cannot be
 * cancelled" (the unknown path is a refusal too); on a target whose card method takes no refunds but another method
 * does, the refund data paths were never probed, as the doctor refunded card payments only. Both must now be WRONG
 * naming the field. (Where no method of the primary takes refunds, changes.ts draws no refund change: nothing can
 * show it, and the doctor lists refunds as not verifiable.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TargetGenome } from '../../fixtures/arbitraries/genome.js';
import { isPathField } from '../../harness/doctor/model.js';
import { pool } from '../../harness/doctor/context.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { doctorOnChange, oneFactChanges } from './changes.js';
import { trueProfile } from './genome.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as TargetGenome;
const NO_CANCEL = fixture('genome-no-payout-cancel');
/** No method of the primary takes refunds, refunds created settled (fc.sample(targetGenome(), { seed: 1 })[0]). */
const NO_REFUNDS = fixture('genome-no-refunds');
/** Google Pay rounds by its own rule, up (the shared rule, Apple Pay's, is nearest), and nearest within 0.31 (shared: up). */
const OWN_RULE_UP = fixture('genome-own-rule-up');
const OWN_RULE_NEAREST = fixture('genome-own-rule-nearest');
/** KLARNA for the second merchant only (doctor-changed LEGAL_TARGETS_SEED=1001, shrunk). */
const SECOND_ONLY = fixture('genome-second-only-method');
/** Google Pay rounds to the nearest tier within 0.49, and refuses 10.00 and 10.37 (the doctor-changed sweep). */
const NEAREST_ONLY_PRICE_POINT = fixture('genome-price-point-method-nearest');
/** Shared tiers 2.99, 14.99, 99.99 rounded to the nearest within 0.32: 8.99, half-way, is an unroundable example. */
const UNROUNDABLE_HALF_WAY = fixture('genome-unroundable-half-way');

function change(g: TargetGenome, field: string) {
  const c = oneFactChanges(trueProfile(g)).find((x) => x.field === field);
  if (!c) throw new Error(`no change of ${field} on this genome`);
  return c;
}

describe('the doctor on targets the reference is not', () => {
  it('names a moved payout cancel path where no payout method cancels', async () => {
    const g = NO_CANCEL;
    expect(Object.values(g.target!.payouts).every((p) => !p.cancelable)).toBe(true);
    expect(await doctorOnChange(g, change(g, 'endpoints.payoutCancel'))).toEqual([]);
  }, 180_000);

  it("names a moved refund number path where the card method takes no refunds (it refunds another method's payment)", async () => {
    const base = NO_CANCEL.target!;
    // The card refunds nothing; PayPal, enabled for the primary, refunds in part (paid through sandbox.completeCheckout).
    const g: TargetGenome = {
      ...NO_CANCEL,
      target: { ...base, methods: ['PAYPAL'], refunds: { ...base.refunds, CARD: { ...base.refunds.CARD!, support: 'none' } } },
    };
    expect(await doctorOnChange(g, change(g, 'refunds.data.refundNo'))).toEqual([]);
  }, 180_000);

  // The refused() blind spot: a moved endpoint's "no such path" is an envelope with a non-zero code, which every probe
  // that reads a refusal as a fact took for one (an armed failure "happened" at a moved checkout or refund path, a payout
  // "cannot be cancelled" at a moved cancel path). Every path of each genome moved in turn: WRONG naming it, exit 2, and
  // no other fact judged from the moved path (changes.ts). Fails on the old helper (armed failures on all three genomes,
  // the cancel path on NO_CANCEL, the settle-refund path on NO_REFUNDS).
  it.each([
    ['the reference', { readings: [] } as TargetGenome],
    ['no payout method cancels', NO_CANCEL],
    ['no method takes refunds', NO_REFUNDS],
  ])(
    'names every moved path and reads no fact through it: %s',
    async (_, g) => {
      const moves = oneFactChanges(trueProfile(g)).filter((c) => isPathField(c.field));
      expect(moves.length).toBeGreaterThan(10);
      const problems = await pool(
        moves.map((c) => () => doctorOnChange(g, c)),
        3,
      );
      expect(problems.flat()).toEqual([]);
    },
    300_000,
  );

  // pricePoints.ruleByMethod (version 3) was judged by the shared rule: a true profile got a doubt on pricePoints.rounding
  // for the method with its own rule, and a changed own rule went unnamed. Both fail on the old doctor.
  it.each([
    ['up', OWN_RULE_UP],
    ['nearest within a distance', OWN_RULE_NEAREST],
  ])(
    "verifies a method's own rounding rule (%s) and names it changed",
    async (_, g) => {
      const truth = trueProfile(g);
      const [method] = Object.keys(truth.pricePoints?.ruleByMethod ?? {});
      expect(method).toBeDefined();
      const ref = await startEmbeddedReference(truth);
      try {
        const report = await runDoctor({ loaded: parseProfile(JSON.stringify(truth), 'true.json'), baseUrl: ref.url, webhooks: false });
        const flagged = report.items.filter((i) => i.status === 'wrong' || i.status === 'doubt').map((i) => `${i.status} ${i.path}`);
        expect(flagged).toEqual([]);
        const own = report.items.filter((i) => i.path === `pricePoints.ruleByMethod.${method}.rounding`).map((i) => i.status);
        expect(own).toEqual(['verified']);
      } finally {
        await ref.close();
      }
      expect(await doctorOnChange(g, change(g, `pricePoints.ruleByMethod.${method}`))).toEqual([]);
    },
    180_000,
  );

  // A price-point method left out of methods.pricePoint is paid an amount the doctor guesses (10.37 as the primary, 10.00 as
  // another merchant); one rounding to the nearest tier refuses it (2006), which the doctor read as the method not enabled
  // for every merchant (WRONG merchants.*.paymentMethods) and never named methods.pricePoint. Fails on the old doctor.
  it('names methods.pricePoint, not the merchants, when a method left out of it refuses the guessed amount', async () => {
    const g = NEAREST_ONLY_PRICE_POINT;
    expect(trueProfile(g).methods.pricePoint).toEqual(['GOOGLE_PAY']);
    expect(await doctorOnChange(g, change(g, 'methods.pricePoint'))).toEqual([]);
  }, 180_000);

  // The tier change moved a tier half-way, onto an unroundable example: a profile the loader refuses, on which the property
  // threw instead of judging the doctor. The change is now a tier that loads, and the doctor doubts it. Fails before.
  it('moves a tier to an amount that is no unroundable example, and doubts it', async () => {
    const g = UNROUNDABLE_HALF_WAY;
    expect(trueProfile(g).pricePoints?.unroundable).toContain('8.99');
    expect(await doctorOnChange(g, change(g, 'pricePoints.tiers'))).toEqual([]);
  }, 180_000);

  // The limits of a method only the second merchant has were skipped (the doctor paid limits as the primary only), so a
  // narrower maximum went unnamed (doctor-changed, LEGAL_TARGETS_SEED=1001). They are now paid as the second merchant:
  // verified on the true profile, a doubt naming the changed maximum. Both fail on the old doctor.
  it("verifies the limits of the second merchant's only method, doubts a narrower maximum, advises nothing false of it", async () => {
    const g = SECOND_ONLY;
    expect(g.target!.secondOnly).toBe('KLARNA');
    const truth = trueProfile(g);
    const ref = await startEmbeddedReference(truth);
    try {
      const report = await runDoctor({ loaded: parseProfile(JSON.stringify(truth), 'true.json'), baseUrl: ref.url, webhooks: false });
      expect(report.items.filter((i) => i.status === 'wrong' || i.status === 'doubt').map((i) => `${i.status} ${i.path}`)).toEqual([]);
      const klarna = report.items.filter((i) => i.path.startsWith('limits.payments.KLARNA.')).map((i) => `${i.status} ${i.path}`);
      // Each bound accepted, then one cent outside each refused.
      const bounds = ['verified limits.payments.KLARNA.min', 'verified limits.payments.KLARNA.max'];
      expect(klarna).toEqual([...bounds, ...bounds]);
      // Verified, with the checks' non-use said on the same lines, never a warning "no check can use them" beside them.
      for (const i of report.items.filter((x) => x.path.startsWith('limits.payments.KLARNA.')))
        expect(i.answered).toMatch(/verified, though no check can use them: KLARNA is a method of merchants\.second/);
      // What the doctor says of the method's other entries is true of this profile: never "add KLARNA to methods.checkout"
      // (the checks would then pay it as the primary, which lacks it), and its refunds are not verifiable for that reason.
      const said = report.items
        .filter((i) => /^(limits\.payments|refunds\.support)\.KLARNA$/.test(i.path))
        .map((i) => `${i.status} ${i.path}: ${i.answered} (${i.fix ?? ''})`);
      expect(said).toEqual([
        'warning refunds.support.KLARNA: no check can use it: KLARNA is a method of merchants.second (its paymentMethods), ' +
          'not of methods.checkout (keep as documentation: the checks pay with methods.checkout)',
        'not-verifiable refunds.support.KLARNA: KLARNA is not a method of the primary merchant ' +
          '(merchants.primary.paymentMethods), and the doctor pays as the primary ()',
      ]);
    } finally {
      await ref.close();
    }
    expect(await doctorOnChange(g, change(g, 'limits.payments.KLARNA.max'))).toEqual([]);
  }, 180_000);
});
