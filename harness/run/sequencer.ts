/**
 * The order suite files start in: longest first, so the files that only wait (webhook watch windows,
 * and in full mode the 9-attempt schedule) start at once and everything else runs beside them,
 * instead of a long file starting last and the run waiting for it alone.
 *
 * The expected length of each file comes from harness/run/durations.json (per webhooks mode,
 * measured on the reference; `npx tsx scripts/durations.ts <reports>` rewrites it from a run), not
 * from vitest's cache: a fresh clone has no cache, and a quick run's cache would misorder a full one.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { kitFile } from '../kit/kit-files.js';
import { reportPaths } from '../report/paths.js';
import { loadProfile } from '../profile/load.js';
import { type RunConfig, readRunConfig } from './config.js';

/** Beside the sources in a clone; shipped as is (not compiled) in the package, like harness/schemas. */
const DURATIONS = kitFile('harness', 'run', 'durations.json');

export type Durations = Record<'quick' | 'full' | 'off', Record<string, number>> & {
  /**
   * Quick mode at real time (`timeScale` 1, 5 s acknowledgement): the webhook files' lengths are not the compressed
   * ones scaled (the ack limit has a floor), and two of them wait 75 s where the compressed run says 0.5 s.
   */
  realtime?: Record<string, number>;
};

/** Without the file every file counts as unknown (0 s) and the order is by name: slower, never wrong. */
export function readDurations(): Durations {
  if (!existsSync(DURATIONS)) return { quick: {}, full: {}, off: {} };
  return JSON.parse(readFileSync(DURATIONS, 'utf8')) as Durations;
}

/** The expected seconds per file for a run of this webhooks mode and time scale. */
export function expectedSeconds(d: Durations, webhooks: 'quick' | 'full' | 'off', timeScale: number): Record<string, number> {
  if (webhooks === 'quick' && timeScale >= 1 && d.realtime) return d.realtime;
  return d[webhooks] ?? {};
}

/** Below real time: two workers on two cores (vitest.conformance.config.ts says why). */
export const WORKERS = 2;

/**
 * At real time two files wait 75 s each (webhook-retry, webhook-delivery) while sending a handful of requests: with two
 * workers every other file waited for one of them, and the run took their length twice over (110 s against
 * a longest check of 75 s). A third worker runs the rest beside them; its CPU (about 0.7 s) is not the run's bound there.
 */
export function workersFor(timeScale: number, roundTripMs?: number): number {
  if (timeScale >= 1) return WORKERS + 1;
  return (roundTripMs ?? 0) >= FAR_ROUND_TRIP_MS ? FAR_WORKERS : WORKERS;
}

/**
 * A target this far away (its round trip, ms, as the CLI measured it before vitest started) keeps more workers:
 * behind a 100 ms round trip each worker's files ran one after another, a file as long
 * as its longest chain of round trips, while the pool had fewer than 13 requests in flight for 85 % of the checks'
 * time. The requests wait on the network there, not on our CPU. Loopback answers in a few ms, even on a busy machine.
 */
export const FAR_ROUND_TRIP_MS = 40;

/**
 * Workers for a far target below real time: four. With the files started longest first (a built run once started them by
 * name), a fourth worker took the checks of a 100 ms run from 15.7–16.5 s to 12.1–13.2 s (load 4.5–5.5,
 * alternated): the three workers ended within 0.3 s of each other, the phase being the sum of the files' lengths
 * shared out. Its CPU (about 0.7 s) is not that run's bound.
 */
export const FAR_WORKERS = WORKERS + 2;

/** The run's worker count, from its profile's time scale and the target's round trip (the conformance config's `maxWorkers`). */
export function runWorkers(cfg: RunConfig = readRunConfig()): number {
  return workersFor(timeScaleOf(cfg), cfg.roundTripMs);
}

/**
 * suites/<concern>.test.ts, or the built kit's dist/suites/<concern>.test.js → <concern> (the key of durations.json).
 * Keyed by `.test.ts` only, every built run's file counted as unknown and the files started by name.
 */
export function fileKey(moduleId: string): string {
  return basename(moduleId).replace(/\.test\.[cm]?[jt]s$/, '');
}

/** Longest expected first; unknown files (0 s) last; ties by name, so the order is the same every run. */
export function longestFirst<T>(items: readonly T[], key: (t: T) => string, seconds: Record<string, number>): T[] {
  return [...items].sort((a, b) => (seconds[key(b)] ?? 0) - (seconds[key(a)] ?? 0) || key(a).localeCompare(key(b)));
}

/** The profile's webhook time scale (1 when it declares none, or cannot be read here: the run reports that itself). */
function timeScaleOf(cfg: RunConfig): number {
  try {
    return (
      loadProfile(cfg.profilePath, process.env, { schemaPassedSha256: cfg.profileSha256, baseUrl: cfg.targetUrl }).profile.webhooks
        ?.timeScale ?? 1
    );
  } catch {
    return 1;
  }
}

/** The webhook suites: their checks mostly wait (watch windows, retry schedules) and send few requests. */
export function waitsMostly(key: string): boolean {
  return key.startsWith('webhook-');
}

/**
 * Longest first, except that below real time the first `workers` files are never all webhook files: one worker starts
 * the longest file that sends (the stateful check's chains, in quick mode). On loopback the three longest files are
 * webhook files that take seconds and the next one a second, so this costs nothing; behind a gateway's rate limit or a
 * network's round trip the files that send take far longer than durations.json says, and three workers that only
 * waited left the run's budget idle for their whole length (20 s of a rate-limited run sent 90 requests).
 * At real time (`timeScale` ≥ 1) the webhook files' waits (75 s) set the run: they all start first, as before.
 */
export function startOrder<T>(
  items: readonly T[],
  key: (t: T) => string,
  seconds: Record<string, number>,
  workers: number,
  timeScale: number,
): T[] {
  const sorted = longestFirst(items, key, seconds);
  const head = Math.min(workers, sorted.length);
  if (timeScale >= 1 || head < 2 || !sorted.slice(0, head).every((t) => waitsMostly(key(t)))) return sorted;
  const sender = sorted.findIndex((t) => !waitsMostly(key(t)));
  if (sender < 0) return sorted;
  const [moved] = sorted.splice(sender, 1);
  sorted.splice(head - 1, 0, moved!);
  return sorted;
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cfg = readRunConfig();
    const workers = Number(this.ctx.config.maxWorkers) || 1;
    const timeScale = timeScaleOf(cfg);
    const sorted = startOrder(
      files,
      (f) => fileKey(f.moduleId),
      expectedSeconds(readDurations(), cfg.webhooks, timeScale),
      workers,
      timeScale,
    );
    // The files this run (or shard) will run, in order: an interrupted run names the checks that did not finish from it.
    const plan = reportPaths(cfg.reportsDir).runPlan;
    mkdirSync(dirname(plan), { recursive: true });
    writeFileSync(plan, `${JSON.stringify({ files: sorted.map((f) => f.moduleId) }, null, 2)}\n`);
    return sorted;
  }
}
