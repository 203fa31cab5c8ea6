/**
 * Proves the suite: the conformant reference under several seeds (zero failures allowed: the
 * flake guard), then the kill matrix, then clause coverage against the allowlist.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedReference } from '../run/embedded.js';
import type { SuiteDef } from '../check/define.js';
import type { LoadedProfile } from '../profile/load.js';
import { runInProcess } from '../run/inprocess.js';
import { noteWebhookWritten } from '../check/lag.js';
import { type Allowlist, clauseCoverage } from './coverage.js';
import { type FaultInfo, runKillMatrix } from './kill-matrix.js';
import { type ConformantRun, coverageMarkdown, killMatrixMarkdown, type ProofReport } from './render.js';

export { ALLOWLIST_PATH, readAllowlist } from '../report/no-check.js';

export async function conformantRun(
  loaded: LoadedProfile,
  suites: SuiteDef[],
  seed: number,
  numRuns: number,
  webhooks: 'quick' | 'full',
): Promise<ConformantRun> {
  const started = performance.now();
  // In this process: its write times go straight to the excuses (harness/check/lag.ts).
  const ref = await startEmbeddedReference(loaded.profile, [], noteWebhookWritten);
  try {
    const res = await runInProcess({ loaded, baseUrl: ref.url, suites, settings: { seed, numRuns, webhooks } });
    const failed = res.filter((r) => r.result.status === 'failed' || r.result.status === 'broken');
    return {
      seed,
      webhooks,
      passed: res.filter((r) => r.result.status === 'passed').length,
      failed: failed.map(
        (r) => `${r.result.checkId} (${r.result.reason ?? r.result.findings.map((f) => `${f.clause} ${f.code}`).join(', ')})`,
      ),
      skipped: res.filter((r) => r.result.status === 'skipped').length,
      inconclusive: res
        .filter((r) => r.result.status === 'inconclusive')
        .map((r) => `${r.result.checkId} (${r.result.reason ?? 'no verdict'})`),
      durationMs: performance.now() - started,
      exercised: exercisedMap(res.map((r) => r.result)),
    };
  } finally {
    await ref.close();
  }
}

function exercisedMap(results: { checkId: string; exercised: string[] }[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of results) for (const c of r.exercised) out[c] = [...(out[c] ?? []), r.checkId];
  return out;
}

export interface ProofOptions {
  loaded: LoadedProfile;
  suites: SuiteDef[];
  seeds: number[];
  numRuns: number;
  faults?: readonly FaultInfo[];
  allowlist: Allowlist;
  log?: (line: string) => void;
  /** Which checks meet each mutant (harness/proof/kill-matrix.ts `reach`): those naming its clause, or all of them. */
  reach?: 'naming' | 'all';
}

/** Where the proof's reports go by default: a folder of their own, beside a run's reports, never over them. */
export const PROOF_REPORTS_DIR = 'reports/kill-matrix';

export async function runProof(o: ProofOptions): Promise<ProofReport> {
  const log = o.log ?? (() => {});
  const seed = o.seeds[0]!;
  // The full-schedule conformant run overlaps with the quick ones and the matrix: it is mostly waiting.
  const full = conformantRun(o.loaded, o.suites, seed, o.numRuns, 'full');
  const quick = Promise.all(o.seeds.map((s) => conformantRun(o.loaded, o.suites, s, o.numRuns, 'quick')));
  const started = performance.now();
  const faults = await runKillMatrix({
    loaded: o.loaded,
    suites: o.suites,
    seed,
    numRuns: o.numRuns,
    faults: o.faults,
    reach: o.reach,
    onFault: (row, done, total) => log(`[${done}/${total}] ${row.verdict.padEnd(8)} ${row.name} (${row.clause})`),
  });
  const matrixMs = performance.now() - started;
  const conformant = [...(await quick), await full];
  return {
    generatedAt: new Date().toISOString(),
    seed,
    numRuns: o.numRuns,
    matrixMs,
    conformant,
    faults,
    coverage: clauseCoverage(o.suites, faults, o.allowlist, undefined, mergeExercised(conformant)),
  };
}

/** The union over the conformant runs (seeds, quick and full webhooks): what the reference showed at all. */
function mergeExercised(runs: ConformantRun[]): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const r of runs) {
    for (const [c, checks] of Object.entries(r.exercised ?? {})) out[c] = new Set([...(out[c] ?? []), ...checks]);
  }
  return Object.fromEntries(Object.entries(out).map(([c, s]) => [c, [...s].sort()]));
}

export function writeProof(r: ProofReport, dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kill-matrix.json'), `${JSON.stringify({ ...r, coverage: undefined }, null, 2)}\n`);
  writeFileSync(join(dir, 'kill-matrix.md'), killMatrixMarkdown(r));
  writeFileSync(join(dir, 'clause-coverage.json'), `${JSON.stringify(r.coverage, null, 2)}\n`);
  writeFileSync(join(dir, 'clause-coverage.md'), coverageMarkdown(r));
}
