/**
 * The kill matrix: every fault of the reference, started as its own mutant, against the checks
 * that name the fault's clause (or, with `reach: 'all'`, every check). A fault counts as killed only when a check
 * fails with a finding charged to that very clause; a failure charged to another clause is collateral, not proof.
 * A fault of a clause the registry lists as a restatement also runs the checks naming the clauses that restate it,
 * and a finding charged to one of those kills it: that is how a restatement is proved, never assumed.
 * Every clause a fault made fail is reported (`failedClauses`: its own, and the knock-on ones, as information).
 */
import { faultCatalogue, type RunningReference } from '../../reference/index.js';
import { startEmbeddedReference } from '../run/embedded.js';
import type { CheckDef, SuiteDef } from '../check/define.js';
import type { CheckResult } from '../check/run.js';
import type { LoadedProfile } from '../profile/load.js';
import { runInProcess } from '../run/inprocess.js';
import { noteWebhookWritten } from '../check/lag.js';
import { runDoctor } from '../doctor/run.js';
import { restatements } from '../clauses/registry.js';

/** A fault as the reference's catalogue lists it. */
export type FaultInfo = (typeof faultCatalogue)[number];

/** `stopped`: the doctor called the profile wrong about the mutant (a run's exit 2): no check ran, a failure of the matrix. */
export type FaultVerdict = 'killed' | 'survived' | 'no-check' | 'broken' | 'stopped';

export interface FaultRow extends FaultInfo {
  verdict: FaultVerdict;
  webhooks: 'quick' | 'full';
  /** Checks run against the mutant: those naming the fault's clause. */
  checksRun: string[];
  /** Checks that failed with a finding charged to the fault's clause. */
  killedBy: string[];
  /** Checks that failed only with findings charged to other clauses: `check-id (clause CODE, …)`. */
  collateral: string[];
  /** Every clause charged by a failed check, with those checks: the fault's own and the knock-on ones. */
  failedClauses: Record<string, string[]>;
  skipped: string[];
  /** Harness errors (a check that broke), or why the mutant could not start. */
  errors: string[];
  /** Checks that reached no verdict (our machine too busy, a throttling gateway): `check-id: why`. */
  inconclusive?: string[];
  /** The doctor phase on the mutant, as a run has it: its exit code, the paths it called wrong, those it doubted. */
  doctor?: { exitCode: 0 | 2; wrong: string[]; doubts: string[] };
  durationMs: number;
}

export interface MatrixOptions {
  loaded: LoadedProfile;
  suites: SuiteDef[];
  seed: number;
  numRuns: number;
  faults?: readonly FaultInfo[];
  /** Mutants run at once; each is its own reference and receiver on port 0. */
  parallel?: number;
  /** Run the doctor on each mutant first, as `run` does (default true): a mutant it stops is not killed. */
  doctor?: boolean;
  /**
   * Which checks meet each mutant: those naming its clause (or a clause restating it; the default), or every check, which
   * shows every knock-on failure of a fault at the cost of a whole run per mutant.
   */
  reach?: 'naming' | 'all';
  onFault?: (row: FaultRow, done: number, total: number) => void;
}

/** Retry-schedule clauses are only visible across the whole schedule. */
export function webhookModeFor(clause: string): 'quick' | 'full' {
  return killingClauses(clause).some((c) => c.startsWith('webhook.retry.')) ? 'full' : 'quick';
}

/** The clauses whose findings kill a fault of `clause`: it, and the clauses the registry says restate it. */
export function killingClauses(clause: string): readonly string[] {
  return [clause, ...(restatements[clause] ?? [])];
}

export function checksNaming(suites: SuiteDef[], clause: string): { suite: SuiteDef; check: CheckDef }[] {
  const killing = killingClauses(clause);
  return suites.flatMap((suite) =>
    suite.checks.filter((c) => (c.clauses as readonly string[]).some((x) => killing.includes(x))).map((check) => ({ suite, check })),
  );
}

function allChecks(suites: SuiteDef[]): { suite: SuiteDef; check: CheckDef }[] {
  return suites.flatMap((suite) => suite.checks.map((check) => ({ suite, check })));
}

export function classify(
  fault: FaultInfo,
  results: CheckResult[],
): Pick<FaultRow, 'killedBy' | 'collateral' | 'failedClauses' | 'skipped' | 'errors' | 'inconclusive'> {
  const failed = results.filter((r) => r.status === 'failed');
  const inconclusive = results.filter((r) => r.status === 'inconclusive').map((r) => `${r.checkId}: ${r.reason ?? 'no verdict'}`);
  const killing = killingClauses(fault.clause);
  const kills = (r: CheckResult) => r.findings.some((f) => killing.includes(f.clause));
  const failedClauses: Record<string, string[]> = {};
  for (const r of failed)
    for (const clause of new Set(r.findings.map((f) => f.clause))) failedClauses[clause] = [...(failedClauses[clause] ?? []), r.checkId];
  return {
    ...(inconclusive.length > 0 ? { inconclusive } : {}),
    killedBy: failed.filter(kills).map((r) => r.checkId),
    collateral: failed.filter((r) => !kills(r)).map((r) => `${r.checkId} (${r.findings.map((f) => `${f.clause} ${f.code}`).join(', ')})`),
    failedClauses,
    skipped: results.filter((r) => r.status === 'skipped').map((r) => r.checkId),
    errors: results.filter((r) => r.status === 'broken').map((r) => `${r.checkId}: ${r.reason ?? 'broken'}`),
  };
}

async function runOneFault(fault: FaultInfo, opts: MatrixOptions): Promise<FaultRow> {
  const started = performance.now();
  const webhooks = webhookModeFor(fault.clause);
  const picked = opts.reach === 'all' ? allChecks(opts.suites) : checksNaming(opts.suites, fault.clause);
  const base: FaultRow = {
    ...fault,
    verdict: 'no-check',
    webhooks,
    checksRun: picked.map((p) => p.check.id),
    killedBy: [],
    collateral: [],
    failedClauses: {},
    skipped: [],
    errors: [],
    durationMs: 0,
  };
  if (picked.length === 0) return { ...base, durationMs: performance.now() - started };
  const ids = new Set(base.checksRun);
  let ref: RunningReference | undefined;
  try {
    ref = await startEmbeddedReference(opts.loaded.profile, [fault.name], noteWebhookWritten);
    if (opts.doctor !== false) {
      // The doctor meets the mutant before the checks, on the same state, as a run against this target would.
      const d = await runDoctor({ loaded: opts.loaded, baseUrl: ref.url, webhooks: webhooks === 'quick' });
      base.doctor = {
        exitCode: d.exitCode,
        wrong: [...new Set(d.items.filter((i) => i.status === 'wrong').map((i) => i.path))],
        doubts: [...new Set(d.items.filter((i) => i.status === 'doubt').map((i) => i.path))],
      };
      if (d.exitCode !== 0)
        return {
          ...base,
          verdict: 'stopped',
          errors: [`the doctor called the profile wrong (exit 2): ${base.doctor.wrong.join(', ')}`],
          durationMs: performance.now() - started,
        };
    }
    const results = await runInProcess({
      loaded: opts.loaded,
      baseUrl: ref.url,
      suites: opts.suites,
      settings: { seed: opts.seed, numRuns: opts.numRuns, webhooks },
      filter: (_s, c) => ids.has(c.id),
    });
    const c = classify(
      fault,
      results.map((r) => r.result),
    );
    const verdict: FaultVerdict = c.killedBy.length > 0 ? 'killed' : c.errors.length > 0 ? 'broken' : 'survived';
    return { ...base, ...c, verdict, durationMs: performance.now() - started };
  } catch (err) {
    return {
      ...base,
      verdict: 'broken',
      errors: [String(err instanceof Error ? err.message : err)],
      durationMs: performance.now() - started,
    };
  } finally {
    await ref?.close();
  }
}

export async function runKillMatrix(opts: MatrixOptions): Promise<FaultRow[]> {
  const faults = opts.faults ?? faultCatalogue;
  // Slow (full-schedule) mutants first, so they overlap with the many quick ones.
  const order = [...faults.keys()].sort(
    (a, b) => Number(webhookModeFor(faults[b]!.clause) === 'full') - Number(webhookModeFor(faults[a]!.clause) === 'full'),
  );
  const rows: FaultRow[] = new Array(faults.length);
  let next = 0;
  let done = 0;
  async function worker(): Promise<void> {
    while (next < order.length) {
      const i = order[next++]!;
      const row = await runOneFault(faults[i]!, opts);
      rows[i] = row;
      opts.onFault?.(row, ++done, faults.length);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, opts.parallel ?? 4) }, worker));
  return rows;
}
