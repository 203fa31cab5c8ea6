/**
 * Done when: against each configuration of the reference, the draft completed ONLY at its TODOs (from
 * the profile transcribing the README) passes the doctor and gives a green conformance run, on the very
 * sandbox init probed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInit } from '../../harness/init/run.js';
import { runCli } from '../cli/helpers.js';
import { completeAtTodos } from './complete.js';
import { CONFIGURATIONS } from './configurations.js';

const SECRET_ENV = 'INIT_GREEN_PRIMARY_SECRET';

describe.each(CONFIGURATIONS.filter((c) => !c.initOnly))('init against $name, completed at its TODOs', (cfg) => {
  it('passes the doctor and gives a conformant run', async () => {
    const ref = await cfg.start();
    try {
      const secret = cfg.truth.merchants.primary.secret!;
      const r = await runInit({
        baseUrl: ref.url,
        merchantId: cfg.truth.merchants.primary.id,
        secret,
        secretEnv: SECRET_ENV,
        budget: 3000,
        timeLimitMs: 120_000,
        progress: () => {},
      });
      const { profile } = completeAtTodos(r.profile, r.evidence.todos, cfg.truth);
      const dir = mkdtempSync(join(tmpdir(), 'mpsi-init-green-'));
      const file = join(dir, 'completed.json');
      writeFileSync(file, JSON.stringify(profile, null, 2));
      const doctor = await runCli(['doctor', '--profile', file, '--reports', join(dir, 'doctor')], {
        env: { [SECRET_ENV]: secret },
        timeoutMs: 120_000,
      });
      expect(doctor.stdout, doctor.stderr).toMatch(/doctor: \d+ verified, 0 wrong/);
      expect(doctor.code).toBe(0);
      const run = await runCli(['run', '--profile', file, '--reports', join(dir, 'reports'), '--no-html'], {
        env: { [SECRET_ENV]: secret },
        timeoutMs: 400_000,
      });
      expect(run.stdout, run.stderr).toContain('Verdict: CONFORMANT');
      expect(run.code).toBe(0);
    } finally {
      await ref.close();
    }
  }, 420_000);
});
