import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../reference/index.js';
import { allFiles, callMain, fixtureSecrets, REFERENCE_PROFILE, secretHits, tempReports } from '../cli/helpers.js';

interface ParityJson {
  exitCode: number;
  seed: number;
  figures: { ratio: number; undeclared: number; clauses: Record<string, number>; checks: Record<string, number> };
  clauses: { clause: string; verdict: string }[];
  checks: { checkId: string; verdict: string; skipReason?: { a?: string; b?: string } }[];
  requests: { side: string; checkId: string; method: string; path: string; endpoint?: string; auth: string; sent: boolean }[];
}

const read = (dir: string) => JSON.parse(readFileSync(join(dir, 'parity.json'), 'utf8')) as ParityJson;

describe('mpsi-conformance parity', () => {
  it('finds the reference at 100% parity with itself over every suite, exits 0, and writes the report without a secret', async () => {
    const dir = tempReports('parity-ok');
    const r = await callMain(['parity', '--a', REFERENCE_PROFILE, '--b', REFERENCE_PROFILE, '--seed', '11', '--reports', dir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/seed 11 — replay with --seed 11/);
    expect(r.stdout).toMatch(/^Parity 100\.0%/m);
    const p = read(dir);
    expect(p.figures.ratio).toBe(1);
    expect(p.figures.undeclared).toBe(0);
    expect(p.figures.clauses.different).toBe(0);
    expect(p.figures.checks.equal).toBeGreaterThan(150);
    expect(p.requests.filter((q) => q.side === 'a').length).toBeGreaterThan(1000);
    expect(readFileSync(join(dir, 'parity.md'), 'utf8')).toContain('## Parity: 100.0% of compared clauses equal');
    const allure = readdirSync(join(dir, 'allure-results')).filter((f) => f.endsWith('-result.json'));
    expect(allure.length).toBe(p.clauses.length);
    // The Allure results rendered as one page, scanned for secrets with the rest.
    expect(readFileSync(join(dir, 'allure-report', 'index.html'), 'utf8')).toContain('MPSI parity');
    const hits = allFiles(dir).flatMap((f) => secretHits(f, fixtureSecrets()));
    expect(hits).toEqual([]);
  }, 60_000);

  it('pinpoints a fault over every suite: exit 1, the fault’s clause different with both exchanges side by side, no secret', async () => {
    const dir = tempReports('parity-fault');
    const r = await callMain([
      'parity',
      '--a',
      REFERENCE_PROFILE,
      '--b',
      REFERENCE_PROFILE,
      '--fault-b',
      'refund-not-found-as-order-not-found',
      '--seed',
      '5',
      '--reports',
      dir,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const different = read(dir)
      .clauses.filter((c) => c.verdict === 'different')
      .map((c) => c.clause);
    expect(different).toEqual(['err.ref.not-found']);
    const md = readFileSync(join(dir, 'parity.md'), 'utf8');
    expect(md).toMatch(/### `err\.ref\.not-found` — different/);
    expect(md).toContain('<table><tr><th>A</th><th>B</th></tr>');
    expect(md).toContain('refundNotFound');
    expect(allFiles(dir).flatMap((f) => secretHits(f, fixtureSecrets()))).toEqual([]);
  }, 60_000);

  it('accepts a declared difference: exit 0, the clause reported as declared with its reason', async () => {
    const dir = tempReports('parity-declared');
    const declared = join(dir, 'declared.json');
    writeFileSync(
      declared,
      JSON.stringify([{ clause: 'err.ref.not-found', what: ['any'], reason: 'production answers orderNotFound until release 4.2' }]),
    );
    const r = await callMain([
      'parity',
      '--a',
      REFERENCE_PROFILE,
      '--b',
      REFERENCE_PROFILE,
      '--fault-b',
      'refund-not-found-as-order-not-found',
      '--suite',
      'refund-errors',
      '--declared',
      declared,
      '--seed',
      '5',
      '--reports',
      dir,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const p = read(dir);
    expect(p.clauses.find((c) => c.clause === 'err.ref.not-found')?.verdict).toBe('declared');
    expect(readFileSync(join(dir, 'parity.md'), 'utf8')).toContain('production answers orderNotFound until release 4.2');
  }, 30_000);

  describe('--safe against two running references', () => {
    let refA: RunningReference;
    let refB: RunningReference;
    beforeAll(async () => {
      refA = await startReference({ port: 0, timeScale: 0.002 });
      refB = await startReference({ port: 0, timeScale: 0.002 });
    });
    afterAll(async () => {
      await refA?.close();
      await refB?.close();
    });

    it('sends only signed queries and requests that fail authentication by construction, and creates no record', async () => {
      const dir = tempReports('parity-safe');
      const r = await callMain([
        'parity',
        '--a',
        REFERENCE_PROFILE,
        '--b',
        REFERENCE_PROFILE,
        '--target-a',
        refA.url,
        '--target-b',
        refB.url,
        '--safe',
        '--seed',
        '3',
        '--reports',
        dir,
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(refA.counts()).toEqual({ payments: 0, refunds: 0, payouts: 0 });
      expect(refB.counts()).toEqual({ payments: 0, refunds: 0, payouts: 0 });
      const p = read(dir);
      const sent = p.requests.filter((q) => q.sent);
      expect(sent.length).toBeGreaterThan(50);
      const queries = ['paymentQuery', 'refundQuery', 'payoutQuery'];
      const failsAuth = ['missing-header', 'empty-header', 'unknown-merchant', 'bad-signature'];
      for (const q of sent) {
        expect(
          queries.includes(q.endpoint ?? '') || failsAuth.includes(q.auth),
          `${q.side} ${q.checkId} ${q.method} ${q.path} ${q.auth}`,
        ).toBe(true);
      }
      // No correctly signed (or nearly valid) request ever went to an endpoint that creates or changes anything.
      expect(sent.filter((q) => !queries.includes(q.endpoint ?? '') && (q.auth === 'signed' || q.auth === 'ambiguous'))).toEqual([]);
      // The guard did refuse creates, and those checks say why.
      const refused = p.requests.filter((q) => !q.sent);
      expect(refused.some((q) => q.endpoint === 'checkout' && q.auth === 'signed')).toBe(true);
      expect(p.checks.some((c) => c.skipReason?.a?.startsWith('safe mode: would send POST /api/v1/payments/checkout'))).toBe(true);
      // Authentication refusals and unknown-number queries are still compared.
      const equal = p.checks.filter((c) => c.verdict === 'equal').map((c) => c.checkId);
      expect(equal).toEqual(
        expect.arrayContaining([
          'auth-headers/refuses-a-request-without-x-sign-as-unauthorized',
          'payment-query/answers-a-query-by-an-unknown-order-no-with-ordernotfound',
        ]),
      );
      expect(readFileSync(join(dir, 'requests.md'), 'utf8')).toMatch(/## Side A: \d+ sent, \d+ refused/);
    }, 30_000);
  });

  const bad: [string, string[], RegExp][] = [
    ['an unknown option', ['--frobnicate'], /unknown option --frobnicate/],
    ['a missing --a', ['--b', REFERENCE_PROFILE], /needs both --a PROFILE and --b PROFILE \(missing: --a\)/],
    ['an unreadable profile', ['--a', '/nonexistent/a.json', '--b', REFERENCE_PROFILE], /profile file not found/],
    [
      'a fault for a side that is not embedded',
      ['--a', REFERENCE_PROFILE, '--b', REFERENCE_PROFILE, '--target-b', 'http://127.0.0.1:9', '--fault-b', 'env-msg-ok'],
      /--fault-b applies to an embedded reference only/,
    ],
    ['an unknown fault', ['--a', REFERENCE_PROFILE, '--b', REFERENCE_PROFILE, '--fault-a', 'no-such-fault'], /unknown fault no-such-fault/],
    [
      'an unreachable target',
      ['--a', REFERENCE_PROFILE, '--b', REFERENCE_PROFILE, '--target-b', 'http://127.0.0.1:9'],
      /target unreachable: http:\/\/127\.0\.0\.1:9/,
    ],
    ['webhooks full', ['--a', REFERENCE_PROFILE, '--b', REFERENCE_PROFILE, '--webhooks', 'full'], /--webhooks must be quick or off/],
  ];
  for (const [what, args, reason] of bad) {
    it(`exits 2 with a one-line reason for ${what}`, async () => {
      const r = await callMain(['parity', ...args, '--reports', tempReports('parity-bad')]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('mpsi-conformance:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(reason);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }, 20_000);
  }

  it('exits 2 for a declared-differences file that is not valid, naming the entry', async () => {
    const dir = tempReports('parity-bad-declared');
    const f = join(dir, 'declared.json');
    writeFileSync(
      f,
      JSON.stringify([
        { clause: 'err.ref.not-found', what: ['code'], reason: 'ok' },
        { clause: 'no.such.clause', what: ['code'], reason: 'x' },
      ]),
    );
    const r = await callMain(['parity', '--a', REFERENCE_PROFILE, '--b', REFERENCE_PROFILE, '--declared', f, '--reports', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/declared\.json: entry 2: clause "no\.such\.clause" is neither a clause id/);
    expect(existsSync(join(dir, 'parity.json'))).toBe(false);
  }, 20_000);

  it('refuses a production profile without --safe', async () => {
    const dir = tempReports('parity-prod');
    const prod = join(dir, 'prod.json');
    const base = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8'));
    // A production profile's key is its secret: it holds no productionSecret (the loader refuses one).
    for (const m of Object.values(base.merchants))
      if (typeof m === 'object' && m !== null) delete (m as Record<string, unknown>).productionSecret;
    writeFileSync(prod, JSON.stringify({ ...base, $schema: undefined, name: 'acme-production', environment: 'production' }));
    const r = await callMain(['parity', '--a', REFERENCE_PROFILE, '--b', prod, '--reports', dir]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/acme-production \(side B\) is a production environment: parity against it needs --safe/);
  }, 20_000);

  it('prints its help', async () => {
    const r = await callMain(['help', 'parity']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--safe');
  });
});
