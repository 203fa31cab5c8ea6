/**
 * Shared pieces of the hostile-target tests: the reference profile with a short deadline, a check
 * that goes over the client's raw-socket path, a watch for unhandled rejections and uncaught
 * exceptions, and an RSS sampler.
 */
import { fileURLToPath } from 'node:url';
import type { CheckDef } from '../../harness/check/define.js';
import { expectError } from '../../harness/check/expect.js';
import { loadProfile, type LoadedProfile } from '../../harness/profile/load.js';

export const REFERENCE_PROFILE = fileURLToPath(new URL('../../fixtures/profiles/reference.json', import.meta.url));

/** The reference profile with another HTTP deadline and response cap: a copy, the file is untouched. */
export function profileWithDeadline(deadlineMs: number, maxResponseBytes = 1_048_576): LoadedProfile {
  const loaded = loadProfile(REFERENCE_PROFILE);
  return { ...loaded, profile: { ...loaded.profile, http: { ...loaded.profile.http, deadlineMs, maxResponseBytes } } };
}

/**
 * A query with neither number, sent with a caller `Connection` header: the harness client sends
 * that over its raw socket instead of undici, so both paths meet every hostile target.
 */
export const rawPathQuery: CheckDef = {
  id: 'hostile/raw-path-query',
  title: 'refuses a query with neither number (sent over the raw-socket path)',
  clauses: ['query.neither'],
  level: 'must',
  async run({ target }) {
    const ex = await target.post(target.path('paymentQuery'), {}, { label: 'query over the raw path', headers: { Connection: 'close' } });
    expectError(ex, { code: 400, key: 'mutuallyRequiredFieldsMissing' }, 'query.neither', { what: 'a query with neither number' });
  },
};

/** Collects unhandled rejections and uncaught exceptions while installed. */
export function watchProcessErrors(): { errors: string[]; uninstall(): void } {
  const errors: string[] = [];
  const onRejection = (reason: unknown): void => {
    errors.push(`unhandledRejection: ${reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason)}`);
  };
  const onException = (err: Error): void => {
    errors.push(`uncaughtException: ${err.name}: ${err.message}`);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    errors,
    uninstall() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

/** Samples RSS every `everyMs` until stopped; reports the peak growth over the starting value. */
export function sampleRss(everyMs = 10): { stop(): { baseline: number; peak: number; growthMb: number } } {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().rss);
      return { baseline, peak, growthMb: (peak - baseline) / 1024 / 1024 };
    },
  };
}

export function findingText(f: { code: string; message: string; seen?: string; expected?: string }): string {
  return `${f.code} ${f.message} ${f.seen ?? ''}`;
}
