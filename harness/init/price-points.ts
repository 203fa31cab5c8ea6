/**
 * Price points: the tiers a method charges and how it rounds, read from the amounts charged for the
 * amounts asked. The walk asks one cent above each tier; where that is refused (a maximum distance) or
 * charged the same tier (rounding down or to the nearest), it bisects to the next amount charged
 * differently, so every tier is found whatever the rule.
 */
import { centsText } from './fields.js';

/** Charged cents for an amount asked, or undefined when the target refuses the amount. */
export type Charge = (cents: bigint) => Promise<bigint | undefined>;

export interface Walked {
  tiers: bigint[];
  rounding: 'up' | 'down' | 'nearest';
  tie?: 'up' | 'down';
  maxDistance?: bigint;
  /** Amounts the target refused, above the top tier. */
  unroundable: bigint[];
  /** Asked → charged, for the evidence. */
  samples: [bigint, bigint | undefined][];
}

/** Steps of at most the known window width tried before doubling. */
const NARROW_STEPS = 12;

export async function walkTiers(charge: Charge, cap: bigint, maxTiers = 40): Promise<Walked> {
  const samples: [bigint, bigint | undefined][] = [];
  const ask = async (c: bigint): Promise<bigint | undefined> => {
    const r = await charge(c);
    samples.push([c, r]);
    return r;
  };
  const tiers: bigint[] = [];
  /** Smallest amounts above a tier that were charged the next tier (found by bisection). */
  const switchPoints: { from: bigint; at: bigint; to: bigint }[] = [];
  let prev: bigint | undefined;
  let a = 1n;
  const widestAccepted = (): bigint => samples.reduce((w, [x, c]) => (c === undefined ? w : (c > x ? c - x : x - c) > w ? (c > x ? c - x : x - c) : w), 0n);
  while (tiers.length < maxTiers) {
    let r = await ask(a);
    if (r === undefined || r === prev) {
      // Search upward for an amount charged something new, then bisect back to the first such amount.
      let lo = a;
      let hi: bigint | undefined;
      let rHi: bigint | undefined;
      // After a refusal the next tier's window of accepted amounts may be narrow (a maximum distance):
      // steps no wider than the largest distance seen accepted cannot jump over it. After a few such
      // steps the search doubles, so the probes above the top tier stay few.
      const narrow = r === undefined ? widestAccepted() + 1n : undefined;
      let step = narrow ?? (a / 4n > 0n ? a / 4n : 1n);
      for (let i = 0; lo + step <= cap; i++, step = narrow !== undefined && i < NARROW_STEPS ? narrow : step * 2n) {
        const x = lo + step;
        const rx = await ask(x);
        if (rx !== undefined && rx !== prev) {
          hi = x;
          rHi = rx;
          break;
        }
        lo = x;
      }
      if (hi === undefined) break;
      let top: bigint = hi;
      while (top - lo > 1n) {
        const mid: bigint = (lo + top) / 2n;
        const rm = await ask(mid);
        if (rm !== undefined && rm !== prev) {
          top = mid;
          rHi = rm;
        } else lo = mid;
      }
      if (prev !== undefined) switchPoints.push({ from: prev, at: top, to: rHi! });
      a = top;
      r = rHi!;
    }
    tiers.push(r);
    prev = r;
    a = (a > r ? a : r) + 1n;
  }
  const accepted = samples.filter((s): s is [bigint, bigint] => s[1] !== undefined);
  const ups = accepted.some(([x, c]) => c > x);
  const downs = accepted.some(([x, c]) => c < x);
  const rounding = ups && downs ? 'nearest' : downs ? 'down' : 'up';
  const top = tiers[tiers.length - 1] ?? 0n;
  const unroundable = [...new Set(samples.filter(([x, c]) => c === undefined && x > top).map(([x]) => x))].slice(0, 3);
  const out: Walked = { tiers: [...new Set(tiers)].sort((x, y) => (x < y ? -1 : 1)), rounding, unroundable, samples };
  if (rounding === 'up') {
    // Where one cent above a tier was refused, the first accepted amount below the next tier is that tier minus the maximum distance.
    const limited = switchPoints.filter((s) => s.at > s.from + 1n);
    if (limited.length > 0) out.maxDistance = limited.map((s) => s.to - s.at).reduce((x, y) => (x > y ? x : y));
  }
  if (rounding === 'nearest') {
    const even = switchPoints.find((s) => (s.to - s.from) % 2n === 0n);
    if (even) out.tie = even.at === (s2(even)) ? 'up' : 'down';
  }
  return out;
}

function s2(s: { from: bigint; to: bigint }): bigint {
  return (s.from + s.to) / 2n;
}

export function tierTexts(t: bigint[]): string[] {
  return t.map(centsText);
}
