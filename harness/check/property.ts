import fc from 'fast-check';
import type { CheckContext } from './define.js';
import { addTally, type CheckRecorder, currentRecorder, mergeRecorder, newRecorder, withRecorder } from './context.js';

/** The in-flight budget a target gets when its profile names none (the client's and the run-wide pool's default). */
const DEFAULT_WIDTH = 8;

export interface PropertyOptions {
  numRuns?: number;
  /**
   * Its examples share no mutable state (each its own order, merchant order and idempotency key; none reads a
   * balance, a counter, a model or an order of events), so they may run at once. The values,
   * their order, the verdict and fast-check's failure report stay those of the sequential run: see `assertIndependent`.
   */
  independent?: boolean;
}

/** The fast-check parameters a property runs with; `endOnFailure: false` (shrinking) only in tests. */
export interface PropertyParams {
  seed: number;
  numRuns: number;
  endOnFailure: boolean;
}

/**
 * Runs an async property with the check's seed and run count (combine several inputs with
 * fc.record or fc.tuple). fast-check's failure — seed, path, shrunk counterexample — stays
 * attached as the error's cause so the runner reports it with the typed finding inside.
 */
export async function property<T>(
  ctx: CheckContext,
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  opts: PropertyOptions = {},
): Promise<void> {
  const params: PropertyParams = { seed: ctx.seed, numRuns: Math.max(1, opts.numRuns ?? ctx.numRuns), endOnFailure: true };
  if (opts.independent) await assertIndependent(arb, predicate, params, exampleWidth(ctx));
  else await fc.assert(fc.asyncProperty(arb, predicate), params);
}

/**
 * How many examples of one check run at once: the target's in-flight budget (`http.concurrency`). Every request
 * already waits for a slot of the run-wide pool of that width, so a wider window would only queue there, and a
 * narrower one would leave the budget idle while a check of the network's round trips runs alone.
 */
export function exampleWidth(ctx: Pick<CheckContext, 'target'>): number {
  return Math.max(1, ctx.target.profile.http?.concurrency ?? DEFAULT_WIDTH);
}

/**
 * `fc.assert` for a property whose examples are independent, with the examples run `width` at a time.
 *
 * 1. The values are fast-check's own: the same property run with a predicate that only collects them, so they are
 *    exactly those, in the order, that `fc.assert` with this seed and run count would try.
 * 2. They run in a sliding window of `width`, in generation order. Each records into a recorder of its own, merged
 *    into the check's in generation order, so exchanges, readings and notes do not depend on which finished first.
 *    Once an example fails, no later one starts; the earlier ones still running finish, so the failure kept is the
 *    first in generation order whatever the timing, and every example before it ran and passed.
 * 3. On a failure, fast-check runs the property again, sequentially, and is told what happened: the examples before
 *    the failing one pass without being sent again, the failing one throws the error it threw. fast-check thus
 *    writes its own report (runs, seed, path, counterexample, the error as cause) and shrinks from there (one
 *    candidate at a time, against the target) exactly as the sequential run would.
 *
 * Examples after the failing one that were already under way are not part of the result (the sequential run would
 * not have sent them): their recordings are dropped.
 */
export async function assertIndependent<T>(
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  params: PropertyParams,
  width: number,
): Promise<void> {
  const values: T[] = [];
  const drawn = await fc
    .check(
      fc.asyncProperty(arb, async (v) => {
        values.push(v);
      }),
      params,
    )
    .catch(() => undefined);
  // The arbitrary itself threw while drawing: the sequential run sends the examples drawn before it, one of
  // which may fail first, and then lets fast-check report the arbitrary's error its own way.
  if (drawn === undefined || drawn.failed || values.length !== params.numRuns) {
    await fc.assert(fc.asyncProperty(arb, predicate), params);
    return;
  }
  const parent = currentRecorder();
  const recorders: (CheckRecorder | undefined)[] = [];
  const errors = new Map<number, unknown>();
  let first = values.length;
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < values.length && next < first) {
      const k = next++;
      const rec = parent ? newRecorder(parent.clauses, undefined, parent.checkId) : undefined;
      recorders[k] = rec;
      const run = () => Promise.resolve().then(() => predicate(values[k]!));
      try {
        await (rec ? withRecorder(rec, run) : run());
      } catch (err) {
        errors.set(k, err);
        first = Math.min(first, k);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, width), values.length) }, lane));
  if (parent) for (let k = 0; k <= Math.min(first, values.length - 1); k++) mergeRecorder(parent, recorders[k]!);
  // Examples run beside the first failing one are not the check's evidence, but their requests were sent all the same.
  if (parent) for (let k = first + 1; k < recorders.length; k++) if (recorders[k]) addTally(parent.sent, recorders[k]!.sent);
  if (first === values.length) return;
  const failure = errors.get(first);
  // fast-check would have skipped the value and drawn another, so the values after it would not be those we ran.
  if (fc.PreconditionFailure.isFailure(failure)) {
    throw new Error('a property whose examples are independent cannot use fc.pre: filter its arbitrary instead');
  }
  let seen = 0;
  await fc.assert(
    fc.asyncProperty(arb, async (v) => {
      const k = seen++;
      if (k < first) return;
      if (k === first) throw failure;
      await predicate(v);
    }),
    params,
  );
  throw new Error(`fast-check did not fail again on example ${first} of seed ${params.seed} when told it had failed`);
}
