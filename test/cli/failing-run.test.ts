import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../reference/index.js';
import { clauses as registry } from '../../harness/clauses/registry.js';
import { thirdPartyReferences } from '../../harness/report/offline.js';
import { packAllureResults } from '../../harness/report/allure-pack.js';
import type { Certificate } from '../../harness/report/certificate.js';
import { allFiles, callMain, fixtureSecrets, runCli, secretHits, SMALL_SUITE, tempReports, type CliResult } from './helpers.js';

/**
 * One run against the embedded reference with a fault that breaks a must-clause
 * (auth.response.signed: responses signed in upper-case hex), then everything it leaves behind.
 */
const FAULT = 'resp-uppercase-hex';
const FAILED_CLAUSE = 'auth.response.signed';

let dir: string;
let run: CliResult;

beforeAll(async () => {
  dir = tempReports('failing');
  run = await runCli(['run', '--fault', FAULT, '--suite', SMALL_SUITE, '--webhooks', 'off', '--seed', '4242', '--reports', dir]);
}, 60_000);

function certificate(): Certificate {
  return JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as Certificate;
}

describe('a run against a faulty reference', () => {
  it('exits 1 with a one-line reason on stderr', () => {
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('mpsi-conformance:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(FAILED_CLAUSE);
  });

  it('prints progress and a summary table with per-suite and per-level rows', () => {
    expect(run.stdout).toMatch(new RegExp(`✗ ${SMALL_SUITE}\\s+0 passed · \\d+ failed`));
    expect(run.stdout).toMatch(/suite\s+passed\s+failed\s+expected fail\s+skipped\s+harness error/);
    expect(run.stdout).toMatch(/\nmust\s+\d+\s+[1-9]\d*\s+/);
    expect(run.stdout).toMatch(/clauses\s+passed\s+failed\s+not met\s+disputed/);
    expect(run.stdout).toContain('Verdict: NON-CONFORMANT (partial run) — exit code 1');
  });

  it('leaves the single-file HTML report, the certificate, JUnit and one repro script per failing exchange', () => {
    for (const f of ['allure-report/index.html', 'certificate.md', 'certificate.json', 'junit.xml', 'clauses.html', 'run.json']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    expect(readdirSync(join(dir, 'allure-report'))).toEqual(['index.html']);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuites[^>]*failures="[1-9]/);
    expect(readdirSync(join(dir, 'repro')).length).toBeGreaterThan(0);
  });

  it('names the failed clause in the certificate, with its reproduction scripts, and lists every registry clause', () => {
    const c = certificate();
    expect(c.verdict).toBe('non-conformant');
    expect(c.exitCode).toBe(1);
    expect(c.target.faults).toEqual([FAULT]);
    expect(c.profile.name).toBe('reference');
    expect(c.kit.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(c.seed).toBe(4242);
    expect(c.scope).toBe('partial');
    expect(c.clauses.map((x) => x.id).sort()).toEqual(registry.map((x) => x.id).sort());
    const failed = c.clauses.find((x) => x.id === FAILED_CLAUSE)!;
    expect(failed.status).toBe('failed');
    expect(failed.failures.length).toBeGreaterThan(0);
    expect(failed.failures.every((f) => f.repro && existsSync(join(dir, 'repro', f.repro)))).toBe(true);
    expect(c.repro.map((r) => r.file).sort()).toEqual(readdirSync(join(dir, 'repro')).sort());
    for (const x of c.clauses.filter((y) => y.level === 'unspecified')) expect(x.status).toBe('unspecified');
    const md = readFileSync(join(dir, 'certificate.md'), 'utf8');
    expect(md).toContain('**Verdict: NON-CONFORMANT**');
    expect(md).toMatch(new RegExp(`\\| \`${FAILED_CLAUSE.replace(/\./g, '\\.')}\` \\| must \\|`));
    expect(md).toContain(c.integrity.resultsSha256);
    // Each script's entry names the exchange of the finding it reproduces, taken from the finding, not the file name.
    for (const r of c.repro) expect(failed.failures.some((f) => f.repro === r.file && f.exchangeId === r.exchangeId)).toBe(true);
    // The kit's own proof, shipped in proof/kit-proof.json, measured for the version that ran.
    expect(c.kitProof).toMatchObject({ status: 'measured', proof: { kitVersion: c.kit.version } });
    expect(md).toContain("| Kit's own proof | measured for");
  });

  it('verify-certificate accepts the certificate as written (JSON and Markdown)', async () => {
    const json = await runCli(['verify-certificate', join(dir, 'certificate.json')]);
    expect(json.code, json.stdout + json.stderr).toBe(0);
    expect(json.stdout).toContain('certificate holds: non-conformant');
    const md = await callMain(['verify-certificate', join(dir, 'certificate.md')]);
    expect(md.code, md.stdout + md.stderr).toBe(0);
  });

  it('verify-certificate catches an edited verdict, an edited result and an edited Markdown file', async () => {
    const copy = tempReports('tamper');
    const { cpSync } = await import('node:fs');
    cpSync(dir, copy, { recursive: true });
    const certPath = join(copy, 'certificate.json');
    const original = readFileSync(certPath, 'utf8');

    // 1. The verdict flipped by hand.
    writeFileSync(certPath, original.replace('"verdict": "non-conformant"', '"verdict": "conformant"'));
    let v = await callMain(['verify-certificate', certPath]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('edited');

    // 2. Flipped and the certificate digest recomputed: it no longer follows from its results.
    const { certificateDigest } = await import('../../harness/report/certificate.js');
    const forged = JSON.parse(original) as Certificate;
    forged.verdict = 'conformant';
    forged.exitCode = 0;
    forged.integrity.certificateSha256 = certificateDigest(forged);
    writeFileSync(certPath, JSON.stringify(forged, null, 2));
    v = await callMain(['verify-certificate', certPath]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('does not follow from its results');

    // 3. A stored result changed after the run.
    writeFileSync(certPath, original);
    // A failed result turned passed (results are one-line JSON: edited as data, not as text).
    const resultFile = readdirSync(join(copy, 'results'))
      .map((f) => join(copy, 'results', f))
      .find((f) => (JSON.parse(readFileSync(f, 'utf8')) as { status: string }).status === 'failed')!;
    const edited = JSON.parse(readFileSync(resultFile, 'utf8')) as { status: string };
    edited.status = 'passed';
    writeFileSync(resultFile, JSON.stringify(edited));
    v = await callMain(['verify-certificate', certPath]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('not the ones certified');

    // 4. The Markdown edited.
    const mdPath = join(copy, 'certificate.md');
    writeFileSync(mdPath, readFileSync(mdPath, 'utf8').replace('NON-CONFORMANT', 'CONFORMANT'));
    v = await callMain(['verify-certificate', mdPath, '--results', join(dir, 'results')]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('differs from the Markdown rendering');

    // 5. Not a certificate at all: exit 2.
    v = await callMain(['verify-certificate', join(copy, 'run.json')]);
    expect(v.code).toBe(2);
  });

  it('report --from merges shards into one certificate that verify-certificate accepts', async () => {
    const { cpSync, mkdirSync } = await import('node:fs');
    const files = readdirSync(join(dir, 'results')).sort();
    expect(files.length).toBeGreaterThan(1);
    const shards = [tempReports('shard1'), tempReports('shard2')];
    const meta = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as Record<string, unknown>;
    shards.forEach((s, i) => {
      mkdirSync(join(s, 'results'));
      for (const f of files.filter((_, k) => k % 2 === i)) cpSync(join(dir, 'results', f), join(s, 'results', f));
      cpSync(join(dir, 'repro'), join(s, 'repro'), { recursive: true });
      const replay = meta.replay as { args: string[] };
      writeFileSync(
        join(s, 'run.json'),
        JSON.stringify({ ...meta, shard: `${i + 1}/2`, replay: { ...replay, args: [...replay.args, '--shard', `${i + 1}/2`] } }),
      );
      writeFileSync(join(s, 'run-status.json'), JSON.stringify({ moduleErrors: [], unhandledErrors: [], tests: [] }));
    });
    const merged = tempReports('merged');
    const r = await callMain(['report', '--from', shards[0]!, '--from', shards[1]!, '--reports', merged, '--no-html']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const c = JSON.parse(readFileSync(join(merged, 'certificate.json'), 'utf8')) as Certificate;
    expect(c.results.count).toBe(files.length);
    expect(c.meta.shard).toBeUndefined();
    // The merged certificate's replay is the whole run, and its scripts are the merged ones.
    expect(c.commands.replay).not.toContain('--shard');
    expect(c.repro.every((r) => r.command.includes(join(merged, 'repro')))).toBe(true);
    expect(c.integrity.resultsSha256).toBe(certificate().integrity.resultsSha256);
    expect((await callMain(['verify-certificate', join(merged, 'certificate.json')])).code).toBe(0);
    // Shards of different runs are refused.
    writeFileSync(join(shards[1]!, 'run.json'), JSON.stringify({ ...meta, seed: 1 }));
    const bad = await callMain(['report', '--from', shards[0]!, '--from', shards[1]!, '--reports', tempReports('merged2'), '--no-html']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not shards of one run');
  });

  it("report, run on a reports directory moved elsewhere, points the certificate's commands at where it is now", async () => {
    const { cpSync } = await import('node:fs');
    const moved = tempReports('moved');
    cpSync(dir, moved, { recursive: true });
    const r = await callMain(['report', '--reports', moved, '--no-html']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const c = JSON.parse(readFileSync(join(moved, 'certificate.json'), 'utf8')) as Certificate;
    expect(c.repro.length).toBeGreaterThan(0);
    expect(c.repro.every((x) => x.command === `node ${join(moved, 'repro', x.file)}`)).toBe(true);
    expect((await callMain(['verify-certificate', join(moved, 'certificate.json')])).code).toBe(0);
  });

  it('writes no merchant secret into any file of the reports directory, as text or Base64', () => {
    const secrets = fixtureSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const files = allFiles(dir);
    expect(files.length).toBeGreaterThan(10);
    // The Allure results are packed into one file once the page is built; the scan reads inside it.
    expect(files).toContain(join(dir, 'allure-results.json.gz'));
    const hits = files.flatMap((f) => secretHits(f, secrets));
    expect(hits).toEqual([]);
    // The scan itself finds a planted secret, so an empty result means something.
    const planted = join(tempReports('plant'), 'x.txt');
    writeFileSync(planted, `...${Buffer.from(`ab${secrets[0]}`).toString('base64')}...`);
    expect(secretHits(planted, secrets).length).toBeGreaterThan(0);
    const folder = join(tempReports('plant-pack'), 'allure-results');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'a-attachment.txt'), Buffer.from(`ab${secrets[0]}`).toString('base64'));
    packAllureResults(folder, `${folder}.json.gz`);
    expect(secretHits(`${folder}.json.gz`, secrets).length).toBeGreaterThan(0);
  });

  it('gives no secret in what it prints either', () => {
    for (const s of fixtureSecrets()) expect(run.stdout + run.stderr).not.toContain(s);
  });

  it('makes an HTML page that loads nothing from a third-party host', () => {
    const html = readFileSync(join(dir, 'allure-report', 'index.html'), 'utf8');
    expect(thirdPartyReferences(html)).toEqual([]);
    expect(html).not.toContain('googletagmanager');
    expect(html).toContain('http-equiv="Content-Security-Policy"');
  });
});

describe('a reproduction script of the faulty run', () => {
  let faulty: RunningReference;
  let correct: RunningReference;
  beforeAll(async () => {
    faulty = await startReference({ port: 0, faults: [FAULT] });
    correct = await startReference({ port: 0 });
  });
  afterAll(async () => {
    await faulty?.close();
    await correct?.close();
  });

  function repro(file: string, baseUrl: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
    const started = Date.now();
    return new Promise((resolve) => {
      // Plain node from a folder that is not the kit's: the script needs nothing but itself.
      const child = spawn(process.execPath, [file, '--base-url', baseUrl], {
        cwd: tempReports('elsewhere'),
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      child.on('exit', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
    });
  }

  function firstScript(): string {
    const c = certificate();
    const r = c.repro.find((x) => x.clause === FAILED_CLAUSE)!;
    return join(dir, 'repro', r.file);
  }

  it('names the variable it reads the secret from and holds no secret', () => {
    const text = readFileSync(firstScript(), 'utf8');
    expect(text).toContain('MPSI_SECRET_PRIMARY');
    for (const s of fixtureSecrets()) expect(text).not.toContain(s);
  });

  it('shows the same non-conformant answer against a reference with the same fault', async () => {
    const primary = fixtureSecrets()[0]!;
    const r = await repro(firstScript(), faulty.url, { MPSI_SECRET_PRIMARY: primary });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('response signature: upper-case-hex');
    expect(r.stdout).toContain('REPRODUCED');
    expect(r.stdout + r.stderr).not.toContain(primary);
  });

  it('tells when the answer differs (a conformant reference) and refuses to run without the secret', async () => {
    const r = await repro(firstScript(), correct.url, { MPSI_SECRET_PRIMARY: fixtureSecrets()[0]! });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('response signature: ok');
    expect(r.stdout).toContain('NOT REPRODUCED');
    const noSecret = await repro(firstScript(), faulty.url, { MPSI_SECRET_PRIMARY: '' });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('set MPSI_SECRET_PRIMARY');
  });
});
