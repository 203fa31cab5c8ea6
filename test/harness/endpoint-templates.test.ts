/**
 * Endpoint path templates and environment variables in baseUrl (profile version 4): what the loader refuses and how,
 * how a path is filled and matched, and the lookups a check may send where a path carries the record's number.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { carriedBy, FILLABLE, fillPath, matchesTemplate, pathTemplateProblems } from '../../harness/profile/endpoint-path.js';
import { lookupsAt, PAYOUT_NUMBERS } from '../../harness/ops.js';
import { parseProfile, ProfileError } from '../../harness/profile/load.js';
import type { Target } from '../../harness/target.js';

// biome-ignore lint/suspicious/noExplicitAny: tests edit free-form JSON
type Json = Record<string, any>;
const referenceText = readFileSync('fixtures/profiles/reference.json', 'utf8');
/** The reference profile without what only version 5 says (the second merchant's own facts, the payout fee's minimum). */
const reference = (): Json => {
  const p = JSON.parse(referenceText) as Json;
  delete p.merchants.second.facts;
  delete p.fees.payouts.BANK_TRANSFER.min;
  return p;
};

function problemsOf(p: Json, env: NodeJS.ProcessEnv = {}, baseUrl?: string): string[] {
  try {
    parseProfile(JSON.stringify(p), 'src.json', env, baseUrl === undefined ? {} : { baseUrl });
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    return (err as ProfileError).problems;
  }
  return [];
}

describe('endpoint templates: the loader', () => {
  it('loads a version-4 profile whose cancel and refund paths carry numbers', () => {
    const p = reference();
    p.endpoints.payoutCancel = '/api/v1/payouts/{payout_no}/cancel';
    p.endpoints.refundCreate = '/api/v1/payments/{order_no}/refunds';
    expect(problemsOf(p)).toEqual([]);
  });

  it('refuses a placeholder the endpoint cannot fill, naming the field and what it can carry', () => {
    const p = reference();
    p.endpoints.refundCreate = '/api/v1/refunds/{payout_no}';
    const problems = problemsOf(p);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^endpoints\.refundCreate: \{payout_no\} cannot be filled there/);
    expect(problems[0]).toContain('{order_no}');
  });

  it('refuses an unknown placeholder, a stray brace and a body-style variable', () => {
    const p = reference();
    p.endpoints.payoutQuery = '/api/v1/payouts/{payoutNo}';
    p.endpoints.payoutCancel = '/api/v1/payouts/{payout_no/cancel';
    p.endpoints.refundQuery = `/api/v1/refunds/\${refundNo}`;
    const problems = problemsOf(p).join('\n');
    expect(problems).toMatch(/endpoints\.payoutQuery: \{payoutNo\} is not a placeholder a path may carry/);
    expect(problems).toMatch(/endpoints\.payoutCancel: a "\{" or "\}" outside a placeholder/);
    expect(problems).toMatch(/endpoints\.refundQuery: "\$\{…\}" is a body template variable/);
  });

  it('refuses a templated path in a profile of an older version, naming the version to set', () => {
    const p = reference();
    p.profileVersion = 3;
    p.endpoints.payoutCancel = '/api/v1/payouts/{payout_no}/cancel';
    expect(problemsOf(p).filter((m) => m.startsWith('endpoints.'))).toEqual([
      'endpoints.payoutCancel: a path with placeholders is a profile format ' +
        'version 4 feature, but the profile says "profileVersion": 3 (set it to 4)',
    ]);
  });

  it('every placeholder each endpoint can fill is accepted there, and no other', () => {
    for (const [endpoint, fillable] of Object.entries(FILLABLE))
      for (const n of ['order_no', 'merchant_order_no', 'refund_no', 'merchant_refund_no', 'payout_no', 'merchant_payout_no'])
        expect(pathTemplateProblems(endpoint as keyof typeof FILLABLE, `/x/{${n}}`).length === 0).toBe(fillable.includes(n as never));
  });
});

describe('endpoint templates: filling and matching', () => {
  it('fills each placeholder URL-encoded, and a filled path matches its template', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 30 }), fc.string({ minLength: 1, maxLength: 30 }), (a, b) => {
        const template = '/api/v1/payments/{order_no}/refunds/{merchant_refund_no}';
        const filled = fillPath(template, { order_no: a, merchant_refund_no: b });
        if (!('path' in filled)) throw new Error('not filled');
        expect(filled.path).toBe(`/api/v1/payments/${encodeURIComponent(a)}/refunds/${encodeURIComponent(b)}`);
        expect(matchesTemplate(template, filled.path)).toBe(true);
      }),
    );
  });

  it('names the placeholders a request has no number for (absent, empty, not a string)', () => {
    expect(fillPath('/p/{payout_no}/{merchant_payout_no}', { payout_no: 'P1' })).toEqual({ missing: ['merchant_payout_no'] });
    expect(fillPath('/p/{payout_no}', { payout_no: '' })).toEqual({ missing: ['payout_no'] });
    expect(fillPath('/p/{payout_no}', { payout_no: 12 })).toEqual({ missing: ['payout_no'] });
  });

  it('matches neither another path nor the template text itself', () => {
    expect(matchesTemplate('/api/v1/payouts/{payout_no}/cancel', '/api/v1/payouts/P1/cancel')).toBe(true);
    expect(matchesTemplate('/api/v1/payouts/{payout_no}/cancel', '/api/v1/payouts/cancel')).toBe(false);
    expect(matchesTemplate('/api/v1/payouts/{payout_no}/cancel', '/api/v1/payouts/a/b/cancel')).toBe(false);
    expect(matchesTemplate('/api/v1/payouts/cancel', '/api/v1/payouts/cancel')).toBe(true);
  });

  it('a lookup goes by each number on a fixed path, by the carried one on a templated path', () => {
    const target = (path: string) => ({ pathTemplate: () => path }) as unknown as Target;
    const record = { serviceNo: 'S', merchantNo: 'M' };
    expect(lookupsAt(target('/api/v1/payouts/query'), 'payoutQuery', PAYOUT_NUMBERS, record)).toEqual([
      { serviceNo: 'S' },
      { merchantNo: 'M' },
    ]);
    expect(lookupsAt(target('/p/{payout_no}'), 'payoutQuery', PAYOUT_NUMBERS, record)).toEqual([{ serviceNo: 'S' }]);
    expect(lookupsAt(target('/p/{merchant_payout_no}'), 'payoutQuery', PAYOUT_NUMBERS, record)).toEqual([{ merchantNo: 'M' }]);
    expect([...carriedBy('/p/{payout_no}/{merchant_payout_no}')]).toEqual(['payout_no', 'merchant_payout_no']);
  });
});

describe('baseUrl from the environment', () => {
  // "${MPSI_BASE_URL}", as a profile writes it.
  const withVar = (): Json => ({ ...reference(), baseUrl: `\${MPSI_BASE_URL}` });

  it('resolves a variable named in baseUrl from the environment', () => {
    const loaded = parseProfile(JSON.stringify(withVar()), 'src.json', { MPSI_BASE_URL: 'https://sandbox.example/' });
    expect(loaded.profile.baseUrl).toBe('https://sandbox.example');
  });

  it('an unset variable is one clear problem naming it', () => {
    expect(problemsOf(withVar())).toEqual([
      'baseUrl: environment variable MPSI_BASE_URL is not set: set it, or give the address with --target',
    ]);
  });

  it('the command line address (--target) stands in for it, set or not', () => {
    const loaded = parseProfile(JSON.stringify(withVar()), 'src.json', {}, { baseUrl: 'http://127.0.0.1:8080' });
    expect(loaded.profile.baseUrl).toBe('http://127.0.0.1:8080');
  });

  it('a literal baseUrl is kept as written even when --target is given', () => {
    const loaded = parseProfile(referenceText, 'src.json', {}, { baseUrl: 'http://127.0.0.1:8080' });
    expect(loaded.profile.baseUrl).toBe(reference().baseUrl);
  });
});
