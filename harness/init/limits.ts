/**
 * Channel limits by bisection on the amount, to the cent. Where the target checks limits before
 * duplicates (it answers the out-of-range code to a number already used), every probe reuses one used
 * number, so bisection creates nothing; otherwise each in-range probe creates an order.
 */
import type { ChannelLimits } from '../profile/types.js';
import { MAX_AMOUNT_CENTS } from './candidates.js';
import { valueOfCents } from '../money.js';
import { type Answer, describe } from './prober.js';

export interface RangeProber {
  /** Sends the create with this amount and merchant number. */
  send(cents: bigint, no: string): Promise<Answer>;
  newNo(): string;
  /** true in range, false refused for the amount; undefined: the answer says neither. */
  inRange(a: Answer): boolean | undefined;
  /** The key answering a repeated number (duplicateMerchantOrder…), read from the target. */
  isDuplicate(a: Answer): boolean;
}

export interface Bisected {
  limits: ChannelLimits;
  probes: number;
  reusedNumber: boolean;
  sampled: number;
  /** The answers on each side of the outer bounds (amount → answer), the evidence of the limits. */
  edges: string;
}

class Inconclusive extends Error {}

/** Limits of one method, from one amount known to be accepted and the number that created it. */
export async function bisectLimits(rp: RangeProber, acceptedCents: bigint, usedNo: string, samples = 10): Promise<Bisected> {
  let probes = 0;
  const seen = new Map<bigint, Answer>();
  const reuse = rp.isDuplicate(await rp.send(acceptedCents, usedNo)) && rp.inRange(await rp.send(MAX_AMOUNT_CENTS, usedNo)) === false;
  probes += 2;
  const test = async (c: bigint): Promise<boolean> => {
    probes += 1;
    const a = await rp.send(c, reuse ? usedNo : rp.newNo());
    seen.set(c, a);
    if (reuse && rp.isDuplicate(a)) return true;
    const v = rp.inRange(a);
    if (v === undefined) throw new Inconclusive(`at ${valueOfCents(c)}: code ${a.code} ${a.key}`);
    return v;
  };
  /** Smallest in-range amount in (out, inn], out known out of range, inn known in range (out < inn). */
  const lowEdge = async (out: bigint, inn: bigint): Promise<bigint> => {
    while (inn - out > 1n) {
      const mid = (out + inn) / 2n;
      if (await test(mid)) inn = mid;
      else out = mid;
    }
    return inn;
  };
  /** Largest in-range amount in [inn, out), inn < out. */
  const highEdge = async (inn: bigint, out: bigint): Promise<bigint> => {
    while (out - inn > 1n) {
      const mid = (out + inn) / 2n;
      if (await test(mid)) inn = mid;
      else out = mid;
    }
    return inn;
  };
  const min = (await test(1n)) ? 1n : await lowEdge(1n, acceptedCents);
  let inn = acceptedCents;
  let out = MAX_AMOUNT_CENTS + 1n;
  for (let x = acceptedCents * 10n; x <= MAX_AMOUNT_CENTS; x *= 10n) {
    if (await test(x)) inn = x;
    else {
      out = x;
      break;
    }
  }
  const max = out > MAX_AMOUNT_CENTS ? inn : await highEdge(inn, out);
  // Gaps: a few amounts spread (geometrically) between the bounds; each refused one is bisected to its edges.
  const channels: { min: bigint; max: bigint }[] = [];
  let lastIn = min;
  let curMin = min;
  const ratio = Number(max) / Number(min);
  const points = [
    ...new Set(Array.from({ length: samples }, (_, i) => BigInt(Math.round(Number(min) * ratio ** ((i + 1) / (samples + 1)))))),
  ].filter((c) => c > min && c < max);
  for (const c of points) {
    if (c <= lastIn) continue;
    if (await test(c)) {
      lastIn = c;
      continue;
    }
    const gapStart = await highEdge(lastIn, c);
    // The next accepted amount above c: the next sample that is in range, else max.
    let nextIn = max;
    for (const d of points.filter((d) => d > c)) {
      if (await test(d)) {
        nextIn = d;
        break;
      }
    }
    const gapEnd = await lowEdge(c, nextIn);
    channels.push({ min: curMin, max: gapStart });
    curMin = gapEnd;
    lastIn = gapEnd;
  }
  const limits: ChannelLimits = { min: valueOfCents(min), max: valueOfCents(max) };
  if (channels.length > 0) {
    channels.push({ min: curMin, max });
    limits.channels = channels.map((c) => ({ min: valueOfCents(c.min), max: valueOfCents(c.max) }));
  }
  const edges = [min - 1n, min, max, max + 1n]
    .filter((c) => seen.has(c))
    .map((c) => `${valueOfCents(c)} → ${describe(seen.get(c)!)}`)
    .join(', ');
  return { limits, probes, reusedNumber: reuse, sampled: points.length, edges };
}

export { Inconclusive };
