/**
 * `npx tsx scripts/kill-matrix.ts [--seed N] [--fault NAME]... [--clause ID]... [--reports DIR]`:
 * the proof that npm test runs (test/kill-matrix), by hand, with progress; exit 1 when a gate fails.
 */
import { faultCatalogue } from '../reference/index.js';
import { loadProfile } from '../harness/profile/load.js';
import { readAllowlist, runProof, writeProof } from '../harness/proof/run.js';
import { loadSuites } from '../harness/run/suites.js';

const args = process.argv.slice(2);
const many = (flag: string): string[] => args.flatMap((a, i) => (a === flag && args[i + 1] ? [args[i + 1]!] : []));
const one = (flag: string): string | undefined => many(flag)[0];
const known = new Set(['--seed', '--fault', '--clause', '--reports', '--runs']);
for (let i = 0; i < args.length; i += 2) {
  if (!known.has(args[i]!) || args[i + 1] === undefined) {
    console.error(`usage: kill-matrix [--seed N] [--runs N] [--fault NAME]... [--clause ID]... [--reports DIR] (bad: ${args[i]})`);
    process.exit(2);
  }
}
const seed = Number(one('--seed') ?? 1);
const names = many('--fault');
const clauses = many('--clause');
const unknown = names.filter((n) => !faultCatalogue.some((f) => f.name === n));
if (unknown.length > 0) {
  console.error(`unknown fault(s): ${unknown.join(', ')}`);
  process.exit(2);
}
const faults = faultCatalogue.filter((f) => (names.length === 0 || names.includes(f.name)) && (clauses.length === 0 || clauses.includes(f.clause)));
const report = await runProof({
  loaded: loadProfile('fixtures/profiles/reference.json'),
  suites: await loadSuites(),
  seeds: [seed],
  numRuns: Number(one('--runs') ?? 20),
  faults,
  allowlist: readAllowlist(),
  log: (l) => console.error(l),
});
writeProof(report, one('--reports') ?? 'reports');
const killed = report.faults.filter((f) => f.verdict === 'killed').length;
for (const f of report.faults.filter((x) => x.verdict !== 'killed')) console.log(`${f.verdict}: ${f.name} (${f.clause}) collateral: ${f.collateral.join('; ') || '—'} ${f.errors.join('; ')}`);
for (const c of report.conformant) if (c.failed.length > 0) console.log(`conformant seed ${c.seed} ${c.webhooks}: ${c.failed.join('; ')}`);
for (const v of report.coverage.violations) console.log(`gap (${v.status}): ${v.id} — ${v.text}`);
console.log(`faults killed ${killed}/${report.faults.length}; must clauses proved ${report.coverage.totals.proved}/${report.coverage.totals.mustService}, restated ${report.coverage.totals.restated}, allowlisted ${report.coverage.totals.allowlisted}, gaps ${report.coverage.totals.violations}; matrix ${(report.matrixMs / 1000).toFixed(1)} s`);
const ok = killed === report.faults.length && report.conformant.every((c) => c.failed.length === 0);
process.exit(ok ? 0 : 1);
