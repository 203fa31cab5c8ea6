/**
 * Checkout methods whose channel range the profile declares (profile.limits.payments), for the
 * amount checks: an amount check is only meaningful when the amount is known to be inside (or
 * outside) the method's range, and the numeric ranges are "not shown" by the interface.
 */
import { PreconditionSkip } from '../../harness/check/failure.js';
import type { Target } from '../../harness/target.js';
import { centsRange, type CentsRange } from '../../fixtures/arbitraries/amounts.js';

export interface RangedMethod {
  method: string;
  range: CentsRange;
}

/** Checkout methods (price-point methods excluded) with a declared min and max. */
export function rangedCheckoutMethods(t: Target): RangedMethod[] {
  const limits = t.profile.limits?.payments ?? {};
  const pricePoint = new Set(t.profile.methods.pricePoint ?? []);
  return t.profile.methods.checkout
    .filter((m) => !pricePoint.has(m) && Object.hasOwn(limits, m))
    .map((m) => ({ method: m, range: centsRange(limits[m]!) }));
}

/** All ranged checkout methods; skips the check when there is none. */
export function requireRangedCheckoutMethods(t: Target): RangedMethod[] {
  const found = rangedCheckoutMethods(t);
  if (found.length === 0) {
    throw new PreconditionSkip('the profile declares no channel range (limits.payments) for any checkout method that is not a price-point method');
  }
  return found;
}

/** The first ranged checkout method whose range holds every one of `cents` (and spans more than a cent); skips when there is none. */
export function rangedCheckoutMethodHolding(t: Target, cents: number[] = []): RangedMethod {
  const found = rangedCheckoutMethods(t).find((r) => r.range.max > r.range.min && cents.every((c) => c >= r.range.min && c <= r.range.max));
  if (!found) {
    const what = cents.length ? ` holding ${cents.map((c) => (c / 100).toFixed(2)).join(', ')}` : '';
    throw new PreconditionSkip(`the profile declares no checkout method with a channel range (limits.payments)${what}`);
  }
  return found;
}
