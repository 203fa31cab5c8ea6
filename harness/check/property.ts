import fc from 'fast-check';
import type { CheckContext } from './define.js';

/**
 * Runs an async property with the check's seed and run count (combine several inputs with
 * fc.record or fc.tuple). fast-check's failure — seed, path, shrunk counterexample — stays
 * attached as the error's cause so the runner reports it with the typed finding inside.
 */
export async function property<T>(
  ctx: CheckContext,
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  opts: { numRuns?: number } = {},
): Promise<void> {
  await fc.assert(fc.asyncProperty(arb, predicate), {
    seed: ctx.seed,
    numRuns: Math.max(1, opts.numRuns ?? ctx.numRuns),
    endOnFailure: true,
  });
}
