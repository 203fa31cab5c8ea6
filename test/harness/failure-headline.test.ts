/**
 * The progress line of a check that did not pass is made from its result's data, the same words the
 * failure text starts with, never cut out of that text.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../harness/check/run.js';
import { failureHeadline, formatResultFailure } from '../../harness/vitest/format.js';

function result(opts: Partial<CheckResult>): CheckResult {
  return {
    checkId: 's/x',
    title: 'x',
    clauses: ['ep.post-json'],
    level: 'must',
    status: 'failed',
    findings: [],
    exchanges: [],
    readings: {},
    notes: [],
    seed: 1,
    durationMs: 1,
    ...opts,
  } as CheckResult;
}

const finding = {
  code: 'WRONG',
  clause: 'ep.post-json',
  level: 'must',
  title: 'a headline\nthat goes on',
  message: 'a headline\nthat goes on\n  expected: x\n  seen: y',
} as CheckResult['findings'][number];

describe('failureHeadline', () => {
  it('names the first finding’s clause, level and code, as the failure text’s first line does', () => {
    const r = result({ findings: [finding] });
    expect(failureHeadline(r)).toBe('FAILED ep.post-json (must) [WRONG]');
    expect(formatResultFailure(r).startsWith(`${failureHeadline(r)}\n`)).toBe(true);
  });

  it('puts the vendor’s dispute first, and says no verdict or harness error where that is the outcome', () => {
    expect(failureHeadline(result({ findings: [finding] }), 'known bug (https://x/1)')).toBe(
      'DISPUTED by the vendor: known bug (https://x/1) — FAILED ep.post-json (must) [WRONG]',
    );
    expect(failureHeadline(result({ status: 'inconclusive', reason: 'throttled: still 429\nmore' }))).toBe(
      'NO VERDICT (not a verdict on the target): throttled: still 429',
    );
    expect(failureHeadline(result({ status: 'broken', reason: 'TypeError: x is undefined\n  at y' }))).toBe(
      'HARNESS ERROR (not a target verdict): TypeError: x is undefined',
    );
  });
});
