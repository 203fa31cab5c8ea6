/**
 * The armed failures run alone, one after another (one-shot per merchant), and behind a 100 ms round trip
 * their chain held the doctor for over a second. The orders they are tried on are made beforehand, beside the stage
 * before them (nothing is armed yet), so that once the first failure is armed the doctor sends only the arms and the
 * one request each is tried with. Every kind is still judged as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../harness/doctor/model.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { loadProfile } from '../../harness/profile/load.js';
import { type RunningReference, startReference } from '../../reference/index.js';
import { REFERENCE_PROFILE } from './support.js';

describe('doctor: the armed failures alone', () => {
  const paths: string[] = [];
  let ref: RunningReference;
  let report: DoctorReport;
  beforeAll(async () => {
    ref = await startReference({ timeScale: 0.02, onExchange: (x) => paths.push(x.path) });
    report = await runDoctor({ loaded: loadProfile(REFERENCE_PROFILE), baseUrl: ref.url });
  }, 60_000);
  afterAll(() => ref?.close());

  it('sends, from the first arm on, only each arm and the one request it is tried with', () => {
    expect(report.exitCode).toBe(0);
    const armed = report.items.filter((i) => i.path.startsWith('sandbox.armFailure.failures.'));
    expect(armed.map((i) => i.status)).toEqual(['verified', 'verified', 'verified', 'verified']);
    const from = paths.indexOf('/sandbox/v1/failures/arm');
    expect(from).toBeGreaterThan(0);
    // The reference profile arms queryFailed, orderCreationFailed, refundSystemBusy and refundFailed, in that order.
    expect(paths.slice(from)).toEqual([
      '/sandbox/v1/failures/arm',
      '/api/v1/payments/query',
      '/sandbox/v1/failures/arm',
      '/api/v1/payments/checkout',
      '/sandbox/v1/failures/arm',
      '/api/v1/refunds/create',
      '/sandbox/v1/failures/arm',
      '/api/v1/refunds/create',
    ]);
  });
});
