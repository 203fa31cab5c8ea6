/**
 * From stored check results (and the target's known deviations) to the run's verdict: the outcome of
 * every check, the status of every registry clause, the exit code. A pure function of its inputs, so
 * `verify-certificate` recomputes exactly what the certificate says from the same results.
 *
 * Exit code (gate):
 *   1  a must-level finding that no expectation covers, or an expired expectation;
 *   2  otherwise, when the run is incomplete: a harness error (broken check), a must-level check without a
 * verdict (inconclusive: throttled, machine too busy), the target unreachable during the run, a suite file that failed to load, no result
 * at all;
 *   0  otherwise — should-level failures, expected failures and unexpected passes are warnings.
 * Verdict (certificate): non-conformant iff some must-level finding stands (known deviations
 * included: a known deviation is still a deviation); incomplete when the run was; conformant-except-
 * disputed when the only failures are disputed by the vendor; else conformant.
 *
 * One source for the level of a finding: FindingSummary.level. A clause is `failed` when a must-level
 * finding stands against it, `not-met` when only should-level ones do, `disputed` when only disputed
 * ones do; the verdict, the exit code, the summary and the certificate all read these.
 *
 * A clause is `passed` only when some check EXERCISED it (StoredResult.exercised: an assertion
 * evaluated it and it held) and no finding stands against it; naming a clause is not evidence.
 */
import { levelOfFinding } from '../check/failure.js';
import { clauses as registry, restatements, type Clause, type Level } from '../clauses/registry.js';
import type { ExchangeErrorKind } from '../http/exchange.js';
import type { StoredResult } from '../run/results.js';
import { firstLine } from '../kit/text.js';
import {
  activeDisputes,
  activeEntries,
  disputeFor,
  entryName,
  expectationFor,
  isExpired,
  type ExpectationEntry,
  type Expectations,
} from './expectations.js';

/** A fact of the profile the doctor could not verify, and the finding codes a check reaches only through it. */
export interface UnverifiedFact {
  path: string;
  answered: string;
  findingCodes: string[];
}
export type Outcome =
  | 'passed'
  | 'failed'
  | 'expected-fail'
  | 'disputed'
  | 'skipped'
  | 'expected-skip'
  | 'unexpected-pass'
  | 'broken'
  | 'unreachable'
  | 'inconclusive';
export type ClauseStatus = 'passed' | 'failed' | 'not-met' | 'disputed' | 'skipped-precondition' | 'not-checked' | 'unspecified';
export const CLAUSE_STATUSES: readonly ClauseStatus[] = [
  'passed',
  'failed',
  'not-met',
  'disputed',
  'skipped-precondition',
  'not-checked',
  'unspecified',
];

export interface FindingSummary {
  code: string;
  clause: string;
  /** The registry's level of the finding's clause (the check's own level when the clause is `unspecified`). */
  level: 'must' | 'should';
  /** The finding's headline (Finding.title); expected, seen and the exchange are apart. */
  message: string;
  expected?: string;
  seen?: string;
  exchangeId?: string;
  /** Covered by a known deviation. */
  knownDeviation: boolean;
  /** Covered by a dispute of the vendor (the check is said to be wrong): counts neither way. */
  disputed: boolean;
}

export interface CheckOutcome {
  checkId: string;
  suite: string;
  title: string;
  level: 'must' | 'should';
  clauses: string[];
  status: StoredResult['status'];
  outcome: Outcome;
  reason?: string;
  /** Skipped for a precondition: the profile paths that would let it run (PreconditionSkip's `declare`). */
  declare?: string[];
  findings: FindingSummary[];
  /** Comments of the expectation entries that applied. */
  deviations: { entry: string; comment: string; expires?: string }[];
  /** Disputes that covered some of its findings. */
  disputes: { entry: string; reason: string; link: string }[];
  /** Clauses its assertions exercised (held). */
  exercised: string[];
  repro: string[];
  durationMs: number;
}

export interface ClauseOutcome {
  id: string;
  level: Level;
  party: 'service' | 'client';
  section: string;
  text: string;
  status: ClauseStatus;
  /** How the status was reached, in a few words. */
  basis: string;
  /** Skipped for a precondition: the profile paths whose declaration would let its checks run (as data, never parsed from `basis`). */
  declare?: string[];
  /** Checks naming the clause that ran. */
  checks: string[];
  /** Checks that exercised the clause (evidence), whether or not they name it. */
  exercisedBy: string[];
  /** Evidence against the clause: check, finding code, exchange, reproduction script. */
  failures: {
    checkId: string;
    code: string;
    level: 'must' | 'should';
    exchangeId?: string;
    repro?: string;
    knownDeviation: boolean;
    disputed: boolean;
  }[];
  /** The expectation entry (comment) when the failure is a known deviation. */
  knownDeviation?: { entry: string; comment: string; expires?: string };
}

export interface SuiteCounts {
  suite: string;
  passed: number;
  failed: number;
  expectedFail: number;
  disputed: number;
  skipped: number;
  broken: number;
  /** No verdict, for a cause that is not the target's (throttled, machine too busy). */
  inconclusive: number;
  total: number;
}

export interface RunStatus {
  /** Suite files vitest could not load or run (import errors, hook failures). */
  moduleErrors: { file: string; message: string }[];
  unhandledErrors: string[];
  /** vitest's own end reason: passed, failed, interrupted. */
  reason?: string;
  /** Every test vitest ran, with the check id register.ts attached to it. */
  tests?: { checkId?: string; name: string; state: string; error?: string }[];
  /** The signal that stopped the run (SIGINT from Ctrl-C, SIGTERM from a CI timeout), when one did. */
  interruptedBy?: string;
  /** Checks the run meant to run that left no result: an interrupted run names them. */
  unfinished?: string[];
}

export interface Verdict {
  verdict: 'conformant' | 'conformant-except-disputed' | 'non-conformant' | 'incomplete';
  exitCode: 0 | 1 | 2;
  /** One line each: why the exit code is what it is. */
  reasons: string[];
  /** Should-level failures, unexpected passes, expectation entries that matched nothing. */
  warnings: string[];
  checks: CheckOutcome[];
  clauses: ClauseOutcome[];
  suites: SuiteCounts[];
  /** Clause counts per level and status (service clauses only; client clauses are guidance). */
  levels: Record<'must' | 'should' | 'unspecified', Record<ClauseStatus, number>>;
  /** Checks whose failure the vendor disputes, with the reason and the link: shown prominently, never as passed. */
  disputes: { checkId: string; entry: string; reason: string; link: string; clauses: string[] }[];
  deviations: {
    expectedFailures: string[];
    expectedSkips: string[];
    unexpectedPasses: string[];
    expired: { entry: string; expires: string; comment: string }[];
    notExercised: string[];
  };
}

/**
 * A failure whose every finding is "no response" because the target could not be reached: not a verdict.
 * Told by the exchange's error kind (`unreachable`: no connection could be made), never by its message.
 */
export function isUnreachable(r: {
  status: string;
  findings: { code: string; exchangeId?: string }[];
  exchanges: { id: string; error?: { kind: string } }[];
}): boolean {
  if (r.status !== 'failed' || r.findings.length === 0) return false;
  return r.findings.every(
    (f) =>
      f.code === 'NO_RESPONSE' &&
      r.exchanges.find((e) => e.id === f.exchangeId)?.error?.kind === ('unreachable' satisfies ExchangeErrorKind),
  );
}

/** "3 throttled, 1 machine too busy": why checks got no verdict. */
function noVerdictCauses(results: readonly StoredResult[]): string {
  const throttled = results.filter((r) => r.inconclusive?.cause === 'throttled').length;
  const busy = results.filter((r) => r.inconclusive?.cause === 'machine-busy').length;
  const other = results.length - throttled - busy;
  return [throttled ? `${throttled} throttled` : '', busy ? `${busy} machine too busy` : '', other ? `${other} other` : '']
    .filter(Boolean)
    .join(', ');
}

export interface VerdictInput {
  results: StoredResult[];
  expectations?: Expectations;
  /** The run's day, YYYY-MM-DD: expiry is judged on it. */
  today: string;
  runStatus?: RunStatus;
  /** Registry to report on; default the kit's. */
  registry?: readonly Clause[];
  /** full: every check of the kit ran (or was skipped), so a clause no result names has no check in the kit. */
  scope?: 'full' | 'partial';
  /** Why the kit has no check for a clause (fixtures/coverage-allowlist.json), shown for clauses no check names. */
  noCheckReasons?: Record<string, string>;
  /**
   * Facts of the profile a verdict depends on that the doctor could not verify (RunMeta.doctor.unverified): a failed
   * check whose every finding is reached only through one of them gets no verdict, since the fact may be what is wrong.
   */
  unverified?: readonly UnverifiedFact[];
}

/** The expectations file as it applies on the run's day. */
interface Applicable {
  active: ExpectationEntry[];
  disputes: ExpectationEntry[];
  expired: ExpectationEntry[];
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

/** Outcomes whose check reached a verdict on the target (passed or failed, however the expectations file reads it). */
const COMPLETED = new Set<Outcome>(['passed', 'unexpected-pass', 'failed', 'expected-fail', 'disputed']);

export function computeVerdict(input: VerdictInput): Verdict {
  const applicable: Applicable = {
    active: activeEntries(input.expectations, input.today),
    disputes: activeDisputes(input.expectations, input.today),
    expired: (input.expectations?.entries ?? []).filter((e) => isExpired(e, input.today)),
  };
  const checks = input.results.map((r) => withheld(judgeCheck(r, applicable), input.unverified ?? []));
  const clauses = creditRestatements((input.registry ?? registry).map((c) => clauseStatus(c, checks, input)));
  const deviations = deviationsOf(checks, clauses, applicable);
  const incomplete = incompleteReasons(input, checks);
  const verdict = verdictOf(checks, incomplete);
  const exitCode = exitCodeOf(checks, incomplete, applicable);
  return {
    verdict,
    exitCode,
    reasons: reasonsFor(verdict, exitCode, checks, incomplete, applicable),
    warnings: warningsOf(input.results, checks, deviations, applicable),
    checks,
    clauses,
    suites: countSuites(checks),
    levels: countLevels(clauses),
    disputes: disputesOf(checks),
    deviations,
  };
}

/**
 * A failed check whose every finding a fact the doctor could not verify may have caused (a webhook's timing judged on a
 * clock nobody measured): no verdict, saying which fact to verify. Never a plain failure, never a pass.
 */
function withheld(k: CheckOutcome, unverified: readonly UnverifiedFact[]): CheckOutcome {
  if (k.outcome !== 'failed' || k.findings.length === 0) return k;
  const fact = unverified.find((u) => k.findings.every((f) => u.findingCodes.includes(f.code)));
  if (!fact) return k;
  return {
    ...k,
    outcome: 'inconclusive',
    reason: `its findings may come from ${fact.path}, which the doctor could not verify (${fact.answered}): verify it, then run again`,
  };
}

/** One check: its findings as the expectations file reads them (known deviation, disputed) and its outcome. */
function judgeCheck(r: StoredResult, { active, disputes }: Applicable): CheckOutcome {
  const x = expectationFor(r, active);
  const disputedBy = new Map(r.findings.map((f) => [f.clause, disputeFor(r, f.clause, disputes)]));
  const findings: FindingSummary[] = r.findings.map((f) => ({
    code: f.code,
    clause: f.clause,
    level: levelOfFinding(f, r.level),
    message: f.title,
    expected: f.expected,
    seen: f.seen,
    exchangeId: f.exchangeId,
    knownDeviation: x.expectedFail && disputedBy.get(f.clause) === undefined,
    disputed: disputedBy.get(f.clause) !== undefined,
  }));
  const usedDisputes = [...new Set(findings.map((f) => disputedBy.get(f.clause)).filter((e): e is ExpectationEntry => e !== undefined))];
  return {
    checkId: r.checkId,
    suite: r.suite,
    title: r.title,
    level: r.level,
    clauses: r.clauses,
    status: r.status,
    outcome: outcomeOf(r, findings, x),
    reason: r.reason,
    ...(r.declare?.length ? { declare: r.declare } : {}),
    findings,
    deviations: x.entries.map((e) => ({ entry: entryName(e), comment: e.comment, expires: e.expires })),
    disputes: usedDisputes.map((e) => ({ entry: entryName(e), reason: e.comment, link: e.link ?? '' })),
    exercised: r.exercised ?? [],
    repro: r.repro ?? [],
    durationMs: Math.round(r.durationMs),
  };
}

function outcomeOf(r: StoredResult, findings: FindingSummary[], x: ReturnType<typeof expectationFor>): Outcome {
  if (r.status === 'broken') return 'broken';
  if (r.status === 'inconclusive') return 'inconclusive';
  if (isUnreachable(r)) return 'unreachable';
  if (r.status === 'failed' && findings.length > 0 && findings.every((f) => f.disputed)) return 'disputed';
  if (r.status === 'failed') return x.expectedFail ? 'expected-fail' : 'failed';
  if (r.status === 'skipped') return x.expectedSkip ? 'expected-skip' : 'skipped';
  return x.unexpectedPass ? 'unexpected-pass' : 'passed';
}

/** Evidence against a clause: every finding charged to it by a check that failed (expected, disputed or not). */
function failuresAgainst(c: Clause, checks: readonly CheckOutcome[]): ClauseOutcome['failures'] {
  const failures: ClauseOutcome['failures'] = [];
  for (const k of checks) {
    if (k.outcome !== 'failed' && k.outcome !== 'expected-fail' && k.outcome !== 'disputed') continue;
    for (const f of k.findings) {
      if (f.clause !== c.id) continue;
      const repro = k.repro.find((p) => f.exchangeId !== undefined && p.includes(f.exchangeId));
      failures.push({
        checkId: k.checkId,
        code: f.code,
        level: f.level,
        exchangeId: f.exchangeId,
        repro,
        knownDeviation: f.knownDeviation,
        disputed: f.disputed,
      });
    }
  }
  return failures;
}

/** One registry clause: its status and, in a few words, how it was reached. */
function clauseStatus(c: Clause, checks: readonly CheckOutcome[], input: VerdictInput): ClauseOutcome {
  const naming = checks.filter((k) => k.clauses.includes(c.id));
  const exercisedBy = checks.filter((k) => COMPLETED.has(k.outcome) && k.exercised.includes(c.id)).map((k) => k.checkId);
  const failures = failuresAgainst(c, checks);
  const base = {
    id: c.id,
    level: c.level,
    party: c.party,
    section: c.section,
    text: c.text,
    checks: naming.map((k) => k.checkId),
    exercisedBy,
    failures,
  };
  const standing = failures.filter((f) => !f.disputed);
  if (standing.length > 0) {
    const known = standing.every((f) => f.knownDeviation);
    const entry = known ? checks.find((k) => k.checkId === standing[0]!.checkId)?.deviations[0] : undefined;
    const must = standing.some((f) => f.level === 'must');
    const basis = `${plural(standing.length, must ? 'finding' : 'should-level finding')}${known ? ', all known deviations' : ''}`;
    return { ...base, status: must ? 'failed' : 'not-met', basis, knownDeviation: entry };
  }
  if (failures.length > 0)
    return {
      ...base,
      status: 'disputed',
      basis: `${plural(failures.length, 'finding')}, all disputed by the vendor: neither passed nor failed`,
    };
  if (c.level === 'unspecified') return { ...base, status: 'unspecified', basis: 'the document does not show it: nothing to certify' };
  if (exercisedBy.length > 0)
    return { ...base, status: 'passed', basis: `exercised by ${plural(exercisedBy.length, 'check')}, no finding` };
  return { ...base, ...unexercised(c, naming, input) };
}

/** A clause nothing failed and nothing exercised: skipped for a precondition, or not checked, and why. */
function unexercised(
  c: Clause,
  naming: readonly CheckOutcome[],
  input: VerdictInput,
): { status: 'skipped-precondition' | 'not-checked'; basis: string; declare?: string[] } {
  const skipped = naming.filter((k) => k.outcome === 'skipped' || k.outcome === 'expected-skip');
  const ranHere = naming.filter((k) => COMPLETED.has(k.outcome));
  if (skipped.length > 0) {
    const also = ranHere.length > 0 ? `; ${plural(ranHere.length, 'other check')} naming it ran, none exercised it` : '';
    // The hint the basis shows is the first skipped check's; its paths go along as data.
    const declare = skipped[0]!.declare;
    return {
      status: 'skipped-precondition',
      basis: `${firstLine(skipped[0]!.reason ?? 'precondition')}${also}`,
      ...(declare?.length ? { declare } : {}),
    };
  }
  const broken = naming.filter((k) => k.outcome === 'broken' || k.outcome === 'unreachable' || k.outcome === 'inconclusive');
  if (broken.length > 0 && ranHere.length === 0) {
    const o = broken[0]!;
    const basis =
      o.outcome === 'broken'
        ? 'harness error in its checks'
        : o.outcome === 'unreachable'
          ? 'target unreachable'
          : firstLine(o.reason ?? 'no verdict');
    return { status: 'not-checked', basis };
  }
  if (c.party === 'client')
    return {
      status: 'not-checked',
      basis:
        'binds the merchant, not the service: certified by `mpsi-conformance receiver` (webhook endpoint) and `serve --audit` (client)',
    };
  if (naming.length > 0) {
    return {
      status: 'not-checked',
      basis: `${plural(ranHere.length, 'check')} naming it ran, none exercised it in this run (${ranHere
        .slice(0, 2)
        .map((k) => k.checkId)
        .join(', ')}${ranHere.length > 2 ? ', …' : ''})`,
    };
  }
  if (input.scope === 'full') {
    const why = input.noCheckReasons?.[c.id];
    return { status: 'not-checked', basis: `the kit has no check for this${why ? `: ${why}` : ''}` };
  }
  return { status: 'not-checked', basis: 'no check of it was selected in this run' };
}

/** A clause that restates others (registry restatements) is shown by what shows them: passed when each of them was exercised. */
function creditRestatements(clauses: ClauseOutcome[]): ClauseOutcome[] {
  const byId = new Map(clauses.map((c) => [c.id, c]));
  for (const [id, same] of Object.entries(restatements)) {
    const c = byId.get(id);
    if (c?.status !== 'not-checked' || c.party !== 'service') continue;
    const rows = same.map((x) => byId.get(x));
    if (rows.every((r) => r?.status === 'passed')) {
      c.status = 'passed';
      c.basis = `restates ${same.join(', ')}: each exercised, no finding`;
      c.exercisedBy = [...new Set(rows.flatMap((r) => r!.exercisedBy))];
    }
  }
  return clauses;
}

function countSuites(checks: readonly CheckOutcome[]): SuiteCounts[] {
  const bySuite = new Map<string, SuiteCounts>();
  for (const k of checks) {
    const s = bySuite.get(k.suite) ?? {
      suite: k.suite,
      passed: 0,
      failed: 0,
      expectedFail: 0,
      disputed: 0,
      skipped: 0,
      broken: 0,
      inconclusive: 0,
      total: 0,
    };
    s.total += 1;
    if (k.outcome === 'passed' || k.outcome === 'unexpected-pass') s.passed += 1;
    else if (k.outcome === 'failed') s.failed += 1;
    else if (k.outcome === 'expected-fail') s.expectedFail += 1;
    else if (k.outcome === 'disputed') s.disputed += 1;
    else if (k.outcome === 'skipped' || k.outcome === 'expected-skip') s.skipped += 1;
    else if (k.outcome === 'inconclusive') s.inconclusive += 1;
    else s.broken += 1;
    bySuite.set(k.suite, s);
  }
  return [...bySuite.values()].sort((a, b) => a.suite.localeCompare(b.suite));
}

/** Service clauses per level and status (client clauses are guidance). */
function countLevels(clauses: readonly ClauseOutcome[]): Verdict['levels'] {
  const emptyRow = (): Record<ClauseStatus, number> =>
    Object.fromEntries(CLAUSE_STATUSES.map((st) => [st, 0])) as Record<ClauseStatus, number>;
  const levels = { must: emptyRow(), should: emptyRow(), unspecified: emptyRow() };
  for (const c of clauses) if (c.party === 'service') levels[c.level][c.status] += 1;
  return levels;
}

/** How the run stands against the expectations file: what it expected that did not happen, what expired. */
function deviationsOf(
  checks: readonly CheckOutcome[],
  clauses: readonly ClauseOutcome[],
  { active, expired }: Applicable,
): Verdict['deviations'] {
  const unexpectedPasses: string[] = [];
  for (const k of checks) {
    if (k.outcome === 'unexpected-pass')
      unexpectedPasses.push(
        `${k.deviations[0]?.entry ?? `check ${k.checkId}`}: expected to ` +
          `${active.find((e) => e.check === k.checkId)?.expected === 'skip' ? 'be skipped' : 'fail'}` +
          `, it passed — remove the entry once this is confirmed`,
      );
  }
  const notExercised: string[] = [];
  for (const e of active) {
    if (e.check !== undefined) {
      if (!checks.some((k) => k.checkId === e.check)) notExercised.push(`${entryName(e)}: did not run in this run`);
      continue;
    }
    const status = clauses.find((c) => c.id === e.clause)?.status;
    const passedHere = checks.filter((k) => k.clauses.includes(e.clause!) && (k.outcome === 'passed' || k.outcome === 'unexpected-pass'));
    const basis = clauses.find((c) => c.id === e.clause)?.basis ?? '';
    if (status === 'passed') {
      unexpectedPasses.push(
        `${entryName(e)}: expected to ${e.expected === 'fail' ? 'fail' : 'be skipped'}, it passed (` +
          `${passedHere.length > 0 ? `${passedHere.length} check${passedHere.length === 1 ? '' : 's'}` : basis}` +
          `) — remove the entry once this is confirmed`,
      );
    } else if (status === 'not-checked' || status === 'unspecified') notExercised.push(`${entryName(e)}: ${basis}`);
  }
  return {
    expectedFailures: checks
      .filter((k) => k.outcome === 'expected-fail')
      .map((k) => `${k.checkId}: ${k.deviations.map((d) => d.comment).join('; ')}`),
    expectedSkips: checks
      .filter((k) => k.outcome === 'expected-skip')
      .map((k) => `${k.checkId}: ${k.deviations.map((d) => d.comment).join('; ')}`),
    unexpectedPasses,
    expired: expired.map((e: ExpectationEntry) => ({ entry: entryName(e), expires: e.expires!, comment: e.comment })),
    notExercised,
  };
}

/** Everything worth a look that does not decide the exit code. */
function warningsOf(
  results: readonly StoredResult[],
  checks: readonly CheckOutcome[],
  deviations: Verdict['deviations'],
  { disputes }: Applicable,
): string[] {
  const warnings: string[] = [];
  for (const e of disputes) {
    const used = checks.some((k) => k.disputes.some((d) => d.entry === entryName(e)));
    if (!used)
      warnings.push(
        `dispute not needed: ${entryName(e)} is disputed but no finding of ` +
          `this run is covered by it — remove the entry if the check now passes`,
      );
  }
  for (const u of deviations.unexpectedPasses) warnings.push(`unexpected pass: ${u}`);
  for (const k of checks) {
    if (k.outcome !== 'failed') continue;
    const standing = k.findings.filter((f) => !f.disputed);
    if (!standing.some((f) => f.level === 'must'))
      warnings.push(`should-level recommendation not met: ${k.checkId} (${[...new Set(standing.map((f) => f.clause))].join(', ')})`);
  }
  for (const k of checks) {
    for (const d of k.disputes)
      warnings.push(`disputed: ${k.checkId} — ${d.reason} (${d.link}); its disputed findings count neither as passed nor as failed`);
  }
  for (const n of deviations.notExercised) warnings.push(`expectation not exercised: ${n}`);
  const shouldNoVerdict = results.filter((r) => r.status === 'inconclusive' && r.level !== 'must');
  if (shouldNoVerdict.length > 0)
    warnings.push(
      `${shouldNoVerdict.length} should-level check${shouldNoVerdict.length === 1 ? '' : 's'}` +
        ` got no verdict (${noVerdictCauses(shouldNoVerdict)})`,
    );
  return warnings;
}

/** Why the run cannot give a verdict on the target, one line each (none: the run is complete). */
function incompleteReasons(input: VerdictInput, checks: readonly CheckOutcome[]): string[] {
  const incomplete: string[] = [];
  const broken = checks.filter((k) => k.outcome === 'broken');
  if (broken.length > 0)
    incomplete.push(
      `${broken.length} check${broken.length === 1 ? '' : 's'} hit a harness error (not a target verdict): ${broken
        .slice(0, 3)
        .map((k) => k.checkId)
        .join(', ')}${broken.length > 3 ? ', …' : ''}`,
    );
  const mustNoVerdict = input.results.filter((r) => r.status === 'inconclusive' && r.level === 'must');
  if (mustNoVerdict.length > 0)
    incomplete.push(
      `${mustNoVerdict.length} must-level check${mustNoVerdict.length === 1 ? '' : 's'} got no verdict (` +
        `${noVerdictCauses(mustNoVerdict)}): not a verdict on the target — run again` +
        `${
          mustNoVerdict.some((r) => r.inconclusive?.cause === 'throttled')
            ? ', declaring http.rateLimit in the profile if the target throttles'
            : ''
        }`,
    );
  const unverifiedFailures = checks.filter((k) => k.outcome === 'inconclusive' && k.status === 'failed');
  if (unverifiedFailures.length > 0)
    incomplete.push(
      `${plural(unverifiedFailures.length, 'check')} failed only on what an unverified fact of the profile decides ` +
        `(${[...new Set((input.unverified ?? []).map((u) => u.path))].join(', ')}): the verdict is withheld`,
    );
  const unreachable = checks.filter((k) => k.outcome === 'unreachable');
  if (unreachable.length > 0)
    incomplete.push(`the target was unreachable in ${unreachable.length} check${unreachable.length === 1 ? '' : 's'}`);
  for (const m of input.runStatus?.moduleErrors ?? []) incomplete.push(`suite file ${m.file} could not run: ${firstLine(m.message)}`);
  for (const u of input.runStatus?.unhandledErrors ?? []) incomplete.push(`unhandled error during the run: ${firstLine(u)}`);
  const recorded = new Set(input.results.map((r) => r.checkId));
  for (const t of input.runStatus?.tests ?? []) {
    if (t.state === 'failed' && (t.checkId === undefined || !recorded.has(t.checkId)))
      incomplete.push(`${t.name} failed in vitest without a check result: ${firstLine(t.error ?? 'no message')}`);
  }
  if (checks.length === 0) incomplete.push('no check result was recorded');
  if (input.runStatus?.reason === 'interrupted') {
    const n = input.runStatus.unfinished?.length;
    incomplete.push(
      `the run was interrupted${input.runStatus.interruptedBy ? ` (${input.runStatus.interruptedBy})` : ''}` +
        `${n ? `: ${n} check${n === 1 ? '' : 's'} did not finish` : ''}`,
    );
  }
  return incomplete;
}

const mustStanding = (k: CheckOutcome) => k.findings.some((f) => f.level === 'must' && !f.disputed);
/** Checks whose must-level findings stand and that no expectation covers: they fail the run. */
const mustFailuresOf = (checks: readonly CheckOutcome[]) => checks.filter((k) => k.outcome === 'failed' && mustStanding(k));

/** A known deviation is still a deviation: any standing must-level finding makes the target non-conformant. */
function verdictOf(checks: readonly CheckOutcome[], incomplete: readonly string[]): Verdict['verdict'] {
  if (checks.some((k) => (k.outcome === 'failed' || k.outcome === 'expected-fail') && mustStanding(k))) return 'non-conformant';
  if (incomplete.length > 0) return 'incomplete';
  if (checks.some((k) => k.disputes.length > 0)) return 'conformant-except-disputed';
  return 'conformant';
}

/** The gate: known deviations do not fail it, expired expectations do. */
function exitCodeOf(checks: readonly CheckOutcome[], incomplete: readonly string[], { expired }: Applicable): 0 | 1 | 2 {
  if (mustFailuresOf(checks).length > 0 || expired.length > 0) return 1;
  if (incomplete.length > 0) return 2;
  return 0;
}

/** Why the exit code and the verdict are what they are, one line each. */
function reasonsFor(
  verdict: Verdict['verdict'],
  exitCode: 0 | 1 | 2,
  checks: readonly CheckOutcome[],
  incomplete: readonly string[],
  { expired }: Applicable,
): string[] {
  const reasons: string[] = [];
  // Expired entries first: they explain why failures that used to be expected count again.
  for (const e of expired)
    reasons.push(`expectations: the entry for ${entryName(e)} expired on ${e.expires} (${e.comment}) — renew or remove it`);
  const mustFailures = mustFailuresOf(checks);
  if (mustFailures.length > 0) {
    const clausesHit = [
      ...new Set(mustFailures.flatMap((k) => k.findings.filter((f) => f.level === 'must' && !f.disputed).map((f) => f.clause))),
    ];
    reasons.push(
      `${mustFailures.length} check${mustFailures.length === 1 ? '' : 's'} found must-level deviations from ${clausesHit.length}` +
        ` clause${clausesHit.length === 1 ? '' : 's'}: ${clausesHit.slice(0, 4).join(', ')}${clausesHit.length > 4 ? ', …' : ''}`,
    );
  }
  if (verdict === 'conformant-except-disputed') {
    const disputedChecks = checks.filter((k) => k.disputes.length > 0);
    reasons.push(
      `${disputedChecks.length} check${disputedChecks.length === 1 ? '' : 's'} disputed by the vendor: ${disputedChecks
        .slice(0, 3)
        .map((k) => k.checkId)
        .join(', ')}${disputedChecks.length > 3 ? ', …' : ''} — not counted as passed`,
    );
  }
  reasons.push(...incomplete);
  if (exitCode === 0 && verdict === 'non-conformant') {
    reasons.push('every must-level failure is a known deviation listed in the expectations file');
  }
  return reasons;
}

/** Checks whose failure the vendor disputes, with the reason, the link and the clauses its disputed findings name. */
function disputesOf(checks: readonly CheckOutcome[]): Verdict['disputes'] {
  return checks
    .filter((k) => k.disputes.length > 0)
    .flatMap((k) =>
      k.disputes.map((d) => ({
        checkId: k.checkId,
        ...d,
        clauses: [...new Set(k.findings.filter((f) => f.disputed).map((f) => f.clause))],
      })),
    );
}
