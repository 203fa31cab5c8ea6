/**
 * CPU of a quick run, per process: `node bin/mpsi-conformance.js run --reports TMP` (embedded reference,
 * webhooks quick) N times; each Node process of the run writes its own user and system time at its end
 * (bench/support/cpu-log.mjs, preloaded through NODE_OPTIONS). CPU time depends far less on the machine's load than
 * wall time does, so it can be measured beside other work; the 1-minute load average is printed beside each run.
 *
 *   npx tsx bench/cpu.ts [runs=5] [--no-doctor] [--seed S] [-- extra run flags]
 *
 * The doctor runs inside the CLI's process: its share is the CLI's CPU with the doctor minus the CLI's CPU of a
 * `--no-doctor` run. The CLI's process also hosts the embedded reference and the request pool
 * (harness/run/host.ts): their CPU is the CLI's; a "reference" or "other" (pool) row appears only for a kit before it.
 * "all processes" is what this bench reaped (the kernel's count for the whole tree, esbuild's service included);
 * "unattributed" is that minus the Node processes' own figures.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { log, ROOT, round, writeReport } from './support/report.js';

const args = process.argv.slice(2);
const dashes = args.indexOf('--');
const own = dashes < 0 ? args : args.slice(0, dashes);
const extra = dashes < 0 ? [] : args.slice(dashes + 1);
const seedAt = own.indexOf('--seed');
const RUNS = Number(own.find((a, i) => /^\d+$/.test(a) && (seedAt < 0 || i !== seedAt + 1)) ?? 5);
const SEED = seedAt < 0 ? 20261122 : Number(own[seedAt + 1]);
const NO_DOCTOR = own.includes('--no-doctor');

type Role = 'cli' | 'vitest main' | 'worker' | 'reference' | 'allure' | 'other';
const ROLES: Role[] = ['cli', 'vitest main', 'worker', 'reference', 'allure', 'other'];

interface Entry {
  pid: number;
  ppid: number;
  argv: string[];
  userMs: number;
  systemMs: number;
  wallMs: number;
  allure: boolean;
}

function roleOf(e: Entry): Role {
  const first = e.argv.find((a) => !a.startsWith('-')) ?? '';
  if (e.allure) return 'allure';
  if (first.endsWith('bin/mpsi-conformance.js')) return 'cli';
  if (first.endsWith('vitest.mjs') || /harness\/run\/vitest-main\.(ts|js)$/.test(first)) return 'vitest main';
  if (/vitest\/dist\/workers\//.test(first)) return 'worker';
  if (e.argv.some((a) => /reference\/serve\.(ts|js)$/.test(a))) return 'reference';
  return 'other';
}

/** Clock ticks of this process's reaped children (user + system), in ms: the kernel's count of the whole run. */
function reapedMs(): { user: number; system: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[13]) * 10, system: Number(f[14]) * 10 };
}

interface Run {
  wallS: number;
  exitCode: number;
  load1mAtStart: number;
  load1mAtEnd: number;
  allProcesses: { userS: number; systemS: number };
  byRole: Record<Role, { cpuS: number; processes: number }>;
  unattributedS: number;
  other: string[];
}

async function once(): Promise<Run> {
  const reports = mkdtempSync(join(tmpdir(), 'mpsi-cpu-'));
  const cpuLog = mkdtempSync(join(tmpdir(), 'mpsi-cpu-log-'));
  const preload = pathToFileURL(join(ROOT, 'bench/support/cpu-log.mjs')).href;
  const load1mAtStart = round(loadavg()[0]!, 2);
  const before = reapedMs();
  const t0 = performance.now();
  const runArgs = ['bin/mpsi-conformance.js', 'run', '--seed', String(SEED), '--reports', reports, ...(NO_DOCTOR ? ['--no-doctor'] : [])];
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [...runArgs, ...extra], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, MPSI_CPU_LOG: cpuLog, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${preload}`.trim() },
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
  const wallS = round((performance.now() - t0) / 1000, 2);
  const after = reapedMs();
  const entries = readdirSync(cpuLog).map((f) => JSON.parse(readFileSync(join(cpuLog, f), 'utf8')) as Entry);
  // A failed run is kept to be read: a verdict must not depend on the machine's load.
  if (exitCode === 0) rmSync(reports, { recursive: true, force: true });
  else log(`exit ${exitCode}: reports kept in ${reports}`);
  rmSync(cpuLog, { recursive: true, force: true });
  const byRole = Object.fromEntries(ROLES.map((r) => [r, { cpuS: 0, processes: 0 }])) as Run['byRole'];
  const other: string[] = [];
  let attributedMs = 0;
  for (const e of entries) {
    const role = roleOf(e);
    const ms = e.userMs + e.systemMs;
    byRole[role].cpuS = round(byRole[role].cpuS + ms / 1000, 2);
    byRole[role].processes++;
    attributedMs += ms;
    if (role === 'other') other.push(e.argv.join(' ').slice(0, 120));
  }
  const allProcesses = { userS: round((after.user - before.user) / 1000, 2), systemS: round((after.system - before.system) / 1000, 2) };
  const unattributedS = round((after.user - before.user + after.system - before.system - attributedMs) / 1000, 2);
  return { wallS, exitCode, load1mAtStart, load1mAtEnd: round(loadavg()[0]!, 2), allProcesses, byRole, unattributedS, other };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const runs: Run[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await once();
  runs.push(r);
  const roles = ROLES.filter((role) => r.byRole[role].processes > 0)
    .map((role) => `${role} ${r.byRole[role].cpuS} s${r.byRole[role].processes > 1 ? ` (${r.byRole[role].processes})` : ''}`)
    .join(', ');
  log(
    `run ${i + 1}: ${r.wallS} s wall, CPU ${r.allProcesses.userS} user + ${r.allProcesses.systemS} sys; ${roles}, ` +
      `unattributed ${r.unattributedS} s; exit ${r.exitCode}; load ${r.load1mAtStart} → ${r.load1mAtEnd}`,
  );
  if (r.other.length) log(`  other processes: ${r.other.join(' | ')}`);
}
const table = ['| process | CPU s (median) | processes |', '|---|---|---|'];
for (const role of ROLES) {
  if (!runs.some((r) => r.byRole[role].processes > 0)) continue;
  table.push(`| ${role} | ${median(runs.map((r) => r.byRole[role].cpuS))} | ${median(runs.map((r) => r.byRole[role].processes))} |`);
}
table.push(`| unattributed (non-Node children) | ${median(runs.map((r) => r.unattributedS))} | |`);
const total = runs.map((r) => round(r.allProcesses.userS + r.allProcesses.systemS, 2));
table.push(
  `| **all processes** (user + sys) | **${median(total)}** (${median(runs.map((r) => r.allProcesses.userS))}` +
    ` + ${median(runs.map((r) => r.allProcesses.systemS))}) | |`,
);
table.push(`| wall | ${median(runs.map((r) => r.wallS))} | |`);
log(table.join('\n'));
log(`load (1 min) at the starts: ${runs.map((r) => r.load1mAtStart).join(', ')}`);
const benchedCommand = [
  'bin/mpsi-conformance.js',
  'run',
  '--seed',
  'S',
  '--reports',
  'TMP',
  ...(NO_DOCTOR ? ['--no-doctor'] : []),
  ...extra,
];
log(
  `→ ${writeReport(NO_DOCTOR ? 'cpu-no-doctor' : 'cpu', {
    seed: SEED,
    command: `node ${benchedCommand.join(' ')}`,
    runs,
    medianCpuS: median(total),
    medianWallS: median(runs.map((r) => r.wallS)),
  })}`,
);
