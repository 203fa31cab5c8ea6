/**
 * A price list the vendor gave (--hint, --hints, --openapi), proved by probes: a walk cannot prove a list whose tiers lie
 * far apart with narrow windows (it misses tiers between its probes), but a list that is told can be checked at every
 * amount that tells rules apart (each tier, a cent either side, each side of the maximum distance, the refused amounts).
 * Every one charged as the told rule says: the list is learnt, not merely told. Any other answer: it is not used.
 */
import { centsOf } from '../facts/money.js';
import { type Charge, confirmWalk, type Walked } from './price-points.js';
import type { Vendor } from './told.js';

type Rule = { rounding?: unknown; maxDistance?: unknown; tie?: unknown };

/** The rule and tiers the vendor gave for one method (tiersByMethod and ruleByMethod over the shared ones). */
export function toldWalk(vendor: Vendor, method: string): Walked | undefined {
  const pp = vendor.at('pricePoints') as
    | (Rule & { tiers?: unknown; tiersByMethod?: Record<string, unknown>; ruleByMethod?: Record<string, Rule>; unroundable?: unknown })
    | undefined;
  if (!pp) return undefined;
  const tiers = pp.tiersByMethod?.[method] ?? pp.tiers;
  const rule = pp.ruleByMethod?.[method] ?? pp;
  if (!Array.isArray(tiers) || tiers.length === 0 || !['up', 'down', 'nearest'].includes(String(rule.rounding))) return undefined;
  try {
    const w: Walked = {
      tiers: tiers.map((t) => centsOf(String(t))).sort((a, b) => (a < b ? -1 : 1)),
      rounding: rule.rounding as Walked['rounding'],
      unroundable: Array.isArray(pp.unroundable) ? pp.unroundable.map((u) => centsOf(String(u))) : [],
      samples: [],
    };
    if (rule.maxDistance !== undefined) w.maxDistance = centsOf(String(rule.maxDistance));
    if (rule.tie === 'up' || rule.tie === 'down') w.tie = rule.tie;
    return w;
  } catch {
    return undefined;
  }
}

/** The told walk with the samples the confirmation charged, when every one agreed; otherwise the amounts that did not. */
export async function confirmTold(
  w: Walked,
  charge: Charge,
): Promise<{ confirmed?: Walked; asked: number; disagree: [bigint, bigint | undefined][] }> {
  const samples: [bigint, bigint | undefined][] = [];
  const recording: Charge = async (c) => {
    const r = await charge(c);
    samples.push([c, r]);
    return r;
  };
  const { asked, disagree } = await confirmWalk(w, recording);
  return disagree.length ? { asked, disagree } : { confirmed: { ...w, samples }, asked, disagree };
}
