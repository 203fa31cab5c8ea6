/**
 * Channel limits from the amounts a target accepts. A method may have several channels that overlap or leave
 * gaps (INTERFACE.md: an amount must fall "inside the minimum and maximum of at least one enabled channel"), so
 * the accepted amounts are a union of ranges anywhere between 0.01 and MAX_AMOUNT: bisecting from one accepted
 * amount finds the edges of its own range only. The search therefore probes a geometric grid over the whole
 * span, denser within a decade either side of what it finds accepted, and bisects every place where two
 * neighbouring probes disagree down to the cent. What it returns is proved at the cents it probed; a range
 * narrower than the grid's spacing between two refused probes is the one thing it cannot see, and its evidence
 * says so (the spacing) rather than claiming more.
 *
 * Where the target checks limits before duplicates (it answers the out-of-range code to a number already used),
 * every probe reuses one used number, so the search creates nothing; otherwise each in-range probe creates an order.
 */
import type { ChannelLimits } from '../profile/types.js';
import type { Evidence } from './evidence.js';
import { MAX_AMOUNT_CENTS } from './candidates.js';
import { valueOfCents } from '../facts/money.js';
import { type Answer, describe, isBusy } from './prober.js';

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
  /** min/max: the lowest and highest accepted amounts; `channels` only when the accepted amounts leave a gap. */
  limits: ChannelLimits;
  probes: number;
  reusedNumber: boolean;
  /** Grid amounts probed (besides the bisections). */
  sampled: number;
  /** The answers on each side of every edge (amount → answer), the evidence of the limits. */
  edges: string;
  /** What the grid cannot rule out, said as its coarsest spacing: "a range narrower than … between refused probes". */
  resolution: string;
  /** The accepted ranges seen, in cents, ascending (each may be served by several overlapping channels). */
  ranges: { min: bigint; max: bigint }[];
}

class Inconclusive extends Error {}

/** Coarse grid over the whole span, and the finer one within a decade of the accepted amounts found. */
export const COARSE_RATIO = 1.25;
export const FINE_RATIO = 1.05;

/** Amounts from `lo` to `hi` (cents, inclusive), each at most `ratio` times the previous (and at least a cent apart). */
export function geometric(lo: bigint, hi: bigint, ratio: number): bigint[] {
  const out: bigint[] = [];
  for (let x = Number(lo); x <= Number(hi); x = Math.max(x + 1, Math.floor(x * ratio))) out.push(BigInt(x));
  if (out.at(-1) !== hi && hi >= lo) out.push(hi);
  return out;
}

/** The limits of one method, from one amount known to be accepted and the number that created it. */
export async function bisectLimits(rp: RangeProber, acceptedCents: bigint, usedNo: string): Promise<Bisected> {
  let probes = 0;
  const seen = new Map<bigint, Answer>();
  const verdict = new Map<bigint, boolean>([[acceptedCents, true]]);
  const reuse = rp.isDuplicate(await rp.send(acceptedCents, usedNo)) && rp.inRange(await rp.send(MAX_AMOUNT_CENTS, usedNo)) === false;
  probes += 2;
  const test = async (c: bigint): Promise<boolean> => {
    const known = verdict.get(c);
    if (known !== undefined) return known;
    probes += 1;
    let a = await rp.send(c, reuse ? usedNo : rp.newNo());
    // systemBusy for a number the sandbox fails by design (a magic suffix): another number says what the amount does.
    for (let again = 0; again < 2 && !reuse && isBusy(a); again++) a = await rp.send(c, rp.newNo());
    seen.set(c, a);
    let v: boolean | undefined;
    if (reuse && rp.isDuplicate(a)) v = true;
    else v = rp.inRange(a);
    if (v === undefined) throw new Inconclusive(`at ${valueOfCents(c)}: code ${a.code} ${a.key}`);
    verdict.set(c, v);
    return v;
  };
  const sorted = () => [...verdict.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  /** Bisects every pair of neighbouring probes that disagree until they are a cent apart: each such pair is an edge. */
  const settleEdges = async () => {
    for (;;) {
      const s = sorted();
      const open = s.findIndex(([c, v], i) => i + 1 < s.length && v !== s[i + 1]![1] && s[i + 1]![0] - c > 1n);
      if (open < 0) return;
      await test((s[open]![0] + s[open + 1]![0]) / 2n);
    }
  };
  const grid = geometric(1n, MAX_AMOUNT_CENTS, COARSE_RATIO);
  for (const c of grid) await test(c);
  await settleEdges();
  // Finer within a decade below the lowest and above the highest accepted amount, until nothing new appears there.
  const fine = new Set<bigint>();
  for (;;) {
    const accepted = sorted().filter(([, v]) => v);
    const lo = accepted[0]![0];
    const hi = accepted.at(-1)![0];
    const below = geometric(lo / 10n > 0n ? lo / 10n : 1n, lo, FINE_RATIO);
    const above = geometric(hi, hi * 10n < MAX_AMOUNT_CENTS ? hi * 10n : MAX_AMOUNT_CENTS, FINE_RATIO);
    const todo = [...below, ...above].filter((c) => !fine.has(c));
    if (todo.length === 0) break;
    for (const c of todo) {
      fine.add(c);
      await test(c);
    }
    await settleEdges();
  }
  const ranges: { min: bigint; max: bigint }[] = [];
  let refusedSince = true;
  // Two accepted probes with no refused one between them: one range (the grid's spacing is what the evidence admits).
  for (const [c, v] of sorted()) {
    if (!v) refusedSince = true;
    else if (refusedSince || ranges.length === 0) {
      ranges.push({ min: c, max: c });
      refusedSince = false;
    } else ranges.at(-1)!.max = c;
  }
  const min = ranges[0]!.min;
  const max = ranges.at(-1)!.max;
  const limits: ChannelLimits = { min: valueOfCents(min), max: valueOfCents(max) };
  if (ranges.length > 1) limits.channels = ranges.map((r) => ({ min: valueOfCents(r.min), max: valueOfCents(r.max) }));
  const edgeCents = ranges.flatMap((r) => [r.min - 1n, r.min, r.max, r.max + 1n]);
  const edges = edgeCents
    .filter((c) => seen.has(c))
    .map((c) => `${valueOfCents(c)} → ${describe(seen.get(c)!)}`)
    .join(', ');
  const resolution =
    `${grid.length + fine.size} amounts probed from 0.01 to ${valueOfCents(MAX_AMOUNT_CENTS)}, each at most ` +
    `${Math.round((COARSE_RATIO - 1) * 100)} % above the one before (${Math.round((FINE_RATIO - 1) * 100)} % within a decade of ` +
    `the accepted amounts): an accepted range narrower than that between two refused probes would not be seen`;
  return { limits, probes, reusedNumber: reuse, sampled: grid.length + fine.size, edges, resolution, ranges };
}

/** One range accepted: whether one channel or several overlapping ones serve it, no answer tells (profile version 3). */
export function channelsTodo(ev: Evidence, path: string, b: Bisected): void {
  ev.todo(
    `${path}.channels`,
    `only if the vendor documents several overlapping channels for this method (profile version 3): the answers show one ` +
      `range ${b.limits.min}–${b.limits.max} accepted (${b.resolution}), which one channel or several overlapping ones serve alike`,
  );
}

export { Inconclusive };
