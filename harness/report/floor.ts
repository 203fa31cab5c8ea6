/**
 * The run's floor: how short the run could be, bounded by the target and the document alone, and
 * how far its wall time is from it. A ratio near 1 says our scheduling costs nothing; a large one says the run waits
 * on itself. Computed when the reports are made, from the checks' stored results, run.json and the pool's facts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { LearntRate } from '../http/throttle.js';
import { isOurRequest } from '../http/exchange.js';

/** What the run-wide pool (harness/run/pool.ts) leaves in <reports>/pool.json when the run ends. */
export interface PoolFacts {
  /** The in-flight budget the run was held to (the profile's `http.concurrency`, or the default width). */
  concurrency: number;
  /** The profile's `http.rateLimit` (requests per second); absent when undeclared. */
  rateLimit?: number;
  /** Slots handed out: every send of the checks, throttled resends included. */
  granted: number;
  /** Most requests in flight at once. */
  maxInFlight: number;
  /** When the first slot was granted and the last given back, epoch ms: the checks' sending phase. */
  firstGrantAt?: number;
  lastReleaseAt?: number;
  /** The rate the pool learnt from the target's throttling when none was declared (harness/http/throttle.ts `Pacer`). */
  learntRate?: LearntRate;
}

export type FloorBound = 'longest-check' | 'rate' | 'round-trips';

/** run.json's `floor`. */
export interface RunFloor {
  /**
   * The longest single check's own time: its duration (retries of a timing finding included) less the time its
   * requests queued for a slot or rate token. A check's steps follow one another — each waits for the answer, or
   * for the webhook window or retry schedule the document imposes — so no schedule of the run ends before it.
   * Queue waits of a check's parallel requests are subtracted summed, so this errs low (the ratio errs high).
   */
  longestForcedWaitMs: number;
  /** The check that sets `longestForcedWaitMs`. */
  longestCheck?: string;
  /** Requests that got an answer: the checks' exchanges (webhook deliveries not counted) and the doctor's requests. */
  requests: number;
  /**
   * The rate the floor counts, requests per second: the profile's `http.rateLimit`, or, when it declares none and the
   * target throttled, the highest the run learnt (`rateLearnt`: the gateway let at least its onset count through, and
   * the rate rose past it only while nothing was throttled). null when neither.
   */
  rateLimit: number | null;
  /** `rateLimit` is the rate learnt from the target's throttling, not a declared one. */
  rateLearnt?: true;
  /** requests ÷ rateLimit: the least time that rate allows them in (0 without a rate). */
  rateFloorMs: number;
  /** The in-flight budget (`http.concurrency`) the run was held to. */
  concurrency: number;
  /**
   * Σ round trips ÷ concurrency: the least time the checks' requests take if `concurrency` of them are always in
   * flight. A round trip is an exchange's `totalMs` as the client timed it (its last send; the doctor's are not stored).
   */
  sequentialRoundTripsMs: number;
  /** max(longestForcedWaitMs, rateFloorMs, sequentialRoundTripsMs). */
  floorMs: number;
  /** Which of the three sets the floor. */
  bound: FloorBound;
  /** run.json's finishedAt − startedAt: start-up, doctor and checks (the reports made afterwards are not counted). */
  wallMs: number;
  /** wallMs ÷ floorMs, two decimals; null when the floor is 0 (no check ran). */
  ratio: number | null;
  /** The target throttled and no rate was declared: the rate the run learnt and paced itself at (PoolFacts). */
  learntRate?: LearntRate;
}

export interface FloorInput {
  results: readonly {
    checkId: string;
    durationMs: number;
    exchanges: readonly { id: string; timings: { totalMs: number; queuedMs?: number } }[];
    /** The check's tally of every request it sent; without it (results of an older kit) its kept exchanges are counted. */
    traffic?: { requests: number; roundTripMs?: number; queuedMs?: number };
  }[];
  doctorRequests: number;
  pool: Pick<PoolFacts, 'concurrency' | 'rateLimit' | 'learntRate'>;
  wallMs: number;
}

export function computeFloor(input: FloorInput): RunFloor {
  let longest = 0;
  let longestCheck: string | undefined;
  let requests = input.doctorRequests;
  let roundTrips = 0;
  for (const r of input.results) {
    let queued = 0;
    const t = r.traffic;
    if (t?.roundTripMs !== undefined) {
      // A check keeps only its last exchanges (MAX_EXCHANGES_KEPT); its tally counts every request it sent.
      requests += t.requests;
      roundTrips += t.roundTripMs;
      queued = t.queuedMs ?? 0;
    } else {
      for (const ex of r.exchanges) {
        if (!isOurRequest(ex)) continue;
        requests += 1;
        roundTrips += ex.timings.totalMs;
        queued += ex.timings.queuedMs ?? 0;
      }
    }
    const own = Math.max(0, r.durationMs - queued);
    if (own > longest) {
      longest = own;
      longestCheck = r.checkId;
    }
  }
  const concurrency = Math.max(1, input.pool.concurrency);
  const declared = input.pool.rateLimit && input.pool.rateLimit > 0 ? input.pool.rateLimit : null;
  const learnt = input.pool.learntRate;
  const rate = declared ?? (learnt ? Math.max(learnt.proposed, learnt.current) : null);
  const terms: [FloorBound, number][] = [
    ['longest-check', Math.round(longest)],
    ['rate', rate ? Math.round((requests / rate) * 1000) : 0],
    ['round-trips', Math.round(roundTrips / concurrency)],
  ];
  const [bound, floorMs] = terms.reduce((a, b) => (b[1] > a[1] ? b : a));
  const wallMs = Math.round(input.wallMs);
  return {
    longestForcedWaitMs: terms[0]![1],
    ...(longestCheck !== undefined ? { longestCheck } : {}),
    requests,
    rateLimit: rate,
    ...(declared === null && rate !== null ? { rateLearnt: true as const } : {}),
    rateFloorMs: terms[1]![1],
    concurrency,
    sequentialRoundTripsMs: terms[2]![1],
    floorMs,
    bound,
    wallMs,
    ratio: floorMs > 0 ? Math.round((wallMs / floorMs) * 100) / 100 : null,
    ...(input.pool.learntRate ? { learntRate: input.pool.learntRate } : {}),
  };
}

const BOUND_TEXT: Record<FloorBound, (f: RunFloor) => string> = {
  'longest-check': (f) => `the longest check${f.longestCheck ? `, ${f.longestCheck}` : ''}`,
  rate: (f) => `${f.requests} requests at ${f.rateLimit}/s${f.rateLearnt ? ' (learnt)' : ''}`,
  'round-trips': (f) => `round trips ÷ ${f.concurrency} in flight`,
};

/** The summary's line: wall against floor, and the ratio. */
export function floorLine(f: RunFloor): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const ratio = f.ratio === null ? 'no ratio (no check ran)' : `ratio ${f.ratio.toFixed(2)}`;
  const line = `Run time:    ${s(f.wallMs)} against a floor of ${s(f.floorMs)} (${BOUND_TEXT[f.bound](f)}): ${ratio}`;
  return f.learntRate ? `${line}\n${learntRateLine(f.learntRate)}` : line;
}

/** The target throttled with no rate declared: say what the run learnt, so that the user can declare it. */
export function learntRateLine(l: LearntRate): string {
  const cuts = l.decreases > 0 ? `, lowered ${l.decreases} time(s) when the target throttled under it` : '';
  const after = l.current !== l.proposed ? ` (${l.current}/s at the end${cuts})` : '';
  const onset = l.from === 'doctor' ? "the doctor's throttling onset" : 'the throttling onset';
  // The onset's count is what the gateway surely let through; a rate it later throttled under is lower still.
  const declare = Math.max(1, Math.floor(Math.min(l.proposed, l.current)));
  return (
    `Pacing:      the target throttled and no http.rateLimit is declared: the run learnt ${l.proposed} requests/s ` +
    `from ${onset} and paced itself under it${after}; declare "http": { "rateLimit": ${declare} } ` +
    '(or the rate the vendor states, if lower) to pace from the first request'
  );
}

export function writePoolFacts(file: string, facts: PoolFacts): void {
  writeFileSync(file, `${JSON.stringify(facts)}\n`);
}

/** Absent (a run without the pool, or one made before it existed): undefined, and run.json gets no floor. */
export function readPoolFacts(file: string): PoolFacts | undefined {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const v = JSON.parse(raw) as Partial<PoolFacts>;
  if (typeof v.concurrency !== 'number' || typeof v.granted !== 'number' || typeof v.maxInFlight !== 'number')
    throw new Error(`${file} is not the request pool's facts`);
  return v as PoolFacts;
}
