/**
 * A run stopped from outside (a CI timeout sends SIGTERM, Ctrl-C sends SIGINT) still writes the
 * results it has and a certificate that says the run was interrupted and which checks did not finish.
 */
import { spawn } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readResults } from '../../harness/run/results.js';
import { verifyCertificate } from '../../harness/report/certificate.js';
import { BIN, ROOT, tempReports } from './helpers.js';

function runUntil(
  args: string[],
  marker: RegExp,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
      if (!sent && marker.test(stdout)) {
        sent = true;
        child.kill(signal);
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the run did not end within 90 s after starting\n${stdout}\n${stderr}`));
    }, 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('an interrupted run', () => {
  it('writes the results it has and a certificate naming the checks that did not finish', async () => {
    const reports = tempReports('interrupt');
    // Full webhooks: the 9-attempt check waits for most of a minute, long enough to be stopped mid-wait.
    const r = await runUntil(
      ['run', '--suite', 'webhook-retry', '--suite', 'mutual-exclusion', '--webhooks', 'full', '--seed', '7', '--reports', reports],
      /waiting up to .* for all 9 attempts/,
      'SIGTERM',
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('SIGTERM: stopping the checks');

    const cert = JSON.parse(readFileSync(join(reports, 'certificate.json'), 'utf8')) as {
      verdict: string;
      reasons: string[];
      unfinished?: string[];
      runStatus: { reason?: string; interruptedBy?: string };
    };
    expect(cert.verdict).toBe('incomplete');
    expect(cert.runStatus).toMatchObject({ reason: 'interrupted', interruptedBy: 'SIGTERM' });
    expect(cert.reasons.some((x) => x.startsWith('the run was interrupted (SIGTERM)'))).toBe(true);
    expect(cert.unfinished).toContain('webhook-retry/makes-exactly-9-attempts-at-a-webhook-that-is-never-acknowledged-and-none-after');

    // What finished is kept, and together with what did not it is every selected check, once.
    const results = readResults(join(reports, 'results'));
    expect(results.length).toBeGreaterThan(0);
    const finished = results.map((x) => x.checkId);
    expect(finished.filter((id) => cert.unfinished!.includes(id))).toEqual([]);
    expect(finished.length + cert.unfinished!.length).toBe(4 + 9);

    // The Allure results of the checks that finished are kept too (vitest writes its pack as it exits), for `report`:
    const pack = JSON.parse(gunzipSync(readFileSync(join(reports, 'allure-results.json.gz'))).toString('utf8')) as {
      files: Record<string, string>;
    };
    const allureChecks = Object.entries(pack.files)
      .filter(([f]) => f.endsWith('-result.json'))
      .map(([, b64]) => (JSON.parse(Buffer.from(b64, 'base64').toString('utf8')) as { labels: { name: string; value: string }[] }).labels)
      .map((labels) => labels.find((l) => l.name === 'checkId')?.value);
    // A check whose end vitest's main process had not heard of when it was stopped is in results/ only.
    expect(allureChecks.length).toBeGreaterThan(0);
    for (const id of allureChecks) expect(finished).toContain(id);
    expect(readFileSync(join(reports, 'certificate.md'), 'utf8')).toContain('## Checks that did not finish');
    expect(verifyCertificate(join(reports, 'certificate.json')).problems).toEqual([]);
  }, 120_000);
});
