/**
 * An answer that never came is charged to the clause whose request it was (harness/check/expect.ts `expectAnswer`,
 * `answerOwedTo`), never to clauses about an answer's contents: a target that closes the connection on a body it cannot
 * read (where the document wants HTTP 500 internalServerError) fails err.auth.unreadable-body and no envelope or
 * Accept-Language clause, although those suites send the same request to judge its answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SuiteDef } from '../../harness/check/define.js';
import { loadProfile } from '../../harness/profile/load.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';

const SUITES = new Set(['envelope', 'language', 'auth-headers']);
let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

async function run(faults: string[]) {
  const loaded = loadProfile('fixtures/profiles/reference.json');
  const ref = await startEmbeddedReference(loaded.profile, faults);
  try {
    const out = await runInProcess({
      loaded,
      baseUrl: ref.url,
      suites,
      settings: { seed: 5, numRuns: 3, webhooks: 'off' },
      filter: (s) => SUITES.has(s.name),
    });
    return out.map((r) => r.result);
  } finally {
    await ref.close();
  }
}

describe('a connection closed where an answer was owed', () => {
  it('fails exactly the clause of the request that went unanswered', async () => {
    const results = await run(['unreadable-body-connection-closed']);
    const findings = results.flatMap((r) => r.findings);
    expect(findings.length).toBeGreaterThan(0);
    expect([...new Set(findings.map((f) => f.clause))]).toEqual(['err.auth.unreadable-body']);
    expect(new Set(findings.map((f) => f.code))).toEqual(new Set(['NO_RESPONSE']));
    // The check whose request it is fails; no other clause is charged by the checks that reused the request.
    expect(results.find((r) => r.checkId.includes('shorter-than-its-content-length'))?.status).toBe('failed');
  }, 120_000);

  it('passes the same suites on the correct reference', async () => {
    const results = await run([]);
    expect(results.filter((r) => r.status === 'failed').map((r) => r.checkId)).toEqual([]);
  }, 120_000);
});
