/**
 * A kind of fact's probes run in the doctor's context (budget.ts `inKind`, spent breadth first): what a depth request
 * refused past them leaves is said as not verifiable. Apart from budget.ts so that the budget, which the context holds,
 * needs nothing of the context.
 */
import { type DepthRefused, inKind } from './budget.js';
import { add, type DoctorContext } from './context.js';

/** Runs one kind of fact's probes (`inKind`); a depth request refused past them ends the kind, said so. */
export function kind(ctx: DoctorContext, name: string, fn: () => Promise<void>): Promise<void> {
  return inKind(ctx.budget, name, fn, (err) => restNotAsked(ctx, name, err));
}

/** As `kind`, for probes that hand a result on: `fallback` when the budget ended them first. */
export async function kindOf<T>(ctx: DoctorContext, name: string, fn: () => Promise<T>, fallback: T): Promise<T> {
  let out = fallback;
  await kind(ctx, name, async () => {
    out = await fn();
  });
  return out;
}

function restNotAsked(ctx: DoctorContext, name: string, err: DepthRefused): void {
  add(ctx, 'not-verifiable', name, `the rest of ${name}`, { answered: err.message });
}
