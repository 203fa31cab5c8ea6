import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callMain, runCli, SMALL_SUITE, tempReports } from './helpers.js';

/** Exit codes: 0 conformant, 1 non-conformant (see failing-run.test.ts), 2 the run could not be made. */
describe('mpsi-conformance exit codes', () => {
  it('exits 0 against the conformant embedded reference, and leaves certificate and JUnit', async () => {
    const dir = tempReports('ok');
    const r = await runCli(['run', '--suite', SMALL_SUITE, '--webhooks', 'off', '--no-html', '--reports', dir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/^mpsi-conformance:/m);
    expect(r.stdout).toContain('Verdict: CONFORMANT (partial run) — exit code 0');
    const cert = JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as { verdict: string; exitCode: number };
    expect(cert).toMatchObject({ verdict: 'conformant', exitCode: 0 });
    expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
    expect(existsSync(join(dir, 'allure-report'))).toBe(false);
  }, 60_000);

  const cases: [string, string[], RegExp][] = [
    ['an unknown option', ['run', '--frobnicate'], /unknown option --frobnicate/],
    ['an option without its value', ['run', '--seed'], /--seed needs a value/],
    ['a seed that is not a number', ['run', '--seed', 'abc'], /--seed must be a whole number/],
    ['an unknown command', ['deploy'], /unknown command "deploy"/],
    ['an unknown suite', ['run', '--suite', 'no-such-suite'], /unknown suite no-such-suite/],
    ['an unknown clause', ['run', '--clause', 'no.such.clause'], /neither a clause id nor a prefix/],
    ['an unknown fault', ['run', '--fault', 'no-such-fault', '--suite', SMALL_SUITE], /unknown fault no-such-fault/],
    ['a missing profile file', ['run', '--profile', '/nonexistent/profile.json'], /profile file not found/],
    [
      'an unreachable target',
      ['run', '--target', 'http://127.0.0.1:9', '--suite', SMALL_SUITE],
      /target unreachable: http:\/\/127\.0\.0\.1:9/,
    ],
  ];
  for (const [what, args, reason] of cases) {
    it(`exits 2 with a one-line reason for ${what}`, async () => {
      const r = await callMain(args[0] === 'run' ? [...args, '--reports', tempReports('bad')] : args);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('mpsi-conformance:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(reason);
    }, 20_000);
  }

  it('exits 2 for a profile that is not valid JSON, naming line and column', async () => {
    const dir = tempReports('badprofile');
    const p = join(dir, 'broken.json');
    writeFileSync(p, '{\n  "name": "x",\n  oops\n}');
    const r = await callMain(['run', '--profile', p, '--reports', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/broken\.json:3:\d+: invalid JSON/);
  }, 20_000);

  it('passes the exit code and the one-line reason through the published bin', async () => {
    const r = await runCli(['run', '--webhooks', 'sometimes']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('mpsi-conformance: --webhooks must be quick, full or off, got "sometimes"');
  }, 20_000);

  it('prints help for every command with exit 0', async () => {
    for (const args of [['--help'], ['help', 'run'], ['run', '--help'], ['report', '--help'], ['verify-certificate', '--help']]) {
      const r = await callMain(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/mpsi-conformance/);
    }
    const run = await callMain(['run', '--help']);
    for (const flag of [
      '--target',
      '--profile',
      '--suite',
      '--clause',
      '--seed',
      '--runs',
      '--webhooks',
      '--expectations',
      '--reports',
      '--fault',
    ])
      expect(run.stdout).toContain(flag);
  }, 30_000);
});
