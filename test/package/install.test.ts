/**
 * The kit as its users get it: `npm pack`, installed offline into a fresh project (npm's hoisted layout,
 * pnpm's isolated layout through npm's --install-strategy=linked, and `npm i -g`'s nested layout), then
 * run from that project's folder the way examples/github-actions.yml runs it. One pack and the installs
 * are shared by the whole file (see install.ts for why the projects get a lockfile).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installKit, KIT, type Layout, OFFLINE_ENV, type Packed, packKit } from './install.js';
import { play } from '../cli/action-play.js';

const STEP = 120_000;
let dir: string;
let packed: Packed;
const projects = {} as Record<Layout, string>;
const children: ChildProcess[] = [];

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command in a project's folder, offline; never throws on a non-zero exit. */
function run(cmd: string, args: string[], cwd: string): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd, encoding: 'utf8', timeout: STEP, maxBuffer: 32 << 20, env: { ...OFFLINE_ENV, CI: '1' } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr }),
    );
  });
}

/** `npx mpsi-conformance ...`, as the README and the CI example run it. */
const npx = (project: string, ...args: string[]): Promise<Result> => run('npx', ['--no-install', 'mpsi-conformance', ...args], project);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mpsi-package-'));
  packed = packKit(join(dir, 'pack'));
  const layouts = ['hoisted', 'linked', 'nested'] as const;
  for (const layout of layouts) projects[layout] = join(dir, layout);
  await Promise.all(layouts.map((layout) => installKit(projects[layout], packed.tarball, layout)));
}, 4 * STEP);

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  if (dir) await rm(dir, { recursive: true, force: true });
}, STEP);

describe('the packed kit', () => {
  it('ships what users run and read, not the project’s tests, benchmarks or TypeScript sources', () => {
    const tar = execFileSync('tar', ['tzf', packed.tarball], { encoding: 'utf8', maxBuffer: 32 << 20 })
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    for (const f of [
      'bin/mpsi-conformance.js',
      'dist/harness/cli/main.js',
      'dist/harness/cli/main.d.ts',
      'dist/vitest.conformance.config.js',
      'dist/suites/envelope.test.js',
      'dist/reference/index.js',
      'fixtures/profiles/profile.schema.json',
      'fixtures/profiles/reference.json',
      'harness/schemas/envelope.schema.json',
      'README.md',
      // The guides and the generated pages the README links to.
      'docs/guides/certify-a-sandbox.md',
      'docs/generated/cli.md',
      'docs/generated/profile.md',
      'docs/generated/clauses.md',
      'examples/github-actions.yml',
      'examples/expectations.json',
      // The kit's own proof, which every certificate carries.
      'proof/kit-proof.json',
    ]) {
      expect(tar, f).toContain(f);
    }
    expect(tar.filter((f) => /^(test|bench|scripts)\//.test(f))).toEqual([]);
    expect(tar.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('was installed without the network: npm cannot reach the registry under the same settings', async () => {
    // a name never published, so no cached answer can stand in for the registry's
    const r = await run(
      'npm',
      ['view', `mpsi-conformance-no-such-package-${randomBytes(4).toString('hex')}`, '--offline=false', '--fetch-retries=0'],
      projects.hoisted,
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('ECONNREFUSED');
    expect(existsSync(join(projects.hoisted, 'node_modules', 'vitest'))).toBe(true);
    // linked: the kit is a link into npm's store and nothing of its own is hoisted beside it
    expect(existsSync(join(projects.linked, 'node_modules', '.store'))).toBe(true);
    expect(existsSync(join(projects.linked, 'node_modules', 'vitest'))).toBe(false);
    expect(existsSync(join(projects.nested, 'node_modules', 'mpsi-conformance', 'node_modules', 'vitest'))).toBe(true);
  });
});

describe.each(['hoisted', 'linked'] as const)('installed by npm (%s layout), from the project’s folder', (layout) => {
  it('prints its help and exits 0', async () => {
    const r = await npx(projects[layout], '--help');
    expect(r.code, r.stderr).toBe(0);
    // only npm's own warnings about this machine's npm configuration, nothing from the kit
    expect(r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('npm warn'))).toEqual([]);
    expect(r.stdout).toContain('mpsi-conformance run [options]');
  });

  it('loads every command from the install: each one’s help exits 0', async () => {
    const main = await npx(projects[layout], 'help');
    const commands = [...main.stdout.matchAll(/^ {2}mpsi-conformance ([a-z-]+)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands).toContain('run');
    for (const args of [...commands.map((c) => ['help', c]), ['serve', '--audit', '--help']]) {
      const r = await npx(projects[layout], ...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stdout.length, args.join(' ')).toBeGreaterThan(100);
    }
  });

  it('runs one suite against the embedded reference and writes the reports into ./reports of the project', async () => {
    const r = await npx(projects[layout], 'run', '--suite', 'envelope');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Verdict: CONFORMANT');
    const reports = join(projects[layout], 'reports');
    for (const f of ['certificate.json', 'certificate.md', 'junit.xml', 'clauses.html', 'allure-report/index.html'])
      expect(existsSync(join(reports, f)), f).toBe(true);
    const cert = JSON.parse(readFileSync(join(reports, 'certificate.json'), 'utf8')) as { exitCode: number };
    expect(cert.exitCode).toBe(0);
  });
});

describe('installed in pnpm’s isolated layout (npm --install-strategy=linked)', () => {
  it('compares two embedded references with parity, from relative profile paths', async () => {
    const ref = 'node_modules/mpsi-conformance/fixtures/profiles/reference.json';
    const r = await npx(projects.linked, 'parity', '--a', ref, '--b', ref, '--suite', 'envelope', '--no-html', '--reports', 'parity');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(projects.linked, 'parity/parity.json'))).toBe(true);
  });
});

describe('installed by npm, as examples/github-actions.yml runs it', () => {
  it(`runs every kit command of the CI example: relative --profile \
and --expectations in shards, report --from, verify-certificate`, async () => {
    const p = projects.hoisted;
    const used: string[][] = [];
    const step = async (...args: string[]): Promise<Result> => {
      used.push(args);
      return npx(p, ...args);
    };
    // The example's install line, over the project's existing tree (offline: no registry metadata is needed then).
    const installed = await run('npm', ['install', '--no-save', '--offline', '--no-audit', '--no-fund', packed.tarball], p);
    expect(installed.code, installed.stderr).toBe(0);
    // The user's profile sits in their repository and points its $schema at the installed kit.
    mkdirSync(join(p, 'conformance'), { recursive: true });
    const profile = JSON.parse(readFileSync(join(p, 'node_modules/mpsi-conformance/fixtures/profiles/reference.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    profile['$schema'] = '../node_modules/mpsi-conformance/fixtures/profiles/profile.schema.json';
    profile['name'] = 'acme-sandbox';
    writeFileSync(join(p, 'conformance/acme-sandbox.json'), JSON.stringify(profile, null, 2));
    expect(existsSync(join(p, 'conformance', String(profile['$schema'])))).toBe(true);
    writeFileSync(join(p, 'conformance/acme-sandbox.expectations.json'), JSON.stringify({ profile: 'acme-sandbox', entries: [] }));

    // Each shard job writes reports/, uploaded as mpsi-reports-<shard> and downloaded into shards/ by the verdict job.
    for (const shard of ['1', '2']) {
      rmSync(join(p, 'reports'), { recursive: true, force: true });
      const r = await step(
        'run',
        '--profile',
        'conformance/acme-sandbox.json',
        '--expectations',
        'conformance/acme-sandbox.expectations.json',
        '--seed',
        '1234',
        '--reports',
        'reports',
        '--suite',
        'envelope,naming',
        '--shard',
        `${shard}/2`,
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      mkdirSync(join(p, 'shards'), { recursive: true });
      renameSync(join(p, 'reports'), join(p, `shards/mpsi-reports-${shard}`));
    }
    const from = readdirSync(join(p, 'shards')).flatMap((d) => ['--from', `shards/${d}/`]);
    const merged = await step('report', ...from, '--reports', 'reports');
    expect(merged.code, merged.stdout + merged.stderr).toBe(0);
    const cert = JSON.parse(readFileSync(join(p, 'reports/certificate.json'), 'utf8')) as { exitCode: number };
    expect(cert.exitCode).toBe(0);
    const verified = await step('verify-certificate', 'reports/certificate.json');
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(existsSync(join(p, 'node_modules/mpsi-conformance/reports'))).toBe(false);

    // Every kit command of the example, with every flag it passes, is one this test ran.
    const example = readFileSync(join(p, 'node_modules/mpsi-conformance/examples/github-actions.yml'), 'utf8');
    const steps = example.split(/\n\s*- /).map((b) =>
      b
        .split('\n')
        .filter((l) => !/^\s*#/.test(l))
        .join('\n'),
    );
    const wanted = steps.flatMap((b) => {
      const m = /npx mpsi-conformance ([a-z-]+)/.exec(b);
      return m ? [[m[1]!, ...(b.slice(m.index).match(/--[a-z-]+/g) ?? [])]] : [];
    });
    expect(wanted.map((w) => w[0])).toEqual(['run', 'report', 'verify-certificate']);
    for (const [command, ...flags] of wanted) {
      const ran = used.filter((u) => u[0] === command);
      expect(ran.length, command).toBeGreaterThan(0);
      for (const f of flags)
        expect(
          ran.some((u) => u.includes(f)),
          `${command} ${f}`,
        ).toBe(true);
    }
  });

  it('serves the reference, which answers a request signed with the shipped profile’s secret', async () => {
    const p = projects.hoisted;
    const profile = JSON.parse(readFileSync(join(p, 'node_modules/mpsi-conformance/fixtures/profiles/reference.json'), 'utf8')) as {
      merchants: { primary: { id: string; secret: string } };
    };
    const { id, secret } = profile.merchants.primary;
    const child = spawn('npx', ['--no-install', 'mpsi-conformance', 'serve', '--port', '0'], {
      cwd: p,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`serve printed no address: ${out}`)), 30_000);
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString('utf8');
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
      });
      const send = async (key: string): Promise<{ status: number; body: { code?: number; msg?: string } }> => {
        const body = JSON.stringify({ merchant_order_no: `package-test-${randomBytes(6).toString('hex')}` });
        const timestamp = String(Math.floor(Date.now() / 1000));
        const nonce = randomBytes(12).toString('hex');
        const sign = createHmac('sha256', key).update(`${id}\n${timestamp}\n${nonce}\n${body}`).digest('hex');
        const res = await fetch(`${url}/api/v1/payments/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-merchantid': id, 'x-timestamp': timestamp, 'x-nonce': nonce, 'x-sign': sign },
          body,
        });
        return { status: res.status, body: (await res.json()) as { code?: number; msg?: string } };
      };
      const signed = await send(secret);
      expect(signed.status).toBe(200);
      expect(signed.body.code).toBe(2002);
      expect(signed.body.msg).toMatch(/\|orderNotFound$/);
      const wrong = await send(`${secret}x`);
      expect(wrong.status).toBe(403);
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    }
  });
});

describe('installed globally (npm i -g: the dependencies nested in the kit’s own node_modules)', () => {
  it('runs from another folder through its bin, with the reports in that folder', async () => {
    const bin = join(projects.nested, 'node_modules/mpsi-conformance/bin/mpsi-conformance.js');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    cpSync(join(KIT, 'fixtures/profiles/reference.json'), join(elsewhere, 'target.json'));
    const before = Date.now() - 1000;
    const r = await run(process.execPath, [bin, 'run', '--profile', 'target.json', '--suite', 'envelope', '--reports', 'out'], elsewhere);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(elsewhere, 'out/certificate.json'))).toBe(true);
    // A global install may be read-only: the run wrote nothing into the kit's folder (vitest's cache included).
    const kit = join(projects.nested, 'node_modules/mpsi-conformance');
    const written = readdirSync(kit, { recursive: true, withFileTypes: true })
      .filter((e) => !join(e.parentPath, e.name).startsWith(join(kit, 'node_modules')))
      .filter((e) => statSync(join(e.parentPath, e.name)).mtimeMs > before)
      .map((e) => join(e.parentPath, e.name));
    expect(written).toEqual([]);
  });
});

describe('runs side by side on one machine: two installs and the clone', () => {
  /** One run of one envelope suite, from its own folder, with the OS temp folder the three runs share. */
  const sideRun = (who: 'hoisted' | 'linked' | 'clone', tmp: string, reports: string): Promise<Result> => {
    const [cmd, args, cwd] =
      who === 'clone'
        ? [process.execPath, [join(KIT, 'bin/mpsi-conformance.js')], KIT]
        : ['npx', ['--no-install', 'mpsi-conformance'], projects[who]];
    return new Promise((resolve) => {
      execFile(
        cmd,
        [...args, 'run', '--suite', 'envelope', '--no-html', '--reports', reports],
        // Three runs at once on two cores beside the rest of npm test: a bound against a hang, not a timing verdict.
        { cwd, encoding: 'utf8', timeout: 3 * STEP, maxBuffer: 32 << 20, env: { ...OFFLINE_ENV, CI: '1', TMPDIR: tmp } },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 99) : 0, stdout, stderr }),
      );
    });
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it(
    'each reaches its own verdict, started seconds apart and at the same moment',
    async () => {
      const tmp = mkdtempSync(join(dir, 'shared-tmp-'));
      const who = ['hoisted', 'linked', 'clone'] as const;
      for (const [round, gapMs] of [
        ['apart', 3000],
        ['together', 0],
      ] as const) {
        const runs = who.map(async (w, i) => {
          await sleep(i * gapMs);
          return sideRun(w, tmp, join(dir, `side-${round}-${w}`));
        });
        const results = await Promise.all(runs);
        // Every run's outcome at once: one run's failure must not hide what the others did.
        const outcomes = results.map((r, i) => ({
          run: `${round}: ${who[i]}`,
          code: r.code,
          verdict: /Verdict: [A-Z-]+/.exec(r.stdout)?.[0] ?? (r.stdout + r.stderr).slice(-2000),
        }));
        expect(outcomes).toEqual(who.map((w) => ({ run: `${round}: ${w}`, code: 0, verdict: 'Verdict: CONFORMANT' })));
        for (const r of results) expect(r.stdout + r.stderr).not.toMatch(/could not run|ENOENT/);
      }
      // Nothing of a run's own is left behind in the shared temp folder once the runs are over.
      expect(readdirSync(join(tmp, 'mpsi-conformance-modules', 'runs'))).toEqual([]);
    },
    7 * STEP,
  );
});

/**
 * The Action's npm branch (kit-version empty: the version of the action's own package.json), played as a runner plays
 * it. npm's fetch from the registry is stood in for by an `npm` of the test's own first on PATH, which records how it
 * was called and puts the packed kit, installed offline above, where `npm install --prefix` would; everything after
 * it — the bin path the step outputs, the run from that install, the verdict — is the Action's own.
 */
describe("the GitHub Action's npm install branch", () => {
  it(
    'installs the version of its own package.json and runs that install to a verdict',
    () => {
      const stub = mkdtempSync(join(dir, 'npm-stub-'));
      const log = join(stub, 'calls.log');
      writeFileSync(
        join(stub, 'npm'),
        [
          '#!/usr/bin/env bash',
          'echo "$*" >> "$STUB_LOG"',
          'prefix=""; prev=""',
          'for a in "$@"; do [ "$prev" = --prefix ] && prefix="$a"; prev="$a"; done',
          'mkdir -p "$prefix/node_modules" && ln -s "$STUB_KIT" "$prefix/node_modules/mpsi-conformance"',
          '',
        ].join('\n'),
        { mode: 0o755 },
      );
      const kit = join(projects.hoisted, 'node_modules', 'mpsi-conformance');
      const p = play(
        { 'kit-version': '', suites: 'mutual-exclusion', webhooks: 'off', reports: 'out', args: '--no-html' },
        { PATH: `${stub}:${process.env['PATH']}`, STUB_LOG: log, STUB_KIT: kit },
      );
      const version = (JSON.parse(readFileSync(join(KIT, 'package.json'), 'utf8')) as { version: string }).version;
      const calls = readFileSync(log, 'utf8').trim().split('\n');
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatch(
        new RegExp(
          `^install --prefix \\S+/mpsi-conformance-kit --no-save --no-audit ` +
            `--no-fund mpsi-conformance@${version.replace(/\./g, '\\.')}$`,
        ),
      );
      expect(p.codes).toEqual(Object.fromEntries(Object.keys(p.codes).map((k) => [k, 0])));
      expect(p.outputs.verdict).toBe('conformant');
      expect(p.outputs['exit-code']).toBe('0');
      expect(p.summary).toMatch(/CONFORMANT/);
    },
    2 * STEP,
  );
});
