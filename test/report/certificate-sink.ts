/**
 * One run's inputs that reach every branch of the certificate (disputes, deviations, an expired entry,
 * an unfinished check, throttling, a check without verdict, a doctor not run, a replay note, the embedded
 * reference's command, reproduction scripts, readings, a should-level finding): the golden files beside
 * it were written by the certificate module before it was split, so the split is proved byte-identical.
 */
import { clauses } from '../../harness/clauses/registry.js';
import type { CertificateInput } from '../../harness/report/certificate.js';
import { parseExpectations } from '../../harness/report/expectations.js';
import type { StoredResult } from '../../harness/run/results.js';

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
    exercised: status === 'passed' ? (opts.clauses ?? ['query.neither']) : [],
    seed: 1,
    durationMs: 1,
    suite: checkId.split('/')[0]!,
    target: 'http://127.0.0.1:1',
    profile: 'reference',
    ...opts,
  };
}

const finding = (clause: string, code: string, exchangeId: string) => ({
  code,
  clause,
  level: 'must' as const,
  title: code,
  message: `${code}\nmore`,
  exchangeId,
});

const throttledEx = (id: string, answers: number, waitMs: number) => ({
  id,
  label: 'q',
  request: { method: 'POST', url: 'http://127.0.0.1:1/q', headers: {}, body: '{}' },
  timings: { startedAt: '2026-01-01T00:00:00.000Z', totalMs: 1 },
  throttled: { answers, waitMs },
});

const SHOULD = clauses.find((c) => c.level === 'should')!.id;
const MUST = clauses.filter((c) => c.level === 'must' && c.party === 'service').map((c) => c.id);

export function kitchenSink(): CertificateInput {
  const expectations = parseExpectations(
    JSON.stringify({
      entries: [
        { check: 'b/disputed', kind: 'disputed', reason: 'the document | allows it', link: 'https://example.com/7' },
        { check: 'b/deviates', expected: 'fail', comment: 'ACME-1: fix in 4.2' },
        { check: 'b/passes', expected: 'fail', comment: 'ACME-2: fixed already?' },
        { check: 'b/old', expected: 'fail', comment: 'ACME-3', expires: '2025-01-01' },
        { check: 'b/skips', expected: 'skip', comment: 'ACME-4: no refunds' },
        { check: 'b/never', expected: 'fail', comment: 'ACME-5: not in this run' },
      ],
    }),
    '/abs/expectations.json',
    { isClause: (id) => clauses.some((c) => c.id === id) },
  );
  const results = [
    result('a/one', 'passed', { exchanges: [throttledEx('x-000001', 2, 2000)], readings: { 'price-point.unroundable': 'refused' } }),
    result('a/two', 'inconclusive', {
      reason: 'no verdict (throttled): gateway',
      inconclusive: { cause: 'throttled' },
      exchanges: [throttledEx('x-000002', 5, 4000)],
    }),
    result('a/fails', 'failed', {
      clauses: [MUST[1]!],
      findings: [
        finding(MUST[1]!, 'WRONG_STATUS', 'x-000003'),
        finding(MUST[1]!, 'WRONG_KEY', 'x-000004'),
        finding(MUST[1]!, 'WRONG_CODE', 'x-000005'),
        finding(MUST[1]!, 'WRONG_BODY', 'x-000006'),
        finding(MUST[1]!, 'WRONG_SIG', 'x-000007'),
      ],
      repro: ['a__fails--x-000003.mjs', 'a__fails--x-000004.mjs'],
      reproSecretEnvs: { 'a__fails--x-000003.mjs': ['ACME_SECRET'] },
      readings: { 'price-point.unroundable': 'rounded', 'idem.refund-like-payment': 'accepted' },
    }),
    result('a/should', 'failed', { clauses: [SHOULD], level: 'should', findings: [finding(SHOULD, 'SLOW', 'x-000008')] }),
    result('a/skipped', 'skipped', {
      clauses: [MUST[2]!],
      reason: 'precondition: no chargeback control — declare sandbox.chargeback in the profile to run it',
      declare: ['sandbox.chargeback'],
    }),
    result('a/flag', 'skipped', { clauses: [MUST[3]!], reason: 'precondition: webhooks are off (--webhooks off)\nmore' }),
    result('b/disputed', 'failed', { findings: [finding('query.neither', 'DISPUTED_ONE', 'x-000009')] }),
    result('b/deviates', 'failed', { clauses: [MUST[4]!], findings: [finding(MUST[4]!, 'DEV', 'x-000010')] }),
    result('b/passes', 'passed', { clauses: [MUST[5]!] }),
    result('b/old', 'failed', { clauses: [MUST[6]!], findings: [finding(MUST[6]!, 'OLD', 'x-000011')] }),
    result('b/skips', 'skipped', { clauses: [MUST[7]!], reason: 'precondition: refunds' }),
    result('c/broken', 'broken', { clauses: [MUST[8]!], reason: 'harness error: boom\nstack' }),
  ];
  return {
    results,
    meta: {
      kit: { name: 'mpsi-conformance', version: '0.1.0' },
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:10:00.000Z',
      seed: 7,
      numRuns: 20,
      webhooks: 'quick',
      timeScale: 0.01,
      readings: 'alt',
      profile: { name: 'reference', file: '/p/my profile.json', environment: 'sandbox' },
      target: 'embedded',
      filters: { suites: ['a', 'b'], clauses: ['query.neither'] },
      faults: ['f1', "it's"],
      shard: '1/2',
      doctor: { ran: false },
      expectations,
      reportsDir: '/abs/reports',
      replay: { bin: '/kit/bin/mpsi-conformance.js', args: ['run', '--seed', '7'], note: 'the profile was changed since' },
      traffic: { requests: 9, webhooksReceived: 2, bytesSent: 1500, bytesReceived: 2_500_000, throttledAnswers: 0, throttleWaitMs: 0 },
    },
    runStatus: {
      moduleErrors: [{ file: 'x.test.ts', message: 'cannot import\nat line 1' }],
      unhandledErrors: ['late error\nstack'],
      reason: 'interrupted',
      interruptedBy: 'SIGTERM',
      unfinished: ['c/late'],
      tests: [
        { checkId: 'a/fails', name: 'a › fails', state: 'failed', error: 'FAILED x\nmore' },
        { name: 'hook', state: 'failed', error: 'beforeAll failed\nstack' },
        { checkId: 'a/one', name: 'a › one', state: 'passed' },
      ],
    },
    reproDigests: { 'a__fails--x-000003.mjs': 'ab'.repeat(32), 'a__fails--x-000004.mjs': '' },
  };
}

/** The same run with the doctor's doubts on a failed clause, and no replay recorded. */
export function withDoubts(): CertificateInput {
  const base = kitchenSink();
  const { replay: _r, traffic: _t, ...meta } = base.meta;
  const clause = MUST[1]!;
  return {
    ...base,
    meta: {
      ...meta,
      target: 'https://user:pw@vendor.example/api?key=1',
      doctor: {
        ran: true,
        verified: 12,
        wrong: 0,
        notVerifiable: 3,
        warnings: 1,
        requests: 40,
        durationMs: 1000,
        report: 'doctor.md',
        doubts: [{ path: 'merchants.primary.id', assumption: 'a | b', clauses: [clause, 'no.such'], answered: '403', fix: 'if right: …' }],
      },
    },
  };
}
