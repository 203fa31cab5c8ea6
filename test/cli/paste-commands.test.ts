import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Certificate } from '../../harness/report/certificate.js';
import { fixtureSecrets, REFERENCE_PROFILE, runCli, tempReports, type CliResult } from './helpers.js';

/**
 * Every command a certificate prints, pasted as it is into a shell in a folder that is not the kit's:
 * the replay, the reference to reproduce against, each reproduction script (twice on the same target:
 * its numbers are fresh each time) and the verify command. Faults whose failing requests need what
 * earlier requests created (a paid payment to refund, a refund number already used).
 */
const FAULTS = ['duplicate-refund-wrong-key'];
/** Failures that need a paid payment, then a refund, then its number again. */
const CLAUSES = ['idem.refund.refused', 'err.ref.duplicate'];

let dir: string;
let run: CliResult;
let md: string;
let cert: Certificate;
const started: { pid: number }[] = [];

/**
 * Runs a pasted line in `sh` from a folder of its own; a long-lived one (`until`) under `exec`, so the process killed at the end is the
 * command's own.
 */
function paste(
  line: string,
  opts: { cwd?: string; until?: RegExp; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<CliResult & { pid?: number }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', opts.until ? `exec ${line}` : line], {
      cwd: opts.cwd ?? tempReports('paste'),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pasted command did not finish: ${line}\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (opts.until?.test(stdout)) {
        clearTimeout(timer);
        if (child.pid) started.push({ pid: child.pid });
        resolve({ code: null, stdout, stderr, ms: Date.now() - t0, pid: child.pid });
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** The fenced shell blocks of the certificate, in order. */
function shellBlocks(text: string): string[][] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')));
}

/**
 * What a user exports before pasting: each variable a script says it reads, holding that merchant's secret (MPSI_SECRET_<ROLE> for the
 * reference profile, whose secrets are inline).
 */
function exportedSecrets(): Record<string, string> {
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as { merchants: Record<string, { secret?: string }> };
  const envOf: Record<string, string> = {
    primary: 'MPSI_SECRET_PRIMARY',
    second: 'MPSI_SECRET_SECOND',
    frozen: 'MPSI_SECRET_FROZEN',
    lowBalance: 'MPSI_SECRET_LOW_BALANCE',
  };
  const out: Record<string, string> = {};
  for (const [role, m] of Object.entries(p.merchants)) if (m.secret && envOf[role]) out[envOf[role]] = m.secret;
  return out;
}

beforeAll(async () => {
  dir = tempReports('paste-run');
  const args = [
    'run',
    '--profile',
    REFERENCE_PROFILE,
    '--suite',
    'refund-errors',
    '--suite',
    'idempotency',
    '--webhooks',
    'off',
    '--seed',
    '99',
    '--runs',
    '5',
    '--no-html',
    '--reports',
    dir,
  ];
  for (const f of FAULTS) args.push('--fault', f);
  run = await runCli(args, { cwd: tempReports('cwd'), timeoutMs: 90_000 });
  md = readFileSync(join(dir, 'certificate.md'), 'utf8');
  cert = JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as Certificate;
}, 100_000);

afterAll(() => {
  for (const p of started) {
    try {
      process.kill(p.pid);
    } catch {
      // already gone
    }
  }
});

describe('the commands a certificate prints, pasted from another folder', () => {
  it('prints the replay with every flag that changed the run, absolute paths, no tsx', () => {
    expect(run.code, run.stderr).toBe(1);
    const replay = cert.commands.replay!;
    expect(replay).toMatch(/^node \/\S+\/bin\/mpsi-conformance\.js run /);
    for (const want of [
      `--profile ${REFERENCE_PROFILE}`,
      '--seed 99',
      '--runs 5',
      '--webhooks off',
      '--suite refund-errors',
      '--suite idempotency',
      ...FAULTS.map((f) => `--fault ${f}`),
    ])
      expect(replay).toContain(want);
    expect(md).not.toContain('tsx');
    expect(md).not.toMatch(/MPSI_SECRET_PRIMARY=/);
    expect(md).not.toContain('<secret key>');
    for (const s of fixtureSecrets()) expect(md).not.toContain(s);
  });

  it("reproduces each failure of the faults' clauses against the reference started as printed, twice on the same target", async () => {
    const blocks = shellBlocks(md);
    const reference = blocks.find((b) => b.some((l) => / serve( |$)/.test(l)))!;
    expect(reference, md).toBeDefined();
    const served = await paste(reference[0]!, { until: /listening on (http:\/\/\S+)/ });
    const url = /listening on (http:\/\/\S+)/.exec(served.stdout)![1]!;
    const repros = cert.repro.filter((r) => r.clause !== undefined && CLAUSES.includes(r.clause));
    for (const c of CLAUSES) expect(repros.map((r) => r.clause)).toContain(c);
    const printed = blocks.flat().filter((l) => /^node \S+\.mjs$/.test(l));
    for (const r of repros) {
      const line = printed.find((l) => l.includes(r.file))!;
      expect(line, `${r.file} has a printed command`).toBeDefined();
      expect(line).toContain(join(dir, 'repro', r.file));
      for (let i = 0; i < 2; i++) {
        const out = await paste(`${line} --base-url ${url}`, { env: exportedSecrets() });
        expect(out.code, `${r.file} (attempt ${i + 1})\n${out.stdout}\n${out.stderr}`).toBe(0);
        expect(out.stdout).toContain('REPRODUCED: the same answer as recorded');
      }
    }
  }, 60_000);

  it('says NOT REPRODUCED against a conformant reference, from the same pasted line', async () => {
    const served = await paste('node ' + join(process.cwd(), 'bin', 'mpsi-conformance.js') + ' serve', {
      until: /listening on (http:\/\/\S+)/,
    });
    const url = /listening on (http:\/\/\S+)/.exec(served.stdout)![1]!;
    const r = cert.repro.find((x) => x.clause === 'idem.refund.refused')!;
    const out = await paste(`${r.command} --base-url ${url}`, { env: exportedSecrets() });
    // Without the variable exported it says which one to set, and sends nothing.
    const bare = await paste(`${r.command} --base-url ${url}`);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('set MPSI_SECRET_PRIMARY');
    expect(out.code, out.stdout + out.stderr).toBe(1);
    expect(out.stdout).toContain('NOT REPRODUCED');
  }, 30_000);

  it('replays the run as printed: the same verdict and the same failed clauses', async () => {
    const cwd = tempReports('replay');
    const out = await paste(cert.commands.replay!, { cwd, timeoutMs: 90_000 });
    expect(out.code, out.stderr).toBe(1);
    const again = JSON.parse(readFileSync(join(cwd, 'reports', 'certificate.json'), 'utf8')) as Certificate;
    const failed = (c: Certificate) =>
      c.clauses
        .filter((x) => x.status === 'failed')
        .map((x) => x.id)
        .sort();
    expect(again.verdict).toBe(cert.verdict);
    expect(failed(again)).toEqual(failed(cert));
    expect(again.seed).toBe(cert.seed);
  }, 100_000);

  it('verifies the certificate with the printed command', async () => {
    const line = /Check it: `([^`]+)`/.exec(md)![1]!;
    expect(existsSync(join(dir, 'certificate.json'))).toBe(true);
    const out = await paste(line);
    expect(out.code, out.stdout + out.stderr).toBe(0);
    expect(out.stdout).toContain('certificate holds');
  });
});
