/**
 * A CLI run against the embedded reference starts one reference, in its own process, for the doctor and the checks
 * (harness/run/host.ts), hosts the request pool there too, and ends when the run ends: the reference and the
 * pool keep nothing alive.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfile } from '../../harness/profile/load.js';
import { REFERENCE_PROFILE } from '../../harness/run/config.js';
import { runCli, SMALL_SUITE, tempReports } from './helpers.js';

describe('the embedded reference of a CLI run', () => {
  it('is the one the doctor met, and goes with the run', async () => {
    const reports = tempReports('one-reference');
    const r = await runCli(['run', '--suite', SMALL_SUITE, '--webhooks', 'off', '--no-html', '--reports', reports]);
    expect(r.code, r.stderr).toBe(0);
    const checksMet = /mpsi-conformance: target (http:\/\/127\.0\.0\.1:\d+) /.exec(r.stdout)?.[1];
    const doctor = JSON.parse(readFileSync(join(reports, 'doctor.json'), 'utf8')) as { target: string };
    expect(checksMet).toBeDefined();
    expect(doctor.target).toBe(`embedded reference at ${checksMet}`);
    // The pool, hosted by the CLI, counted the checks' requests for the run's floor.
    const pool = JSON.parse(readFileSync(join(reports, 'pool.json'), 'utf8')) as { granted: number; concurrency: number };
    expect(pool.granted).toBeGreaterThan(0);
    // The pool's width is the in-flight budget the reference profile declares.
    expect(pool.concurrency).toBe(loadProfile(REFERENCE_PROFILE).profile.http?.concurrency);
  }, 60_000);
});
