/**
 * Quick runs of the embedded reference under field conditions, each with its floor and ratio
 * (run.json `floor`, harness/report/floor.ts), the 1-minute load average at its start, its verdict and its longest
 * check. Conditions: loopback; 100 ms round trip (`embedded.latencyMs` 50, as `serve --latency 50`); a gateway at
 * 50 requests/s (`embedded.rateLimit` 50 with `http.rateLimit` 50, as `serve --rate-limit 50`); the same gateway
 * with no rate declared (`learnt`: the run learns one from the throttling onset); real time (webhooks
 * `timeScale` 1, ackTimeoutMs 5000). Same seed for all; the machine may be shared: compare ratios within one sitting.
 *
 *   npx tsx bench/pool.ts [conditions=loopback,latency,rate,realtime; also: learnt] [seed=1]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, ROOT, round, writeReport } from './support/report.js';
import { timedRun } from './support/run-kit.js';
import type { RunFloor } from '../harness/report/floor.js';
import { readResults } from '../harness/run/results.js';

type Condition = 'loopback' | 'latency' | 'rate' | 'learnt' | 'realtime';
const CONDITIONS = (process.argv[2] ?? 'loopback,latency,rate,realtime').split(',') as Condition[];
const SEED = Number(process.argv[3] ?? 1);

type Profile = Record<string, unknown> & { webhooks: Record<string, unknown>; http: Record<string, unknown> };

function variant(c: Condition, base: Profile): Profile {
  const p: Profile = { ...base, webhooks: { ...base.webhooks }, http: { ...base.http } };
  delete p.$schema;
  if (c === 'latency') p.embedded = { ...(p.embedded as object), latencyMs: 50 };
  if (c === 'rate') {
    p.embedded = { ...(p.embedded as object), rateLimit: 50 };
    p.http.rateLimit = 50;
  }
  if (c === 'learnt') p.embedded = { ...(p.embedded as object), rateLimit: 50 };
  if (c === 'realtime') p.webhooks = { ...p.webhooks, timeScale: 1, ackTimeoutMs: 5000 };
  return p;
}

interface Outcome {
  condition: Condition;
  load1mAtStart: number;
  seconds: number;
  exitCode: number;
  floor?: RunFloor;
  traffic?: Record<string, number>;
  doctorMs?: number;
  /** Most requests in flight at once (the pool's count, <reports>/pool.json). */
  maxInFlight?: number;
  /**
   * Seconds from the run's start (run.json startedAt) to the first check's first request, and from the last answer
   * to a check to the CLI's exit: the start-up (doctor included) and report time around the checks.
   */
  beforeChecks?: number;
  afterChecks?: number;
  longestCheck?: { id: string; seconds: number };
  passed: number;
  failed: string[];
  noVerdict: number;
}

async function once(c: Condition, base: Profile): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), `mpsi-pool-${c}-`));
  const profile = join(dir, 'profile.json');
  writeFileSync(profile, JSON.stringify(variant(c, base), null, 2));
  const reports = join(dir, 'reports');
  const { exitCode, seconds, load1mAtStart } = await timedRun({ profile, seed: SEED, reports });
  const exitedAt = Date.now();
  const meta = JSON.parse(readFileSync(join(reports, 'run.json'), 'utf8')) as {
    floor?: RunFloor;
    traffic?: Record<string, number>;
    doctor?: { durationMs?: number };
  };
  const results = readResults(join(reports, 'results'));
  const pool = existsSync(join(reports, 'pool.json'))
    ? (JSON.parse(readFileSync(join(reports, 'pool.json'), 'utf8')) as {
        maxInFlight?: number;
        firstGrantAt?: number;
        lastReleaseAt?: number;
      })
    : {};
  // The pool's first grant and last release: the checks' sending phase (a check's stored exchanges are its last ones).
  const firstSent = pool.firstGrantAt ?? Number.NaN;
  const lastAnswered = pool.lastReleaseAt ?? 0;
  const spawnedAt = exitedAt - seconds * 1000;
  const longest = [...results].sort((a, b) => b.durationMs - a.durationMs)[0];
  rmSync(dir, { recursive: true, force: true });
  return {
    condition: c,
    load1mAtStart,
    seconds,
    exitCode,
    ...(meta.floor ? { floor: meta.floor } : {}),
    ...(meta.traffic ? { traffic: meta.traffic } : {}),
    ...(meta.doctor?.durationMs !== undefined ? { doctorMs: meta.doctor.durationMs } : {}),
    ...(pool.maxInFlight !== undefined ? { maxInFlight: pool.maxInFlight } : {}),
    ...(lastAnswered > 0
      ? { beforeChecks: round((firstSent - spawnedAt) / 1000, 1), afterChecks: round((exitedAt - lastAnswered) / 1000, 1) }
      : {}),
    ...(longest ? { longestCheck: { id: longest.checkId, seconds: round(longest.durationMs / 1000, 1) } } : {}),
    passed: results.filter((r) => r.status === 'passed').length,
    failed: results.filter((r) => r.status === 'failed').map((r) => r.checkId),
    noVerdict: results.filter((r) => r.status === 'inconclusive').length,
  };
}

const base = JSON.parse(readFileSync(join(ROOT, 'fixtures/profiles/reference.json'), 'utf8')) as Profile;
const outcomes: Outcome[] = [];
for (const c of CONDITIONS) {
  const o = await once(c, base);
  outcomes.push(o);
  const f = o.floor;
  log(
    `${c}: ${o.seconds} s wall (load ${o.load1mAtStart}), exit ${o.exitCode}, ${o.passed} passed, ${o.failed.length} failed` +
      ` [doctor ${round((o.doctorMs ?? 0) / 1000, 1)} s; longest check ${o.longestCheck?.id} ${o.longestCheck?.seconds} s;` +
      ` before the checks ${o.beforeChecks} s, after them ${o.afterChecks} s; requests ${o.traffic?.requests},` +
      ` most in flight ${o.maxInFlight}, throttled ${o.traffic?.throttledAnswers}, ${o.traffic?.throttleWaitMs} ms waited]` +
      `${o.failed.length ? ` (${o.failed.join(', ')})` : ''}, ${o.noVerdict} no verdict; ` +
      (f
        ? `floor ${round(f.floorMs / 1000, 1)} s (${f.bound}; longest ${round(f.longestForcedWaitMs / 1000, 1)} s, ` +
          `rate ${round(f.rateFloorMs / 1000, 1)} s, round trips ${round(f.sequentialRoundTripsMs / 1000, 1)} s), ` +
          `run wall ${round(f.wallMs / 1000, 1)} s, ratio ${f.ratio}`
        : 'no floor'),
  );
}
log(`→ ${writeReport('pool', { seed: SEED, outcomes })}`);
