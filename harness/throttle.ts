/**
 * Our side of a throttling gateway (issue 23): what a throttled answer is, how long to wait before resending, how fast
 * to send at all (the profile's `http.rateLimit`, a token bucket) and how many requests to keep in flight while the
 * target throttles (AIMD). A throttled answer is the gateway's, never the service's: it is never judged.
 */

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
 * would be one too many for a gateway counting the requests of any one second (issue 23: the rate-limited run was
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

/** What a client waits on before each send and tells after each answer: a local `Pacer` or the run-wide pool. */
export interface RequestPacer {
  acquire(): Promise<void>;
  release(throttled: boolean): void;
}

/**
 * One client's pacing. The in-flight window applies only while the target throttles: the kit's race checks send
 * several requests at once on purpose, and a cap that was not needed would change what they test. On a throttled
 * answer the window halves (multiplicative decrease, at most once per second); each real answer widens it by
 * 1/window (additive increase); once it is back at `concurrency` it is lifted.
 */
export class Pacer implements RequestPacer {
  private window: number | undefined;
  private inFlight = 0;
  private readonly waiters: (() => void)[] = [];
  private lastDecrease = 0;
  private tokens: number;
  private last = performance.now();
  private readonly rate: number | undefined;
  private readonly ceiling: number;
  private readonly capped: boolean;

  constructor(opts: PacerOptions = {}) {
    this.rate = opts.ratePerSecond && opts.ratePerSecond > 0 ? opts.ratePerSecond * RATE_MARGIN : undefined;
    // The first request goes at once; every later one waits its turn (tokens never gather beyond one).
    this.tokens = this.rate ? 1 : 0;
    this.ceiling = Math.max(1, opts.concurrency ?? 8);
    this.capped = opts.capped ?? false;
    if (this.capped) this.window = this.ceiling;
  }

  /** The current in-flight window, or undefined when none applies. */
  get currentWindow(): number | undefined {
    return this.window === undefined ? undefined : Math.floor(this.window);
  }

  /** Waits for a slot in the window, then for a token of the rate; returns the time spent waiting. */
  async acquire(): Promise<void> {
    while (this.window !== undefined && this.inFlight >= Math.floor(this.window)) {
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    this.inFlight += 1;
    if (this.rate) await this.token(this.rate);
  }

  private async token(rate: number): Promise<void> {
    for (;;) {
      const now = performance.now();
      // No burst: a gateway that counts the requests of any one second would count one on top of the steady rate.
      this.tokens = Math.min(1, this.tokens + ((now - this.last) / 1000) * rate);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await sleep(Math.ceil(((1 - this.tokens) / rate) * 1000));
    }
  }

  /** The request's answer came back: `throttled` when it was a gateway's refusal. */
  release(throttled: boolean): void {
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
    this.wake();
  }

  private wake(): void {
    const free = this.window === undefined ? this.waiters.length : Math.floor(this.window) - this.inFlight;
    for (let i = 0; i < free && this.waiters.length > 0; i++) this.waiters.shift()!();
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
