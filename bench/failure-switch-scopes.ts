/**
 * Full runs (`--webhooks full`, default concurrency) against the embedded reference whose sandbox failure switch has
 * another scope than the README's (the next request of the one order it names): the calling merchant's next requests
 * of an operation (once, and three times), and the next two requests of an operation from any merchant. Each run's
 * profile says what the vendor would (`sandbox.armFailure.scope` and `count`, or nothing of the scope), and every run
 * must be CONFORMANT: no check may take another's armed failure (harness/http/exclusive.ts).
 *
 *   npx tsx bench/failure-switch-scopes.ts [--runs N]   (default 5 runs per configuration)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchArgs } from './support/args.js';
import { log, ROOT, writeReport } from './support/report.js';

const USAGE = 'npx tsx bench/failure-switch-scopes.ts [--runs N]';
const RUNS = Number(benchArgs(USAGE, ['runs']).flag('runs', '5'));
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs must be a positive integer');

interface Config {
  name: string;
  /** The reference's switch (reference/sandbox-data.ts sandbox.armReach, armCount). */
  reach: { armReach: string; armCount: number };
  /** What the profile says of it (sandbox.armFailure.scope, count); nothing of the scope: the broadest. */
  declared: { scope?: string; count?: number };
}

const CONFIGS: Config[] = [
  { name: 'merchant-operation', reach: { armReach: 'merchant-operation', armCount: 1 }, declared: { scope: 'operation' } },
  {
    name: 'merchant-operation, count 3',
    reach: { armReach: 'merchant-operation', armCount: 3 },
    declared: { scope: 'operation', count: 3 },
  },
  { name: 'every merchant, count 2', reach: { armReach: 'operation', armCount: 2 }, declared: { count: 2 } },
];

function profileFor(c: Config, dir: string): string {
  type Json = Record<string, unknown>;
  const p = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Json & { sandbox: Json };
  const embedded = (p.embedded ?? {}) as Json;
  p.embedded = { ...embedded, target: { ...(embedded.target as Json | undefined), sandbox: c.reach } };
  p.sandbox.armFailure = { ...(p.sandbox.armFailure as Json), ...c.declared };
  const file = join(dir, 'profile.json');
  writeFileSync(file, JSON.stringify(p, null, 2));
  return file;
}

const rows: Record<string, unknown>[] = [];
for (const c of CONFIGS) {
  const verdicts: string[] = [];
  const seconds: number[] = [];
  const loads: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-switch-scope-'));
    try {
      const t0 = performance.now();
      const r = spawnSync(
        process.execPath,
        [
          join(ROOT, 'bin', 'mpsi-conformance.js'),
          'run',
          '--profile',
          profileFor(c, dir),
          '--webhooks',
          'full',
          '--reports',
          dir,
          '--no-html',
        ],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      seconds.push(Math.round((performance.now() - t0) / 1000));
      loads.push(Math.round(loadavg()[0]! * 100) / 100);
      verdicts.push(/Verdict: ([A-Z-]+)/.exec(r.stdout)?.[1] ?? `exit ${r.status}`);
      log(`${c.name} ${i + 1}/${RUNS}: ${verdicts.at(-1)} in ${seconds.at(-1)} s (exit ${r.status}, load ${loads.at(-1)})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const conformant = verdicts.filter((v) => v === 'CONFORMANT').length;
  rows.push({ config: c.name, conformant, runs: RUNS, verdicts, seconds, loads });
  if (conformant !== RUNS) process.exitCode = 1;
}
log(rows.map((r) => `${r.config}: ${r.conformant}/${r.runs} CONFORMANT`).join('; '));
log(`wrote ${writeReport('failure-switch-scopes', { rows })}`);
