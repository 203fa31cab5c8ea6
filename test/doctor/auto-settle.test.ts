/**
 * The doctor verifies sandbox.autoSettle (harness/doctor/auto-settle.ts): against the reference whose payouts and PENDING
 * refunds settle and whose unpaid checkouts expire by themselves after a delay, a record of each kind left alone ends as
 * the profile says once the delay has passed (verified); a profile that says another end is WRONG on it; a delay longer
 * than the doctor waits is not asked.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import type { DoctorReport } from '../../harness/doctor/model.js';
import { parseProfile } from '../../harness/profile/load.js';
import { type RunningReference, startReference } from '../../reference/index.js';
import { REFERENCE_PROFILE, type Json } from './support.js';

const AFTER_MS = 1_500;
const target = {
  payoutsSettleAfter: { afterMs: AFTER_MS, status: 'SUCCESS' as const },
  refundsSettleAfter: { afterMs: AFTER_MS, status: 'SUCCESS' as const },
  checkoutsExpireAfter: { afterMs: AFTER_MS },
};

function profile(autoSettle: Json) {
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as Json;
  delete p['$schema'];
  p['sandbox'] = { ...(p['sandbox'] as Json), autoSettle };
  return parseProfile(JSON.stringify(p), 'auto-settle.json', {});
}

let ref: RunningReference;
let right: DoctorReport;
let wrong: DoctorReport;
beforeAll(async () => {
  ref = await startReference({ target, timeScale: 0.005 });
  right = await runDoctor({
    loaded: profile({
      payouts: { afterMs: AFTER_MS, status: 'SUCCESS' },
      refunds: { afterMs: AFTER_MS, status: 'SUCCESS' },
      checkouts: { afterMs: AFTER_MS },
    }),
    baseUrl: ref.url,
    webhooks: false,
  });
  wrong = await runDoctor({
    loaded: profile({ payouts: { afterMs: AFTER_MS, status: 'FAILED' }, refunds: { afterMs: 600_000, status: 'SUCCESS' } }),
    baseUrl: ref.url,
    webhooks: false,
  });
}, 300_000);
afterAll(async () => {
  await ref?.close();
});

const item = (r: DoctorReport, kind: string) => r.items.find((i) => i.path === `sandbox.autoSettle.${kind}`);

describe('the doctor on records that end by themselves', () => {
  it('verifies each kind the profile says rightly', () => {
    for (const kind of ['payouts', 'refunds', 'checkouts'])
      expect([kind, item(right, kind)?.status, item(right, kind)?.answered]).toEqual([kind, 'verified', expect.any(String)]);
    expect(right.items.filter((i) => i.status === 'wrong').map((i) => i.path)).toEqual([]);
  });

  it('calls another end WRONG, and leaves a delay longer than it waits not asked', () => {
    expect(item(wrong, 'payouts')).toMatchObject({ status: 'wrong', answered: 'SUCCESS' });
    expect(item(wrong, 'refunds')).toMatchObject({ status: 'not-verifiable' });
    expect(item(wrong, 'refunds')?.answered).toMatch(/not asked: the doctor waits at most/);
  });
});
