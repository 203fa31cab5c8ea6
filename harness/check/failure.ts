import { clause as registryClause, hasClause } from '../clauses/registry.js';

/**
 * What a check found wrong. `clause` is the registry id the finding is evidence against;
 * it may differ from the check's own clause (a global invariant broken during a refund check
 * is a finding against the invariant's clause), which is what lets the kill matrix credit
 * a fault only to checks of its own clause.
 */
export interface Finding {
  /** Stable code, e.g. WRONG_ERROR_KEY, RESPONSE_SIGNATURE_INVALID. */
  code: string;
  clause: string;
  level: 'must' | 'should';
  /** One line saying what is wrong, for lists and titles; `message` adds expected, seen and the exchange. */
  title: string;
  message: string;
  expected?: string;
  seen?: string;
  /** Id of the exchange that showed it. */
  exchangeId?: string;
}

/**
 * The level a finding is reported at, everywhere (verdict, certificate, terminal, vitest, Allure): `should`
 * when the finding says so (a should-level check binds no more than a recommendation), else the registry's
 * level of its clause, and the check's own level for a clause the document leaves open.
 */
export function levelOfFinding(f: { clause: string; level?: string }, checkLevel: 'must' | 'should'): 'must' | 'should' {
  if (f.level === 'should') return 'should';
  if (!hasClause(f.clause)) return checkLevel;
  const level = registryClause(f.clause).level;
  return level === 'unspecified' ? checkLevel : level;
}

export class CheckFailure extends Error {
  readonly finding: Finding;
  constructor(finding: Finding) {
    super(`[${finding.code}] ${finding.message}`);
    this.name = 'CheckFailure';
    this.finding = finding;
  }
}

export interface SkipOptions {
  /**
   * The profile path(s) to declare so the check runs, all of them (an entry may name alternatives:
   * "cardPayment.cards.decline or sandbox.completeCheckout"). Absent when no profile entry would help
   * (a run flag, or what the target did).
   */
  declare?: string[];
}

/**
 * Why a check reached no verdict for reasons that are not the target's: the gateway in front of
 * it kept refusing our requests past the check's deadline, or our own machine lost more time than the
 * timing rule allows, so a timing finding could not be confirmed. Never a pass, never a failure.
 */
export type NoVerdictCause = 'throttled' | 'machine-busy';

/** Thrown by the harness when a check cannot be judged (see `NoVerdictCause`); reported as `inconclusive`. */
export class NoVerdict extends Error {
  readonly why: NoVerdictCause;
  constructor(cause: NoVerdictCause, detail: string) {
    super(detail);
    this.name = 'NoVerdict';
    this.why = cause;
  }
}

/** Thrown when the profile does not declare what a check needs: reported as skipped, never as passed. */
export class PreconditionSkip extends Error {
  readonly declare: string[];
  constructor(reason: string, opts: SkipOptions = {}) {
    super(reason);
    this.name = 'PreconditionSkip';
    this.declare = opts.declare ?? [];
  }
}

export function skipUnless(condition: unknown, reason: string, opts: SkipOptions = {}): asserts condition {
  if (!condition) throw new PreconditionSkip(reason, opts);
}

/** "declare sandbox.completeCheckout in the profile to run it": what a skipped check's reason ends with. */
export function declareHint(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  const list = paths.length === 1 ? paths[0]! : `${paths.slice(0, -1).join(', ')} and ${paths[paths.length - 1]!}`;
  return `declare ${list} in the profile to run it`;
}
