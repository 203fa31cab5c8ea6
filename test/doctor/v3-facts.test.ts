/**
 * The doctor on the facts only a version-3 profile says (harness/doctor/v3-facts.ts): a second decline card and a
 * refund's created status verified on the reference; a wrong created status is the profile's error; a decline card the
 * target charges is a doubt on err.pay.declined (the vendor documents it), never a profile error that stops the run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../harness/doctor/model.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import { type Json, REFERENCE_PROFILE } from './support.js';

async function doctorOn(edit: (p: Json) => void, faults: string[] = []): Promise<DoctorReport> {
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as Json;
  edit(p);
  return runDoctor({ loaded: parseProfile(JSON.stringify(p), 'v3.json', {}), baseUrl: 'embedded', faults, webhooks: false });
}

const statusOf = (r: DoctorReport, path: string) => r.items.filter((i) => i.path === path).map((i) => i.status);

describe('doctor: version-3 facts', () => {
  it(`verifies the reference profile’s second decline card and card \
refunds created PENDING; names and logins are not verifiable`, async () => {
    const r = await doctorOn(() => {});
    expect(statusOf(r, 'cardPayment.declines[0]')).toEqual(['verified']);
    expect(statusOf(r, 'refunds.createdStatus.CARD')).toEqual(['verified']);
    expect(statusOf(r, 'refunds.createdStatus.PAYPAL')).toEqual(['not-verifiable']);
    expect(statusOf(r, 'merchants.primary.login')).toEqual(['not-verifiable']);
    expect(r.exitCode).toBe(0);
  }, 60_000);

  it('calls a wrong created status WRONG, naming the field', async () => {
    const r = await doctorOn((p) => (p.refunds.createdStatus.CARD = 'SUCCESS'));
    expect(statusOf(r, 'refunds.createdStatus.CARD')).toEqual(['wrong']);
    expect(r.exitCode).toBe(2);
  }, 60_000);

  it('doubts, and does not stop, when the target charges a decline card the profile declares', async () => {
    const r = await doctorOn(() => {}, ['decline-only-first-card']);
    const item = r.items.find((i) => i.path === 'cardPayment.declines[0]');
    expect(item?.status).toBe('doubt');
    expect(item?.clauses).toEqual(['err.pay.declined']);
    expect(r.exitCode).toBe(0);
  }, 60_000);
});
