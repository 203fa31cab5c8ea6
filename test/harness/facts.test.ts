/**
 * The facts room (harness/facts/): a merchant's own facts laid over the shared ones, one rule for every section; the
 * older per-merchant fields read by the same resolver; an unstated fact stays unknown; fees with a minimum and a cap.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { factsOf, overlay, whereSaid } from '../../harness/facts/index.js';
import { feeCents, largestWithin, payoutCost, smallestAbove } from '../../harness/facts/fees.js';
import { parseProfile } from '../../harness/profile/load.js';
import type { Profile } from '../../harness/profile/types.js';

const REFERENCE = new URL('../../fixtures/profiles/reference.json', import.meta.url);

function profileWith(edit: (p: Profile) => void): Profile {
  const p = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Profile;
  edit(p);
  return parseProfile(JSON.stringify(p), 'test.json', {}).profile;
}

describe('overlay', () => {
  it('merges objects key by key, replaces lists and scalars, and removes what null names', () => {
    const base = { a: { x: 1, y: [1, 2] }, b: 'keep', c: { gone: true } };
    expect(overlay(base, { a: { y: [3] }, b: null, c: { gone: null, d: { e: null, f: 2 } } })).toEqual({
      a: { x: 1, y: [3] },
      c: { d: { f: 2 } },
    });
    // The base is not changed.
    expect(base).toEqual({ a: { x: 1, y: [1, 2] }, b: 'keep', c: { gone: true } });
  });
});

describe("a merchant's facts", () => {
  const p = profileWith((p) => {
    p.merchants.lowBalance!.facts = {
      payouts: { methods: { BANK_TRANSFER: { currencies: ['EUR'] }, PAYPAL: null } },
      limits: { payouts: { BANK_TRANSFER: { byCurrency: { EUR: { min: '2.00', max: '20.00' } } } } },
      fees: { payouts: { BANK_TRANSFER: { percent: '1', fixed: '0.00', min: '0.25', max: '5.00' } } },
      refunds: { support: { PAYPAL: 'none' } },
    };
    delete p.merchants.lowBalance!.payoutMethods;
  });

  it("reads each merchant's own facts for it, and the shared ones for the others", () => {
    const low = factsOf(p, 'lowBalance');
    expect(low.payoutMethods).toEqual(['BANK_TRANSFER']);
    expect(low.payoutCurrencies('BANK_TRANSFER')).toEqual(['EUR']);
    expect(low.takesCurrency('BANK_TRANSFER', 'USD')).toBe(false);
    expect(low.payoutLimits('BANK_TRANSFER', 'EUR')).toMatchObject({ min: '2.00', max: '20.00' });
    expect(low.refundSupport('PAYPAL')).toBe('none');
    const primary = factsOf(p);
    expect(primary.payoutMethods).toEqual(['BANK_TRANSFER', 'PAYPAL']);
    expect(primary.takesCurrency('BANK_TRANSFER', 'USD')).toBe(true);
    expect(primary.payoutLimits('BANK_TRANSFER', 'EUR')).toMatchObject({ min: '1.00', max: '40000.00' });
    expect(primary.refundSupport('PAYPAL')).toBe('partial');
    // The second merchant's own minimum (the reference profile's) is its alone.
    expect(factsOf(p, 'second').payoutLimits('BANK_TRANSFER')?.min).toBe('5.00');
    expect(primary.payoutLimits('BANK_TRANSFER')?.min).toBe('1.00');
  });

  it("names where a fact is said: the merchant's own facts, else the shared section", () => {
    expect(whereSaid(p, 'lowBalance', ['payouts', 'methods', 'BANK_TRANSFER', 'currencies'])).toBe(
      'merchants.lowBalance.facts.payouts.methods.BANK_TRANSFER.currencies',
    );
    expect(whereSaid(p, 'primary', ['payouts', 'methods', 'BANK_TRANSFER', 'currencies'])).toBe('payouts.methods.BANK_TRANSFER.currencies');
  });

  it('leaves unknown what the profile does not state for the merchant', () => {
    const q = profileWith((p) => {
      delete p.limits!.payouts!.PAYPAL;
      p.merchants.primary.facts = { limits: { payouts: { PAYPAL: { min: '1.00', max: '10.00' } } } };
      delete p.payouts!.methods.PAYPAL!.usdOnly;
    });
    expect(factsOf(q).payoutLimits('PAYPAL')?.max).toBe('10.00');
    // Stated only for the primary: not the second merchant's fact.
    expect(factsOf(q, 'second').payoutLimits('PAYPAL')).toBeUndefined();
    expect(factsOf(q, 'second').takesCurrency('PAYPAL', 'EUR')).toBeUndefined();
  });

  it('reads the older per-merchant fields through the same resolver', () => {
    const q = profileWith((p) => {
      p.refunds!.supportByMerchant = { second: { PAYPAL: 'full' } };
    });
    expect(factsOf(q, 'second').refundSupport('PAYPAL')).toBe('full');
    expect(factsOf(q, 'lowBalance').payoutMethods).toEqual(['BANK_TRANSFER']);
    expect(factsOf(q, 'lowBalance').paymentMethods).toEqual(['PAYPAL', 'CARD', 'APPLE_PAY', 'GOOGLE_PAY']);
  });

  it("takes a merchant's own fee, with its minimum and its cap", () => {
    const model = factsOf(p, 'lowBalance').feeModel('payouts', 'BANK_TRANSFER');
    expect(model).toMatchObject({ percent: '1', min: '0.25', max: '5.00' });
    expect(feeCents(model, 1_000n, 'EUR')).toBe(25n); // 1 % of 10.00 is 0.10: the minimum
    expect(feeCents(model, 100_000n, 'EUR')).toBe(500n); // 1 % of 1000.00 is 10.00: the cap
    expect(feeCents(model, 5_000n, 'EUR')).toBe(50n);
    // What 3.00 covers with the minimum fee: 2.75, not 2.76.
    const cost = (c: bigint) => payoutCost(p, 'BANK_TRANSFER', c, 'EUR', 'lowBalance');
    expect(largestWithin(cost, 300n)).toBe(275n);
    expect(smallestAbove(cost, 300n)).toBe(276n);
    // The primary pays the shared fee: 0.25 + 0.5 %, at least 0.50.
    expect(payoutCost(p, 'BANK_TRANSFER', 450n, 'USD')).toBe(500n);
  });
});
