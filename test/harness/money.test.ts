import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  centsNumberOf,
  centsOf,
  compareCents,
  isAmountValue,
  isLegalAmount,
  isShownValue,
  MoneyError,
  maxCents,
  shownValue,
  tryCentsOf,
  valueOfCents,
} from '../../harness/facts/money.js';

// Legal values as the document writes them: digits, then nothing, one or two decimals.
const legalValue = fc
  .tuple(fc.stringMatching(/^[0-9]{1,12}$/), fc.constantFrom('', '.0', '.5', '.05', '.50', '.99'), fc.stringMatching(/^[0-9]{0,2}$/))
  .map(([int, frac, more]) => (frac === '' ? int : `${int}.${(frac.slice(1) + more).slice(0, 2)}`));
const twoDecimals = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 99 }));

describe('money: the document amount format', () => {
  it('format ∘ parse is the identity on two-decimal values (as responses show them)', () => {
    fc.assert(
      fc.property(twoDecimals, ([whole, frac]) => {
        const value = `${whole}.${String(frac).padStart(2, '0')}`;
        expect(valueOfCents(centsOf(value))).toBe(value);
      }),
    );
  });

  it('parse ∘ format is the identity on non-negative cents, and each shorter writing parses back', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 17n }), (c) => {
        expect(centsOf(valueOfCents(c))).toBe(c);
        if (c % 10n === 0n) expect(centsOf(valueOfCents(c, 1))).toBe(c);
        if (c % 100n === 0n) expect(centsOf(valueOfCents(c, 0))).toBe(c);
      }),
    );
  });

  it('every legal writing parses, and formats back to the same amount with two decimals', () => {
    fc.assert(
      fc.property(legalValue, (value) => {
        const c = centsOf(value);
        expect(tryCentsOf(value)).toBe(c);
        expect(isAmountValue(value)).toBe(true);
        // Exactly: "12.5" is 1250 cents, read digit by digit, never through a float.
        const [int = '', frac = ''] = value.split('.');
        expect(c).toBe(BigInt(int) * 100n + BigInt(frac.padEnd(2, '0')));
        expect(centsOf(valueOfCents(c))).toBe(c);
      }),
    );
    expect(centsOf('12.5')).toBe(1250n);
    expect(centsOf('12.50')).toBe(1250n);
    expect(centsOf('12')).toBe(1200n);
    expect(centsOf('0.01')).toBe(1n);
    expect(centsOf('99999999999999999.99')).toBe(9999999999999999999n);
  });

  it('refuses what the document refuses: three or more decimals, signs, exponents, non-strings', () => {
    const refused = ['12.500', '10.100', '0.001', '-1.00', '+1.00', '1e3', '1.5e2', ' 12.50', '12.50 ', '', '.5', '5.', '1,50', '0x10'];
    refused.push('12.5.0', 'NaN', 'Infinity', '１２', '12,5', '1_000');
    for (const value of refused) {
      expect(() => centsOf(value), value).toThrow(MoneyError);
      expect(tryCentsOf(value), value).toBeUndefined();
      expect(isAmountValue(value), value).toBe(false);
    }
    fc.assert(
      fc.property(legalValue, fc.stringMatching(/^[0-9]{1,4}$/), (value, extra) => {
        const three = value.includes('.') ? `${value.padEnd(value.indexOf('.') + 3, '0')}${extra}` : `${value}.00${extra}`;
        expect(tryCentsOf(three)).toBeUndefined();
        expect(() => centsOf(three)).toThrow(MoneyError);
      }),
    );
    for (const v of [12.5, 1250n, null, undefined, { value: '1.00' }]) expect(tryCentsOf(v)).toBeUndefined();
  });

  it('a legal amount is positive: zero in every spelling passes the format but not the rule', () => {
    for (const zero of ['0', '0.0', '0.00', '00.00']) {
      expect(centsOf(zero)).toBe(0n);
      expect(isLegalAmount(zero)).toBe(false);
    }
    expect(isLegalAmount('0.01')).toBe(true);
    expect(isLegalAmount('-0.01')).toBe(false);
    expect(isLegalAmount(0.01)).toBe(false);
  });

  it('writes negative cents with a sign, refuses a writing that would drop cents, and takes safe-integer numbers', () => {
    expect(valueOfCents(-150n)).toBe('-1.50');
    expect(valueOfCents(-5n)).toBe('-0.05');
    expect(valueOfCents(-1000n, 0)).toBe('-10');
    expect(valueOfCents(1250n, 1)).toBe('12.5');
    expect(valueOfCents(1200, 0)).toBe('12');
    expect(valueOfCents(7)).toBe('0.07');
    expect(() => valueOfCents(1251n, 1)).toThrow(MoneyError);
    expect(() => valueOfCents(1210n, 0)).toThrow(MoneyError);
    expect(() => valueOfCents(12.5)).toThrow(MoneyError);
    expect(() => valueOfCents(2 ** 60)).toThrow(MoneyError);
  });

  it('tells the two-decimal writing responses show, and normalises a legal value to it', () => {
    fc.assert(
      fc.property(legalValue, (value) => {
        const shown = shownValue(value);
        expect(isShownValue(shown)).toBe(true);
        expect(centsOf(shown)).toBe(centsOf(value));
        expect(isShownValue(value)).toBe(/\.\d\d$/.test(value));
      }),
    );
    expect(shownValue('12.5')).toBe('12.50');
    expect(shownValue('12')).toBe('12.00');
    for (const v of ['12.5', '12', '12.500', '-1.00', 12.5, '']) expect(isShownValue(v), String(v)).toBe(false);
    expect(() => shownValue('12.500')).toThrow(MoneyError);
  });

  it('gives cents as a number only where a number holds them exactly', () => {
    fc.assert(
      fc.property(legalValue, (value) => {
        expect(BigInt(centsNumberOf(value))).toBe(centsOf(value));
      }),
    );
    expect(centsNumberOf('90071992547409.91')).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => centsNumberOf('90071992547409.92')).toThrow(MoneyError);
    expect(() => centsNumberOf('1.001')).toThrow(MoneyError);
  });

  it('orders amounts in cents', () => {
    expect([300n, 5n, 120n].sort(compareCents)).toEqual([5n, 120n, 300n]);
    expect(maxCents(3n, 2n)).toBe(3n);
  });
});
