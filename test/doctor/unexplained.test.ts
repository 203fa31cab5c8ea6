/**
 * The doctor blames the profile only when some legal profile explains the answer; an answer no legal profile explains
 * is a finding against the target, handed to the run's verdict (NON-CONFORMANT, exit 1), never "the profile is wrong"
 * (exit 2). Two answers of the services: a full refund refused with refundAmountExceeded, and a target that
 * verifies signatures over its own re-serialisation of the body (Python's json.dumps), which read as every merchant's
 * key being wrong. And a key that is wrong is still WRONG: no re-written body is accepted with it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { loadProfile } from '../../harness/profile/load.js';
import type { Certificate } from '../../harness/report/certificate.js';
import { runCli, tempReports } from '../cli/helpers.js';
import { profileWith, REFERENCE_PROFILE } from './support.js';

const REFUSES_FULL = 'refund-full-as-exceeded';
const PYTHON_BODY = 'auth-sign-python-reserialised-body';

function certificate(dir: string): Certificate {
  return JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as Certificate;
}

describe('doctor: an answer no legal profile explains is a finding against the target', () => {
  it(`reads a full refund refused with refundAmountExceeded as the target's failure, not a wrong refunds.support`, async () => {
    const r = await runDoctor({ loaded: loadProfile(REFERENCE_PROFILE), baseUrl: 'embedded', faults: [REFUSES_FULL], webhooks: false });
    expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    expect(r.exitCode).toBe(0);
    // CASH_APP takes full refunds only: its full refund is what the fault refuses.
    const full = r.items.find((i) => i.path === 'refunds.support.CASH_APP' && i.status === 'doubt');
    expect(full?.clauses).toEqual(['refund.channel-support', 'err.ref.amount-exceeded']);
    expect(full?.fix).toMatch(/^no profile explains this answer .*the profile needs no change$/);
  }, 60_000);

  it('still calls refunds.support WRONG where a profile explains the answer (a full refund refused as not supported)', async () => {
    const r = await runDoctor({
      loaded: loadProfile(profileWith((p) => (p.refunds.support.APPLE_PAY = 'full'))),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const item = r.items.find((i) => i.path === 'refunds.support.APPLE_PAY' && i.status === 'wrong');
    expect(item?.answered).toMatch(/notSupported/);
    expect(r.exitCode).toBe(2);
  }, 60_000);

  it(`tells a target that verifies over Python's re-serialisation from a wrong key: the keys verified, a finding on \
auth.sign.raw-body`, async () => {
    const r = await runDoctor({ loaded: loadProfile(REFERENCE_PROFILE), baseUrl: 'embedded', faults: [PYTHON_BODY], webhooks: false });
    expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    expect(r.exitCode).toBe(0);
    for (const role of ['primary', 'second', 'frozen', 'lowBalance']) {
      const item = r.items.find((i) => i.path === `merchants.${role}`);
      expect(item?.status, role).toBe('verified');
      expect(item?.answered).toMatch(/Python json\.dumps default separators/);
    }
    const finding = r.items.filter((i) => i.clauses?.includes('auth.sign.raw-body'));
    expect(finding.map((i) => `${i.path} ${i.status}`)).toEqual(['baseUrl doubt']);
    expect(finding[0]!.fix).toMatch(/^no profile explains this answer/);
  }, 60_000);

  it('still calls a wrong key WRONG: no re-written body is accepted with it', async () => {
    const r = await runDoctor({
      loaded: loadProfile(profileWith((p) => (p.merchants.second.secret = 'sk_test_not_the_second_merchants_key'))),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const wrong = r.items.filter((i) => i.status === 'wrong');
    expect(wrong.map((i) => i.path)).toEqual(['merchants.second.secret']);
    expect(wrong[0]!.answered).toMatch(/is not this merchant's key/);
    expect(r.items.some((i) => i.clauses?.includes('auth.sign.raw-body'))).toBe(false);
  }, 60_000);

  for (const [fault, suite, clause] of [
    [REFUSES_FULL, 'refunds', 'refund.channel-support'],
    [PYTHON_BODY, 'signing', 'auth.sign.raw-body'],
  ] as const)
    it(`a run against ${fault} is NON-CONFORMANT (exit 1) on ${clause}, not "the profile is wrong" (exit 2)`, async () => {
      const dir = tempReports(`unexplained-${fault}`);
      const run = await runCli(['run', '--fault', fault, '--suite', suite, '--webhooks', 'off', '--seed', '4242', '--reports', dir], {
        timeoutMs: 300_000,
      });
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stderr).not.toMatch(/profile is wrong/);
      expect(run.stdout).toContain('Verdict: NON-CONFORMANT');
      const c = certificate(dir);
      expect(c.verdict).toBe('non-conformant');
      const failed = c.clauses.find((x) => x.id === clause)!;
      expect(failed.status).toBe('failed');
      // The doctor's own finding is among the clause's failures, beside any check's.
      expect(failed.failures.some((f) => f.checkId.startsWith('doctor/'))).toBe(true);
    }, 320_000);
});
