/**
 * Certification wall time against a target whose webhook schedule is not compressed much: the
 * embedded reference at time scale 0.02 (the profile's own is 0.005), with --webhooks full. The
 * reference's 9-attempt schedule lasts 15 s + 60 s + 3 min + 5 min + 10 min + 15 min + 20 min +
 * 40 min = 94.25 min at scale 1, so 113.1 s at 0.02; the document lets a run stop watching at its
 * bound on the whole schedule, 100 min × (1 + tolerance) × time scale after the first attempt.
 * Goal: full run ≤ 1.02 × that bound + the quick run's own time, so the bench makes a
 * quick run first (same profile, same seed) and reports ratio = (full − quick) / bound.
 *
 *   npx tsx bench/certification.ts [timeScale=0.02] [seed=20261122]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './conformance-run.js';
import { log, ROOT, round, writeReport } from './support/report.js';

const SCALE = Number(process.argv[2] ?? 0.02);
const SEED = Number(process.argv[3] ?? 20261122);
const SCHEDULE_MS = [15_000, 60_000, 180_000, 300_000, 600_000, 900_000, 1_200_000, 2_400_000].reduce((a, b) => a + b, 0);

const profile = JSON.parse(readFileSync(join(ROOT, 'fixtures/profiles/reference.json'), 'utf8')) as Record<string, unknown> & {
  webhooks: Record<string, unknown>;
};
delete profile['$schema'];
profile.webhooks = { ...profile.webhooks, timeScale: SCALE };
const dir = mkdtempSync(join(tmpdir(), 'mpsi-cert-'));
const profilePath = join(dir, 'reference-slow-webhooks.json');
writeFileSync(profilePath, JSON.stringify(profile, null, 2));

try {
  const scheduleS = (SCHEDULE_MS * SCALE) / 1000;
  log(`time scale ${SCALE}: the 9-attempt schedule lasts ${round(scheduleS, 1)} s`);
  const tolerance = Number(profile.webhooks.tolerance);
  const boundS = 100 * 60 * (1 + tolerance) * SCALE;
  const quick = await runCli(['--profile', profilePath, '--seed', String(SEED)]);
  log(
    `quick run: ${quick.seconds} s wall, exit ${quick.exitCode}; the span ` +
      `bound (100 min × ${1 + tolerance} × ${SCALE}) is ${round(boundS, 1)} s`,
  );
  const r = await runCli(['--profile', profilePath, '--webhooks', 'full', '--seed', String(SEED)]);
  const goalRatio = (r.seconds - quick.seconds) / boundS;
  const webhookChecks = r.results.filter((x) => x.clauses.some((c) => c.startsWith('webhook')));
  const slowest = [...r.results]
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, 5)
    .map((x) => ({ checkId: x.checkId, seconds: round(x.durationMs / 1000, 1), status: x.status }));
  const ratio = r.seconds / scheduleS;
  log(
    `run: ${r.seconds} s wall = ${round(ratio, 2)} × the schedule; (full − quick) / bound = ${round(goalRatio, 3)} (goal ` +
      `≤ 1.02); ${r.checks} checks ${JSON.stringify(r.byStatus)}; ${webhookChecks.length} webhook checks; exit ${r.exitCode}`,
  );
  for (const s of slowest) log(`  slowest: ${s.checkId} ${s.seconds} s (${s.status})`);
  log(
    `→ ${writeReport('certification', {
      timeScale: SCALE,
      seed: SEED,
      command: `npx tsx harness/cli/main.ts run --profile <reference.json with webhooks.timeScale ${SCALE}> --webhooks full --seed ${SEED}`,
      scheduleSeconds: round(scheduleS, 1),
      runSeconds: r.seconds,
      ratioToSchedule: round(ratio, 2),
      tolerance,
      spanBoundSeconds: round(boundS, 1),
      quickRunSeconds: quick.seconds,
      quickRunExitCode: quick.exitCode,
      ratioFullMinusQuickToBound: round(goalRatio, 3),
      checks: r.checks,
      byStatus: r.byStatus,
      webhookChecks: webhookChecks.length,
      webhookChecksSlowestSeconds: round(Math.max(0, ...webhookChecks.map((x) => x.durationMs)) / 1000, 1),
      slowest,
      exitCode: r.exitCode,
    })}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
