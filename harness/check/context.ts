import { AsyncLocalStorage } from 'node:async_hooks';
import { type Exchange, isOurRequest, wireBytes } from '../http/exchange.js';
import type { ClauseId } from '../clauses/registry.js';
import type { ReadingTopic } from '../clauses/topics.js';
import type { Finding } from './failure.js';
import { traceExchange } from '../http/trace.js';

/**
 * What a check sent, counted for every request (the recorder keeps only the last MAX_EXCHANGES_KEPT exchanges): the
 * run's traffic (a vendor budgets a run by it) and its floor's request count and round trips.
 */
export interface SentTally {
  requests: number;
  bytesSent: number;
  bytesReceived: number;
  /** Σ of each request's round trip (its last send's `totalMs`) and of its wait for a slot or rate token (`queuedMs`). */
  roundTripMs: number;
  queuedMs: number;
}

export function emptyTally(): SentTally {
  return { requests: 0, bytesSent: 0, bytesReceived: 0, roundTripMs: 0, queuedMs: 0 };
}

export function addTally(into: SentTally, from: SentTally): void {
  into.requests += from.requests;
  into.bytesSent += from.bytesSent;
  into.bytesReceived += from.bytesReceived;
  into.roundTripMs += from.roundTripMs;
  into.queuedMs += from.queuedMs;
}

/** Everything a running check accumulates; reports and the kill matrix read it. */
export interface CheckRecorder {
  exchanges: Exchange[];
  /** Findings from global invariants; the check's own assertion is thrown, not stored here. */
  invariantFindings: Finding[];
  /** Which reading of an ambiguous clause the target took, e.g. {"price-point.unroundable": "422 notSupported"}. */
  readings: Record<string, string>;
  /** Free-form notes shown in the report. */
  notes: string[];
  /**
   * Clauses an assertion actually evaluated and found kept (an exchange or observation that is
   * evidence for the clause). Only these are credited as passed: naming a clause is not evidence.
   */
  exercised: Set<string>;
  /**
   * Where our own machine lost enough time to explain a timing finding: set by the webhook
   * waits, read by runCheck, which retries such a failure and reports a lasting one as no verdict.
   */
  machineBusy: string[];
  /** The running check's own clauses (first is its main one): what an assertion naming no clause is charged to. */
  clauses: readonly ClauseId[];
  /**
   * When the check started, epoch ms: the run-wide pool (harness/run/pool.ts) grants the requests of the
   * earliest-started check first, so a long chain of sequential requests is not queued behind every later check's.
   */
  startedAt: number;
  /**
   * The running check's id (a property example's recorder has its check's): what a webhook wait is narrated under.
   * Kept here rather than in an AsyncLocalStorage of its own: every storage enabled in a process costs
   * every promise it creates, and one per suite file made a worker's awaits several times dearer.
   */
  checkId?: string;
  /** Every request the check sent, kept or not (webhook deliveries are the target's, not counted). */
  sent: SentTally;
  /**
   * The exclusive sections the running code holds (harness/http/exclusive.ts, `Target.exclusive`): its requests pass them.
   * Set on the copy of the recorder `exclusive` runs its function under (the copy shares every record with the
   * check's), and handed on to a property's examples; kept here rather than in an AsyncLocalStorage of its own, as
   * `checkId` is.
   */
  holds?: readonly string[];
}

const storage = new AsyncLocalStorage<CheckRecorder>();

/** Exchanges kept per check; property runs send thousands and the report needs the last ones. */
export const MAX_EXCHANGES_KEPT = 60;

export function newRecorder(
  clauses: readonly ClauseId[] = [],
  startedAt = performance.timeOrigin + performance.now(),
  checkId?: string,
): CheckRecorder {
  const rec: CheckRecorder = {
    exchanges: [],
    invariantFindings: [],
    readings: {},
    notes: [],
    exercised: new Set(),
    machineBusy: [],
    clauses,
    startedAt,
    sent: emptyTally(),
  };
  if (checkId !== undefined) rec.checkId = checkId;
  return rec;
}

export function withRecorder<T>(rec: CheckRecorder, fn: () => Promise<T>): Promise<T> {
  return storage.run(rec, fn);
}

export function currentRecorder(): CheckRecorder | undefined {
  return storage.getStore();
}

/** The exclusive sections the running code holds (none outside a check, or outside every section). */
export function currentHolds(): readonly string[] {
  return storage.getStore()?.holds ?? NO_HOLDS;
}
const NO_HOLDS: readonly string[] = [];

/**
 * Runs `fn` as the holder of section `id`: the running check's recorder (every record shared) with the section added
 * to its holds; outside a check, a recorder of its own that nobody reads, as nothing was recorded there before.
 */
export function asHolder<T>(id: string, fn: () => Promise<T>): Promise<T> {
  const outer = storage.getStore() ?? newRecorder();
  return storage.run({ ...outer, holds: [...(outer.holds ?? NO_HOLDS), id] }, fn);
}

/**
 * The clause an assertion that names none is about: the running check's main clause. Outside a check (or in one
 * that declared none) there is nothing to default to, and guessing would charge a finding to the wrong clause.
 */
export function ownClause(): ClauseId {
  const own = storage.getStore()?.clauses[0];
  if (own === undefined) throw new Error('an assertion named no clause outside a check: pass the clause it enforces');
  return own;
}

export function recordExchange(ex: Exchange): void {
  const rec = storage.getStore();
  traceExchange(ex, rec?.checkId);
  if (!rec) return;
  if (isOurRequest(ex)) {
    const b = wireBytes(ex);
    rec.sent.requests += 1;
    rec.sent.bytesSent += b.sent;
    rec.sent.bytesReceived += b.received;
    rec.sent.roundTripMs += ex.timings.totalMs;
    rec.sent.queuedMs += ex.timings.queuedMs ?? 0;
  }
  keepExchange(rec, ex);
}

/** The last MAX_EXCHANGES_KEPT exchanges, for the report. */
function keepExchange(rec: CheckRecorder, ex: Exchange): void {
  rec.exchanges.push(ex);
  const over = rec.exchanges.length - MAX_EXCHANGES_KEPT;
  // One over on every exchange past the limit: shift() drops it without a removed-elements array.
  if (over === 1) rec.exchanges.shift();
  else if (over > 1) rec.exchanges.splice(0, over);
}

export function recordFinding(f: Finding): void {
  const rec = storage.getStore();
  if (!rec) return;
  // One finding per code and clause is enough evidence; property runs would repeat it thousands of times.
  if (rec.invariantFindings.some((g) => g.code === f.code && g.clause === f.clause)) return;
  rec.invariantFindings.push(f);
}

export function recordReading(topic: ReadingTopic, reading: string): void {
  const rec = storage.getStore();
  if (rec) rec.readings[topic] = reading;
}

export function note(text: string): void {
  storage.getStore()?.notes.push(text);
}

/** An assertion evaluated these clauses and they held: the evidence that lets the report credit them. */
export function recordExercised(...clauses: (ClauseId | undefined)[]): void {
  const rec = storage.getStore();
  if (!rec) return;
  for (const c of clauses) if (c) rec.exercised.add(c);
}

/** Our machine lost time that could explain a timing finding of this check (see CheckRecorder.machineBusy). */
export function recordMachineBusy(detail: string): void {
  const rec = storage.getStore();
  if (rec && !rec.machineBusy.includes(detail)) rec.machineBusy.push(detail);
}

/**
 * Adds what `from` recorded to `into`, as if it had been recorded there in that order: one property example's
 * recordings joined to its check's, in generation order, whichever example finished first.
 */
export function mergeRecorder(into: CheckRecorder, from: CheckRecorder): void {
  for (const ex of from.exchanges) keepExchange(into, ex);
  addTally(into.sent, from.sent);
  storage.run(into, () => {
    for (const f of from.invariantFindings) recordFinding(f);
    for (const n of from.notes) note(n);
    for (const c of from.exercised) into.exercised.add(c);
  });
  Object.assign(into.readings, from.readings);
  for (const m of from.machineBusy) if (!into.machineBusy.includes(m)) into.machineBusy.push(m);
}
