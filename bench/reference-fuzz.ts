/**
 * 100,000 fuzzed malformed requests against the reference (the npm test run sends 10,000:
 * test/reference-load/fuzz.test.ts). Same generator and the same verdicts: no crash, no
 * internal failure, no HTTP status outside {200, 401, 403, 500}, every 200 a signed envelope,
 * 500 only for an unreadable body. The reference runs in a child process.
 *
 *   npx tsx bench/reference-fuzz.ts [count=100000] [seed=20261122]
 */
import { runFuzz } from '../test/reference-load/fuzz.js';
import { makeAgent } from '../test/reference-load/support.js';
import { startChildReference } from './support/child-reference.js';
import { log, mb, round, writeReport } from './support/report.js';

const COUNT = Number(process.argv[2] ?? 100_000);
const SEED = Number(process.argv[3] ?? 20261122);

const ref = await startChildReference();
const agent = makeAgent(32);
try {
  const stats = await runFuzz({ url: ref.url, agent, count: COUNT, seed: SEED, concurrency: 32, onProgress: (n) => log(`  ${n} sent`) });
  const { internalFailures } = await ref.stats();
  const memory = await ref.memory();
  const byStatus: Record<string, number> = {};
  for (const [k, n] of Object.entries(stats.byStatus)) {
    const status = k.split(' ')[1]!;
    byStatus[status] = (byStatus[status] ?? 0) + n;
  }
  log(`${stats.sent} fuzzed requests in ${round(stats.ms / 1000, 1)} s (${round(stats.sent / (stats.ms / 1000))} req/s)`);
  log(
    `statuses: ${JSON.stringify(byStatus)}; violations: ${stats.violations.length}; ` +
      `internal failures: ${internalFailures}; reference RSS after: ${mb(memory.rss)} MB`,
  );
  for (const v of stats.violations.slice(0, 20)) log(`  ✗ ${v}`);
  const file = writeReport('reference-fuzz', {
    count: COUNT,
    seed: SEED,
    seconds: round(stats.ms / 1000, 1),
    rps: round(stats.sent / (stats.ms / 1000)),
    byKind: stats.byKind,
    byStatus,
    byKindAndStatus: stats.byStatus,
    violations: stats.violations,
    internalFailures,
    referenceRssAfterMb: mb(memory.rss),
    referenceHeapUsedAfterMb: mb(memory.heapUsed),
  });
  log(`→ ${file}`);
  if (stats.violations.length > 0 || internalFailures > 0) process.exitCode = 1;
} finally {
  agent.destroy();
  await ref.close();
}
