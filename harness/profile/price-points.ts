/**
 * What a profile's price-point rule (pricePoints.rounding, .maxDistance, .tie, .tiersByMethod) says
 * about one amount, and nothing more: "rounded to a price point where possible, otherwise refused"
 * (INTERFACE.md › Payment) leaves the rule to the target, so an amount the declared rule does not
 * decide is `undecided` and no check may judge it. Pure, in cents; used by the profile loader and by
 * the price-point arbitraries.
 */
import { centsNumberOf, valueOfCents } from '../facts/money.js';

export type Rounding = 'up' | 'down' | 'nearest';

export interface PricePointRule {
  /** Ascending, distinct, in cents. */
  tiers: readonly number[];
  rounding: Rounding;
  /** Largest distance, in cents, to the tier an amount is rounded to; absent: any distance. */
  maxDistance?: number;
  /** With "nearest": the tier at an exact midpoint; absent: the profile does not say. */
  tie?: 'up' | 'down';
}

export type PricePointDecision = { kind: 'rounded'; tier: number } | { kind: 'refused' } | { kind: 'undecided' };

/** The rule for one method, from the profile's pricePoints section. */
export function pricePointRule(
  pp: {
    tiers: string[];
    rounding: Rounding;
    maxDistance?: string;
    tie?: 'up' | 'down';
    tiersByMethod?: Record<string, string[]>;
    ruleByMethod?: Record<string, { rounding: Rounding; maxDistance?: string; tie?: 'up' | 'down' }>;
  },
  method?: string,
): PricePointRule {
  const tiers = (method !== undefined ? (pp.tiersByMethod?.[method] ?? pp.tiers) : pp.tiers).map(centsNumberOf);
  // A method's own rule replaces the shared rounding, distance and tie together.
  const r = (method !== undefined ? pp.ruleByMethod?.[method] : undefined) ?? pp;
  return {
    tiers: [...new Set(tiers)].sort((a, b) => a - b),
    rounding: r.rounding,
    ...(r.maxDistance !== undefined ? { maxDistance: centsNumberOf(r.maxDistance) } : {}),
    ...(r.tie !== undefined ? { tie: r.tie } : {}),
  };
}

/** What the declared rule does with a positive amount of `c` cents. */
export function decidePricePoint(c: number, rule: PricePointRule): PricePointDecision {
  const { tiers, rounding, maxDistance } = rule;
  if (tiers.length === 0) return { kind: 'undecided' };
  if (tiers.includes(c)) return { kind: 'rounded', tier: c };
  const below = [...tiers].reverse().find((t) => t < c);
  const above = tiers.find((t) => t > c);
  let tier: number | undefined;
  if (rounding === 'up') tier = above;
  else if (rounding === 'down') tier = below;
  else if (below !== undefined && above !== undefined) {
    if (c - below === above - c) {
      if (rule.tie === undefined) return { kind: 'undecided' };
      tier = rule.tie === 'up' ? above : below;
    } else tier = c - below < above - c ? below : above;
  } else {
    // Outside the tiers, "nearest" says nothing unless a distance bounds it.
    if (maxDistance === undefined) return { kind: 'undecided' };
    tier = below ?? above;
  }
  if (tier === undefined) return { kind: 'refused' };
  if (maxDistance !== undefined && Math.abs(tier - c) > maxDistance) return { kind: 'refused' };
  return { kind: 'rounded', tier };
}

/** A short description of the rule for messages, e.g. "nearest within 0.50, ties up". */
export function describeRule(rule: PricePointRule): string {
  const parts: string[] = [rule.rounding];
  if (rule.maxDistance !== undefined) parts.push(`within ${valueOfCents(rule.maxDistance)}`);
  if (rule.rounding === 'nearest' && rule.tie !== undefined) parts.push(`ties ${rule.tie}`);
  return parts.join(' ');
}
