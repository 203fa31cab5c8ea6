/**
 * Checkout methods whose channel range the profile declares (profile.limits.payments), for the
 * amount checks: an amount check is only meaningful when the amount is known to be inside (or
 * outside) the method's range, and the numeric ranges are "not shown" by the interface.
 */
import { factsOf } from '../../harness/facts/index.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import type { Target } from '../../harness/target.js';
import type { CentsRange } from '../../fixtures/arbitraries/amounts.js';
import { channelGaps, channelSpans } from '../../harness/facts/limits.js';
import { valueOfCents } from '../../harness/facts/money.js';
import { avoidMagic } from '../../harness/ops.js';

export interface RangedMethod {
  method: string;
  /** The overall bounds (the smallest channel minimum, the largest maximum). */
  range: CentsRange;
  /** Each channel's range (one when the method has one channel), sorted, touching ranges merged. */
  channels: CentsRange[];
  /** Amounts between two channels that no channel accepts (limits.payments[m].channels). */
  gaps: CentsRange[];
}

/** Checkout methods (price-point methods excluded) with a declared min and max. */
export function rangedCheckoutMethods(t: Target): RangedMethod[] {
  const limits = factsOf(t).sections.limits.payments;
  const pricePoint = new Set(t.profile.methods.pricePoint ?? []);
  return t.profile.methods.checkout
    .filter((m) => !pricePoint.has(m) && Object.hasOwn(limits, m))
    .map((m) => {
      const channels = channelSpans(limits[m]!);
      return {
        method: m,
        range: { min: channels[0]!.min, max: channels[channels.length - 1]!.max },
        channels,
        gaps: channelGaps(limits[m]!),
      };
    });
}

/** All ranged checkout methods; skips the check when there is none. */
export function requireRangedCheckoutMethods(t: Target): RangedMethod[] {
  const found = rangedCheckoutMethods(t);
  if (found.length === 0) {
    throw new PreconditionSkip(
      'the profile declares no channel range (limits.payments) for any checkout method that is not a price-point method',
      { declare: ['limits.payments'] },
    );
  }
  return found;
}

/**
 * The first ranged checkout method with one channel whose range holds every one of `cents` (and
 * spans more than a cent); `range` is that channel's, so any amount inside it is accepted. Skips when there is none.
 */
export function rangedCheckoutMethodHolding(t: Target, cents: number[] = []): RangedMethod {
  const holds = (r: CentsRange) => r.max > r.min && cents.every((c) => c >= r.min && c <= r.max);
  const found = rangedCheckoutMethods(t)
    .map((m) => ({ m, channel: m.channels.find(holds) }))
    .map(({ m, channel }) => (channel ? { ...m, range: channel } : undefined))
    .find((m) => m !== undefined);
  if (!found) {
    const what = cents.length ? ` holding ${cents.map((c) => valueOfCents(c)).join(', ')}` : '';
    throw new PreconditionSkip(`the profile declares no checkout method with a channel range (limits.payments)${what}`, {
      declare: ['limits.payments'],
    });
  }
  return found;
}

/**
 * The first `n` amounts (in cents, ascending from the range's minimum) that no declared failure trigger fails: the amounts
 * a check sends when any amount of the range would do. Fewer when the range holds fewer.
 */
export function plainCentsIn(t: Target, range: CentsRange, n = 1): number[] {
  const magic = avoidMagic(t);
  const out: number[] = [];
  for (let c = range.min; c <= range.max && out.length < n; c++) if (!magic(c)) out.push(c);
  return out;
}

/** A merchant other than the primary whose own channel range of a checkout method differs from every merchant's. */
export interface OwnRangedMethod extends RangedMethod {
  as: 'second' | 'lowBalance';
}

/**
 * The checkout methods (price-point methods excluded) whose range the profile states for the second or low-balance
 * merchant as its own (`merchants.<role>.facts.limits.payments`), where it differs from the range every merchant has.
 */
export function ownRangedCheckoutMethods(t: Target): OwnRangedMethod[] {
  const shared = t.profile.limits?.payments ?? {};
  const out: OwnRangedMethod[] = [];
  for (const as of ['second', 'lowBalance'] as const) {
    const facts = factsOf(t, as);
    if (!facts.declared) continue;
    const pricePoint = new Set(facts.sections.methods.pricePoint ?? []);
    for (const method of facts.checkoutMethods) {
      const own = facts.paymentLimits(method);
      if (pricePoint.has(method) || !own || JSON.stringify(own) === JSON.stringify(shared[method])) continue;
      const channels = channelSpans(own);
      out.push({ as, method, range: { min: channels[0]!.min, max: channels[channels.length - 1]!.max }, channels, gaps: channelGaps(own) });
    }
  }
  return out;
}
