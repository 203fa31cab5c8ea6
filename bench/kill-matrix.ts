/**
 * The kill matrix's wall time by how many mutants run at once (1, 3, 6, 12 — npm test uses 6), in one
 * run, over the quick-webhook faults only (full-schedule faults are timer-bound: their time is the
 * scaled retry schedule whatever the parallelism). Every run must kill every fault it ran.
 *
 *   npx tsx bench/kill-matrix.ts
 */
import { fileURLToPath } from 'node:url';
import { faultCatalogue } from '../reference/index.js';
import { loadProfile } from '../harness/profile/load.js';
import { runKillMatrix, webhookModeFor } from '../harness/proof/kill-matrix.js';
import { loadSuites } from '../harness/run/suites.js';
import { log, round, writeReport } from './support/report.js';

const PROFILE = fileURLToPath(new URL('../fixtures/profiles/reference.json', import.meta.url));
const loaded = loadProfile(PROFILE);
const suites = await loadSuites();
const faults = faultCatalogue.filter((f) => webhookModeFor(f.clause) === 'quick');
const rows: Record<string, unknown>[] = [];
let base = 0;
for (const parallel of [1, 3, 6, 12]) {
  const t0 = performance.now();
  const result = await runKillMatrix({ loaded, suites, seed: 1, numRuns: 20, faults, parallel });
  const ms = performance.now() - t0;
  if (parallel === 1) base = ms;
  const killed = result.filter((r) => r.verdict === 'killed').length;
  rows.push({ parallel, faults: faults.length, killed, wallS: round(ms / 1000), speedup: round(base / ms, 2) });
  log(`parallel ${parallel}: ${faults.length} faults, ${killed} killed, ${round(ms / 1000)} s (× ${round(base / ms, 2)} vs 1)`);
  if (killed !== faults.length) process.exitCode = 1;
}
log(`report: ${writeReport('kill-matrix', { rows })}`);
