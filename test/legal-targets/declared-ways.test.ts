/**
 * A check uses what the profile declares and asks only for what it does not: the refund-failure checks run with the
 * failure the sandbox control arms (sandbox.armFailure.failures.refundFailed) when the profile has no failing reason, and
 * still fail a target that answers the failure with another key; err.ref.balance, on a refund balance payments credit,
 * skips naming the fact that is missing (the balance at the moment), never the declared balances.paymentsCredit.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SuiteDef } from '../../harness/check/define.js';
import { parseProfile } from '../../harness/profile/load.js';
import type { Profile } from '../../harness/profile/types.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';

const REFUND_FAILURE_CHECKS = [
  'refund-errors/refuses-a-refund-the-provider-fails-with-refundfailed',
  'idempotency/keeps-the-number-of-a-refund-recorded-as-failed-used',
];
const BALANCE_CHECK = 'refund-errors/refuses-a-refund-the-merchant-balance-does-not-cover-with-its-fee-with-validationfailed';

function referenceProfile(edit: (p: Profile) => void) {
  const p = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Profile & { $schema?: string };
  delete p.$schema;
  edit(p);
  return parseProfile(JSON.stringify(p), 'declared-ways.json');
}

let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

async function run(edit: (p: Profile) => void, ids: string[], faults: string[] = []) {
  const loaded = referenceProfile(edit);
  const ref = await startEmbeddedReference(loaded.profile, faults);
  try {
    const out = await runInProcess({
      loaded,
      baseUrl: ref.url,
      suites,
      settings: { seed: 11, numRuns: 3, webhooks: 'off' },
      filter: (s, c) => ids.includes(`${s.name}/${c.id}`) || ids.includes(c.id),
    });
    expect(out.length).toBe(ids.length);
    return out.map((r) => r.result);
  } finally {
    await ref.close();
  }
}

/** No magic value makes a refund fail (neither a failing reason nor a trigger): only the switch's armed failure. */
const noFailingReason = (p: Profile) => {
  delete p.refunds!.failingReason;
  if (p.sandbox?.triggers) delete p.sandbox.triggers.refundFailed;
};

describe('a refund failure the sandbox can arm', () => {
  it('is used when the profile has no failing reason: the refund-failure checks run and pass', async () => {
    const results = await run(noFailingReason, REFUND_FAILURE_CHECKS);
    for (const r of results) expect(r.status, `${r.checkId}: ${r.reason ?? ''}`).toBe('passed');
  }, 120_000);

  it('still fails a target that answers the armed failure with another key, charged to err.ref.failed', async () => {
    const results = await run(noFailingReason, REFUND_FAILURE_CHECKS, ['refund-failed-validation-failed']);
    for (const r of results) {
      expect(r.status, r.checkId).toBe('failed');
      expect(r.findings.map((f) => f.clause)).toContain('err.ref.failed');
    }
  }, 120_000);

  it('skips naming both ways when the profile declares neither', async () => {
    const results = await run((p) => {
      noFailingReason(p);
      delete p.sandbox!.armFailure!.failures.refundFailed;
    }, REFUND_FAILURE_CHECKS);
    for (const r of results) {
      expect(r.status).toBe('skipped');
      expect(r.declare).toEqual(['sandbox.triggers.refundFailed, refunds.failingReason or sandbox.armFailure.failures.refundFailed']);
    }
  }, 120_000);
});

describe('a skip on a refund balance payments credit', () => {
  it('names the missing fact and asks for nothing already declared', async () => {
    const [r] = await run(
      (p) => {
        p.balances = { paymentsCredit: ['refund'] };
      },
      [BALANCE_CHECK],
    );
    expect(r!.status).toBe('skipped');
    expect(r!.reason).toMatch(/refund balance when the refund is made/);
    expect(r!.declare ?? []).not.toContain('balances.paymentsCredit');
  }, 120_000);
});
