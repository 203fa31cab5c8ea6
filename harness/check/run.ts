/**
 * `runCheck`: one check's verdict, independent of vitest, so the kill matrix and parity reuse the same checks. It runs
 * the check against its `Target`, collects findings (each charged to a clause) and what the assertions exercised, and
 * retries a timing finding that our own lost time explains (harness/check/lag.ts); a second such finding is no verdict
 * (`machine-busy`), never a failure of the target.
 */
import { createHash } from 'node:crypto';
import type { Target } from '../target.js';
import type { Exchange } from '../http/exchange.js';
import type { CheckDef } from './define.js';
import { CheckFailure, declareHint, NoVerdict, type NoVerdictCause, PreconditionSkip, type Finding } from './failure.js';
import { addTally, type CheckRecorder, emptyTally, newRecorder, type SentTally, withRecorder } from './context.js';

/** `inconclusive`: no verdict, for a cause that is not the target's (`NoVerdict`); a must-level one makes the run exit 2. */
export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'broken' | 'inconclusive';

export interface CheckResult {
  checkId: string;
  title: string;
  clauses: string[];
  level: 'must' | 'should';
  status: CheckStatus;
  /** Why it was skipped (precondition) or broken (harness error). */
  reason?: string;
  /** No verdict (`inconclusive`): why, in data; `reason` says it in words. */
  inconclusive?: { cause: NoVerdictCause };
  /** Skipped for a precondition: the profile path(s) to declare so it runs. */
  declare?: string[];
  /** The check's own assertion first, then invariant findings. */
  findings: Finding[];
  exchanges: Exchange[];
  /** Every request the check sent (its tries summed), kept in `exchanges` or not: its traffic (stored as `traffic`). */
  sent: SentTally;
  readings: Record<string, string>;
  notes: string[];
  /** Clauses the check's assertions evaluated and found kept (sorted): the only clauses it is credited with. */
  exercised: string[];
  seed: number;
  durationMs: number;
}

export interface RunSettings {
  seed: number;
  numRuns: number;
  webhooks: 'quick' | 'full' | 'off';
}

/** Each check gets its own seed so it replays alone with the run seed: `--seed S --clause X`. */
export function checkSeed(runSeed: number, checkId: string): number {
  return createHash('sha256').update(`${runSeed}:${checkId}`).digest().readInt32LE(0);
}

/**
 * Findings about time (a webhook that did not come within a window, a wait longer than the document's,
 * an acknowledgement not honoured in time): the only ones our machine's lag can produce.
 */
export const TIMING_CODES: ReadonlySet<string> = new Set([
  'WEBHOOK_NOT_SENT',
  'WEBHOOK_NOT_RETRIED',
  'TOO_FEW_ATTEMPTS',
  'FIRST_WAIT_OFF',
  'LAST_WAIT_OFF',
  'SPAN_OFF',
  'WEBHOOK_ACK_TIME_SHORT',
  'WEBHOOK_RESENT_AFTER_ACK',
  'WEBHOOK_ACK_STATUS_EXAMINED',
]);

/**
 * Runs one check against a target; never throws. A timing finding our own machine's lost time could
 * explain (the recorder's machineBusy) is not charged at once: the check runs again with fresh
 * numbers, and its second result stands, unless that one too is a timing finding within our lag:
 * then the check ends with no verdict (machine too busy).
 */
export async function runCheck(check: CheckDef, target: Target, settings: RunSettings): Promise<CheckResult> {
  const first = await runCheckOnce(check, target, settings);
  if (!first.busy) return first.result;
  const second = await runCheckOnce(check, target, settings);
  const firstSaw = `${first.result.findings[0]!.code}: ${first.busy.join('; ')}`;
  if (!second.busy) {
    const r = second.result;
    return {
      ...r,
      notes: [`first try: ${firstSaw}; run again with new numbers, as our machine lost that time`, ...r.notes],
      sent: bothTries(first.result, r),
      durationMs: first.result.durationMs + r.durationMs,
    };
  }
  const detail = `${firstSaw}; and again with new numbers: ${second.result.findings[0]!.code}: ${second.busy.join('; ')}`;
  const r = second.result;
  return {
    ...r,
    status: 'inconclusive',
    inconclusive: { cause: 'machine-busy' },
    reason: `no verdict (machine too busy): ${detail}`,
    findings: [],
    exercised: [],
    sent: bothTries(first.result, r),
    durationMs: first.result.durationMs + r.durationMs,
  };
}

function bothTries(a: CheckResult, b: CheckResult): SentTally {
  const t = emptyTally();
  addTally(t, a.sent);
  addTally(t, b.sent);
  return t;
}

/** One run of a check; `busy` when it failed on a timing finding within our machine's measured lag. */
async function runCheckOnce(check: CheckDef, target: Target, settings: RunSettings): Promise<{ result: CheckResult; busy?: string[] }> {
  const result = await runCheckBody(check, target, settings);
  const rec = result.recorder;
  const timingFailure = result.status === 'failed' && result.findings.length > 0 && TIMING_CODES.has(result.findings[0]!.code);
  const { recorder: _, ...plain } = result;
  return timingFailure && rec.machineBusy.length > 0 ? { result: plain, busy: rec.machineBusy } : { result: plain };
}

async function runCheckBody(check: CheckDef, target: Target, settings: RunSettings): Promise<CheckResult & { recorder: CheckRecorder }> {
  const rec = newRecorder(check.clauses, undefined, check.id);
  const seed = checkSeed(settings.seed, check.id);
  const started = performance.now();
  let status: CheckStatus = 'passed';
  let reason: string | undefined;
  let declare: string[] | undefined;
  let inconclusive: { cause: NoVerdictCause } | undefined;
  const findings: Finding[] = [];
  try {
    await withRecorder(rec, () =>
      check.run({ target, seed, runSeed: settings.seed, numRuns: settings.numRuns, webhooks: settings.webhooks }),
    );
  } catch (err) {
    const e = unwrap(err);
    if (e instanceof PreconditionSkip) {
      status = 'skipped';
      reason = `precondition: ${e.message}${e.declare.length ? ` — ${declareHint(e.declare)}` : ''}`;
      if (e.declare.length) declare = e.declare;
    } else if (e instanceof NoVerdict) {
      status = 'inconclusive';
      inconclusive = { cause: e.why };
      reason = `no verdict (${e.why === 'throttled' ? 'throttled' : 'machine too busy'}): ${e.message}`;
    } else if (e instanceof CheckFailure) {
      status = 'failed';
      // A should-level check binds no more than a recommendation, whatever clause it charges.
      findings.push(check.level === 'should' ? { ...e.finding, level: 'should' } : e.finding);
      // fast-check's report (seed, path, counterexample) is what makes a property failure replayable.
      if (err !== e && err instanceof Error) findings[0] = { ...findings[0]!, message: `${e.finding.message}\n${propertyReport(err)}` };
    } else {
      status = 'broken';
      reason = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    }
  }
  // Invariant findings are evidence whatever else happened, except where the check never got to judge.
  if (rec.invariantFindings.length > 0 && status !== 'skipped') {
    findings.push(...rec.invariantFindings);
    if (status === 'passed' || status === 'broken') status = 'failed';
  }
  return {
    checkId: check.id,
    title: check.title,
    clauses: check.clauses,
    level: check.level,
    status,
    reason,
    ...(declare ? { declare } : {}),
    ...(inconclusive ? { inconclusive } : {}),
    findings,
    exchanges: rec.exchanges,
    sent: rec.sent,
    readings: rec.readings,
    notes: rec.notes,
    exercised: exercisedOf(check, status, rec, findings),
    seed,
    durationMs: performance.now() - started,
    recorder: rec,
  };
}

/**
 * What the check is credited with: every clause an assertion recorded, and, when the check passed
 * after at least one exchange, its own (first) clause unless it opts out (`credit: 'recorded'`):
 * a check is one behaviour, and passing it to the end is evidence for that behaviour. A clause a
 * finding was charged to is never credited by the same check.
 */
function exercisedOf(check: CheckDef, status: CheckStatus, rec: CheckRecorder, findings: Finding[]): string[] {
  if (status === 'skipped' || status === 'broken' || status === 'inconclusive') return [];
  const out = new Set(rec.exercised);
  if (status === 'passed' && check.credit !== 'recorded' && rec.exchanges.length > 0) out.add(check.clauses[0]!);
  for (const f of findings) out.delete(f.clause);
  return [...out].sort();
}

/** fast-check wraps the predicate's error; the typed failure inside is what we report. */
function unwrap(err: unknown): unknown {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof CheckFailure || e instanceof PreconditionSkip || e instanceof NoVerdict) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return e instanceof CheckFailure || e instanceof PreconditionSkip || e instanceof NoVerdict ? e : err;
}

function propertyReport(err: Error): string {
  const lines = err.message.split('\n').filter((l) => /seed|path|Counterexample|Shrunk/i.test(l));
  return lines.slice(0, 4).join('\n');
}
