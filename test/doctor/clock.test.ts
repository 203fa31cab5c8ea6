/**
 * The doctor measures the target's webhook clock before a webhook check relies on it: the reference serving at real
 * time (`serve`'s default), judged with a profile that declares the reference's fast clock (webhooks.timeScale 0.005),
 * stops the run with exit 2 naming webhooks.timeScale and the ratio measured, instead of a dozen WEBHOOK_NOT_RETRIED
 * charged to a correct target. The wait is the first retry's bound on real time (harness/doctor/clock.ts clockWaitMs).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { gapBounds, INTERFACE_WEBHOOK_FIGURES, webhookTiming } from '../../harness/webhooks/schedule.js';
import { loadProfile } from '../../harness/profile/load.js';
import { REFERENCE_PROFILE, runCli, tempReports } from '../cli/helpers.js';
import { readDoctor } from './support.js';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference();
});
afterAll(async () => {
  await ref?.close();
});

describe("the doctor measures the target's webhook clock", () => {
  it(`a real-time target judged with a profile of 0.005: exit 2 naming \
webhooks.timeScale, with the ratio measured, within the bound`, async () => {
    const reports = tempReports('clock');
    const r = await runCli(['run', '--target', ref.url, '--suite', 'webhook-retry', '--no-html', '--reports', reports], {
      timeoutMs: 120_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/profile is wrong about this target \(doctor\): fix webhooks\.timeScale/);
    // No check ran: no verdict was given on a profile the doctor found wrong.
    expect(existsSync(join(reports, 'certificate.json'))).toBe(false);
    const item = readDoctor(reports).items.find((i) => i.path === 'webhooks.timeScale');
    expect(item?.status, JSON.stringify(item)).toBe('wrong');
    // The ratio it measured, about real time (a loaded machine only lengthens the wait), and the fix naming it.
    const ratio = Number(/a ratio of (?:about|at least) ([\d.]+)/.exec(item!.answered ?? '')?.[1]);
    expect(ratio).toBeGreaterThan(0.5);
    expect(item!.fix).toMatch(/set webhooks\.timeScale to about [\d.]+/);
    // The retry was waited for at most the first retry's upper bound on a real-time clock (15 s, plus tolerance and one
    // acknowledgement limit): what it saw fell within that wait, or the wait ended at it.
    const t = webhookTiming(loadProfile(REFERENCE_PROFILE).profile);
    const bound = gapBounds({ ...t, timeScale: 1 }, INTERFACE_WEBHOOK_FIGURES.firstWaitMs, t.ackTimeoutMs).max;
    const waited = Number(/(?:retried|within) (\d+) ms/.exec(item!.answered ?? '')?.[1]);
    expect(waited).toBeLessThanOrEqual(bound + 1000);
  }, 150_000);
});
