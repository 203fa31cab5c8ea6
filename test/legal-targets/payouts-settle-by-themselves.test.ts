/**
 * Time the vendor keeps: a target whose payouts end by themselves (SUCCESS) a documented delay after their creation, said
 * in the profile (sandbox.autoSettle.payouts, version 5). The payout checks and the stateful model never take such a
 * payout as waiting for a control once the delay may have passed: the target passes, and a fault of the payout rules
 * is still killed on it.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SuiteDef } from '../../harness/check/define.js';
import { parseProfile } from '../../harness/profile/load.js';
import type { Profile } from '../../harness/profile/types.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';

const AFTER_MS = 300;
const SUITES = new Set(['payouts', 'payout-errors', 'stateful', 'webhook-events']);

function settlingProfile(declared = true) {
  const p = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Profile & { $schema?: string };
  delete p.$schema;
  p.embedded = { ...p.embedded, target: { payoutsSettleAfter: { afterMs: AFTER_MS, status: 'SUCCESS' } } };
  if (declared) {
    p.profileVersion = 5;
    p.sandbox = { ...p.sandbox, autoSettle: { payouts: { afterMs: AFTER_MS, status: 'SUCCESS' } } };
  }
  return parseProfile(JSON.stringify(p), 'payouts-settle.json');
}

let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

async function run(faults: string[] = [], declared = true) {
  const loaded = settlingProfile(declared);
  const ref = await startEmbeddedReference(loaded.profile, faults);
  try {
    const out = await runInProcess({
      loaded,
      baseUrl: ref.url,
      suites,
      settings: { seed: 21, numRuns: 6, webhooks: 'off' },
      filter: (s) => SUITES.has(s.name),
    });
    return out.map((r) => r.result);
  } finally {
    await ref.close();
  }
}

describe('payouts that end by themselves after a documented delay', () => {
  it('a version-4 profile cannot say it', () => {
    const p = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Profile & { $schema?: string };
    delete p.$schema;
    p.profileVersion = 4;
    p.sandbox = { ...p.sandbox, autoSettle: { payouts: { afterMs: 1, status: 'SUCCESS' } } };
    expect(() => parseProfile(JSON.stringify(p), 'v4.json')).toThrow(/sandbox\.autoSettle: is a profile format version 5 field/);
  });

  it('pass the payout checks and the stateful sequences when the profile says so', async () => {
    const results = await run();
    const failed = results.filter((r) => r.status === 'failed' || r.status === 'broken');
    expect(failed.map((r) => `${r.checkId}: ${r.findings[0]?.message ?? r.reason ?? ''}`)).toEqual([]);
    expect(results.filter((r) => r.status === 'passed').length).toBeGreaterThan(15);
  }, 300_000);

  it('still kill a fault of the payout rules', async () => {
    const results = await run(['payout-cancel-success']);
    expect(results.flatMap((r) => r.findings.map((f) => f.clause))).toContain('state.payout.not-cancelable');
  }, 300_000);
});
