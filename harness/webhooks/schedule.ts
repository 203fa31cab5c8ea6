/**
 * Webhook timing: the interface's figures (INTERFACE.md › Acknowledgement and retries, Limits)
 * scaled by the target profile's time scale, and the comparisons checks make against them. No
 * figure here comes from the reference: a target's own schedule is judged only by the document's
 * "about" figures, read the kit's one way (ABOUT_TOLERANCE), the same for every target.
 *
 * Allowances are the kit's, not the vendor's: `webhooks.tolerance` stays a profile field, but a profile can only widen
 * the kit's reading, never narrow it (a narrower one would fail a service the document allows), and a profile that
 * widens it is named in the certificate as a loosened check (`loosenedAllowances`, RunMeta.loosened).
 */
import type { Profile } from '../profile/types.js';
import { PreconditionSkip } from '../check/failure.js';
import { recordMachineBusy } from '../check/context.js';
import { arrivalLateMs, LAG_SIGNIFICANT_MS, lagAllowanceMs, processLag, writeRecordOf } from '../check/lag.js';
import { headerValue } from '../http/signing.js';
import { wireReply } from './receiver.js';
import type { Delivery } from './types.js';

const MIN = 60_000;

/** What INTERFACE.md says, at time scale 1, in ms. */
export const INTERFACE_WEBHOOK_FIGURES = {
  /** "up to 9 attempts in total". */
  attempts: 9,
  /** "Waits between attempts grow from about 15 seconds ..." */
  firstWaitMs: 15_000,
  /** "... to about 40 minutes." */
  lastWaitMs: 40 * MIN,
  /** "The last attempt is about 80 to 100 minutes after the first." */
  spanMinMs: 80 * MIN,
  spanMaxMs: 100 * MIN,
  /** "The receiver replies within 5 seconds." */
  ackLimitMs: 5_000,
} as const;

/**
 * The kit's reading of every "about" of the document's webhook schedule ("about 15 seconds", "about 40 minutes", "about
 * 80 to 100 minutes"): within ±25 % of the figure (the span: 80 − 25 % to 100 + 25 %), on the target's clock, before the
 * absolute allowances for timers, the network and the attempt's own length (jitterMs, the ack limit). One reading for
 * every target, documented in docs/WRITING-CHECKS.md.
 */
export const ABOUT_TOLERANCE = 0.25;

/** The clauses whose checks judge a wait against an "about" figure with the tolerance. */
export const ABOUT_CLAUSES = ['webhook.retry.growing-waits', 'webhook.retry.total-span'] as const;

/** A profile value that widens one of the kit's allowances: the checks that judged with it are loosened. */
export interface LoosenedAllowance {
  /** The profile field, e.g. `webhooks.tolerance`. */
  field: string;
  /** What the profile says, and the kit's own reading it widens. */
  declared: number;
  reading: number;
  /** The clauses whose checks judged with the wider allowance. */
  clauses: string[];
}

/** The allowances this profile widens beyond the kit's readings (none for a profile that keeps them). */
export function loosenedAllowances(profile: Profile): LoosenedAllowance[] {
  const declared = profile.webhooks?.tolerance;
  if (declared === undefined || declared <= ABOUT_TOLERANCE) return [];
  return [{ field: 'webhooks.tolerance', declared, reading: ABOUT_TOLERANCE, clauses: [...ABOUT_CLAUSES] }];
}

export interface WebhookTiming {
  timeScale: number;
  /** Effective ack limit of the target (already scaled), ms. */
  ackTimeoutMs: number;
  /** How long to wait for an event that must come, and to be sure one that must not come does not, ms. */
  deliveryWaitMs: number;
  /**
   * Relative tolerance on the document's "about" figures: the kit's reading (ABOUT_TOLERANCE), or the profile's where it
   * is wider (a loosened check, named in the certificate).
   */
  tolerance: number;
  /** Absolute allowance on each measured wait for timer and network delays, ms. */
  jitterMs: number;
}

const DEFAULT_JITTER_MS = 250;

/** The profile's webhook timing; a profile without a webhooks section skips the check. */
export function webhookTiming(profile: Profile): WebhookTiming {
  const w = profile.webhooks;
  if (!w) throw new PreconditionSkip('the profile declares no webhooks section (webhooks)', { declare: ['webhooks'] });
  return {
    timeScale: w.timeScale,
    ackTimeoutMs: w.ackTimeoutMs,
    deliveryWaitMs: w.deliveryWaitMs,
    tolerance: Math.max(w.tolerance, ABOUT_TOLERANCE),
    jitterMs: w.jitterMs ?? DEFAULT_JITTER_MS,
  };
}

/** An interface duration (ms at scale 1) on the target's clock. */
export function scaled(t: WebhookTiming, interfaceMs: number): number {
  return interfaceMs * t.timeScale;
}

export interface Bounds {
  min: number;
  max: number;
}

/**
 * Bounds for the gap between two arrivals around a wait of about `interfaceMs`. The document does
 * not say whether a wait runs from the start or the end of an attempt, so the upper bound allows
 * for the attempt's own length: `attemptMs`, how long the earlier attempt could have lasted on the
 * target's side (see attemptAllowanceMs; by default the whole ack limit).
 */
export function gapBounds(t: WebhookTiming, interfaceMs: number, attemptMs: number = t.ackTimeoutMs): Bounds {
  const e = scaled(t, interfaceMs);
  return { min: Math.max(0, e * (1 - t.tolerance) - t.jitterMs), max: e * (1 + t.tolerance) + attemptMs + t.jitterMs };
}

/**
 * How long an attempt answered this way lasted on the target's side: the receiver's own reply
 * delay, never more than the target's ack limit (after which the target gives up).
 */
export function attemptAllowanceMs(t: WebhookTiming, d: Pick<Delivery, 'reply'>): number {
  return Math.min(wireReply(d.reply, t.ackTimeoutMs).delayMs ?? 0, t.ackTimeoutMs);
}

/**
 * Bounds for first-to-last arrival over the whole schedule. `attemptsMs` is the summed length of
 * the attempts before the last (by default 8 ack limits).
 */
export function spanBounds(t: WebhookTiming, attemptsMs: number = (INTERFACE_WEBHOOK_FIGURES.attempts - 1) * t.ackTimeoutMs): Bounds {
  const f = INTERFACE_WEBHOOK_FIGURES;
  return {
    min: Math.max(0, scaled(t, f.spanMinMs) * (1 - t.tolerance) - t.jitterMs),
    max: scaled(t, f.spanMaxMs) * (1 + t.tolerance) + attemptsMs + t.jitterMs,
  };
}

export function within(value: number, b: Bounds): boolean {
  return value >= b.min && value <= b.max;
}

/**
 * How late our receiver noted this delivery after the embedded sandbox had written it whole (harness/check/lag.ts,
 * arrivalLateMs): 0 for a target that is not ours.
 */
export function arrivalLate(d: Pick<Delivery, 'receivedAt'> & Partial<Pick<Delivery, 'headers'>>): number {
  return d.headers ? arrivalLateMs(headerValue(d.headers, 'X-Nonce'), d.receivedAt) : 0;
}

/**
 * Whether a measured span between two arrivals [from, to] is outside its bounds by no more than the time
 * our own process lost in it: then a detail saying so,
 * for recordMachineBusy just before the finding it excuses, so the finding is retried rather
 * than charged. A miss larger than our lost time, or than MAX_LAG_STRETCH times the bound, stands.
 * `arrivals`, the two deliveries, add how late each was noted after the embedded sandbox wrote it (arrivalLate).
 */
export function lagExcuse(
  value: number,
  b: Bounds,
  from: number,
  to: number,
  what: string,
  arrivals?: readonly [Pick<Delivery, 'headers' | 'receivedAt'>, Pick<Delivery, 'headers' | 'receivedAt'>],
): string | undefined {
  const late = value > b.max;
  const miss = late ? value - b.max : b.min - value;
  if (miss <= 0) return undefined;
  // Lost time only delays, and one timer (the sender's next attempt, or our noting of its arrival) is late by the
  // stall it fell in, not by every stall of the window: many short stalls summed would excuse a sender that waited
  // far too long (the kill matrix's webhook-first-wait-60s survived that way). So a span too long is excused only by
  // the longest single stall along it, and one too short only by the stall that made us note its first arrival late.
  const stall = late ? processLag().longestStallDuring(from, to) : processLag().longestStallDuring(from - b.min, from + 1);
  // Under heavy load our receiver's process notes an arrival up to 700 ms after the sandbox wrote it, in many short
  // stalls that none is significant alone (docs/ROADMAP.md, "Timing verdicts on a starved machine"). Where the sandbox is ours its
  // write time says exactly how late the arrival that moved the span was noted: the later one for a span too long,
  // the earlier one for a span too short. Never summed over the window, so a sender that waited too long still is.
  const noted = arrivals ? arrivalLate(late ? arrivals[1] : arrivals[0]) : 0;
  const lost = Math.max(stall, noted);
  if (lost < LAG_SIGNIFICANT_MS || miss > Math.min(lost, lagAllowanceMs(late ? b.max : b.min))) return undefined;
  return noted > stall
    ? `${what} missed its bounds by ${fmtMs(miss)}; our receiver noted the ${late ? 'later' : 'earlier'} delivery ` +
        `${fmtMs(noted)} after the sandbox had written it`
    : `${what} missed its bounds by ${fmtMs(miss)}; our process lost ${fmtMs(lost)} meanwhile`;
}

export function fmtMs(ms: number): string {
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

export function fmtBounds(b: Bounds): string {
  return `${fmtMs(b.min)} .. ${fmtMs(b.max)}`;
}

/** Notes an excuse (lagExcuse) on the running check, if there is one. */
export function noteExcuse(excuse: string | undefined): void {
  if (excuse) recordMachineBusy(excuse);
}

/** Longest a first retry may take to arrive after the first attempt did. */
export function firstRetryWithinMs(t: WebhookTiming): number {
  return gapBounds(t, INTERFACE_WEBHOOK_FIGURES.firstWaitMs).max + t.ackTimeoutMs;
}

/**
 * How long to watch for a retry that must come: the latest the first retry may arrive, plus the
 * profile's delivery wait as margin for a loaded target.
 */
export function retryWindowMs(t: WebhookTiming): number {
  return firstRetryWithinMs(t) + t.deliveryWaitMs;
}

/**
 * How long to watch, after an acknowledged delivery, to be sure it is not sent again: at least
 * the profile's delivery wait, and never less than the first retry would take.
 */
export function quietWindowMs(t: WebhookTiming): number {
  return Math.max(t.deliveryWaitMs, firstRetryWithinMs(t));
}

/** How long to wait for all 9 attempts of a never-acknowledged webhook to arrive. */
export function fullScheduleWithinMs(t: WebhookTiming): number {
  return spanBounds(t).max + t.ackTimeoutMs + t.deliveryWaitMs;
}

/**
 * Until when to watch for a tenth attempt: the document's bound on the whole schedule ("the last
 * attempt is about 80 to 100 minutes after the first", with the profile's tolerance) counted from the
 * first attempt, with the same allowance the span check gives: the measured length of the attempts
 * before the ninth (a receiver that answers at once adds nothing), not eight whole ack limits. An
 * attempt before it is seen; one after it could only be a last attempt later than the span allows.
 */
export function extraAttemptWatchEndsAt(t: WebhookTiming, deliveries: readonly Pick<Delivery, 'reply' | 'receivedAt'>[]): number {
  const before = deliveries.slice(0, INTERFACE_WEBHOOK_FIGURES.attempts - 1);
  return (
    deliveries[0]!.receivedAt +
    spanBounds(
      t,
      before.reduce((sum, d) => sum + attemptAllowanceMs(t, d), 0),
    ).max
  );
}

function inArrivalOrder(ds: readonly Delivery[]): Delivery[] {
  return [...ds].sort((a, b) => a.receivedAt - b.receivedAt || a.seq - b.seq);
}

/**
 * The gap between two consecutive attempts of one webhook as the target made it, when the target is the embedded
 * sandbox and wrote its plan down (harness/check/lag.ts writeRecordOf): the wait it chose before the later attempt,
 * plus how long the earlier attempt lasted before that wait began, up to our receiver's own reply delay
 * (attemptAllowanceMs). The rest of the measured gap is our machine's: the later attempt written after it was due,
 * each attempt noted by our receiver after it was written, the sandbox handling our reply late — on a starved runner,
 * hundreds of ms in many short stalls that no timer-drift meter sees as one. undefined for a target that is not ours:
 * its gap is judged as measured, and only a stall we saw (lagExcuse) may excuse a miss.
 */
export function sandboxGapMs(t: WebhookTiming, earlier: Delivery, later: Delivery): number | undefined {
  const a = writeRecordOf(nonceOf(earlier), earlier.receivedAt);
  const b = writeRecordOf(nonceOf(later), later.receivedAt);
  if (!a || b?.dueAt === undefined || b.waitMs === undefined) return undefined;
  const attemptMs = b.dueAt - b.waitMs - a.at;
  return b.waitMs + Math.min(attemptMs, attemptAllowanceMs(t, earlier));
}

function nonceOf(d: Delivery): string | undefined {
  return d.headers ? headerValue(d.headers, 'X-Nonce') : undefined;
}

export interface JudgedGaps {
  /** Between consecutive arrivals, as our receiver noted them, ms. */
  measured: number[];
  /** What each verdict is given: the target's own gap where its plan is known (sandboxGapMs), else the measured one. */
  judged: number[];
  /** Whether each judged gap is the target's own: then no lost time of ours may excuse a miss (lagExcuse). */
  exact: boolean[];
}

/** The gaps of a webhook's attempts, measured and as judged (sandboxGapMs). */
export function judgedGaps(t: WebhookTiming, ds: readonly Delivery[]): JudgedGaps {
  const sorted = inArrivalOrder(ds);
  const out: JudgedGaps = { measured: [], judged: [], exact: [] };
  for (let i = 1; i < sorted.length; i++) {
    const measured = sorted[i]!.receivedAt - sorted[i - 1]!.receivedAt;
    const own = sandboxGapMs(t, sorted[i - 1]!, sorted[i]!);
    out.measured.push(measured);
    out.judged.push(own ?? measured);
    out.exact.push(own !== undefined);
  }
  return out;
}

/**
 * A line for the check's notes when our machine's share of the measured gaps was significant (LAG_SIGNIFICANT_MS):
 * the gaps measured, and that the verdict was given on the target's own.
 */
export function machineShareNote(g: JudgedGaps): string | undefined {
  const worst = Math.max(0, ...g.measured.map((m, i) => Math.abs(m - g.judged[i]!)));
  if (worst < LAG_SIGNIFICANT_MS) return undefined;
  return (
    `our receiver measured the gaps ${g.measured.map(fmtMs).join(', ')}; judged on the embedded sandbox's own ` +
    `(${g.judged.map(fmtMs).join(', ')}), as its write log put up to ${fmtMs(worst)} of a gap on our machine`
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/**
 * Why a suite that judges delivery times runs its checks one after another at a compressed time scale: at once, their
 * webhooks crowd the target's delivery queue and our receiver, and a delivery late by that — our traffic — would be
 * charged to the target. At real time the document's waits are seconds and a queue's delay is not.
 */
export const TIMED_DELIVERIES = 'it judges delivery times at a compressed time scale; checks at once crowd the delivery queue';
