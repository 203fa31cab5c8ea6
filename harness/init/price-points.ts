/**
 * Price points: the tiers a method charges and how it rounds, read from the amounts charged for the
 * amounts asked. The walk asks one cent above each tier; where that is charged the same tier (rounding
 * down or to the nearest) or refused (a maximum distance), it searches upward for an amount charged
 * something new and bisects back to the first such amount, so every tier is found whatever the rule.
 * Once a refusal is seen, the search steps by no more than the widest distance seen accepted plus a
 * cent, so it cannot jump over a tier's window of accepted amounts.
 */
import { valueOfCents } from '../facts/money.js';

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
  /**
   * Where, with refusals between tiers, the search began to double its step (or ran out of probes): above it a tier
   * whose window of accepted amounts is narrower than a step could be missed, so the tiers are a complete list only below it.
   */
  coarseFrom?: bigint;
}

/** Narrow steps go on up to this multiple of the last tier, then the search doubles its step. */
const NARROW_SPAN = 3n;

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

export async function walkTiers(
  charge: Charge,
  cap: bigint,
  maxTiers = 40,
  known: readonly [bigint, bigint][] = [],
  maxProbes = Number.POSITIVE_INFINITY,
): Promise<Walked> {
  // Amounts already seen charged (the checkout probe's): each charge is a tier the search must not step over.
  const samples: [bigint, bigint | undefined][] = known.map(([x, c]) => [x, c]);
  const memo = new Map<bigint, bigint | undefined>(known);
  let coarseFrom: bigint | undefined;
  const tiers: bigint[] = [];
  /** The smallest tier seen charged above `lo` and not yet walked to: no step may pass it. */
  const nextKnown = (lo: bigint, prev: bigint | undefined): bigint | undefined =>
    samples
      .map(([, c]) => c)
      .filter((c): c is bigint => c !== undefined && c > lo && c !== prev && !tiers.includes(c))
      .reduce<bigint | undefined>((m, c) => (m === undefined || c < m ? c : m), undefined);
  const ask = async (c: bigint): Promise<bigint | undefined> => {
    if (memo.has(c)) return memo.get(c);
    const r = await charge(c);
    memo.set(c, r);
    samples.push([c, r]);
    return r;
  };
  const refusals = () => samples.some(([, c]) => c === undefined);
  const widest = () => samples.reduce((w, [x, c]) => (c !== undefined && abs(c - x) > w ? abs(c - x) : w), 0n);

  /** First amount above `a` charged something other than `prev` (and not refused), with its charge. */
  const searchNew = async (a: bigint, prev: bigint | undefined, narrow: boolean): Promise<[bigint, bigint] | 'narrow' | undefined> => {
    let lo = a;
    let hi: bigint | undefined;
    let rHi: bigint | undefined;
    const narrowUntil = NARROW_SPAN * (prev ?? a) + 100n;
    let step = narrow ? widest() + 1n : a / 4n > 0n ? a / 4n : 1n;
    while (lo + step <= cap) {
      // Out of probes: what lies above is unsearched, said as where the search stopped being tight.
      if (samples.length - known.length >= maxProbes) {
        coarseFrom ??= lo;
        return undefined;
      }
      const k = nextKnown(lo, prev);
      const x = k !== undefined && k < lo + step ? k : lo + step;
      const rx = await ask(x);
      if (rx !== undefined && rx !== prev) {
        hi = x;
        rHi = rx;
        break;
      }
      if (rx === undefined && !narrow) return 'narrow';
      lo = x;
      if (narrow && x > narrowUntil && refusals() && coarseFrom === undefined) coarseFrom = x;
      step = narrow && x <= narrowUntil ? widest() + 1n : step * 2n;
    }
    if (hi === undefined || rHi === undefined) return undefined;
    while (hi - lo > 1n) {
      const mid: bigint = (lo + hi) / 2n;
      const rm = await ask(mid);
      if (rm === undefined && !narrow) return 'narrow';
      if (rm !== undefined && rm !== prev) {
        hi = mid;
        rHi = rm;
      } else lo = mid;
    }
    return [hi, rHi];
  };

  /** The first amount above a tier charged the next one. */
  const switchPoints: { from: bigint; at: bigint; to: bigint }[] = [];
  let prev: bigint | undefined;
  let a = 1n;
  while (tiers.length < maxTiers) {
    let r = await ask(a);
    if (r === undefined || r === prev) {
      let found = await searchNew(a, prev, r === undefined || refusals());
      if (found === 'narrow') found = await searchNew(a, prev, true);
      if (found === undefined || found === 'narrow') break;
      if (prev !== undefined) switchPoints.push({ from: prev, at: found[0], to: found[1] });
      a = found[0];
      r = found[1];
    }
    tiers.push(r);
    prev = r;
    a = (a > r ? a : r) + 1n;
  }
  const accepted = samples.filter((s): s is [bigint, bigint] => s[1] !== undefined);
  const ups = accepted.some(([x, c]) => c > x);
  const downs = accepted.some(([x, c]) => c < x);
  const rounding = ups && downs ? 'nearest' : downs ? 'down' : 'up';
  const sorted = [...new Set(tiers)].sort((x, y) => (x < y ? -1 : 1));
  const top = sorted[sorted.length - 1] ?? 0n;
  const unroundable = [...new Set(samples.filter(([x, c]) => c === undefined && x > top).map(([x]) => x))]
    .sort((x, y) => (x < y ? -1 : 1))
    .slice(0, 3);
  const out: Walked = { tiers: sorted, rounding, unroundable, samples };
  if (coarseFrom !== undefined) out.coarseFrom = coarseFrom;
  // A maximum distance shows as refusals between tiers; the widest distance accepted is then the limit
  // (bisection reached each window's edge).
  if (samples.some(([x, c]) => c === undefined && x < top)) out.maxDistance = widest();
  if (rounding === 'nearest') {
    const even = switchPoints.find(
      (s) => (s.to - s.from) % 2n === 0n && (out.maxDistance === undefined || (s.to - s.from) / 2n <= out.maxDistance),
    );
    if (even) out.tie = even.at === (even.from + even.to) / 2n ? 'up' : 'down';
  }
  return out;
}

export function tierTexts(t: bigint[]): string[] {
  return t.map((c) => valueOfCents(c));
}

/** What a walked rule charges for an amount (undefined: refused). */
export function predict(w: Walked, c: bigint): bigint | undefined {
  const below = [...w.tiers].reverse().find((t) => t <= c);
  const above = w.tiers.find((t) => t >= c);
  let r: bigint | undefined;
  if (w.rounding === 'up') r = above;
  else if (w.rounding === 'down') r = below;
  else if (below === undefined || above === undefined) r = below ?? above;
  else r = c - below < above - c ? below : c - below > above - c ? above : w.tie === 'down' ? below : above;
  if (r === undefined || (w.maxDistance !== undefined && abs(r - c) > w.maxDistance)) return undefined;
  return r;
}

/**
 * Checks that another method follows a walked rule, on the amounts that tell rules apart (each tier,
 * a cent either side, each side of the maximum distance, the refused amounts): far fewer requests than
 * a second walk. Returns the amounts that disagree (none: same tiers and rule).
 */
export async function confirmWalk(w: Walked, charge: Charge): Promise<{ asked: number; disagree: [bigint, bigint | undefined][] }> {
  const probe = new Set<bigint>(w.unroundable);
  for (const t of w.tiers) {
    const offsets = w.maxDistance === undefined ? [0n, 1n] : [0n, 1n, w.maxDistance, w.maxDistance + 1n];
    for (const d of offsets) for (const x of [t + d, t - d]) probe.add(x);
  }
  const disagree: [bigint, bigint | undefined][] = [];
  let asked = 0;
  for (const c of [...probe].filter((x) => x > 0n).sort((x, y) => (x < y ? -1 : 1))) {
    asked += 1;
    const r = await charge(c);
    if (r !== predict(w, c)) disagree.push([c, r]);
  }
  return { asked, disagree };
}
