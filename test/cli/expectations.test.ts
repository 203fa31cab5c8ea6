import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Certificate } from '../../harness/report/certificate.js';
import { callMain, runCli, SMALL_SUITE, tempReports, type CliResult } from './helpers.js';

/** Known deviations end to end: three runs of one small suite, with and without the fault the entries describe. */
const FAULT = 'resp-uppercase-hex';
const CLAUSE = 'auth.response.signed';
const CHECK = 'mutual-exclusion/refuses-a-query-with-neither-number-as-mutuallyrequiredfieldsmissing';

function expectationsFile(entries: unknown[]): string {
  const p = join(tempReports('exp'), 'expectations.json');
  writeFileSync(p, JSON.stringify({ profile: 'reference', entries }, null, 2));
  return p;
}

interface Outcome {
  run: CliResult;
  cert: Certificate;
  junit: string;
}

async function runWith(entries: unknown[], fault: boolean | string): Promise<Outcome & { dir: string }> {
  const dir = tempReports('exprun');
  const args = [
    'run',
    '--suite',
    SMALL_SUITE,
    '--webhooks',
    'off',
    '--no-html',
    '--reports',
    dir,
    '--expectations',
    expectationsFile(entries),
  ];
  const run = await runCli(fault ? [...args, '--fault', fault === true ? FAULT : fault] : args);
  return {
    dir,
    run,
    cert: JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as Certificate,
    junit: readFileSync(join(dir, 'junit.xml'), 'utf8'),
  };
}

let expectedFail: Outcome;
let unexpectedPass: Outcome;
let expired: Outcome;
let disputed: Outcome & { dir: string };
const DISPUTE = {
  clause: 'query.both',
  kind: 'disputed',
  reason: 'we read "exactly one" as "at least one"',
  link: 'https://example.com/acme/issues/17',
};

beforeAll(async () => {
  [expectedFail, unexpectedPass, expired, disputed] = await Promise.all([
    runWith([{ clause: CLAUSE, expected: 'fail', comment: 'upper-case hex until ticket REF-1 ships', expires: '2099-12-31' }], true),
    runWith([{ check: CHECK, expected: 'fail', comment: 'was broken in 1.0' }], false),
    runWith([{ clause: CLAUSE, expected: 'fail', comment: 'was due last year', expires: '2020-01-01' }], true),
    runWith([DISPUTE], 'mutual-both-accepted'),
  ]);
}, 60_000);

describe('a disputed check', () => {
  it('reads neither as passed nor as failed: verdict CONFORMANT except disputed, shown first, JUnit still failing', () => {
    const { run, cert, junit } = disputed;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(cert.verdict).toBe('conformant-except-disputed');
    expect(cert.clauses.find((x) => x.id === 'query.both')?.status).toBe('disputed');
    expect(cert.summary.checks.disputed).toBeGreaterThan(0);
    expect(cert.disputes[0]).toMatchObject({ reason: DISPUTE.reason, link: DISPUTE.link, clauses: ['query.both'] });
    expect(run.stdout).toMatch(/Verdict: CONFORMANT except \d+ disputed checks?/);
    expect(junit).toMatch(/<testsuites[^>]*failures="[1-9]/);
    expect(junit).toContain('DISPUTED by the vendor');
  });

  it('verify-certificate recomputes the dispute, and a certificate edited to read conformant does not verify', async () => {
    const file = join(disputed.dir, 'certificate.json');
    expect((await callMain(['verify-certificate', file])).code).toBe(0);
    const { certificateDigest } = await import('../../harness/report/certificate.js');
    const forged = JSON.parse(readFileSync(file, 'utf8')) as Certificate;
    forged.verdict = 'conformant';
    forged.integrity.certificateSha256 = certificateDigest(forged);
    writeFileSync(file, JSON.stringify(forged, null, 2));
    const v = await callMain(['verify-certificate', file]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('recomputed verdict: conformant-except-disputed');
  });
});

describe('expectations (known deviations)', () => {
  it('reports an expected failure as such: exit 0, vitest and JUnit green, the certificate honest', () => {
    const { run, cert, junit } = expectedFail;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('failed as expected (known deviation)');
    expect(junit).toMatch(/<testsuites[^>]*failures="0"/);
    expect(cert.verdict).toBe('non-conformant');
    expect(cert.exitCode).toBe(0);
    expect(cert.summary.checks.expectedFail).toBeGreaterThan(0);
    expect(cert.summary.checks.failed).toBe(0);
    const c = cert.clauses.find((x) => x.id === CLAUSE)!;
    expect(c.status).toBe('failed');
    expect(c.knownDeviation?.comment).toBe('upper-case hex until ticket REF-1 ships');
    expect(cert.reasons.join('\n')).toContain('known deviation');
  });

  it('still runs and records every expected check (never skipped)', () => {
    const { cert } = expectedFail;
    expect(cert.summary.checks.skipped + cert.summary.checks.expectedSkip).toBe(0);
    expect(cert.results.count).toBe(cert.summary.checks.total);
  });

  it('reports an unexpected pass as a warning line and a certificate entry, not a failure', () => {
    const { run, cert } = unexpectedPass;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/warning: unexpected pass: check mutual-exclusion\/refuses-a-query-with-neither/);
    expect(cert.verdict).toBe('conformant');
    expect(cert.deviations.unexpectedPasses).toHaveLength(1);
    expect(cert.summary.checks.unexpectedPass).toBe(1);
  });

  it('fails the run with exit 1 on an expired entry and names it', () => {
    const { run, cert } = expired;
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain(`the entry for clause ${CLAUSE} expired on 2020-01-01`);
    expect(cert.deviations.expired).toEqual([{ entry: `clause ${CLAUSE}`, expires: '2020-01-01', comment: 'was due last year' }]);
    // An expired entry is not applied: the failures count as failures.
    expect(cert.summary.checks.failed).toBeGreaterThan(0);
    expect(cert.summary.checks.expectedFail).toBe(0);
  });

  const malformed: [string, unknown, RegExp][] = [
    ['not JSON', '{ entries: ', /not valid JSON/],
    ['an entry without a comment', { entries: [{ clause: CLAUSE, expected: 'fail' }] }, /"comment" is required/],
    ['an unknown clause', { entries: [{ clause: 'no.such', expected: 'fail', comment: 'x' }] }, /"no\.such" is not a clause id/],
    [
      'an unknown check',
      { entries: [{ check: 'mutual-exclusion/no-such-check', expected: 'fail', comment: 'x' }] },
      /suite mutual-exclusion has no such check/,
    ],
    [
      'a bad expiry date',
      { entries: [{ clause: CLAUSE, expected: 'fail', comment: 'x', expires: '2026-02-30' }] },
      /"expires" must be a date YYYY-MM-DD/,
    ],
    ['a bad expected value', { entries: [{ clause: CLAUSE, expected: 'flaky', comment: 'x' }] }, /"expected" must be "fail" or "skip"/],
    ['both check and clause', { entries: [{ clause: CLAUSE, check: CHECK, expected: 'fail', comment: 'x' }] }, /exactly one of "check"/],
    ['another profile', { profile: 'acme', entries: [] }, /is for profile "acme"/],
  ];
  for (const [what, content, reason] of malformed) {
    it(`refuses a malformed file (${what}) with exit 2 before running`, async () => {
      const p = join(tempReports('bad-exp'), 'x.json');
      writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
      const r = await callMain(['run', '--suite', SMALL_SUITE, '--expectations', p, '--reports', tempReports('unused')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(reason);
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    });
  }
});
