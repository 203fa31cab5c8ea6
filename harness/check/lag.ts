/**
 * Our own scheduling lag: how much time this process lost, waiting for a CPU or behind
 * other work on its event loop, while a check timed the target. A timer drift sampler: a short
 * interval timer notes how late each tick fires; the lateness of the ticks that fell in a window is
 * the time the process could not act in it (a receiver's reply delayed, an arrival noted late, and,
 * when the reference runs in this process, its webhook sent late). Node built-ins only.
 */
import { readFileSync, statSync } from 'node:fs';

export interface LagSample {
  /** When the tick fired, ms since the epoch (Date.now(), the clock deliveries are stamped with). */
  at: number;
  /** How late it fired, ms. */
  lateMs: number;
}

export interface LagMeterOptions {
  /** Tick interval, ms. */
  intervalMs?: number;
  /** How long samples are kept, ms: longer than any window a check asks about. */
  keepMs?: number;
  now?: () => number;
}

/** Lateness below this is timer granularity, not lost time. */
const NOISE_MS = 2;

export class LagMeter {
  readonly intervalMs: number;
  private readonly keepMs: number;
  private readonly now: () => number;
  private readonly samples: LagSample[] = [];
  private readonly sources: (() => readonly LagSample[])[] = [];
  private timer: NodeJS.Timeout | undefined;
  private expectedAt = 0;

  constructor(opts: LagMeterOptions = {}) {
    this.intervalMs = opts.intervalMs ?? 10;
    this.keepMs = opts.keepMs ?? 3 * 60 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  start(): this {
    if (this.timer) return this;
    this.expectedAt = this.now() + this.intervalMs;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    // The meter never keeps a process alive.
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Adds another process's stalls to this meter's answers: the embedded reference runs in a process of its own on
   * our machine, and its late timers (a webhook sent late, a retry waited too long) are time our machine lost.
   */
  addSource(read: () => readonly LagSample[]): void {
    this.sources.push(read);
  }

  /** Records one tick's lateness (the sampler's own path; tests inject lag through it). */
  record(at: number, lateMs: number): void {
    if (lateMs >= NOISE_MS) this.samples.push({ at, lateMs });
    const horizon = at - this.keepMs;
    let drop = 0;
    while (drop < this.samples.length && this.samples[drop]!.at < horizon) drop += 1;
    if (drop > 0) this.samples.splice(0, drop);
  }

  private tick(): void {
    const at = this.now();
    this.record(at, Math.max(0, at - this.expectedAt));
    this.expectedAt = at + this.intervalMs;
  }

  /** A stall still under way (the tick that would end it has not fired): what it has cost so far. */
  private ongoing(to: number): LagSample | undefined {
    if (!this.timer) return undefined;
    const now = Math.min(this.now(), to);
    const late = now - this.expectedAt;
    return late >= NOISE_MS ? { at: now, lateMs: late } : undefined;
  }

  /** Stalls overlapping [from, to]: a stall ending at `at` began `lateMs` earlier. */
  private overlapping(from: number, to: number): { start: number; end: number }[] {
    const out: { start: number; end: number }[] = [];
    const all = [...this.samples, ...this.sources.flatMap((read) => read())];
    const cur = this.ongoing(to);
    if (cur) all.push(cur);
    for (const s of all) {
      const start = Math.max(from, s.at - s.lateMs);
      const end = Math.min(to, s.at);
      if (end > start) out.push({ start, end });
    }
    return out;
  }

  /** Time this process lost within [from, to], ms. */
  lostDuring(from: number, to: number): number {
    return this.overlapping(from, to).reduce((sum, s) => sum + (s.end - s.start), 0);
  }

  /** The longest single stall within [from, to], ms. */
  longestStallDuring(from: number, to: number): number {
    return this.overlapping(from, to).reduce((m, s) => Math.max(m, s.end - s.start), 0);
  }
}

let shared: LagMeter | undefined;
let override: LagMeter | undefined;

/** This process's meter, started on first use (by the webhook receiver, so it runs before any check waits). */
export function processLag(): LagMeter {
  if (override) return override;
  shared ??= new LagMeter().start();
  return shared;
}

/** Tests: a meter whose samples they control (undefined restores the real one). */
export function useLagMeter(meter: LagMeter | undefined): void {
  override = meter;
}

/** The most our lost time may stretch a timing bound: four times it, never a target ten times late. */
export const MAX_LAG_STRETCH = 4;

/**
 * How much lost time a timing window or bound of this length may be given on top of itself (bounded by
 * MAX_LAG_STRETCH). A window stretched so far while our process still loses time is concluded by no verdict.
 */
export function lagAllowanceMs(windowMs: number): number {
  return Math.max(0, windowMs) * (MAX_LAG_STRETCH - 1);
}

/** Lost time that counts: more than timer noise and a few ticks of ordinary work. */
export const LAG_SIGNIFICANT_MS = 50;

/**
 * Our own lost time a timed wait may hold and still measure the target: timer noise and ordinary work. Beyond it the wait
 * shows our machine as much as the target's clock (a CI runner beside a busy core measured 450 ms for a 75 ms
 * wait, three times at once, since one stall of this process covered the three waits measured side by side).
 */
export function measuresTheTarget(gapMs: number, lostMs: number): boolean {
  return lostMs < Math.max(LAG_SIGNIFICANT_MS, 0.1 * gapMs);
}

/**
 * The stalls another process of ours wrote down (reference/lag.ts's format: `<ended at> <ms late>` per line), read
 * again only when the file has grown. A file that cannot be read gives no stalls: it can excuse nothing.
 */
export function stallFile(path: string): () => readonly LagSample[] {
  return grownFile(path, parseStalls, () => []);
}

/** `parse` of the file at `path`, parsed again only when its size changed; `empty()` while it cannot be read. */
function grownFile<T>(path: string, parse: (text: string) => T, empty: () => T): () => T {
  let size = -1;
  let cached = empty();
  return () => {
    try {
      const now = statSync(path).size;
      if (now === size) return cached;
      size = now;
      cached = parse(readFileSync(path, 'utf8'));
    } catch {
      cached = empty();
    }
    return cached;
  };
}

export function parseStalls(text: string): LagSample[] {
  const out: LagSample[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+) (\d+)$/.exec(line);
    if (m) out.push({ at: Number(m[1]), lateMs: Number(m[2]) });
  }
  return out;
}

const watched = new Set<string>();
const writeSources: (() => ReadonlyMap<string, readonly WriteRecord[]>)[] = [];

/**
 * One webhook attempt as the embedded sandbox wrote it down (reference/lag.ts logWrites): when it was written whole,
 * and, where the sandbox said so, when it was due to leave and after what wait (its plan; the network delay of
 * `serve --latency` is in the plan, so it is never taken for time our machine lost).
 */
export interface WriteRecord {
  at: number;
  dueAt?: number;
  waitMs?: number;
}

/**
 * This process's meter also counts the stalls in `path` (once per path; '' is no file), and the embedded sandbox's
 * write times of its webhook attempts beside it (`path`.writes, reference/lag.ts logWrites).
 */
export function watchStallFile(path: string): void {
  if (path === '' || watched.has(path)) return;
  watched.add(path);
  processLag().addSource(stallFile(path));
  // reference/lag.ts writesFileOf's name, spelled here: only harness/run/embedded.ts and a few others import reference/.
  writeSources.push(writesFile(`${path}.writes`));
}

/** The write records in `path` by X-Nonce (`<written at> <nonce> [<due at> <wait>]` per line), read again only when it grew. */
export function writesFile(path: string): () => ReadonlyMap<string, readonly WriteRecord[]> {
  return grownFile<ReadonlyMap<string, readonly WriteRecord[]>>(path, parseWrites, () => new Map());
}

export function parseWrites(text: string): Map<string, WriteRecord[]> {
  const out = new Map<string, WriteRecord[]>();
  for (const line of text.split('\n')) {
    const m = /^(\d+) (\S+)(?: (\d+) (\d+))?$/.exec(line);
    if (!m) continue;
    const rec: WriteRecord = m[3] === undefined ? { at: Number(m[1]) } : { at: Number(m[1]), dueAt: Number(m[3]), waitMs: Number(m[4]) };
    out.set(m[2]!, [...(out.get(m[2]!) ?? []), rec]);
  }
  return out;
}

/** Most write times kept from a reference in this process (noteWebhookWritten); the oldest go first. */
const MAX_LOCAL_WRITES = 50_000;
const localWrites = new Map<string, WriteRecord[]>();
let localWatched = false;

/**
 * For a reference started in this process (the proof's conformant runs and kill matrix, harness/proof/): its
 * `onWebhookWritten`, so the same excuses see how late we noted each attempt there too.
 */
export function noteWebhookWritten(nonce: string, at: number, plan?: { dueAt: number; waitMs: number }): void {
  if (!localWatched) writeSources.push(() => localWrites);
  localWatched = true;
  localWrites.set(nonce, [...(localWrites.get(nonce) ?? []), { at, ...plan }]);
  if (localWrites.size > MAX_LOCAL_WRITES) localWrites.delete(localWrites.keys().next().value!);
}

/** Tests: write records (or bare write times) to answer from instead of the watched files (undefined restores them). */
let writesOverride: ReadonlyMap<string, readonly WriteRecord[]> | undefined;
export function useWriteTimes(writes: ReadonlyMap<string, readonly (number | WriteRecord)[]> | undefined): void {
  writesOverride = writes && new Map([...writes].map(([k, v]) => [k, v.map((w) => (typeof w === 'number' ? { at: w } : w))]));
}

/**
 * The sandbox's record of the attempt with this X-Nonce that our receiver noted at `receivedAt`: its only write of that
 * nonce, or where a fault reuses one nonce for every attempt, its latest write not after the arrival. undefined when the
 * sandbox is not ours (no write file) or the attempt is not in it.
 */
export function writeRecordOf(nonce: string | undefined, receivedAt: number): WriteRecord | undefined {
  if (nonce === undefined) return undefined;
  const all = (writesOverride ? [() => writesOverride!] : writeSources).flatMap((read) => read().get(nonce) ?? []);
  // One attempt of this nonce (every attempt's is fresh but under a fault): that one, even when our receiver noted it
  // before the sandbox's write callback ran (loopback delivers before the writer is told).
  if (all.length === 1) return all[0];
  let found: WriteRecord | undefined;
  for (const w of all) if (w.at <= receivedAt && (found === undefined || w.at > found.at)) found = w;
  return found;
}

/**
 * How long after the embedded sandbox wrote an attempt whole our receiver noted it (writeRecordOf): time our machine
 * lost between two processes of ours on loopback — the receiving process waiting for a CPU, or many short turns of its
 * event loop, which the timer-drift meter does not see as one stall. 0 when the sandbox is not ours or the attempt is
 * not in its record: then it excuses nothing.
 */
export function arrivalLateMs(nonce: string | undefined, receivedAt: number): number {
  const w = writeRecordOf(nonce, receivedAt);
  return w === undefined ? 0 : Math.max(0, receivedAt - w.at);
}
