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
import { doctorOnChange, oneFactChanges } from './changes.js';
import { trueProfile } from './genome.js';

const NO_CANCEL = JSON.parse(readFileSync(new URL('./fixtures/genome-no-payout-cancel.json', import.meta.url), 'utf8')) as TargetGenome;

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
});
