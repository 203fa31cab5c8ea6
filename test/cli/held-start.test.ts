/**
 * vitest starts beside the doctor and holds every check until the CLI says go
 * (harness/cli/run.ts startVitest, harness/run/global-setup.ts goAhead). A run that stops before
 * go — the doctor finds the profile wrong, or a Ctrl-C comes during the doctor — leaves no vitest,
 * worker or embedded reference process behind, and no check runs.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profileWith } from '../doctor/support.js';
import { BIN, ROOT, runCli, SMALL_SUITE, tempReports } from './helpers.js';

/** Processes whose environment names this reports folder: vitest, its workers, the reference vitest started. */
function processesOf(reports: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').includes(reports)) out.push(Number(pid));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

async function noneLeft(reports: string): Promise<number[]> {
  for (let i = 0; i < 20 && processesOf(reports).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return processesOf(reports);
}

describe('the held start of vitest', () => {
  it('ends vitest and the reference it started when the doctor finds the profile wrong', async () => {
    const reports = tempReports('held-doctor');
    const profile = profileWith((p) => (p.checkout.pendingStatus = 'CREATED'), reports);
    const r = await runCli([
      'run',
      '--profile',
      profile,
      '--suite',
      SMALL_SUITE,
      '--webhooks',
      'off',
      '--no-html',
      '--reports',
      join(reports, 'out'),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('the profile is wrong about this target (doctor): fix checkout.pendingStatus');
    expect(existsSync(join(reports, 'out', 'results'))).toBe(false);
    expect(r.stdout).not.toContain('mpsi-conformance: target');
    expect(await noneLeft(reports)).toEqual([]);
  }, 60_000);

  it('ends with the CLI when it is interrupted during the doctor', async () => {
    const reports = tempReports('held-interrupt');
    const child = spawn(process.execPath, [BIN, 'run', '--suite', SMALL_SUITE, '--webhooks', 'off', '--no-html', '--reports', reports], {
      cwd: ROOT,
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let sawVitest = false;
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    child.stdout.on('data', () => undefined);
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      // Interrupted once vitest has started (its processes carry the reports folder) and the doctor is under way.
      if (!sawVitest && stderr.includes('doctor: verifying') && processesOf(reports).some((p) => p !== child.pid)) {
        sawVitest = true;
        child.kill('SIGINT');
      }
    });
    const { code, signal } = await ended;
    if (!sawVitest) return expect.fail(`the doctor ended before vitest was seen; nothing was interrupted:\n${stderr}`);
    expect(signal ?? code).toBe(signal ? 'SIGINT' : 130);
    expect(existsSync(join(reports, 'results'))).toBe(false);
    expect(await noneLeft(reports)).toEqual([]);
  }, 60_000);
});
