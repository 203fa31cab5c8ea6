/**
 * Secret hygiene of stored results: after an in-process run of every suite against a reference
 * with a fault (so checks fail and findings, expected/seen texts and exchange dumps are produced),
 * every result is stored exactly as the run stores it (storeExchange + writeResult) into a temp
 * directory, WITHOUT redaction — so the test proves no secret ever enters a result, rather than
 * that the redactor hides it — and then with the run's redactor. No fixture secret may appear in
 * any form (as is, Base64, hex, URL-encoded, or its random tail alone).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SuiteResult } from '../../harness/run/inprocess.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { storeExchange, writeResult } from '../../harness/run/results.js';
import { loadSuites } from '../../harness/run/suites.js';
import { loadProfile, merchantSecrets } from '../../harness/profile/load.js';
import { makeRedactor } from '../../harness/kit/redact.js';
import { startReference, type RunningReference } from '../../reference/index.js';
import { REFERENCE_PROFILE } from './support.js';

const loaded = loadProfile(REFERENCE_PROFILE);
// Test keys and the production keys the environment-keys check signs with.
const secrets = merchantSecrets(loaded);

/** Every spelling of a secret that would still give it away. */
function forms(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  const tail = secret.split('_').at(-1) ?? secret;
  return [secret, b.toString('base64'), b.toString('base64url'), b.toString('hex'), encodeURIComponent(secret), tail].filter(
    (s) => s.length >= 8,
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

let reference: RunningReference;
let results: SuiteResult[];
const dirs: string[] = [];

beforeAll(async () => {
  reference = await startReference({ port: 0, timeScale: 0.002, faults: ['resp-uppercase-hex'] });
  results = await runInProcess({
    loaded,
    baseUrl: reference.url,
    suites: await loadSuites(),
    settings: { seed: 20261122, numRuns: 3, webhooks: 'off' },
    concurrency: 8,
  });
}, 120_000);
afterAll(async () => {
  await reference.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('stored results and exchanges', () => {
  it('the run produced failures with findings and exchanges (otherwise this test proves nothing)', () => {
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    const failed = results.filter((r) => r.result.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.some((r) => r.result.findings.some((f) => f.code === 'RESPONSE_SIGNATURE_INVALID'))).toBe(true);
    expect(results.reduce((n, r) => n + r.result.exchanges.length, 0)).toBeGreaterThan(20);
  });

  for (const mode of ['unredacted', 'redacted'] as const) {
    it(`contain no fixture secret in any form (${mode} writeResult)`, () => {
      const dir = mkdtempSync(join(tmpdir(), `mpsi-secrets-${mode}-`));
      dirs.push(dir);
      const redact = mode === 'redacted' ? makeRedactor(secrets) : (s: string) => s;
      for (const { suite, result } of results) {
        writeResult(
          dir,
          { ...result, suite, target: reference.url, profile: loaded.profile.name, exchanges: result.exchanges.map(storeExchange) },
          redact,
        );
      }
      const files = filesUnder(dir);
      expect(files.length).toBe(new Set(results.map((r) => r.result.checkId)).size);
      const leaks: string[] = [];
      for (const file of files) {
        const text = readFileSync(file, 'utf8');
        for (const secret of secrets)
          for (const form of forms(secret))
            if (text.includes(form)) leaks.push(`${file}: a form of a fixture secret (${form.length} chars)`);
      }
      expect(leaks).toEqual([]);
    });
  }

  it('keep no secret in findings, notes, readings or skip reasons', () => {
    const text = JSON.stringify(results.map(({ result }) => ({ ...result, exchanges: result.exchanges.map(storeExchange) })));
    for (const secret of secrets)
      for (const form of forms(secret)) expect(text.includes(form), `a form of a fixture secret (${form.length} chars)`).toBe(false);
  });
});
