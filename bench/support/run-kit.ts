/** A quick run of the kit's CLI on a profile, as the benches time it: no HTML page, output left out, errors shown. */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, round } from './report.js';

export interface TimedRun {
  exitCode: number;
  /** Wall time of the CLI's process, s (one decimal). */
  seconds: number;
  load1mAtStart: number;
}

export async function timedRun(o: { profile: string; seed: number; reports: string; env?: NodeJS.ProcessEnv }): Promise<TimedRun> {
  const load1mAtStart = round(loadavg()[0]!, 2);
  const t0 = performance.now();
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin/mpsi-conformance.js'), 'run', '--profile', o.profile, '--seed', String(o.seed), '--reports', o.reports, '--no-html'],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...o.env } },
    );
    child.on('exit', (code) => resolve(code ?? 1));
  });
  return { exitCode, seconds: round((performance.now() - t0) / 1000, 1), load1mAtStart };
}
