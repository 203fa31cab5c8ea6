import type { Target } from '../target.js';
import { type ClauseId, clause as lookupClause } from '../clauses/registry.js';

export type Area =
  | 'auth'
  | 'envelope'
  | 'amounts'
  | 'naming'
  | 'mutual-exclusion'
  | 'idempotency'
  | 'errors'
  | 'payments'
  | 'refunds'
  | 'payouts'
  | 'webhooks'
  | 'stateful';

export interface CheckContext {
  target: Target;
  /** fast-check seed for this check (derived from the run seed and the check id, so one check replays alone). */
  seed: number;
  /** The run's seed (`--seed`), for messages that tell how to replay. */
  runSeed: number;
  /** fast-check runs for property checks. */
  numRuns: number;
  /** quick: first retries only; full: the whole schedule; off: no receiver (webhook checks skip). */
  webhooks: 'quick' | 'full' | 'off';
}

export interface CheckDef {
  /** Stable id: `<suite>/<slug>`; derived from the title when absent. */
  id: string;
  /** A sentence: "refuses a value with three decimals". */
  title: string;
  /** The clause this check enforces (first) and any others it also enforces. */
  clauses: ClauseId[];
  level: 'must' | 'should';
  /**
   * `own-clause` (default): a pass credits the first clause besides what assertions recorded;
   * `recorded`: only what assertions recorded (checks whose clause list is a catalogue, not a behaviour).
   */
  credit?: 'own-clause' | 'recorded';
  run(ctx: CheckContext): Promise<void>;
}

export interface SuiteDef {
  name: string;
  area: Area;
  /** Resource label for the report: payment, refund, payout, request, webhook. */
  resource: string;
  /**
   * Whether its checks run at once: true unless the suite says why they must not (`sequential`).
   * Checks already run beside those of other files (vitest's workers), so each works on its own numbers, orders and
   * receiver filters; running a file's checks at once as well lets a check that waits (a webhook window, a network
   * round trip) hold nothing back: a file of 3-second watch windows takes 3 seconds, not 30. Their requests share
   * the run-wide pool (harness/run/pool.ts), so this never sends more than the profile's `http.concurrency`.
   */
  concurrent: boolean;
  /** Why its checks must run one after another (state one check leaves for another); absent: they run at once. */
  sequential?: string;
  /**
   * Why its checks run one after another at a compressed time scale (below 1), where a delivery late by our own
   * crowding is late against the document; at real time (the scale 1 of a vendor's sandbox) they run at once.
   */
  sequentialBelowRealTime?: string;
  checks: CheckDef[];
}

/** Whether the suite's checks run at once at the target's webhook time scale (the profile's `webhooks.timeScale`). */
export function runsConcurrently(suite: Pick<SuiteDef, 'concurrent' | 'sequentialBelowRealTime'>, timeScale: number): boolean {
  return suite.concurrent && (suite.sequentialBelowRealTime === undefined || timeScale >= 1);
}

export interface CheckSpec {
  title: string;
  clause: ClauseId | ClauseId[];
  level?: 'must' | 'should';
  credit?: 'own-clause' | 'recorded';
  run(ctx: CheckContext): Promise<void>;
}

function slug(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** Validates clause ids at definition time: a typo fails the import, not a report later. */
export function defineSuite(
  name: string,
  meta: { area: Area; resource: string; sequential?: string; sequentialBelowRealTime?: string },
  specs: CheckSpec[],
): SuiteDef {
  const checks = specs.map((s): CheckDef => {
    const clauses = Array.isArray(s.clause) ? s.clause : [s.clause];
    if (clauses.length === 0) throw new Error(`check "${s.title}" in suite ${name} names no clause`);
    const first = lookupClause(clauses[0]!);
    for (const c of clauses) lookupClause(c);
    const level = s.level ?? (first.level === 'should' ? 'should' : 'must');
    return { id: `${name}/${slug(s.title)}`, title: s.title, clauses, level, credit: s.credit ?? 'own-clause', run: s.run };
  });
  const seen = new Set<string>();
  for (const c of checks) {
    if (seen.has(c.id)) throw new Error(`duplicate check title in suite ${name}: ${c.title}`);
    seen.add(c.id);
  }
  return { name, ...meta, concurrent: meta.sequential === undefined, checks };
}
