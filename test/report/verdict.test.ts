import { describe, expect, it } from 'vitest';
import { computeVerdict } from '../../harness/report/verdict.js';
import { parseExpectations, type Expectations } from '../../harness/report/expectations.js';
import { buildCertificate, certificateDigest, renderMarkdown } from '../../harness/report/certificate.js';
import { canonicalJson } from '../../harness/report/canonical.js';
import type { RunMeta } from '../../harness/report/run-meta.js';
import { summaryText } from '../../harness/report/summary-table.js';
import { formatResultFailure } from '../../harness/vitest/format.js';
import type { StoredResult } from '../../harness/run/results.js';
import { clauses, hasClause } from '../../harness/clauses/registry.js';

/** Synthetic stored results: the verdict is a pure function of them, so its rules are tested without a target. */
function result(checkId: string, status: StoredResult['status'], opts: Partial<StoredResult> = {}): StoredResult {
  return {
    checkId,
    title: checkId,
    clauses: ['query.neither'],
    level: 'must',
    status,
    findings: [],
    exchanges: [],
    readings: {},
    notes: [],
    // A passed check is credited with what its assertions exercised: here its own clauses unless told.
    exercised: status === 'passed' ? (opts.clauses ?? ['query.neither']) : [],
    seed: 1,
    durationMs: 1,
    suite: checkId.split('/')[0]!,
    target: 'http://127.0.0.1:1',
    profile: 'reference',
    ...opts,
  };
}

const SHOULD = clauses.find((c) => c.level === 'should')?.id;
const finding = (clause: string, code = 'WRONG_ERROR_KEY', exchangeId = 'x-000001') => ({
  code,
  clause,
  level: 'must' as const,
  title: code,
  message: `${code}\nmore`,
  exchangeId,
});

function expectations(entries: unknown[]): Expectations {
  return parseExpectations(JSON.stringify({ entries }), 'test.json', { isClause: hasClause });
}

describe('computeVerdict', () => {
  it('is conformant with exit 0 when every check passed', () => {
    const v = computeVerdict({
      results: [result('a/one', 'passed'), result('a/two', 'skipped', { reason: 'precondition: no refunds' })],
      today: '2026-01-01',
    });
    expect(v).toMatchObject({ verdict: 'conformant', exitCode: 0 });
    expect(v.clauses.find((c) => c.id === 'query.neither')?.status).toBe('passed');
  });

  it('is non-conformant with exit 1 on a must-level finding, and names the clause', () => {
    const v = computeVerdict({ results: [result('a/one', 'failed', { findings: [finding('query.neither')] })], today: '2026-01-01' });
    expect(v).toMatchObject({ verdict: 'non-conformant', exitCode: 1 });
    expect(v.reasons[0]).toContain('query.neither');
    expect(v.clauses.find((c) => c.id === 'query.neither')).toMatchObject({
      status: 'failed',
      failures: [{ checkId: 'a/one', code: 'WRONG_ERROR_KEY', exchangeId: 'x-000001' }],
    });
  });

  it.skipIf(!SHOULD)('shows a should-level failure as a warning and keeps exit 0 and the verdict', () => {
    const v = computeVerdict({
      results: [result('a/one', 'failed', { clauses: [SHOULD!], level: 'should', findings: [finding(SHOULD!)] })],
      today: '2026-01-01',
    });
    expect(v).toMatchObject({ verdict: 'conformant', exitCode: 0 });
    expect(v.warnings.join('\n')).toContain('should-level recommendation not met');
  });

  it('takes the level of a finding from the registry, not from the check', () => {
    const v = computeVerdict({
      results: [result('a/one', 'failed', { level: 'should', findings: [finding('query.neither')] })],
      today: '2026-01-01',
    });
    expect(v.exitCode).toBe(1);
  });

  it('gives no verdict (exit 2) for a harness error, an unreachable target, or a suite file that did not load', () => {
    const broken = computeVerdict({ results: [result('a/one', 'broken', { reason: 'TypeError: x' })], today: '2026-01-01' });
    expect(broken).toMatchObject({ verdict: 'incomplete', exitCode: 2 });
    const unreachable = computeVerdict({
      results: [
        result('a/one', 'failed', {
          findings: [finding('query.neither', 'NO_RESPONSE')],
          exchanges: [
            {
              id: 'x-000001',
              label: 'q',
              request: { method: 'POST', url: 'u', headers: {}, body: '' },
              error: { kind: 'unreachable', message: 'connection refused (ECONNREFUSED)' },
              timings: { startedAt: '', totalMs: 1 },
            },
          ],
        }),
      ],
      today: '2026-01-01',
    });
    expect(unreachable).toMatchObject({ verdict: 'incomplete', exitCode: 2 });
    expect(unreachable.reasons.join()).toContain('unreachable');
    // The kind decides, not the words: a connection that was made and lost is the target's doing, whatever its message says.
    const reset = computeVerdict({
      results: [
        result('a/one', 'failed', {
          findings: [finding('query.neither', 'NO_RESPONSE')],
          exchanges: [
            {
              id: 'x-000001',
              label: 'q',
              request: { method: 'POST', url: 'u', headers: {}, body: '' },
              error: { kind: 'connection', message: 'connection reset by the server (ECONNREFUSED in the words of a proxy)' },
              timings: { startedAt: '', totalMs: 1 },
            },
          ],
        }),
      ],
      today: '2026-01-01',
    });
    expect(reset).toMatchObject({ verdict: 'non-conformant', exitCode: 1 });
    expect(reset.checks[0]!.outcome).toBe('failed');
    const notLoaded = computeVerdict({
      results: [result('a/one', 'passed')],
      today: '2026-01-01',
      runStatus: { moduleErrors: [{ file: 'b.test.ts', message: 'SyntaxError' }], unhandledErrors: [] },
    });
    expect(notLoaded.exitCode).toBe(2);
    const lost = computeVerdict({
      results: [result('a/one', 'passed')],
      today: '2026-01-01',
      runStatus: {
        moduleErrors: [],
        unhandledErrors: [],
        tests: [{ checkId: 'a/two', name: 'a > two', state: 'failed', error: 'Test timed out' }],
      },
    });
    expect(lost.exitCode).toBe(2);
    expect(computeVerdict({ results: [], today: '2026-01-01' }).exitCode).toBe(2);
  });

  it('a must-level failure outranks a harness error (exit 1: the evidence stands)', () => {
    const v = computeVerdict({
      results: [result('a/one', 'failed', { findings: [finding('query.neither')] }), result('a/two', 'broken')],
      today: '2026-01-01',
    });
    expect(v.exitCode).toBe(1);
  });

  it('credits a clause only when a check exercised it, never because a check names it', () => {
    // The stateful case: a check lists 27 clauses, its assertions exercised two.
    const stateful = result('stateful/x', 'passed', {
      clauses: ['err.ref.amount-exceeded', 'err.ref.failed', 'env.body.object'],
      exercised: ['err.ref.amount-exceeded', 'env.body.object'],
    });
    const dedicated = result('refund-errors/y', 'skipped', {
      clauses: ['err.ref.failed'],
      reason: 'precondition: the profile declares no refunds.failingReason',
    });
    const v = computeVerdict({ results: [stateful, dedicated], today: '2026-01-01' });
    const failedRow = v.clauses.find((c) => c.id === 'err.ref.failed')!;
    expect(failedRow.status).toBe('skipped-precondition');
    expect(failedRow.basis).toContain('refunds.failingReason');
    expect(failedRow.basis).toContain('1 other check naming it ran, none exercised it');
    expect(v.clauses.find((c) => c.id === 'err.ref.amount-exceeded')).toMatchObject({ status: 'passed', exercisedBy: ['stateful/x'] });
    const alone = computeVerdict({ results: [stateful], today: '2026-01-01' }).clauses.find((c) => c.id === 'err.ref.failed')!;
    expect(alone).toMatchObject({ status: 'not-checked' });
    expect(alone.basis).toContain('none exercised it');
  });

  it('credits an invariant exercised by a check that failed on another clause, and never a clause with a finding', () => {
    const r = result('a/one', 'failed', {
      clauses: ['query.neither'],
      findings: [finding('query.neither')],
      exercised: ['env.body.object'],
    });
    const v = computeVerdict({ results: [r], today: '2026-01-01' });
    expect(v.clauses.find((c) => c.id === 'env.body.object')).toMatchObject({ status: 'passed' });
    expect(v.clauses.find((c) => c.id === 'query.neither')?.status).toBe('failed');
    expect(v.clauses.find((c) => c.id === 'env.code.integer')?.status).toBe('not-checked');
  });

  it('says the kit has no check for a clause no result names in a full run, and why; a partial run says it was not selected', () => {
    const full = computeVerdict({
      results: [result('a/one', 'passed')],
      today: '2026-01-01',
      scope: 'full',
      noCheckReasons: { 'query.transient': 'no sandbox control provokes a transient failure' },
    });
    expect(full.clauses.find((c) => c.id === 'query.transient')?.basis).toBe(
      'the kit has no check for this: no sandbox control provokes a transient failure',
    );
    const partial = computeVerdict({ results: [result('a/one', 'passed')], today: '2026-01-01', scope: 'partial' });
    expect(partial.clauses.find((c) => c.id === 'query.transient')?.basis).toBe('no check of it was selected in this run');
  });

  it(`reads the level of a finding from one place: a should-level finding \
on a must clause is not met, not failed, and the verdict agrees`, () => {
    const r = result('payment-query/z', 'failed', {
      clauses: ['ep.post-json'],
      level: 'should',
      findings: [{ ...finding('ep.post-json', 'NON_JSON_CONTENT_TYPE_SERVED'), level: 'should' as const }],
    });
    const v = computeVerdict({ results: [r], today: '2026-01-01' });
    expect(v).toMatchObject({ verdict: 'conformant', exitCode: 0 });
    const row = v.clauses.find((c) => c.id === 'ep.post-json')!;
    expect(row.status).toBe('not-met');
    expect(v.levels.must.failed).toBe(0);
    expect(v.levels.must['not-met']).toBe(1);
    expect(v.warnings.join('\n')).toContain('should-level recommendation not met: payment-query/z (ep.post-json)');
    // The failure text vitest, JUnit and Allure show says the same level.
    expect(formatResultFailure({ ...r, exchanges: [] } as never)).toMatch(/^FAILED ep\.post-json \(should\)/);
    const { certificate } = buildCertificate({
      results: [r],
      meta: {
        kit: { name: 'k', version: '1' },
        startedAt: '2026-01-01T00:00:00Z',
        seed: 1,
        numRuns: 1,
        webhooks: 'off',
        profile: { name: 'p', file: 'p.json', environment: 'sandbox' },
        target: 'embedded',
        filters: { suites: [], clauses: [] },
        faults: [],
      },
      runStatus: { moduleErrors: [], unhandledErrors: [] },
      reproDigests: {},
    });
    const summary = summaryText(certificate, { certificate: 'c.md' });
    expect(summary).not.toContain('Failed clauses');
    expect(summary).toContain('Should-level recommendations not met');
    expect(summary).toContain('Verdict: CONFORMANT');
    expect(renderMarkdown(certificate)).toMatch(/## Failed clauses\n\nNone\./);
  });

  describe('with a dispute', () => {
    const disputed = (entries: unknown[]) => expectations(entries);
    const entry = { check: 'a/one', kind: 'disputed', reason: 'the document allows acceptance', link: 'https://example.com/issues/7' };
    it('never reads as passed: the check is disputed, its clause disputed, the verdict conformant except disputed', () => {
      const r = result('a/one', 'failed', { findings: [finding('query.neither')] });
      const v = computeVerdict({
        results: [r, result('a/two', 'passed', { clauses: ['query.neither'] })],
        today: '2026-01-01',
        expectations: disputed([entry]),
      });
      expect(v).toMatchObject({ verdict: 'conformant-except-disputed', exitCode: 0 });
      expect(v.checks[0]!.outcome).toBe('disputed');
      expect(v.clauses.find((c) => c.id === 'query.neither')?.status).toBe('disputed');
      expect(v.disputes).toEqual([
        { checkId: 'a/one', entry: 'check a/one', reason: entry.reason, link: entry.link, clauses: ['query.neither'] },
      ]);
      expect(v.reasons.join('\n')).toContain('1 check disputed by the vendor');
    });
    it("disputes only the check's own clauses: an invariant finding in a disputed check still counts", () => {
      const r = result('a/one', 'failed', {
        findings: [finding('query.neither'), finding('auth.response.signed', 'RESPONSE_SIGNATURE_INVALID')],
      });
      const v = computeVerdict({ results: [r], today: '2026-01-01', expectations: disputed([entry]) });
      expect(v).toMatchObject({ verdict: 'non-conformant', exitCode: 1 });
      expect(v.clauses.find((c) => c.id === 'auth.response.signed')?.status).toBe('failed');
      expect(v.clauses.find((c) => c.id === 'query.neither')?.status).toBe('disputed');
    });
    it('refuses a dispute without a reason or a link', () => {
      expect(() => disputed([{ check: 'a/one', kind: 'disputed', link: 'https://x.org/1' }])).toThrow(/"reason" is required/);
      expect(() => disputed([{ check: 'a/one', kind: 'disputed', reason: 'wrong' }])).toThrow(/"link" is required/);
      expect(() => disputed([{ check: 'a/one', kind: 'disputed', reason: 'wrong', link: 'https://x.org/1', expected: 'fail' }])).toThrow(
        /unknown field "expected"/,
      );
    });
    it('warns about a dispute no finding needed', () => {
      const v = computeVerdict({ results: [result('a/one', 'passed')], today: '2026-01-01', expectations: disputed([entry]) });
      expect(v.verdict).toBe('conformant');
      expect(v.warnings.join('\n')).toContain('dispute not needed');
    });
  });

  describe('with expectations', () => {
    const failing = result('a/one', 'failed', { findings: [finding('query.neither')] });
    it('turns a covered failure into an expected failure: exit 0, verdict still non-conformant', () => {
      const v = computeVerdict({
        results: [failing],
        today: '2026-01-01',
        expectations: expectations([{ clause: 'query.neither', expected: 'fail', comment: 'known' }]),
      });
      expect(v).toMatchObject({ verdict: 'non-conformant', exitCode: 0 });
      expect(v.checks[0]!.outcome).toBe('expected-fail');
    });
    it('does not cover a finding against another clause', () => {
      const two = result('a/one', 'failed', { findings: [finding('query.neither'), finding('query.both')] });
      const v = computeVerdict({
        results: [two],
        today: '2026-01-01',
        expectations: expectations([{ clause: 'query.neither', expected: 'fail', comment: 'known' }]),
      });
      expect(v.exitCode).toBe(1);
    });
    it('reports an unexpected pass (check and clause entries) as a warning, not a failure', () => {
      const v = computeVerdict({
        results: [result('a/one', 'passed')],
        today: '2026-01-01',
        expectations: expectations([
          { check: 'a/one', expected: 'fail', comment: 'was broken' },
          { clause: 'query.neither', expected: 'fail', comment: 'was broken' },
        ]),
      });
      expect(v.exitCode).toBe(0);
      expect(v.deviations.unexpectedPasses).toHaveLength(2);
      expect(v.warnings.filter((w) => w.startsWith('unexpected pass'))).toHaveLength(2);
    });
    it('fails the run (exit 1) on an expired entry and does not apply it', () => {
      const v = computeVerdict({
        results: [failing],
        today: '2026-03-02',
        expectations: expectations([{ clause: 'query.neither', expected: 'fail', comment: 'due', expires: '2026-03-01' }]),
      });
      expect(v.exitCode).toBe(1);
      expect(v.checks[0]!.outcome).toBe('failed');
      expect(v.reasons.join('\n')).toContain('expired on 2026-03-01');
      const sameDay = computeVerdict({
        results: [failing],
        today: '2026-03-01',
        expectations: expectations([{ clause: 'query.neither', expected: 'fail', comment: 'due', expires: '2026-03-01' }]),
      });
      expect(sameDay.exitCode).toBe(0);
    });
    it('marks an expected skip', () => {
      const v = computeVerdict({
        results: [result('a/one', 'skipped', { reason: 'precondition: x' })],
        today: '2026-01-01',
        expectations: expectations([{ check: 'a/one', expected: 'skip', comment: 'no refunds here' }]),
      });
      expect(v.checks[0]!.outcome).toBe('expected-skip');
    });
  });
});

describe('checks without a verdict', () => {
  it('a must-level check without a verdict makes the run exit 2, never 1, and says how many and why', () => {
    const v = computeVerdict({
      results: [
        result('a/one', 'passed'),
        result('a/two', 'inconclusive', { reason: 'no verdict (throttled): x', inconclusive: { cause: 'throttled' } }),
      ],
      today: '2026-01-01',
    });
    expect(v.exitCode).toBe(2);
    expect(v.verdict).toBe('incomplete');
    expect(v.checks.find((k) => k.checkId === 'a/two')!.outcome).toBe('inconclusive');
    expect(v.reasons.join('\n')).toMatch(/1 must-level check got no verdict \(1 throttled\)/);
    expect(v.clauses.find((c) => c.id === 'query.neither')!.status).toBe('passed');
  });

  it('a should-level check without a verdict is a warning: exit 0', () => {
    const v = computeVerdict({
      results: [result('a/one', 'passed'), result('a/two', 'inconclusive', { level: 'should', inconclusive: { cause: 'machine-busy' } })],
      today: '2026-01-01',
    });
    expect(v.exitCode).toBe(0);
    expect(v.warnings.join('\n')).toMatch(/1 should-level check got no verdict \(1 machine too busy\)/);
  });

  it('a clause only an inconclusive check names is not checked, with the reason', () => {
    const v = computeVerdict({
      results: [result('a/two', 'inconclusive', { reason: 'no verdict (throttled): gateway', inconclusive: { cause: 'throttled' } })],
      today: '2026-01-01',
    });
    const c = v.clauses.find((x) => x.id === 'query.neither')!;
    expect(c.status).toBe('not-checked');
    expect(c.basis).toContain('no verdict (throttled)');
    expect(
      formatResultFailure({ ...result('a/two', 'inconclusive', { reason: 'no verdict (throttled): gateway' }), exchanges: [] }),
    ).toMatch(/^NO VERDICT/);
  });
});

describe('certificate', () => {
  const meta: RunMeta = {
    kit: { name: 'mpsi-conformance', version: '0.1.0' },
    startedAt: '2026-01-01T00:00:00.000Z',
    seed: 7,
    numRuns: 20,
    webhooks: 'off',
    profile: { name: 'reference', file: 'reference.json', environment: 'sandbox' },
    target: 'embedded',
    filters: { suites: [], clauses: [] },
    faults: [],
  };
  it('counts checks without a verdict and the throttled answers, everywhere a status is shown', () => {
    const throttledEx = (id: string, answers: number, waitMs: number) => ({
      id,
      label: 'q',
      request: { method: 'POST', url: 'http://127.0.0.1:1/q', headers: {}, body: '{}' },
      timings: { startedAt: '2026-01-01T00:00:00.000Z', totalMs: 1 },
      throttled: { answers, waitMs },
    });
    const results = [
      result('a/one', 'passed', { exchanges: [throttledEx('x-000001', 2, 2000)] }),
      result('a/two', 'inconclusive', {
        reason: 'no verdict (throttled): gateway',
        inconclusive: { cause: 'throttled' },
        exchanges: [throttledEx('x-000002', 5, 4000)],
      }),
    ];
    // As a run's finish gives it: the checks' and receivers' sums, the throttling figures recomputed from the exchanges.
    const traffic = { requests: 2, webhooksReceived: 0, bytesSent: 100, bytesReceived: 200, throttledAnswers: 0, throttleWaitMs: 0 };
    const { certificate } = buildCertificate({
      results,
      meta: { ...meta, traffic },
      runStatus: { moduleErrors: [], unhandledErrors: [] },
      reproDigests: {},
    });
    expect(certificate.exitCode).toBe(2);
    expect(certificate.verdict).toBe('incomplete');
    expect(certificate.summary.checks.inconclusive).toBe(1);
    expect(certificate.summary.checks.failed).toBe(0);
    expect(certificate.suites[0]!.inconclusive).toBe(1);
    expect(certificate.traffic).toMatchObject({ throttledAnswers: 7, throttleWaitMs: 6000 });
    const md = renderMarkdown(certificate);
    expect(md).toContain('1 without verdict');
    expect(md).toContain('7 throttled answers (6.0 s waited');
    expect(md).toContain('no verdict |');
    expect(summaryText(certificate, { certificate: 'c.md' })).toContain('no verdict');
  });

  it('lists every registry clause, hashes canonically, and renders Markdown from the JSON alone', () => {
    const { certificate } = buildCertificate({
      results: [result('a/one', 'passed')],
      meta,
      runStatus: { moduleErrors: [], unhandledErrors: [] },
      reproDigests: {},
    });
    expect(certificate.clauses).toHaveLength(clauses.length);
    expect(certificate.integrity.certificateSha256).toBe(certificateDigest(certificate));
    expect(certificate.integrity.resultsSha256).toMatch(/^[0-9a-f]{64}$/);
    const again = buildCertificate({
      results: [result('a/one', 'passed')],
      meta,
      runStatus: { moduleErrors: [], unhandledErrors: [] },
      reproDigests: {},
    }).certificate;
    expect(canonicalJson(again)).toBe(canonicalJson(certificate));
    expect(renderMarkdown(certificate)).toContain('**Verdict: CONFORMANT**');
    const other = buildCertificate({
      results: [result('a/one', 'passed', { durationMs: 2 })],
      meta,
      runStatus: { moduleErrors: [], unhandledErrors: [] },
      reproDigests: {},
    }).certificate;
    expect(other.integrity.resultsSha256).not.toBe(certificate.integrity.resultsSha256);
  });

  it('lists the readings the target took: topic, reading, the checks that saw it', () => {
    const results = [
      result('a/one', 'passed', { readings: { 'price-point.unroundable': '422 notSupported' } }),
      result('a/two', 'passed', { readings: { 'price-point.unroundable': '422 notSupported', 'idem.refund-like-payment': 'accepted' } }),
      result('a/three', 'failed', {
        findings: [finding('query.neither')],
        readings: { 'price-point.unroundable': '2006 amountOutOfRange' },
      }),
    ];
    const { certificate } = buildCertificate({ results, meta, runStatus: { moduleErrors: [], unhandledErrors: [] }, reproDigests: {} });
    expect(certificate.readings).toEqual([
      { topic: 'idem.refund-like-payment', reading: 'accepted', checks: ['a/two'] },
      { topic: 'price-point.unroundable', reading: '2006 amountOutOfRange', checks: ['a/three'] },
      { topic: 'price-point.unroundable', reading: '422 notSupported', checks: ['a/one', 'a/two'] },
    ]);
    const md = renderMarkdown(certificate);
    expect(md).toContain('## Readings the target took');
    expect(md).toContain('| price-point.unroundable | 422 notSupported | a/one, a/two |');
  });

  it('shows a dispute prominently, in the verdict line, and never as passed; an edited verdict no longer follows from the results', () => {
    const entries = [{ check: 'a/one', kind: 'disputed', reason: 'the document allows acceptance', link: 'https://example.com/issues/7' }];
    const withDispute: RunMeta = { ...meta, expectations: expectations(entries) };
    const results = [result('a/one', 'failed', { findings: [finding('query.neither')] })];
    const { certificate } = buildCertificate({
      results,
      meta: withDispute,
      runStatus: { moduleErrors: [], unhandledErrors: [] },
      reproDigests: {},
    });
    expect(certificate.verdict).toBe('conformant-except-disputed');
    expect(certificate.summary.checks.disputed).toBe(1);
    expect(certificate.summary.checks.passed).toBe(0);
    const md = renderMarkdown(certificate);
    expect(md).toContain('**Verdict: CONFORMANT except 1 disputed check**');
    expect(md.indexOf('## ⚠ Disputed checks')).toBeLessThan(md.indexOf('## Clauses per level'));
    expect(md).toContain('https://example.com/issues/7');
    expect(md).toMatch(/\| `query\.neither` \| must \| service \| DISPUTED/);
    // The verdict rebuilt from the same results and meta is the same; a hand-made "conformant" is not.
    const rebuilt = buildCertificate({
      results,
      meta: withDispute,
      runStatus: { moduleErrors: [], unhandledErrors: [] },
      reproDigests: {},
    }).certificate;
    expect(rebuilt.verdict).toBe('conformant-except-disputed');
    const summary = summaryText(certificate, { certificate: 'c.md' });
    expect(summary).toContain('DISPUTED checks');
    expect(summary).toContain('Verdict: CONFORMANT except 1 disputed check');
  });

  it('prints a replay with every run-changing flag and repro commands with the variables the scripts read', () => {
    const replayMeta: RunMeta = {
      ...meta,
      reportsDir: '/abs/reports',
      faults: ['f1'],
      replay: {
        bin: '/kit/bin/mpsi-conformance.js',
        args: ['run', '--profile', '/p/my profile.json', '--seed', '7', '--webhooks', 'off', '--fault', 'f1'],
      },
    };
    const r = result('a/one', 'failed', {
      findings: [finding('query.neither', 'X', 'x-000002')],
      repro: ['a__one--x-000002.mjs'],
      reproSecretEnvs: { 'a__one--x-000002.mjs': ['ACME_SECRET'] },
    });
    const { certificate } = buildCertificate({
      results: [r],
      meta: replayMeta,
      runStatus: { moduleErrors: [], unhandledErrors: [] },
      reproDigests: {},
    });
    expect(certificate.commands.replay).toBe(
      "node /kit/bin/mpsi-conformance.js run --profile '/p/my profile.json' --seed 7 --webhooks off --fault f1",
    );
    expect(certificate.commands.reference).toBe('node /kit/bin/mpsi-conformance.js serve --fault f1');
    expect(certificate.repro[0]).toMatchObject({
      exchangeId: 'x-000002',
      secretEnvs: ['ACME_SECRET'],
      command: 'node /abs/reports/repro/a__one--x-000002.mjs',
    });
    expect(renderMarkdown(certificate)).toContain('# a/one · x-000002 · reads ACME_SECRET\nnode /abs/reports/repro/a__one--x-000002.mjs');
    const md = renderMarkdown(certificate);
    expect(md).not.toContain('MPSI_SECRET_PRIMARY');
    expect(md).not.toContain('tsx');
  });

  it('canonical JSON sorts keys at every depth and ignores undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: undefined }], c: 'x' } })).toBe('{"a":{"c":"x","d":[2,{"f":1}]},"b":1}');
  });
});
