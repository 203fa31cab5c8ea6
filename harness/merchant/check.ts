/**
 * Checks of the merchant side: the same shape as the service's (an id, a sentence, clause ids, a
 * level, findings charged to a clause), but run against a merchant's endpoint or its recorded
 * traffic instead of a `Target`. Clause ids are validated at definition time.
 */
import { clause as lookupClause } from '../clauses/registry.js';
import { CheckFailure, PreconditionSkip, type Finding } from '../check/failure.js';

export interface MerchantCheck<Ctx> {
  /** `<group>/<slug>`. */
  id: string;
  title: string;
  clauses: string[];
  level: 'must' | 'should';
  run(ctx: Ctx, seed: number): Promise<void>;
}

export interface MerchantCheckSpec<Ctx> {
  title: string;
  clause: string | string[];
  level?: 'must' | 'should';
  run(ctx: Ctx, seed: number): Promise<void>;
}

export interface MerchantResult {
  checkId: string;
  title: string;
  clauses: string[];
  level: 'must' | 'should';
  status: 'passed' | 'failed' | 'skipped' | 'broken';
  reason?: string;
  findings: Finding[];
  /** What was sent and answered, one line each, for the report (already free of secrets). */
  evidence: string[];
  durationMs: number;
}

const slug = (t: string) =>
  t
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function defineMerchantChecks<Ctx>(group: string, specs: MerchantCheckSpec<Ctx>[]): MerchantCheck<Ctx>[] {
  const seen = new Set<string>();
  return specs.map((s) => {
    const clauses = Array.isArray(s.clause) ? s.clause : [s.clause];
    const first = lookupClause(clauses[0]!);
    for (const c of clauses) lookupClause(c);
    const id = `${group}/${slug(s.title)}`;
    if (seen.has(id)) throw new Error(`duplicate check title in ${group}: ${s.title}`);
    seen.add(id);
    return { id, title: s.title, clauses, level: s.level ?? (first.level === 'should' ? 'should' : 'must'), run: s.run };
  });
}

/** Fails the running check with a finding against `clause`. */
export function fail(clause: string, code: string, message: string, extra: { expected?: string; seen?: string } = {}): never {
  const c = lookupClause(clause);
  throw new CheckFailure({ code, clause, level: c.level === 'should' ? 'should' : 'must', title: message, message, ...extra });
}

/** Runs one check; never throws. `evidence` is the list the check appends its lines to. */
export async function runMerchantCheck<Ctx>(
  check: MerchantCheck<Ctx>,
  ctx: Ctx,
  seed: number,
  evidence: string[],
): Promise<MerchantResult> {
  const started = performance.now();
  const base = { checkId: check.id, title: check.title, clauses: check.clauses, level: check.level, evidence };
  try {
    await check.run(ctx, seed);
    return { ...base, status: 'passed', findings: [], durationMs: performance.now() - started };
  } catch (err) {
    const e = unwrap(err);
    const durationMs = performance.now() - started;
    if (e instanceof PreconditionSkip)
      return { ...base, status: 'skipped', reason: `precondition: ${e.message}`, findings: [], durationMs };
    if (e instanceof CheckFailure) {
      const f = check.level === 'should' ? { ...e.finding, level: 'should' as const } : e.finding;
      return { ...base, status: 'failed', findings: [f], durationMs };
    }
    return { ...base, status: 'broken', reason: e instanceof Error ? `${e.name}: ${e.message}` : String(e), findings: [], durationMs };
  }
}

/** fast-check wraps the predicate's error: the typed one inside is what counts. */
function unwrap(err: unknown): unknown {
  let e: unknown = err;
  for (let i = 0; i < 5 && e instanceof Error; i++) {
    if (e instanceof CheckFailure || e instanceof PreconditionSkip) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return err;
}
