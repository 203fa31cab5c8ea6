/**
 * Every request `init` sends goes through one Prober: signed with the harness's signing, sent by the
 * harness's client, counted against the budget (count and wall time), numbered with the run's
 * recognisable prefix, and shown as progress. A target that hangs costs one deadline, never the run.
 */
import { randomBytes } from 'node:crypto';
import { createClient, type Client } from '../http/client.js';
import type { Network } from '../http/network.js';
import { splitMsg, isEnvelope } from '../http/envelope.js';
import { sign } from '../http/signing.js';
import { Pacer, throttleOnset, type WireAttempt } from '../http/throttle.js';

export interface ProberOptions {
  baseUrl: string;
  merchantId: string;
  secret: string;
  /** Most requests to send, sandbox controls included. */
  budget: number;
  /** Most wall time, ms, for the whole probe. */
  timeLimitMs: number;
  /** Per request. */
  deadlineMs: number;
  progress: (line: string) => void;
  /** TLS options and proxies (harness/http/network.ts); absent: a direct connection with Node's defaults. */
  network?: Network;
}

/** What came back, reduced to what discovery reads. */
export interface Answer {
  http?: number;
  envelope: boolean;
  code?: number;
  key?: string;
  message?: string;
  data?: Record<string, unknown>;
  /** Transport failure (deadline, connection). */
  error?: string;
}

/**
 * The target throttled init: a gateway answered HTTP 429 (or 503 with Retry-After) instead of the
 * service. `onsetRate` is what proves a limit: the requests on the wire in the second that ended with a throttled
 * one (harness/http/throttle.ts `throttleOnset`); the gateway let the ones before it through, so it allows `onsetRate - 1`.
 */
export interface Throttling {
  /** Throttled answers, waited out and resent (the client's), and the time they cost. */
  answers: number;
  waitMs: number;
  onsetRate: number;
  /** Requests init had sent when the first throttled answer came. */
  onsetAfter: number;
  /** The rate init paced itself at from then on, and proposes as `http.rateLimit`. */
  proposed: number;
}

/** Thrown when the budget (count or time) is spent: discovery stops and what is left becomes a TODO. */
export class BudgetSpent extends Error {}

export function describe(a: Answer): string {
  if (a.error) return `no answer (${a.error})`;
  if (!a.envelope) return `HTTP ${a.http}, not an envelope`;
  if (a.code === 0) return `HTTP ${a.http} code 0 success`;
  return `HTTP ${a.http} code ${a.code} ${a.key ?? '(no key)'}${a.message ? ` "${a.message.slice(0, 80)}"` : ''}`;
}

export class Prober {
  readonly runId: string;
  sent = 0;
  /** Answers with HTTP 200 whose signature did not verify with the merchant's key. */
  unverified = 0;
  /** Every exchange, reduced (request path and body, the answer described): the evidence a bug report carries. */
  readonly log: { path: string; body: string; answer: string }[] = [];
  /** Set at the first throttled answer; init paces itself at `proposed` from then on. */
  throttling: Throttling | undefined;
  private pacer: Pacer | undefined;
  /** Every attempt as the gateway met it (when it went on the wire), to know the rate at which throttling began. */
  private readonly attempts: WireAttempt[] = [];
  private counter = 0;
  /**
   * The fields a query needs beside its lookup number, as the vendor told them (queryParams): added to each request sent
   * to that query's path (a templated one with the number filled in), never to another endpoint's.
   */
  private readonly queryFields: { template: string; path: RegExp; fields: Record<string, unknown> }[] = [];
  private readonly otherPaths = new Set<string>();
  private readonly started = Date.now();
  private readonly client: Client;

  constructor(readonly opts: ProberOptions) {
    this.client = createClient({
      deadlineMs: opts.deadlineMs,
      maxResponseBytes: 1024 * 1024,
      ...(opts.network ? { network: opts.network } : {}),
    });
    // Short, so init's numbers fit a vendor's shortest number limit (16 characters and up): `i`, 8, a kind, a counter.
    this.runId = `${Math.floor(Date.now() / 1000)
      .toString(36)
      .slice(-5)}${randomBytes(2).toString('hex').slice(0, 3)}`;
  }

  /** A merchant number no earlier run used: `i<run><kind><n>` (at most 14 characters), so the sandbox's orders show who made them. */
  newNo(kind: 'o' | 'r' | 'p'): string {
    this.counter += 1;
    return `i${this.runId}${kind}${this.counter}`;
  }

  /** From now on, each request to the query path `template` carries `fields` (those its body lacks); `others`: paths that never do. */
  addQueryFields(template: string, fields: Record<string, unknown>, others: readonly string[]): void {
    if (Object.keys(fields).length === 0) return;
    const literal = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
    this.queryFields.push({ template, path: new RegExp(`^${literal.join('[^/]+')}$`), fields });
    for (const o of others) if (o !== template) this.otherPaths.add(o);
  }

  private withQueryFields(path: string, body: unknown): unknown {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
    // The query's own path, else one its template matches that is no other endpoint's (a payout's /payouts/create beside
    // its query /payouts/{merchant_payout_no}).
    const q =
      this.queryFields.find((f) => f.template === path) ?? this.queryFields.find((f) => f.path.test(path) && !this.otherPaths.has(path));
    if (!q) return body;
    const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
    for (const [k, v] of Object.entries(q.fields)) if (!(k in out)) out[k] = v;
    return out;
  }

  elapsedMs(): number {
    return Date.now() - this.started;
  }

  remaining(): number {
    return this.opts.budget - this.sent;
  }

  phase(name: string): void {
    this.opts.progress(`[init ${String(this.sent).padStart(4)} probes ${(this.elapsedMs() / 1000).toFixed(1)}s] ${name}`);
  }

  /**
   * A creation path carrying the merchant's own number (`/payments/{merchant_order_no}/card`) filled with the number of the
   * record the body creates: the one of init's own numbers (newNo) of that kind in it; a body with none (an empty probe)
   * gets a number nothing has. Every other path is sent as given (a lookup's is filled by its phase).
   */
  private ownNumberIn(path: string, body: unknown): string {
    const kinds: Record<string, string> = { merchant_order_no: 'o', merchant_payout_no: 'p' };
    return path.replace(/\{(merchant_order_no|merchant_payout_no)\}/g, (_, name: string) => {
      const mine = new RegExp(`^i${this.runId}${kinds[name]}\\d+$`);
      const found = stringsIn(body).find((v) => mine.test(v));
      return encodeURIComponent(found ?? `i${this.runId}none`);
    });
  }

  /**
   * One request, sent again (at most twice) while the answer is the document's transient failure, 500 queryFailed ("try
   * again"): a sandbox may fail a query on purpose for a value init happened to use (a magic amount or number), and a
   * transient answer says nothing of the fact init asked about.
   */
  async post(path: string, given: unknown, as?: { id: string; secret: string }): Promise<Answer> {
    const body = this.withQueryFields(path, given);
    let a = await this.postOnce(path, body, as);
    for (let again = 0; again < 2 && a.code === 500 && a.key === 'queryFailed'; again++) a = await this.postOnce(path, body, as);
    return a;
  }

  private async postOnce(path: string, body: unknown, as?: { id: string; secret: string }): Promise<Answer> {
    if (this.sent >= this.opts.budget) throw new BudgetSpent(`the probe budget (${this.opts.budget} requests) is spent`);
    if (this.elapsedMs() >= this.opts.timeLimitMs) throw new BudgetSpent(`the time limit (${this.opts.timeLimitMs / 1000} s) is spent`);
    this.sent += 1;
    if (this.pacer) {
      await this.pacer.acquire();
      this.pacer.release(false);
    }
    const raw = Buffer.from(JSON.stringify(body), 'utf8');
    const creds = as ?? { id: this.opts.merchantId, secret: this.opts.secret };
    const signed = () => ({ ...sign({ merchantId: creds.id, secret: creds.secret }, raw), 'Content-Type': 'application/json' });
    // Answers are checked like a client would (signed with the merchant's own key); a draft is still written, with a warning.
    const verifyWith = as ? undefined : { merchantId: creds.id, secret: creds.secret };
    // A resend after a throttled answer is signed anew: a fresh timestamp and nonce (the gateway kept the first from the service).
    const ex = await this.client.send(
      { label: `init ${path}`, url: this.opts.baseUrl + this.ownNumberIn(path, body), method: 'POST', headers: signed(), body: raw },
      {
        verifyWith,
        resign: signed,
        // Resends included: they reach the gateway too, and count towards the rate the throttling began at.
        onAttempt: (a) => this.attempts.push(a),
      },
    );
    if (ex.throttled) this.noteThrottled(ex.throttled);
    const a = this.answerOf(ex);
    if (this.log.length < 5000)
      this.log.push({
        path,
        body: raw.toString('utf8').slice(0, 600),
        answer: `${describe(a)}${a.data ? ` data ${JSON.stringify(a.data).slice(0, 600)}` : ''}`,
      });
    return a;
  }

  private noteThrottled(t: { answers: number; waitMs: number }): void {
    if (this.throttling) {
      this.throttling.answers += t.answers;
      this.throttling.waitMs += t.waitMs;
      return;
    }
    const onset = throttleOnset(this.attempts);
    if (!onset) return;
    const { onsetRate, proposed } = onset;
    this.throttling = { answers: t.answers, waitMs: t.waitMs, onsetRate, onsetAfter: this.sent, proposed };
    // Sequential probes cannot slow down by sending fewer at once: init paces itself at the rate the gateway let through.
    this.pacer = new Pacer({ ratePerSecond: proposed });
    this.opts.progress(
      `  the target throttles: HTTP 429/503 answers after ${this.sent} requests, ${onsetRate} of them in the last second; ` +
        `init now sends at most ${proposed} a second (proposed as http.rateLimit)`,
    );
  }

  private answerOf(ex: Awaited<ReturnType<Client['send']>>): Answer {
    if (!ex.response || ex.error?.kind === 'throttled') return { envelope: false, error: ex.error?.message ?? 'no response' };
    if (ex.response.status === 200 && ex.signature && !ex.signature.ok) this.unverified += 1;
    const json = ex.response.json;
    if (!isEnvelope(json)) return { http: ex.response.status, envelope: false };
    const { message, key } = splitMsg(json.msg);
    return { http: ex.response.status, envelope: true, code: json.code, key, message, data: json.data };
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * A record created under a new number of init's (`kind`), sent again under another (at most twice) while the answer is
 * 422 systemBusy: the document's advice ("use a new order number if the first request may have created an order"), and a
 * sandbox may fail a number init happened to draw (a magic prefix or suffix it was never told of). Only for a request
 * whose other values are not in question: there systemBusy says nothing of the fact init asks about.
 */
/** The document's 422 systemBusy: a failure of no known kind, which a new number may not meet again. */
export function isBusy(a: Answer): boolean {
  return a.code === 422 && a.key === 'systemBusy';
}

export async function postFresh(
  p: Pick<Prober, 'newNo' | 'post'>,
  path: string,
  kind: 'o' | 'r' | 'p',
  body: (no: string) => unknown,
): Promise<{ answer: Answer; no: string }> {
  const no = p.newNo(kind);
  return againWhileBusy(p, path, kind, body, { answer: await p.post(path, body(no)), no });
}

/** postFresh after its first request: `first` is what the request under `first.no` was answered. */
export async function againWhileBusy(
  p: Pick<Prober, 'newNo' | 'post'>,
  path: string,
  kind: 'o' | 'r' | 'p',
  body: (no: string) => unknown,
  first: { answer: Answer; no: string },
): Promise<{ answer: Answer; no: string }> {
  let { answer, no } = first;
  for (let again = 0; again < 2 && isBusy(answer); again++) {
    no = p.newNo(kind);
    answer = await p.post(path, body(no));
  }
  return { answer, no };
}

/** Every string value in a JSON body, at any depth. */
function stringsIn(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (v && typeof v === 'object') return Object.values(v).flatMap(stringsIn);
  return [];
}
