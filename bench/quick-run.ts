/**
 * Wall time of `npm run conformance` (quick webhooks, the embedded reference), N times in a row,
 * with the 1-minute load average at the start of each run beside its time; the median is the
 * figure (≤ 10 s on this 2-core machine). Reports go to a temporary directory.
 *
 *   npx tsx bench/quick-run.ts [runs=5] [seed=20261122]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, ROOT, round, writeReport } from './support/report.js';

const RUNS = Number(process.argv[2] ?? 5);
const SEED = Number(process.argv[3] ?? 20261122);

async function once(): Promise<{ seconds: number; exitCode: number; checks: number; load1mAtStart: number }> {
  const reports = mkdtempSync(join(tmpdir(), 'mpsi-quick-'));
  const load1mAtStart = round(loadavg()[0]!, 2);
  const t0 = performance.now();
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn('npm', ['run', '--silent', 'conformance', '--', '--seed', String(SEED), '--reports', reports], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
  const seconds = round((performance.now() - t0) / 1000, 2);
  let checks = 0;
  try {
    checks = readdirSync(join(reports, 'results')).filter((f) => f.endsWith('.json')).length;
  } catch {
    // no results: the run failed before any check
  }
  rmSync(reports, { recursive: true, force: true });
  return { seconds, exitCode, checks, load1mAtStart };
}

const runs: Awaited<ReturnType<typeof once>>[] = [];
for (let i = 0; i < RUNS; i++) {
  const r = await once();
  runs.push(r);
  log(`run ${i + 1}: ${r.seconds} s wall, ${r.checks} checks, exit ${r.exitCode}, load average ${r.load1mAtStart} at start`);
}
const sorted = runs.map((r) => r.seconds).sort((a, b) => a - b);
const median = sorted[Math.floor(sorted.length / 2)]!;
log(`median ${median} s of ${RUNS} (min ${sorted[0]} s, max ${sorted.at(-1)} s)`);
log(`→ ${writeReport('quick-run', { seed: SEED, command: 'npm run conformance -- --seed S --reports TMP', runs, medianSeconds: median })}`);
