import { describe, expect, it } from 'vitest';
import { amountsNextToRefusal, survey } from '../../fixtures/arbitraries/price-points.js';
import { pricePointRule } from '../../harness/profile/price-points.js';

/** A rule's survey of every cent is made once per process, however many times a suite asks for its amounts. */
describe('price-point survey', () => {
  const pp = { tiers: ['0.99', '1.99', '4.99'], rounding: 'nearest' as const, maxDistance: '0.40' };

  it('is shared by rules built apart from the same profile section', () => {
    expect(survey(pricePointRule(pp, 'APPLE_PAY'))).toBe(survey(pricePointRule(pp, 'GOOGLE_PAY')));
  });

  it('is not shared by rules that differ, and answers each by its own rule', () => {
    const other = pricePointRule({ ...pp, maxDistance: '0.20' });
    expect(survey(other)).not.toBe(survey(pricePointRule(pp)));
    // The first cent refused past each tier: 0.40 from a tier, then 0.20.
    expect(amountsNextToRefusal(pricePointRule(pp))).toContain('0.58');
    expect(amountsNextToRefusal(other)).toContain('0.78');
    expect(amountsNextToRefusal(other)).not.toContain('0.58');
  });
});
