/** The `init` command: flags, the production refusal, the budget, what it writes, secrets kept out. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kitCommand } from '../../harness/kit/invocation.js';
import { parseProfile } from '../../harness/profile/load.js';
import { type RunningReference, startReference } from '../../reference/index.js';
import { runCli, tempReports } from '../cli/helpers.js';

const SECRET = 'sk_test_primary_5f2c9a7e41d84b06';
const ENV = { INIT_CLI_SECRET: SECRET };

describe('mpsi-conformance init', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ port: 0, timeScale: 0.005 });
  });
  afterAll(async () => {
    await ref?.close();
  });
  const base = () => ['init', '--target', ref.url, '--merchant', 'M100001', '--secret-env', 'INIT_CLI_SECRET'];

  it('prints its help, with every flag, for `help init` and `init --help`', async () => {
    for (const args of [
      ['help', 'init'],
      ['init', '--help'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      for (const flag of [
        '--target',
        '--merchant',
        '--secret-env',
        '--out',
        '--budget',
        '--time-limit',
        '--environment',
        '--public-url',
        '--force',
      ])
        expect(r.stdout).toContain(flag);
    }
  });

  it('names the flags it needs', async () => {
    const r = await runCli(['init', '--target', 'http://127.0.0.1:9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--merchant, --secret-env');
  });

  it('refuses a target declared production, and says so, sending nothing', async () => {
    const out = join(tempReports('init-prod'), 'p.json');
    const before = ref.counts();
    const r = await runCli([...base(), '--environment', 'production', '--out', out], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refuses this target: the target is declared production/);
    expect(existsSync(out)).toBe(false);
    expect(ref.counts()).toEqual(before);
  });

  it('refuses a production (live) key, and never prints it', async () => {
    const live = 'sk_live_primary_7d3f1a9c5e2b8046';
    const r = await runCli([...base(), '--out', join(tempReports('init-live'), 'p.json')], { env: { INIT_CLI_SECRET: live } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/production \(live\) key/);
    expect(r.stdout + r.stderr).not.toContain(live);
  });

  it('stops at its budget, says so, and still writes a valid draft whose TODOs cover the rest', async () => {
    const out = join(tempReports('init-budget'), 'p.json');
    const r = await runCli([...base(), '--budget', '40', '--out', out], { env: ENV });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('stopped early: the probe budget (40 requests) is spent');
    expect(r.stdout).toMatch(/40 requests in/);
    expect(() => parseProfile(readFileSync(out, 'utf8'), out, ENV)).not.toThrow();
    expect(readFileSync(`${out}.todo.md`, 'utf8')).toContain('- [ ] `merchants.second`');
  });

  it(`drafts a valid profile with progress and evidence, keeps the \
secret out of every output, and does not overwrite without --force`, async () => {
    const dir = tempReports('init-full');
    const out = join(dir, 'p.json');
    // About 1,450 requests since the limit search probes the whole span: minutes on a loaded machine.
    const r = await runCli([...base(), '--out', out], { env: ENV, timeoutMs: 240_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\[init +\d+ probes [\d.]+s\] checkout: CARD limits by bisection/);
    expect(r.stdout).toContain('✓ limits.payments.CARD = {"min":"0.50","max":"10000.00"}  (the 2006 boundary');
    const text = readFileSync(out, 'utf8');
    const loaded = parseProfile(text, out, ENV);
    expect(loaded.profile.merchants.primary).toEqual({ id: 'M100001', secretEnv: 'INIT_CLI_SECRET' });
    const todo = readFileSync(`${out}.todo.md`, 'utf8');
    expect(todo).toContain('- [ ] `sandbox`');
    expect(todo).toContain('## What init learnt, with its evidence');
    // Next steps as they work pasted here (a clone: the bin by its absolute path; installed: npx).
    expect(r.stdout).toContain(kitCommand(['doctor', '--profile', out]));
    expect(r.stdout).toContain(kitCommand(['run', '--profile', out]));
    expect(r.stdout).not.toMatch(/(^|[\s:])mpsi-conformance (doctor|run) /m);
    expect(todo).toContain(`\`${kitCommand(['doctor', '--profile', out])}\``);
    // A valid draft leaves nothing to report.
    expect(existsSync(`${out}.init-report.json`)).toBe(false);
    for (const s of [r.stdout, r.stderr, text, todo]) expect(s).not.toContain(SECRET);
    writeFileSync(out, text);
    const again = await runCli([...base(), '--out', out], { env: ENV });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
  }, 300_000);
});

describe('init refuses a host that does not look like a sandbox unless told it is one', () => {
  it('names the host and the flag that overrides', async () => {
    const r = await runCli(
      [
        'init',
        '--target',
        'https://api.payments.example.com',
        '--merchant',
        'M1',
        '--secret-env',
        'INIT_CLI_SECRET',
        '--out',
        join(tempReports('init-host'), 'p.json'),
      ],
      { env: ENV },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the host api.payments.example.com does not look like a sandbox');
    expect(r.stderr).toContain('--environment sandbox');
  });
});
