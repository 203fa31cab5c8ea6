/**
 * Where a quick run's time goes behind a 100 ms round trip (`serve --latency 50`), or on loopback. Runs the
 * CLI once with MPSI_TRACE_EXCHANGES (harness/http/trace.ts) and draws from the trace: the doctor's phases (start, the
 * requests sent until the next phase started, and its chains: the longest runs of one-after-another round trips), and
 * in the checks phase each worker's files (start, end), each check's length against its sequential round trips, and
 * the time the pool spent with n requests in flight (0: the pool idle).
 *
 *   npx tsx bench/latency-where.ts [condition=latency|loopback] [seed=1]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, ROOT, round, writeReport } from './support/report.js';
import { timedRun } from './support/run-kit.js';
import type { TraceLine } from '../harness/http/trace.js';
import { readResults } from '../harness/run/results.js';

const CONDITION = process.argv[2] ?? 'latency';
const SEED = Number(process.argv[3] ?? 1);

const base = JSON.parse(readFileSync(join(ROOT, 'fixtures/profiles/reference.json'), 'utf8')) as Record<string, unknown>;
delete base.$schema;
if (CONDITION === 'latency') base.embedded = { ...(base.embedded as object), latencyMs: 50 };
const dir = mkdtempSync(join(tmpdir(), 'mpsi-where-'));
const profile = join(dir, 'profile.json');
const trace = join(dir, 'trace.jsonl');
const reports = join(dir, 'reports');
writeFileSync(profile, JSON.stringify(base, null, 2));
writeFileSync(trace, '');
const spawnedAt = Date.now();
const { exitCode, seconds: wallS, load1mAtStart } = await timedRun({ profile, seed: SEED, reports, env: { MPSI_TRACE_EXCHANGES: trace } });
const lines = readFileSync(trace, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as TraceLine);
const results = readResults(join(reports, 'results'));
rmSync(dir, { recursive: true, force: true });

type Sent = Required<Pick<TraceLine, 'pid' | 'label' | 'startedAt' | 'totalMs'>> & TraceLine & { end: number };
const sent: Sent[] = lines
  .filter((l) => l.startedAt !== undefined)
  .map((l) => ({ ...(l as Sent), end: l.startedAt! + (l.queuedMs ?? 0) + l.totalMs! }));
const s = (ms: number) => round(ms / 1000, 2);

/** The most round trips one after another: requests taken in start order, each after the previous one's answer. */
function chainOf(xs: readonly Sent[]): number {
  let n = 0;
  let until = Number.NEGATIVE_INFINITY;
  for (const x of [...xs].sort((a, b) => a.startedAt - b.startedAt)) {
    if (x.startedAt >= until - 1) {
      n += 1;
      until = x.end;
    }
  }
  return n;
}

// The doctor: requests outside any check.
const doctor = sent.filter((x) => x.checkId === undefined);
const phases = lines.filter((l) => l.phase !== undefined);
const d0 = Math.min(...doctor.map((x) => x.startedAt), ...phases.map((p) => p.at));
const dEnd = Math.max(...doctor.map((x) => x.end));
// Phases started together (within 50 ms) are one stage: they run side by side.
const stages: { at: number; phases: string[] }[] = [];
for (const p of phases) {
  const open = stages[stages.length - 1];
  if (open && p.at - open.at < 50) open.phases.push(p.phase!);
  else stages.push({ at: p.at, phases: [p.phase!] });
}
const doctorPhases = stages.map((st, i) => {
  const next = stages[i + 1]?.at ?? dEnd + 1;
  const mine = doctor.filter((x) => x.startedAt >= st.at && x.startedAt < next);
  return {
    phase: st.phases.join(' + '),
    startS: s(st.at - d0),
    wallS: s(next - st.at),
    requests: mine.length,
    sequentialRoundTrips: chainOf(mine),
  };
});
// The doctor's longest chains by label stem: which probes hold it.
const stems = new Map<string, Sent[]>();
for (const x of doctor) {
  const stem = x.label
    .replace(/^doctor: /, '')
    .replace(/[\d.]+/g, '#')
    .split(' ')
    .slice(0, 3)
    .join(' ');
  stems.set(stem, [...(stems.get(stem) ?? []), x]);
}

// The checks.
const checks = sent.filter((x) => x.checkId !== undefined);
const c0 = Math.min(...checks.map((x) => x.startedAt));
const byCheck = new Map<string, Sent[]>();
for (const x of checks) byCheck.set(x.checkId!, [...(byCheck.get(x.checkId!) ?? []), x]);
const durations = new Map(results.map((r) => [r.checkId, r.durationMs]));
const perCheck = [...byCheck].map(([id, xs]) => ({
  id,
  pid: xs[0]!.pid,
  startS: s(Math.min(...xs.map((x) => x.startedAt)) - c0),
  endS: s(Math.max(...xs.map((x) => x.end)) - c0),
  durationS: s(durations.get(id) ?? 0),
  requests: xs.length,
  sequentialRoundTrips: chainOf(xs),
}));
perCheck.sort((a, b) => b.durationS - a.durationS);
const perFile = new Map<string, typeof perCheck>();
for (const c of perCheck) {
  const f = c.id.split('/')[0]!;
  perFile.set(f, [...(perFile.get(f) ?? []), c]);
}
const files = [...perFile]
  .map(([file, cs]) => ({
    file,
    pids: [...new Set(cs.map((c) => c.pid))],
    firstRequestS: Math.min(...cs.map((c) => c.startS)),
    lastAnswerS: Math.max(...cs.map((c) => c.endS)),
    longestCheckS: Math.max(...(results.filter((r) => r.checkId.startsWith(`${file}/`)).map((r) => s(r.durationMs)) ?? [0])),
    checks: results.filter((r) => r.checkId.startsWith(`${file}/`)).length,
  }))
  .sort((a, b) => a.firstRequestS - b.firstRequestS);
// Time with n requests in flight (the pool's view).
const edges = checks.flatMap((x) => [
  { t: x.startedAt + (x.queuedMs ?? 0), d: 1 },
  { t: x.end, d: -1 },
]);
edges.sort((a, b) => a.t - b.t || a.d - b.d);
const inFlight: Record<string, number> = {};
let cur = 0;
let last = c0;
for (const e of edges) {
  const bucket = cur === 0 ? '0' : cur <= 4 ? '1-4' : cur <= 12 ? '5-12' : cur <= 31 ? '13-31' : '32+';
  inFlight[bucket] = (inFlight[bucket] ?? 0) + (e.t - last);
  cur += e.d;
  last = e.t;
}
for (const k of Object.keys(inFlight)) inFlight[k] = s(inFlight[k]!);
const workers = [...new Set(checks.map((x) => x.pid))].map((pid) => ({
  pid,
  files: files.filter((f) => f.pids.includes(pid)).map((f) => `${f.file} ${f.firstRequestS}–${f.lastAnswerS}`),
}));

// Where the wall goes around the two phases: start-up until the doctor's first request, the doctor, its last answer
// until the first check's request (vitest's workers held until go), the checks, and their last answer until the exit.
const cEnd = Math.max(...checks.map((x) => x.end));
const tried = lines.find((l) => l.roundTrip !== undefined)?.roundTrip;
const around = {
  startUpS: s(d0 - spawnedAt),
  doctorS: s(dEnd - d0),
  doctorToChecksS: s(c0 - dEnd),
  checksS: s(cEnd - c0),
  afterChecksS: s(spawnedAt + wallS * 1000 - cEnd),
  ...(tried ? { roundTripTriesS: [s(tried.startedAt - spawnedAt), s(tried.endedAt - spawnedAt)] } : {}),
};
log(`${CONDITION}: ${wallS} s wall (load ${load1mAtStart}), exit ${exitCode}`);
log(`  ${JSON.stringify(around)}`);
log(`doctor: ${doctor.length} requests over ${s(dEnd - d0)} s, ${chainOf(doctor)} round trips one after another`);
for (const p of doctorPhases) log(`  ${p.startS} s, ${p.wallS} s: ${p.phase}: ${p.requests} requests, chain ${p.sequentialRoundTrips}`);
const longStems = [...stems].map(([stem, xs]) => ({ stem, requests: xs.length, chain: chainOf(xs) })).sort((a, b) => b.chain - a.chain);
for (const x of longStems.slice(0, 8)) log(`  chain ${x.chain} (${x.requests} requests): ${x.stem}`);
log(`checks: ${checks.length} requests over ${s(Math.max(...checks.map((x) => x.end)) - c0)} s; time by requests in flight (s):`);
log(`  ${JSON.stringify(inFlight)}`);
for (const w of workers) log(`  worker ${w.pid}: ${w.files.join(', ')}`);
for (const c of perCheck.slice(0, 10))
  log(`  ${c.durationS} s, ${c.requests} requests, chain ${c.sequentialRoundTrips}: ${c.id.slice(0, 100)}`);
const report = {
  condition: CONDITION,
  seed: SEED,
  load1mAtStart,
  wallS,
  exitCode,
  around,
  doctorPhases,
  longStems,
  files,
  inFlight,
  perCheck,
};
log(`→ ${writeReport('latency-where', report)}`);
