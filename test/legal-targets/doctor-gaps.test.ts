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
import { doctorOnChange, oneFactChanges } from './changes.js';
import { trueProfile } from './genome.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8')) as TargetGenome;
const NO_CANCEL = fixture('genome-no-payout-cancel');
/** No method of the primary takes refunds, refunds created settled (fc.sample(targetGenome(), { seed: 1 })[0]). */
const NO_REFUNDS = fixture('genome-no-refunds');

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
});
