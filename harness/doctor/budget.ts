/**
 * The doctor's request budget, spent breadth first: every kind of fact gets its first probe before any kind gets its
 * tenth request. A target whose profile lists 102 price points once spent all 400 requests on two per tier, and
 * refunds, five of six sandbox controls and the webhooks were never asked.
 *
 * Two rules keep one kind from eating the others':
 * - A long list is probed by a sample (`sampleOf`): its two ends, its middle and a spread drawn with a seed, so the same
 *   seed probes the same entries; the rest are counted and shown as not verifiable, never as verified.
 * - A kind of fact (a section the doctor verifies: the refunds, a price-point method's tiers, one method's limits, each
 *   sandbox control, the webhooks…) runs inside `inKind`, which tags each of its requests. Its first FIRST_PROBE
 *   requests always go; up to its ninth, only while every other open kind keeps its first probe set aside; from its
 *   tenth on (depth), only while every other open kind keeps its first nine. A request the budget cannot pay is refused
 *   with `DepthRefused`, which the probe that meets it shows as not verifiable; a kind's scope catches any it left
 *   uncaught and says the rest of the kind was not asked.
 *
 * The reservation does not order the requests in time (the refunds need a payment the first stage makes); it keeps the
 * budget for them, which is what a long list took. The hard ceiling (`max`) and the time budget are the caller's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { PreconditionSkip } from '../check/failure.js';

/** The requests a kind may send before it counts as depth: its first nine. */
export const BREADTH = 9;

/** What one kind's first probe costs, in requests (a record, the request about it, a look at the result). */
export const FIRST_PROBE = 3;

/** At most this many entries of one list are probed: the two ends, the middle and a seeded spread. */
export const SAMPLE = 9;

/** A request past the budget the depth of a kind may use: the probe that meets it is not verifiable. */
export class DepthRefused extends PreconditionSkip {}

export class Budget {
  private readonly spent = new Map<string, number>();
  /** Kinds whose scope has not ended (how many scopes of each): each keeps its share set aside until it has spent it. */
  private readonly open = new Map<string, number>();
  private refused = 0;

  constructor(readonly max: number) {}

  /** Kinds about to be probed (declared before any request, so a long list cannot spend what they need first). */
  expect(kinds: Iterable<string>): void {
    for (const k of kinds) this.open.set(k, (this.open.get(k) ?? 0) + 1);
  }

  /** The kind's scope ended: what was set aside for it is free. */
  close(kind: string): void {
    const n = (this.open.get(kind) ?? 0) - 1;
    if (n > 0) this.open.set(kind, n);
    else this.open.delete(kind);
  }

  /**
   * One request of `kind` (undefined: outside any kind) is about to be sent as request number `count` + 1 of `max`:
   * counts it, or throws `DepthRefused` when the budget cannot pay it. A kind's first FIRST_PROBE requests always go; its
   * breadth (up to BREADTH) goes while the other open kinds' first probes stay covered; its depth, while their breadth
   * does. A request that gives money back or drives a record already made (`keep`: a payout's cancel, a sandbox control)
   * is never refused: leaving a record half made costs more than the request.
   */
  take(kind: string | undefined, count: number, keep = false): void {
    if (kind === undefined) return;
    const n = this.spent.get(kind) ?? 0;
    const need = n >= BREADTH ? BREADTH : n >= FIRST_PROBE ? FIRST_PROBE : 0;
    const setAside = this.setAsideFor(kind, need);
    if (!keep && need > 0 && this.max - count - 1 < setAside) {
      this.refused += 1;
      const waiting = [...this.open.keys()].filter((k) => k !== kind && (this.spent.get(k) ?? 0) < need).length;
      throw new DepthRefused(
        `not asked: the doctor's budget (${this.max} requests) keeps ${setAside} for ${waiting} other kind(s) of fact ` +
          `(${need === BREADTH ? `the first ${BREADTH} requests` : 'the first probe'} of each), and ${kind} has had ${n}`,
      );
    }
    this.spent.set(kind, n + 1);
  }

  /** What the other open kinds still need to reach `need` requests each. */
  private setAsideFor(kind: string, need: number): number {
    let sum = 0;
    for (const k of this.open.keys()) if (k !== kind) sum += Math.max(0, need - (this.spent.get(k) ?? 0));
    return sum;
  }

  /** Requests per kind, and how many depth requests were refused (the report's `budget`). */
  summary(): { max: number; byKind: Record<string, number>; depthRefused: number } {
    return {
      max: this.max,
      byKind: Object.fromEntries([...this.spent].sort(([a], [b]) => a.localeCompare(b))),
      depthRefused: this.refused,
    };
  }
}

const scope = new AsyncLocalStorage<string>();

/** The kind of fact the current request is about (set by `inKind`). */
export function currentKind(): string | undefined {
  return scope.getStore();
}

/** Runs `fn` outside every kind: its requests are never refused by the breadth rule (money given back). */
export function outsideKinds<T>(fn: () => Promise<T>): Promise<T> {
  return scope.exit(fn);
}

/**
 * Runs `fn` as the probes of one kind of fact: its requests are tagged with it, and its first probe's requests stay set
 * aside (`Budget.expect`) until it ends. A `DepthRefused` that escaped its probes is shown by `onRefused`.
 */
export async function inKind(
  budget: Budget | undefined,
  kind: string,
  fn: () => Promise<void>,
  onRefused?: (err: DepthRefused) => void,
): Promise<void> {
  budget?.expect([kind]);
  try {
    await scope.run(kind, fn);
  } catch (err) {
    if (!(err instanceof DepthRefused)) throw err;
    onRefused?.(err);
  } finally {
    budget?.close(kind);
  }
}

/** A 32-bit string hash (FNV-1a): a list's own seed, so the same list is sampled the same way. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small seeded generator, reproducible across platforms. */
function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The indices of a list to probe, ascending: every index of a list of at most `size`; else the first, the last, the
 * middle and a spread of the rest drawn with `seed` mixed with the list's own name (the same seed and list, the same
 * sample).
 */
export function sampleOf(length: number, name: string, seed = 0, size = SAMPLE): number[] {
  if (length <= size) return Array.from({ length }, (_, i) => i);
  const chosen = new Set([0, length - 1, Math.floor((length - 1) / 2)]);
  const rest = Array.from({ length }, (_, i) => i).filter((i) => !chosen.has(i));
  const next = generator(hash(`${seed}:${name}`));
  // A partial Fisher–Yates shuffle: the first picks of `rest` are a uniform draw without replacement.
  for (let i = 0; chosen.size < size && i < rest.length; i++) {
    const j = i + Math.floor(next() * (rest.length - i));
    [rest[i], rest[j]] = [rest[j]!, rest[i]!];
    chosen.add(rest[i]!);
  }
  return [...chosen].sort((a, b) => a - b);
}
