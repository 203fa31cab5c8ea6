/**
 * From stored check results (and the target's known deviations) to the run's verdict: the outcome of
 * every check, the status of every registry clause, the exit code. A pure function of its inputs, so
 * `verify-certificate` recomputes exactly what the certificate says from the same results.
 *
 * Exit code (gate):
 *   1  a must-level finding that no expectation covers, or an expired expectation;
 *   2  otherwise, when the run is incomplete: a harness error (broken check), the target unreachable
 *      during the run, a suite file that failed to load, no result at all;
 *   0  otherwise — should-level failures, expected failures and unexpected passes are warnings.
 * Verdict (certificate): non-conformant iff some must-level service clause failed (known deviations
 * included: a known deviation is still a deviation); incomplete when the run was; else conformant.
 */
import { INVARIANT_CLAUSES } from '../check/invariants.js';
import { clauses as registry, hasClause, type Clause, type Level } from '../clauses/registry.js';
import type { StoredResult } from '../run/results.js';
import { activeEntries, entryName, expectationFor, isExpired, type ExpectationEntry, type Expectations } from './expectations.js';

export type Outcome = 'passed' | 'failed' | 'expected-fail' | 'skipped' | 'expected-skip' | 'unexpected-pass' | 'broken' | 'unreachable';
export type ClauseStatus = 'passed' | 'failed' | 'skipped-precondition' | 'not-checked' | 'unspecified';

export interface FindingSummary {
  code: string;
  clause: string;
  /** The registry's level of the finding's clause (the check's own level when the clause is `unspecified`). */
  level: 'must' | 'should';
  /** First line of the finding's message. */
  message: string;
  expected?: string;
  seen?: string;
  exchangeId?: string;
  /** Covered by a known deviation. */
  knownDeviation: boolean;
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
  findings: FindingSummary[];
  /** Comments of the expectation entries that applied. */
  deviations: { entry: string; comment: string; expires?: string }[];
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
  /** Checks naming the clause that ran. */
  checks: string[];
  /** Evidence against the clause: check, finding code, exchange, reproduction script. */
  failures: { checkId: string; code: string; exchangeId?: string; repro?: string; knownDeviation: boolean }[];
  /** The expectation entry (comment) when the failure is a known deviation. */
  knownDeviation?: { entry: string; comment: string; expires?: string };
}

export interface SuiteCounts {
  suite: string;
  passed: number;
  failed: number;
  expectedFail: number;
  skipped: number;
  broken: number;
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
}

export interface Verdict {
  verdict: 'conformant' | 'non-conformant' | 'incomplete';
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
  deviations: {
    expectedFailures: string[];
    expectedSkips: string[];
    unexpectedPasses: string[];
    expired: { entry: string; expires: string; comment: string }[];
    notExercised: string[];
  };
}

const UNREACHABLE = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|connect timed out/i;

/** Clauses the harness checks on every exchange (harness/check/invariants.ts). */
export function invariantClauses(): string[] {
  return [...INVARIANT_CLAUSES].filter(hasClause).sort();
}

function levelOf(clauseId: string, fallback: 'must' | 'should'): 'must' | 'should' {
  const c = registry.find((x) => x.id === clauseId);
  if (!c || c.level === 'unspecified') return fallback;
  return c.level;
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0]!;
}

/** A failure whose every finding is "no response" because the target could not be reached: not a verdict. */
export function isUnreachable(r: { status: string; findings: { code: string; exchangeId?: string; seen?: string }[]; exchanges: { id: string; error?: { kind: string; message: string } }[] }): boolean {
  if (r.status !== 'failed' || r.findings.length === 0) return false;
  return r.findings.every((f) => {
    if (f.code !== 'NO_RESPONSE') return false;
    const ex = r.exchanges.find((e) => e.id === f.exchangeId);
    const text = ex?.error ? `${ex.error.kind}: ${ex.error.message}` : (f.seen ?? '');
    return UNREACHABLE.test(text);
  });
}

export interface VerdictInput {
  results: StoredResult[];
  expectations?: Expectations;
  /** The run's day, YYYY-MM-DD: expiry is judged on it. */
  today: string;
  runStatus?: RunStatus;
  /** Clauses monitored on every exchange; default: read from harness/check/invariants.ts. */
  invariants?: string[];
  /** Registry to report on; default the kit's. */
  registry?: readonly Clause[];
}

export function computeVerdict(input: VerdictInput): Verdict {
  const reg = input.registry ?? registry;
  const invariants = new Set(input.invariants ?? invariantClauses());
  const active = activeEntries(input.expectations, input.today);
  const expired = (input.expectations?.entries ?? []).filter((e) => isExpired(e, input.today));

  const checks: CheckOutcome[] = input.results.map((r) => {
    const x = expectationFor(r, active);
    const findings: FindingSummary[] = r.findings.map((f) => ({
      code: f.code,
      clause: f.clause,
      level: f.level === 'should' ? 'should' : levelOf(f.clause, r.level),
      message: firstLine(f.message),
      expected: f.expected,
      seen: f.seen,
      exchangeId: f.exchangeId,
      knownDeviation: x.expectedFail,
    }));
    let outcome: Outcome;
    if (r.status === 'broken') outcome = 'broken';
    else if (isUnreachable(r)) outcome = 'unreachable';
    else if (r.status === 'failed') outcome = x.expectedFail ? 'expected-fail' : 'failed';
    else if (r.status === 'skipped') outcome = x.expectedSkip ? 'expected-skip' : 'skipped';
    else outcome = x.unexpectedPass ? 'unexpected-pass' : 'passed';
    return {
      checkId: r.checkId,
      suite: r.suite,
      title: r.title,
      level: r.level,
      clauses: r.clauses,
      status: r.status,
      outcome,
      reason: r.reason,
      findings,
      deviations: x.entries.map((e) => ({ entry: entryName(e), comment: e.comment, expires: e.expires })),
      repro: r.repro ?? [],
      durationMs: Math.round(r.durationMs),
    };
  });

  // Clause statuses.
  const exchangesSeen = input.results.filter((r) => r.status !== 'skipped').reduce((n, r) => n + r.exchanges.filter((e) => e.response).length, 0);
  const clauseOutcomes: ClauseOutcome[] = reg.map((c) => {
    const naming = checks.filter((k) => k.clauses.includes(c.id));
    const failures: ClauseOutcome['failures'] = [];
    for (const k of checks) {
      if (k.outcome !== 'failed' && k.outcome !== 'expected-fail') continue;
      for (const f of k.findings) {
        if (f.clause !== c.id) continue;
        const repro = k.repro.find((p) => f.exchangeId !== undefined && p.includes(f.exchangeId));
        failures.push({ checkId: k.checkId, code: f.code, exchangeId: f.exchangeId, repro, knownDeviation: k.outcome === 'expected-fail' });
      }
    }
    const base = { id: c.id, level: c.level, party: c.party, section: c.section, text: c.text, checks: naming.map((k) => k.checkId), failures };
    if (failures.length > 0) {
      const known = failures.every((f) => f.knownDeviation);
      const entry = known ? checks.find((k) => k.checkId === failures[0]!.checkId)?.deviations[0] : undefined;
      return { ...base, status: 'failed', basis: `${failures.length} finding${failures.length === 1 ? '' : 's'}${known ? ', all known deviations' : ''}`, knownDeviation: entry };
    }
    if (c.level === 'unspecified') return { ...base, status: 'unspecified', basis: 'the document does not show it: nothing to certify' };
    const passed = naming.filter((k) => k.outcome === 'passed' || k.outcome === 'unexpected-pass');
    if (passed.length > 0) return { ...base, status: 'passed', basis: `${passed.length} check${passed.length === 1 ? '' : 's'} passed` };
    if (invariants.has(c.id) && exchangesSeen > 0) return { ...base, status: 'passed', basis: `monitored on every response (${exchangesSeen} examined), no finding` };
    const skipped = naming.filter((k) => k.outcome === 'skipped' || k.outcome === 'expected-skip');
    if (skipped.length > 0) return { ...base, status: 'skipped-precondition', basis: firstLine(skipped[0]!.reason ?? 'precondition') };
    const broken = naming.filter((k) => k.outcome === 'broken' || k.outcome === 'unreachable');
    if (broken.length > 0) return { ...base, status: 'not-checked', basis: broken[0]!.outcome === 'broken' ? 'harness error in its checks' : 'target unreachable' };
    if (c.party === 'client') return { ...base, status: 'not-checked', basis: 'binds the merchant, not the service: certified by `mpsi-conformance receiver` (webhook endpoint) and `serve --audit` (client)' };
    return { ...base, status: 'not-checked', basis: naming.length === 0 ? 'no check of it ran in this run' : 'not checked' };
  });

  // Suite counts.
  const bySuite = new Map<string, SuiteCounts>();
  for (const k of checks) {
    const s = bySuite.get(k.suite) ?? { suite: k.suite, passed: 0, failed: 0, expectedFail: 0, skipped: 0, broken: 0, total: 0 };
    s.total += 1;
    if (k.outcome === 'passed' || k.outcome === 'unexpected-pass') s.passed += 1;
    else if (k.outcome === 'failed') s.failed += 1;
    else if (k.outcome === 'expected-fail') s.expectedFail += 1;
    else if (k.outcome === 'skipped' || k.outcome === 'expected-skip') s.skipped += 1;
    else s.broken += 1;
    bySuite.set(k.suite, s);
  }
  const suites = [...bySuite.values()].sort((a, b) => a.suite.localeCompare(b.suite));

  const emptyRow = (): Record<ClauseStatus, number> => ({ passed: 0, failed: 0, 'skipped-precondition': 0, 'not-checked': 0, unspecified: 0 });
  const levels = { must: emptyRow(), should: emptyRow(), unspecified: emptyRow() };
  for (const c of clauseOutcomes) if (c.party === 'service') levels[c.level][c.status] += 1;

  // Deviations and warnings.
  const warnings: string[] = [];
  const unexpectedPasses: string[] = [];
  for (const k of checks) {
    if (k.outcome === 'unexpected-pass') unexpectedPasses.push(`${k.deviations[0]?.entry ?? `check ${k.checkId}`}: expected to ${active.find((e) => e.check === k.checkId)?.expected === 'skip' ? 'be skipped' : 'fail'}, it passed — remove the entry once this is confirmed`);
  }
  const notExercised: string[] = [];
  for (const e of active) {
    if (e.check !== undefined) {
      if (!checks.some((k) => k.checkId === e.check)) notExercised.push(`${entryName(e)}: did not run in this run`);
      continue;
    }
    const status = clauseOutcomes.find((c) => c.id === e.clause)?.status;
    const passedHere = checks.filter((k) => k.clauses.includes(e.clause!) && (k.outcome === 'passed' || k.outcome === 'unexpected-pass'));
    const basis = clauseOutcomes.find((c) => c.id === e.clause)?.basis ?? '';
    if (status === 'passed') {
      unexpectedPasses.push(`${entryName(e)}: expected to ${e.expected === 'fail' ? 'fail' : 'be skipped'}, it passed (${passedHere.length > 0 ? `${passedHere.length} check${passedHere.length === 1 ? '' : 's'}` : basis}) — remove the entry once this is confirmed`);
    } else if (status === 'not-checked' || status === 'unspecified') notExercised.push(`${entryName(e)}: no check of it ran in this run`);
  }
  for (const u of unexpectedPasses) warnings.push(`unexpected pass: ${u}`);
  for (const k of checks) {
    if (k.outcome !== 'failed') continue;
    const must = k.findings.some((f) => f.level === 'must');
    if (!must) warnings.push(`should-level recommendation not met: ${k.checkId} (${k.findings.map((f) => f.clause).join(', ')})`);
  }
  for (const n of notExercised) warnings.push(`expectation not exercised: ${n}`);

  const reasons: string[] = [];
  // Expired entries first: they explain why failures that used to be expected count again.
  for (const e of expired) reasons.push(`expectations: the entry for ${entryName(e)} expired on ${e.expires} (${e.comment}) — renew or remove it`);
  const mustFailures = checks.filter((k) => k.outcome === 'failed' && k.findings.some((f) => f.level === 'must'));
  if (mustFailures.length > 0) {
    const clausesHit = [...new Set(mustFailures.flatMap((k) => k.findings.filter((f) => f.level === 'must').map((f) => f.clause)))];
    reasons.push(`${mustFailures.length} check${mustFailures.length === 1 ? '' : 's'} found must-level deviations from ${clausesHit.length} clause${clausesHit.length === 1 ? '' : 's'}: ${clausesHit.slice(0, 4).join(', ')}${clausesHit.length > 4 ? ', …' : ''}`);
  }
  const incomplete: string[] = [];
  const broken = checks.filter((k) => k.outcome === 'broken');
  if (broken.length > 0) incomplete.push(`${broken.length} check${broken.length === 1 ? '' : 's'} hit a harness error (not a target verdict): ${broken.slice(0, 3).map((k) => k.checkId).join(', ')}${broken.length > 3 ? ', …' : ''}`);
  const unreachable = checks.filter((k) => k.outcome === 'unreachable');
  if (unreachable.length > 0) incomplete.push(`the target was unreachable in ${unreachable.length} check${unreachable.length === 1 ? '' : 's'}`);
  for (const m of input.runStatus?.moduleErrors ?? []) incomplete.push(`suite file ${m.file} could not run: ${firstLine(m.message)}`);
  for (const u of input.runStatus?.unhandledErrors ?? []) incomplete.push(`unhandled error during the run: ${firstLine(u)}`);
  const recorded = new Set(input.results.map((r) => r.checkId));
  for (const t of input.runStatus?.tests ?? []) {
    if (t.state === 'failed' && (t.checkId === undefined || !recorded.has(t.checkId))) incomplete.push(`${t.name} failed in vitest without a check result: ${firstLine(t.error ?? 'no message')}`);
  }
  if (checks.length === 0) incomplete.push('no check result was recorded');
  if (input.runStatus?.reason === 'interrupted') incomplete.push('the run was interrupted');

  const mustClauseFailed = clauseOutcomes.some((c) => c.party === 'service' && c.level === 'must' && c.status === 'failed')
    || checks.some((k) => (k.outcome === 'failed' || k.outcome === 'expected-fail') && k.findings.some((f) => f.level === 'must'));
  const verdict: Verdict['verdict'] = mustClauseFailed ? 'non-conformant' : incomplete.length > 0 ? 'incomplete' : 'conformant';
  let exitCode: 0 | 1 | 2;
  if (mustFailures.length > 0 || expired.length > 0) exitCode = 1;
  else if (incomplete.length > 0) exitCode = 2;
  else exitCode = 0;
  reasons.push(...incomplete);
  if (exitCode === 0 && verdict === 'non-conformant') {
    reasons.push('every must-level failure is a known deviation listed in the expectations file');
  }

  return {
    verdict,
    exitCode,
    reasons,
    warnings,
    checks,
    clauses: clauseOutcomes,
    suites,
    levels,
    deviations: {
      expectedFailures: checks.filter((k) => k.outcome === 'expected-fail').map((k) => `${k.checkId}: ${k.deviations.map((d) => d.comment).join('; ')}`),
      expectedSkips: checks.filter((k) => k.outcome === 'expected-skip').map((k) => `${k.checkId}: ${k.deviations.map((d) => d.comment).join('; ')}`),
      unexpectedPasses,
      expired: expired.map((e: ExpectationEntry) => ({ entry: entryName(e), expires: e.expires!, comment: e.comment })),
      notExercised,
    },
  };
}
