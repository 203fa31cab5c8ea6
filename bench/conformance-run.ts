/**
 * Whole-run wall time of the conformance command against the embedded reference
 * (`npm run conformance`, i.e. `npx tsx harness/cli/main.ts run`), and how it grows with --runs:
 * the default (20 fast-check runs per property check), 4× (80) and 16× (320). Same seed for all.
 * Two more rows put the figures in proportion: the same run with --webhooks off, and the fixed
 * cost of a run (one small suite, webhooks off). Reports go to a temporary directory, so
 * reports/ of a developer's own run is left alone.
 *
 *   npx tsx bench/conformance-run.ts [seed=20261122]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, ROOT, round, writeReport } from './support/report.js';

const SEED = Number(process.argv[2] ?? 20261122);
const BASE_RUNS = 20;

export interface CliRun {
  args: string[];
  exitCode: number;
  seconds: number;
  checks: number;
  byStatus: Record<string, number>;
  /** Sum of the checks' own durations (they run two files at a time, and checks within a file concurrently or not). */
  checkSecondsSum: number;
  longestCheckSeconds: number;
  results: Array<{ checkId: string; status: string; clauses: string[]; durationMs: number }>;
}

/** Runs the CLI with `args` (plus --reports DIR) and reads back the stored results. */
export async function runCli(args: string[]): Promise<CliRun> {
  const reports = mkdtempSync(join(tmpdir(), 'mpsi-bench-'));
  const t0 = performance.now();
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'harness/cli/main.ts'), 'run', ...args, '--reports', reports], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
  const seconds = (performance.now() - t0) / 1000;
  const dir = join(reports, 'results');
  const results: CliRun['results'] = [];
  try {
    for (const f of readdirSync(dir)) {
      if (!f.endsWith('.json')) continue;
      const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
        checkId: string;
        status: string;
        clauses: string[];
        durationMs: number;
      };
      results.push({ checkId: r.checkId, status: r.status, clauses: r.clauses, durationMs: r.durationMs });
    }
  } catch {
    // no results directory: the run failed before any check
  }
  rmSync(reports, { recursive: true, force: true });
  const byStatus: Record<string, number> = {};
  for (const r of results) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  const durations = results.map((r) => r.durationMs / 1000);
  return {
    args,
    exitCode,
    seconds: round(seconds, 2),
    checks: results.length,
    byStatus,
    checkSecondsSum: round(
      durations.reduce((a, b) => a + b, 0),
      1,
    ),
    longestCheckSeconds: round(Math.max(0, ...durations), 2),
    results,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  type Row = Omit<CliRun, 'results'> & { label: string; ratioToBase?: number; slowest: string[] };
  const rows: Row[] = [];
  const add = (label: string, r: CliRun, base?: number): Row => {
    const slowest = [...r.results]
      .sort((a, b) => b.durationMs - a.durationMs)
      .slice(0, 3)
      .map((x) => `${x.checkId} ${round(x.durationMs / 1000, 2)} s`);
    const { results: _omit, ...rest } = r;
    const row: Row = { label, ...rest, slowest, ...(base ? { ratioToBase: round(r.seconds / base, 2) } : {}) };
    rows.push(row);
    log(
      `${label}: ${r.seconds} s wall${base ? ` (×${round(r.seconds / base, 2)})` : ''}` +
        `, ${r.checks} checks ${JSON.stringify(r.byStatus)}, ` +
        `check time summed ${r.checkSecondsSum} s, longest check ${r.longestCheckSeconds} s, exit ${r.exitCode}`,
    );
    return row;
  };
  let base = 0;
  for (const factor of [1, 4, 16]) {
    const runs = BASE_RUNS * factor;
    const r = await runCli(['--seed', String(SEED), '--runs', String(runs)]);
    if (factor === 1) base = r.seconds;
    add(`--runs ${runs}`, r, base);
  }
  add('--runs 20 --webhooks off', await runCli(['--seed', String(SEED), '--webhooks', 'off']), base);
  add(
    'fixed cost: --suite mutual-exclusion --webhooks off',
    await runCli(['--seed', String(SEED), '--suite', 'mutual-exclusion', '--webhooks', 'off']),
    base,
  );
  log(
    `→ ${writeReport('conformance-run', {
      seed: SEED,
      command: 'npx tsx harness/cli/main.ts run --seed S [--runs N] [--webhooks off] [--suite X] --reports TMP',
      rows,
    })}`,
  );
}
