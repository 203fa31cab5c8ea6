/**
 * The certificate's digests are over canonical JSON: the writer that builds it in one pass must give, for any value,
 * the text of the format's definition (written out here as the recursive rule it states), or earlier certificates
 * would no longer verify.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../harness/report/canonical.js';

function byDefinition(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    return s === undefined ? 'null' : s;
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : byDefinition(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${byDefinition(v)}`).join(',')}}`;
}

describe('canonicalJson', () => {
  it('gives the text of the definition for any value: keys by UTF-16 order (integer-like and astral too), undefined dropped', () => {
    const key = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.nat(20).map(String), fc.constantFrom('__proto__', 'a', 'B', 'é'));
    const leaf = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v')), fc.dictionary(key, tie('v'))),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(canonicalJson(v)).toBe(byDefinition(v));
      }),
      { numRuns: 500 },
    );
  });
});
