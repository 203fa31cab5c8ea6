/**
 * `npx tsx scripts/kill-matrix.ts [--seed N] [--fault NAME]... [--clause ID]... [--reports DIR] [--profile FILE] [--all-checks]`:
 * the proof that npm test runs (test/kill-matrix), by hand, with progress; exit 1 when a gate fails. Reports go to
 * reports/kill-matrix/ unless `--reports` says otherwise. `--all-checks`: every check meets every mutant, so each fault's
 * knock-on failures (the clauses it breaks beside its own) are all shown, at the cost of a whole run per mutant. `--profile`: an
 * embedded profile of the reference other than fixtures/profiles/reference.json (its `embedded.target`: e.g. a failure
 * switch that reaches the merchant's next request of an operation, `sandbox.armReach`), each mutant started from it.
 */
import { faultCatalogue } from '../reference/index.js';
import { intFlag, parseArgs, UsageError } from '../harness/cli/args.js';
import { loadProfile } from '../harness/profile/load.js';
import { PROOF_REPORTS_DIR, readAllowlist, runProof, writeProof } from '../harness/proof/run.js';
import { loadSuites } from '../harness/run/suites.js';

const USAGE =
  'usage: npx tsx scripts/kill-matrix.ts [--seed N] [--runs N] [--fault NAME]... [--clause ID]... [--reports DIR] [--profile FILE] ' +
  '[--all-checks]\n  prints each fault killed with the checks that killed it, the clauses it broke beside its own (knock-on), ' +
  'and, over the whole catalogue, the clauses no fault proves (gaps)';

let flags: ReturnType<typeof parseArgs>['flags'];
let seed: number;
let numRuns: number;
try {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  const parsed = parseArgs(process.argv.slice(2), {
    seed: 'value',
    runs: 'value',
    fault: 'multi',
    clause: 'multi',
    reports: 'value',
    profile: 'value',
    'all-checks': 'bool',
  });
  if (parsed.rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.rest[0])}`);
  flags = parsed.flags;
  seed = intFlag(flags.seed, 'seed', -0x80000000, 0x7fffffff) ?? 1;
  numRuns = intFlag(flags.runs, 'runs', 1, 100_000) ?? 20;
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`kill-matrix: ${err.message}\n${USAGE}`);
  process.exit(2);
}
const names = (flags.fault as string[] | undefined) ?? [];
const clauses = (flags.clause as string[] | undefined) ?? [];
const unknown = names.filter((n) => !faultCatalogue.some((f) => f.name === n));
if (unknown.length > 0) {
  console.error(`unknown fault(s): ${unknown.join(', ')}`);
  process.exit(2);
}
const faults = faultCatalogue.filter(
  (f) => (names.length === 0 || names.includes(f.name)) && (clauses.length === 0 || clauses.includes(f.clause)),
);
const report = await runProof({
  loaded: loadProfile((flags.profile as string | undefined) ?? 'fixtures/profiles/reference.json'),
  suites: await loadSuites(),
  seeds: [seed],
  numRuns,
  faults,
  allowlist: readAllowlist(),
  log: (l) => console.error(l),
  reach: flags['all-checks'] ? 'all' : 'naming',
});
writeProof(report, (flags.reports as string | undefined) ?? PROOF_REPORTS_DIR);
const killed = report.faults.filter((f) => f.verdict === 'killed').length;
for (const f of report.faults.filter((x) => x.verdict !== 'killed'))
  console.log(`${f.verdict}: ${f.name} (${f.clause}) collateral: ${f.collateral.join('; ') || '—'} ${f.errors.join('; ')}`);
for (const f of report.faults.filter((x) => x.verdict === 'killed')) console.log(`killed by: ${f.name}: ${f.killedBy.join(', ')}`);
for (const f of report.faults) {
  const knockOn = Object.keys(f.failedClauses).filter((c) => c !== f.clause);
  if (knockOn.length > 0) console.log(`knock-on: ${f.name} (${f.clause}) also failed ${knockOn.join(', ')}`);
}
for (const c of report.conformant) if (c.failed.length > 0) console.log(`conformant seed ${c.seed} ${c.webhooks}: ${c.failed.join('; ')}`);
// With a subset of the catalogue, every clause whose faults were left out reads as a gap: only the whole run lists them.
const subset = names.length > 0 || clauses.length > 0;
if (!subset) for (const v of report.coverage.violations) console.log(`gap (${v.status}): ${v.id} — ${v.text}`);
console.log(
  `faults killed ${killed}/${report.faults.length}; must clauses proved ${report.coverage.totals.proved}/` +
    `${report.coverage.totals.mustService}, restated ${report.coverage.totals.restated}` +
    `, allowlisted ${report.coverage.totals.allowlisted}` +
    `, gaps ${subset ? '(listed only by a run of the whole catalogue)' : report.coverage.totals.violations}` +
    `; matrix ${(report.matrixMs / 1000).toFixed(1)} s`,
);
const ok = killed === report.faults.length && report.conformant.every((c) => c.failed.length === 0);
process.exit(ok ? 0 : 1);
