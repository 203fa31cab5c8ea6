/**
 * Our side of a throttling gateway: what a throttled answer is, how long to wait before resending, how fast
 * to send at all (the profile's `http.rateLimit`, a token bucket) and how many requests to keep in flight while the
 * target throttles (AIMD). A throttled answer is the gateway's, never the service's: it is never judged.
 */
import type { RequestTag, SectionGate } from './exclusive.js';

/** HTTP 429, or 503 with Retry-After: a gateway refused the request; the service never saw it. */
export function isThrottledAnswer(status: number, headers: Record<string, string | string[]>): boolean {
  if (status === 429) return true;
  return status === 503 && headerValue(headers, 'retry-after') !== undefined;
}

function headerValue(headers: Record<string, string | string[]>, lowerName: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === lowerName) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

/** Longest wait a Retry-After may impose on one resend; the exchange's deadline bounds the total anyway. */
const MAX_WAIT_MS = 60_000;
const BACKOFF_BASE_MS = 100;
const BACKOFF_CAP_MS = 5_000;

/**
 * How long to wait before resend number `attempt` (1 for the first): Retry-After in seconds or as an HTTP-date,
 * else exponential backoff with full jitter, bounded.
 */
export function throttleWaitMs(
  headers: Record<string, string | string[]>,
  attempt: number,
  now = Date.now(),
  random = Math.random,
): number {
  const ra = headerValue(headers, 'retry-after')?.trim();
  if (ra !== undefined && ra !== '') {
    if (/^\d+$/.test(ra)) return Math.min(MAX_WAIT_MS, Number(ra) * 1000);
    const at = Date.parse(ra);
    if (Number.isFinite(at)) return Math.min(MAX_WAIT_MS, Math.max(0, at - now));
  }
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.min(attempt - 1, 16));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * Requests are paced this far under the declared rate: between a grant and the request's arrival at the gateway lies a
 * time that varies (the sender's event loop, the connection), and two requests that arrive closer than they were sent
 * would be one too many for a gateway counting the requests of any one second (the rate-limited run was
 * throttled 93 times while sending at exactly the rate).
 */
export const RATE_MARGIN = 0.95;

export interface PacerOptions {
  /** Requests per second this process may send (the profile's rate divided between processes); absent: no pacing. */
  ratePerSecond?: number;
  /** The in-flight width the AIMD window grows back to; beyond it the window is lifted (unless `capped`). */
  concurrency?: number;
  /**
   * The width is a budget, never lifted: at most `concurrency` requests in flight at any time (the run-wide pool,
   * harness/run/pool.ts). Absent: the window applies only while the target throttles.
   */
  capped?: boolean;
}

/** What a client says when it asks to send. */
export interface AcquireOptions {
  /** A resend after a throttled answer, its wait over: it goes before every fresh request (it must not starve). */
  resend?: boolean;
  /**
   * A request to the target: who signs it, what it is and the sections its sender holds (harness/http/exclusive.ts); the
   * gate holds it back while another's exclusive section covers it. The same object is passed to `release`.
   */
  request?: RequestTag;
}

/** What a client tells when an answer came back. */
export interface ReleaseOptions {
  /** The attempt as the wire saw it: what a rate is learnt from (`throttleOnset`). */
  attempt?: WireAttempt;
  /** A throttled answer's wait (Retry-After), ms: the gateway's own word on when its second has room again. */
  waitMs?: number;
  /** The request this answers, as given to `acquire`. */
  request?: RequestTag;
}

/** What a client waits on before each send and tells after each answer: a local `Pacer` or the run-wide pool. */
export interface RequestPacer {
  acquire(opts?: AcquireOptions): Promise<void>;
  release(throttled: boolean, opts?: ReleaseOptions): void;
  /** Present on a pacer that also keeps the exclusive sections (the pool's client, `GatedPacer`). */
  openSection?: SectionGate['openSection'];
}

/** The rate a pacer learnt from a target that throttled while no rate was declared (requests per second). */
export interface LearntRate {
  /** What the throttling onset showed the gateway let through (`throttleOnset`'s proposal): what to declare. */
  proposed: number;
  /** The rate in force when asked, after the adaptation since (lower after throttling, higher after none). */
  current: number;
  /** Times the rate was lowered after it was learnt (the target throttled under it). */
  decreases: number;
  /** Who learnt it: the doctor, before the checks (handed on with `seedRate`), or this pacer. Absent: this pacer. */
  from?: 'doctor';
}

/**
 * A learnt rate the target throttles under is lowered to what the onset of that throttling shows (`throttleOnset` over
 * the attempts sent since the last cut), but always to between these fractions of itself: at least a tenth less, so
 * that it converges whatever a gateway counts, and at most half, so that one sparse second cannot stall the run.
 */
const RATE_CUT_LEAST = 0.9;
const RATE_CUT_MOST = 0.5;
/**
 * A learnt rate rises by this fraction of itself each second it held requests back and nothing was throttled: a probe
 * past the limit costs a throttled answer or two (each waits its Retry-After), so it comes seldom (about every 5–7 s
 * at a limit of 50, from the cut below it), and in proportion, so that a low limit is probed no faster than a high one.
 */
const RATE_INCREASE = 0.02;
/**
 * ... and by this much until the target first throttles a request sent under it: the onset's count is a sure one, and
 * on a loaded machine it is far below the limit (27–32 for 50 at load 10), where 2 % a second would take half a minute
 * to come back. A cut is to what the onset of that throttling shows, close below the limit: from there, 2 %.
 */
const RATE_INCREASE_FAST = 0.1;
/** Attempts kept for the onset: the gateway's second before the first throttled answer, with room for slow answers. */
const ATTEMPTS_KEPT_MS = 3_000;

/**
 * One client's pacing, or the run's (the pool's). The in-flight window applies only while the target throttles: the
 * kit's race checks send several requests at once on purpose, and a cap that was not needed would change what they
 * test. On a throttled answer the window halves (multiplicative decrease, at most once per second); each real answer
 * widens it by 1/window (additive increase); once it is back at `concurrency` it is lifted.
 *
 * A window bounds requests in flight, not requests per second: at a loopback round trip of 1 ms even one in flight
 * passes a gateway's 50/s (about 1,100 throttled answers for 1,300 requests, and an unlucky request throttled
 * ten times within its deadline). So when no rate is declared and the target throttles, the pacer learns one from the
 * onset (`throttleOnset` over the attempts it saw), waits out the throttled answer's Retry-After (the gateway's second
 * is full) and paces every later request under it. Then it adapts the rate itself: a request sent under it and
 * throttled cuts it (to what that throttling's onset shows, by a tenth to a half, at most once a second), and a
 * second of requests held back by it with nothing throttled raises it: by 10 % until the first cut, by 2 % after.
 * A declared rate is the profile's word and never changes.
 *
 * Who goes first: a resend (its wait over) before any fresh request, each in order of asking; the choice is made when
 * a slot and a token are there, so a resend that comes back meanwhile still goes first.
 */
export class Pacer implements RequestPacer {
  private window: number | undefined;
  private inFlight = 0;
  /** The asks waiting: resends first, each kind in order of asking. */
  private readonly queue: { resend: boolean; go: () => void }[] = [];
  private pumping = false;
  private lastDecrease = 0;
  private tokens: number;
  private last = performance.now();
  private readonly declared: number | undefined;
  private readonly ceiling: number;
  private readonly capped: boolean;
  /** Learnt when no rate is declared; requests per second before RATE_MARGIN. */
  private learnt: LearntRate | undefined;
  /** When the rate was learnt or last lowered, and last changed at all (raised too); the last throttled answer. */
  private rateCutAt = 0;
  private rateChangedAt = 0;
  private lastThrottledAt = 0;
  /** No request goes before this time (performance.now()): the Retry-After of the answer the rate was learnt from. */
  private notBefore = 0;
  /** Whether an ask waited for a token since the rate last rose: the rate, not the demand, held requests back. */
  private heldBack = false;
  /** The attempts answered in the last ATTEMPTS_KEPT_MS or so, in order of answer: what `throttleOnset` reads. */
  private readonly attempts: WireAttempt[] = [];
  private prunedAt = 0;

  constructor(opts: PacerOptions = {}) {
    this.declared = opts.ratePerSecond && opts.ratePerSecond > 0 ? opts.ratePerSecond : undefined;
    // The first request goes at once; every later one waits its turn (tokens never gather beyond one).
    this.tokens = this.declared ? 1 : 0;
    this.ceiling = Math.max(1, opts.concurrency ?? 8);
    this.capped = opts.capped ?? false;
    if (this.capped) this.window = this.ceiling;
  }

  /** The current in-flight window, or undefined when none applies. */
  get currentWindow(): number | undefined {
    return this.window === undefined ? undefined : Math.floor(this.window);
  }

  /** The rate learnt from the target's throttling (none declared, none throttled: undefined). */
  get learntRate(): LearntRate | undefined {
    return this.learnt === undefined ? undefined : { ...this.learnt, current: Math.round(this.learnt.current * 10) / 10 };
  }

  /**
   * A rate another pacer of the run learnt (the doctor's, before any check: `throttleOnset` over its own requests),
   * taken as if learnt here, so that the checks do not have to be throttled again to find it: without it they start
   * at full speed and the first burst is throttled (about 30 answers of a run's 35 behind a 50/s gateway). It then
   * adapts as a rate learnt here does. Nothing changes with a declared rate, a rate learnt already, or no rate.
   */
  seedRate(ratePerSecond: number, from: 'doctor'): void {
    if (this.declared !== undefined || this.learnt !== undefined || !(ratePerSecond > 0)) return;
    this.learnt = { proposed: ratePerSecond, current: ratePerSecond, decreases: 0, from };
    const now = performance.now();
    this.rateCut(now);
    this.tokens = 1;
    this.last = now;
  }

  /** The rate requests are paced at, per second (under the declared or learnt one by RATE_MARGIN); undefined: none. */
  private get rate(): number | undefined {
    const r = this.declared ?? this.learnt?.current;
    return r === undefined ? undefined : r * RATE_MARGIN;
  }

  /** Waits for a slot in the window, then for a token of the rate. */
  acquire(opts: AcquireOptions = {}): Promise<void> {
    return new Promise<void>((go) => {
      const resend = opts.resend ?? false;
      // After the last resend (a resend) or at the end (a fresh ask): each kind keeps the order of asking.
      let at = this.queue.length;
      if (resend) {
        at = 0;
        while (at < this.queue.length && this.queue[at]!.resend) at += 1;
      }
      this.queue.splice(at, 0, { resend, go });
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0) {
        // A full window: release() pumps again.
        if (this.window !== undefined && this.inFlight >= Math.floor(this.window)) return;
        const wait = this.turnIn();
        if (wait > 0) {
          await sleep(wait);
          continue;
        }
        this.inFlight += 1;
        this.queue.shift()!.go();
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Ms until the next request may go: 0 takes the token. */
  private turnIn(): number {
    const now = performance.now();
    if (now < this.notBefore) return Math.ceil(this.notBefore - now);
    const rate = this.rate;
    if (rate === undefined) return 0;
    // No burst: a gateway that counts the requests of any one second would count one on top of the steady rate.
    this.tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * rate);
    this.last = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    this.heldBack = true;
    return Math.max(1, Math.ceil(((1 - this.tokens) / rate) * 1000));
  }

  /** The request's answer came back: `throttled` when it was a gateway's refusal. */
  release(throttled: boolean, opts: ReleaseOptions = {}): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const now = performance.now();
    if (throttled) {
      if (now - this.lastDecrease >= 1_000 || this.window === undefined) {
        const from = this.window ?? Math.min(this.ceiling, this.inFlight + 1);
        this.window = Math.max(1, from / 2);
        this.lastDecrease = now;
      }
    } else if (this.window !== undefined) {
      this.window += 1 / this.window;
      if (this.window >= this.ceiling) this.window = this.capped ? this.ceiling : undefined;
    }
    if (this.declared === undefined) this.adaptRate(throttled, now, opts);
    this.wake();
  }

  private adaptRate(throttled: boolean, now: number, opts: ReleaseOptions): void {
    const a = opts.attempt;
    if (a !== undefined) {
      this.attempts.push(a);
      // Pruned now and then, not on every answer: a run that is never throttled sends thousands a second on loopback.
      if (now - this.prunedAt >= ATTEMPTS_KEPT_MS / 4) {
        this.prunedAt = now;
        let old = 0;
        while (old < this.attempts.length && this.attempts[old]!.answeredAt < now - ATTEMPTS_KEPT_MS) old += 1;
        this.attempts.splice(0, old);
      }
    }
    if (this.learnt === undefined) {
      if (!throttled || a === undefined) return;
      const onset = throttleOnset(this.attempts);
      if (onset === undefined) return;
      this.learnt = { proposed: onset.proposed, current: onset.proposed, decreases: 0 };
      this.rateCut(now);
      // The onset was a burst: the gateway's second is full, and whatever goes before its Retry-After is throttled
      // again. Then one goes at once. (A cut later needs no wait: sent at a steady rate just above the limit, a request
      // finds room as soon as the rate is below it, since one of the gateway's second leaves it at every 1/limit.)
      if (opts.waitMs !== undefined && opts.waitMs > 0) {
        this.notBefore = Math.max(this.notBefore, now + opts.waitMs);
        this.tokens = 1;
        this.last = this.notBefore;
      }
      return;
    }
    const l = this.learnt;
    if (throttled) {
      this.lastThrottledAt = now;
      if (a === undefined) return;
      if (a.at < this.rateCutAt) {
        // Sent before the rate was learnt (the rest of the onset's burst): each shows a sure count too, the best is kept.
        const best = l.decreases === 0 ? (throttleOnset(this.attempts)?.proposed ?? 0) : 0;
        if (best > l.proposed) {
          l.proposed = best;
          l.current = Math.max(l.current, best);
        }
        return;
      }
      // Only a request sent after the last cut says the rate is still too high, and a second after it: the gateway's
      // count of it is complete.
      if (now - this.rateCutAt < 1_000) return;
      const shown = throttleOnset(this.attempts.filter((x) => x.at >= this.rateCutAt))?.proposed ?? l.current;
      l.current = Math.max(1, l.current * RATE_CUT_MOST, Math.min(l.current * RATE_CUT_LEAST, shown));
      l.decreases += 1;
      this.rateCut(now);
    } else if (this.heldBack && now - this.rateChangedAt >= 1_000 && now - this.lastThrottledAt >= 1_000) {
      // A second of requests held back by the rate and none throttled: the target may take more.
      l.current *= 1 + (l.decreases === 0 ? RATE_INCREASE_FAST : RATE_INCREASE);
      this.rateChangedAt = now;
      this.heldBack = false;
    }
  }

  /** The rate was learnt or lowered after a throttled answer. */
  private rateCut(now: number): void {
    this.rateCutAt = now;
    this.rateChangedAt = now;
    this.lastThrottledAt = now;
    this.heldBack = false;
  }

  private wake(): void {
    if (this.queue.length > 0) void this.pump();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** One attempt of a request as a gateway met it: when it went on the wire and when its answer came (performance.now()). */
export interface WireAttempt {
  at: number;
  answeredAt: number;
  /** `admitted`: the service answered; `throttled`: the gateway refused it; `none`: no answer (unknown to us). */
  answer: 'admitted' | 'throttled' | 'none';
}

/** What the attempts on the wire show of a gateway's limit: see `throttleOnset`. */
export interface ThrottleOnset {
  /** The throttled attempt plus the admitted ones the gateway surely counted in the second before it (the best such count). */
  onsetRate: number;
  /** The position, among all attempts on the wire, of the first throttled one. */
  onsetAfter: number;
  /** What to declare as `http.rateLimit`: those admitted ones, `onsetRate - 1` (at least 1). */
  proposed: number;
}

/**
 * A gateway that refused an attempt R had let its limit through in the second before R reached it. Which of our
 * admitted attempts it counted then is known for sure, whatever the delays on the way or on our machine, for those that
 * went on the wire less than a second before R's answer came back and were answered before R went on the wire: each
 * reached the gateway within the second before R did. So each throttled attempt's count is at most the limit, and the
 * highest count of any is proposed. Counting when a probe asked for a request instead (before our own queueing, which a
 * loaded machine stretches) made a burst the gateway met together look spread out: 7 for a limit of 20 at load 28.
 */
export function throttleOnset(attempts: readonly WireAttempt[]): ThrottleOnset | undefined {
  const sorted = [...attempts].sort((x, y) => x.at - y.at);
  const first = sorted.findIndex((a) => a.answer === 'throttled');
  if (first < 0) return undefined;
  const admitted = sorted.filter((a) => a.answer === 'admitted');
  let best = 0;
  for (const r of sorted) {
    if (r.answer !== 'throttled') continue;
    let n = 0;
    for (const x of admitted) {
      if (x.at >= r.at) break;
      if (x.at > r.answeredAt - 1000 && x.answeredAt < r.at) n += 1;
    }
    best = Math.max(best, n);
  }
  return { onsetRate: best + 1, onsetAfter: first + 1, proposed: Math.max(1, best) };
}
