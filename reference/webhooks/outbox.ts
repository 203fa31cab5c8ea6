/**
 * In-process outbox: every webhook is a record (attempts made, next due time) that lives until it
 * is acknowledged or its attempts run out. A receiver that is down, slow or answering garbage only
 * delays delivery; nothing is lost while the sandbox runs. Deliveries share a bounded number of
 * concurrent connections, and close() clears every timer and aborts what is in flight.
 */
import { setMaxListeners } from 'node:events';
import type { Behaviour } from '../behaviour.js';
import { unixSeconds } from '../clock.js';
import { freshNonce, hmacDigest, signingInput } from '../signing.js';
import { postOnce } from './post.js';

/** The ack limit never drops below this, however small the time scale: real sockets need time. */
// High enough that a loaded machine's timer delays do not eat the receiver's share of the limit.
export const ACK_LIMIT_FLOOR_MS = 1000;

export interface WebhookJob {
  readonly merchantId: string;
  /** Used to sign each attempt; never logged. */
  readonly secret: string;
  readonly url: string;
  /** Short description for log lines, e.g. "payment.updated P2611...". */
  readonly label: string;
  /** Builds the body at sending time, so it shows the status of that moment. */
  readonly body: () => Record<string, unknown>;
  /** Told the body a receiver acknowledged. */
  readonly onAcked?: (body: Record<string, unknown>) => void;
}

interface Delivery extends WebhookJob {
  readonly id: number;
  attempts: number;
  nextDueAt: number;
  /** The wait the next attempt was given (schedule's delay), ms: with nextDueAt, the plan told to onWritten. */
  waitMs: number;
  /** Kept only when a fault makes every attempt reuse the first attempt's timestamp and nonce. */
  firstStamp?: { timestamp: string; nonce: string };
  /** Kept only when a fault builds the body once, when the change happens. */
  frozenBody?: Record<string, unknown>;
  /** Attempts made after an acknowledgement (a fault's resends). */
  afterAck: number;
  /** Rough sandbox: a second copy of a webhook already sent (single attempt), or a first delivery held back. */
  copy?: boolean;
  held?: boolean;
}

/** One attempt as an observer sees it (`serve --audit --rough`): what was sent, and whether it was acknowledged. */
export interface ObservedDelivery {
  merchantId: string;
  url: string;
  event: string;
  orderNo: string;
  status: string;
  attempt: number;
  /** A second copy of a webhook already sent (the document: "the same webhook can arrive more than once"). */
  copy: boolean;
  /** Held back so later webhooks may overtake it ("webhooks can arrive out of order"). */
  held: boolean;
  replied: boolean;
  acked: boolean;
  summary: string;
}

/** Rough delivery: every webhook sent twice, a seeded share held back. */
export interface RoughDelivery {
  random: () => number;
  /** Share of first deliveries held back, 0..1. */
  holdRate: number;
}

export interface OutboxOptions {
  behaviour: Behaviour;
  timeScale: number;
  log: (line: string) => void;
  maxConcurrent?: number;
  /** One-way network delay (serve --latency): each attempt leaves this late and its reply comes back this late. */
  latencyMs?: number;
  rough?: RoughDelivery;
  /** Told of every attempt; a throwing observer is ignored. */
  observe?: (d: ObservedDelivery) => void;
  /**
   * Told when an attempt's request was written whole (its X-Nonce, and the time, ms since the epoch), with the plan
   * it was sent on: a kit that started this sandbox on its own machine tells the time its receiver lost, and the time
   * this process lost sending it late, from the waits the sandbox chose.
   */
  onWritten?: (nonce: string, at: number, plan: WritePlan) => void;
}

/** When an attempt was due to leave (its network delay included), after a wait of `waitMs` begun at `dueAt - waitMs`. */
export interface WritePlan {
  dueAt: number;
  waitMs: number;
}

/** Longest hold of a first delivery, and latest second copy, at time scale 1. */
const HOLD_MAX_MS = 5_000;
const COPY_MAX_MS = 15_000;

export class Outbox {
  private readonly pending = new Map<number, Delivery>();
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly ready: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private readonly maxConcurrent: number;
  private closed = false;
  private nextId = 1;

  constructor(private readonly opts: OutboxOptions) {
    this.maxConcurrent = opts.maxConcurrent ?? 16;
    // Every in-flight attempt listens on the one stop signal; that is expected, not a leak.
    setMaxListeners(this.maxConcurrent + 8, this.stop.signal);
  }

  /** Deliveries not yet acknowledged nor given up. */
  get pendingCount(): number {
    return this.pending.size;
  }

  enqueue(job: WebhookJob): void {
    if (this.closed) return;
    const d: Delivery = { ...job, id: this.nextId++, attempts: 0, nextDueAt: Date.now(), waitMs: 0, afterAck: 0 };
    if (!this.opts.behaviour.webhookBodyAtSending) d.frozenBody = job.body();
    this.pending.set(d.id, d);
    const rough = this.opts.rough;
    if (rough && rough.random() < rough.holdRate) {
      d.held = true;
      this.schedule(d, rough.random() * HOLD_MAX_MS * this.scale);
      return;
    }
    // Not synchronous: the API response that caused the event goes out first.
    this.schedule(d, 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.ready.length = 0;
    this.stop.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  private get scale(): number {
    return this.opts.timeScale;
  }

  private schedule(d: Delivery, delayMs: number): void {
    d.nextDueAt = Date.now() + delayMs;
    d.waitMs = delayMs;
    const timer = setTimeout(() => {
      this.timers.delete(d.id);
      this.ready.push(d);
      this.pump();
    }, delayMs);
    this.timers.set(d.id, timer);
  }

  private pump(): void {
    while (!this.closed && this.inFlight.size < this.maxConcurrent && this.ready.length > 0) {
      const d = this.ready.shift();
      if (!d) break;
      const p: Promise<void> = this.attempt(d)
        .catch(() => {
          this.pending.delete(d.id);
          this.opts.log(`webhook #${d.id} internal failure, delivery dropped`);
        })
        .finally(() => {
          this.inFlight.delete(p);
          this.pump();
        });
      this.inFlight.add(p);
    }
  }

  private async attempt(d: Delivery): Promise<void> {
    const b = this.opts.behaviour;
    d.attempts += 1;
    const maxAttempts = b.retryWaitsMs.length + 1;
    const sent = d.frozenBody ?? d.body();
    const raw = Buffer.from(JSON.stringify(sent), 'utf8');
    const stamp = this.stampFor(d);
    const sign = hmacDigest(d.secret, signingInput(d.merchantId, stamp.timestamp, stamp.nonce, raw)).toString('hex');
    const headers = b.finishWebhookHeaders({
      'Content-Type': 'application/json',
      'User-Agent': 'mpsi-reference-sandbox',
      'X-MerchantID': d.merchantId,
      'X-Timestamp': stamp.timestamp,
      'X-Nonce': stamp.nonce,
      'X-Sign': sign,
    });
    const limitMs = (b.ackLimitScales ? Math.max(b.ackLimitMs * this.scale, ACK_LIMIT_FLOOR_MS) : b.ackLimitMs) * b.ackLimitShare;
    const latency = this.opts.latencyMs ?? 0;
    const plan: WritePlan = { dueAt: d.nextDueAt + latency, waitMs: d.waitMs };
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    if (this.closed) return;
    const onWritten = this.opts.onWritten;
    const result = await postOnce(
      d.url,
      headers,
      raw,
      limitMs,
      b.isAck,
      this.stop.signal,
      onWritten && ((at) => onWritten(stamp.nonce, at, plan)),
    );
    // The reply's way back; the acknowledgement limit is judged on the receiver's answer time, as before.
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    if (this.closed) return;
    try {
      this.opts.observe?.({
        merchantId: d.merchantId,
        url: d.url,
        event: String(sent['event'] ?? ''),
        orderNo: String(sent['order_no'] ?? ''),
        status: String(sent['status'] ?? ''),
        attempt: d.attempts,
        copy: Boolean(d.copy),
        held: Boolean(d.held),
        replied: result.replied,
        acked: result.acked,
        summary: result.summary,
      });
    } catch {
      // An observer's failure must never reach a delivery.
    }
    if (d.copy) {
      // A copy is one attempt; the original's own retries carry on regardless.
      this.pending.delete(d.id);
      return;
    }
    const rough = this.opts.rough;
    if (rough && d.attempts === 1) {
      // Built again at its sending time: it shows the status of that moment.
      const copy: Delivery = { ...d, id: this.nextId++, attempts: 0, afterAck: 0, copy: true, held: false };
      this.pending.set(copy.id, copy);
      this.schedule(copy, rough.random() * COPY_MAX_MS * this.scale);
    }
    const where = `webhook #${d.id} ${d.label} attempt ${d.attempts}/${maxAttempts}`;
    if (result.acked && d.afterAck < b.attemptsAfterAck && d.attempts < maxAttempts) {
      d.afterAck += 1;
      this.opts.log(`${where}: ${result.summary}; sent again all the same`);
      this.schedule(d, (b.retryWaitsMs[d.attempts - 1] ?? 0) * this.scale);
      return;
    }
    if (result.acked) {
      this.pending.delete(d.id);
      d.onAcked?.(sent);
      this.opts.log(`${where}: ${result.summary}`);
      return;
    }
    if (d.attempts >= maxAttempts || (!result.replied && !b.retryWithoutReply)) {
      this.pending.delete(d.id);
      this.opts.log(`${where}: ${result.summary}; no attempts left`);
      return;
    }
    // The wait runs from the end of the failed attempt.
    const waitMs = (b.retryWaitsMs[d.attempts - 1] ?? 0) * this.scale;
    this.opts.log(`${where}: ${result.summary}; next attempt in ${Math.round(waitMs)} ms`);
    this.schedule(d, waitMs);
  }

  private stampFor(d: Delivery): { timestamp: string; nonce: string } {
    const fresh = { timestamp: String(unixSeconds()), nonce: freshNonce() };
    if (this.opts.behaviour.freshSignaturePerAttempt) return fresh;
    d.firstStamp ??= fresh;
    return d.firstStamp;
  }
}
