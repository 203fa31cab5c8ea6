/** pricePointRule: a method's own rule (pricePoints.ruleByMethod, profile v3) replaces the shared one for that method only. */
import { describe, expect, it } from 'vitest';
import { decidePricePoint, pricePointRule } from '../../harness/profile/price-points.js';

const pp = {
  tiers: ['1.00', '3.00'],
  rounding: 'up' as const,
  ruleByMethod: { GOOGLE_PAY: { rounding: 'nearest' as const, maxDistance: '0.20', tie: 'up' as const } },
  unroundable: ['3.01'],
};

describe('pricePointRule', () => {
  it('gives a method its own rounding, distance and tie, and every other method the shared rule', () => {
    expect(pricePointRule(pp, 'GOOGLE_PAY')).toEqual({ tiers: [100, 300], rounding: 'nearest', maxDistance: 20, tie: 'up' });
    expect(pricePointRule(pp, 'APPLE_PAY')).toEqual({ tiers: [100, 300], rounding: 'up' });
    expect(pricePointRule(pp)).toEqual({ tiers: [100, 300], rounding: 'up' });
    expect(decidePricePoint(115, pricePointRule(pp, 'GOOGLE_PAY'))).toEqual({ kind: 'rounded', tier: 100 });
    expect(decidePricePoint(150, pricePointRule(pp, 'GOOGLE_PAY'))).toEqual({ kind: 'refused' });
    expect(decidePricePoint(115, pricePointRule(pp, 'APPLE_PAY'))).toEqual({ kind: 'rounded', tier: 300 });
  });
});
