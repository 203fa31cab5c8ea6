/**
 * The profile doctor against the reference (in a child process): wall time and requests of a whole
 * doctor on fixtures/profiles/reference.json, sandbox and production-safe, over a few rounds.
 *
 *   npx tsx bench/doctor.ts [rounds]
 */
import { fileURLToPath } from 'node:url';
import { runDoctor } from '../harness/doctor/run.js';
import { loadProfile } from '../harness/profile/load.js';
import { startChildReference } from './support/child-reference.js';
import { log, percentile, round, writeReport } from './support/report.js';

const ROUNDS = Number(process.argv[2] ?? 5);
const loaded = loadProfile(fileURLToPath(new URL('../fixtures/profiles/reference.json', import.meta.url)));
const ref = await startChildReference(loaded.profile.webhooks?.timeScale ?? 0.005);
const figures: Record<string, unknown> = {};
try {
  for (const safe of [false, true]) {
    const ms: number[] = [];
    let requests = 0;
    let counts: Record<string, number> = {};
    for (let i = 0; i < ROUNDS; i++) {
      const r = await runDoctor({ loaded, baseUrl: ref.url, safe });
      if (r.exitCode !== 0)
        throw new Error(
          `the doctor found the reference profile wrong: ${r.items
            .filter((x) => x.status === 'wrong')
            .map((x) => x.path)
            .join(', ')}`,
        );
      ms.push(r.durationMs);
      requests = r.requests;
      counts = r.counts;
    }
    ms.sort((a, b) => a - b);
    const name = safe ? 'safe' : 'sandbox';
    figures[name] = { rounds: ROUNDS, medianMs: percentile(ms, 50), minMs: ms[0], maxMs: ms[ms.length - 1], requests, items: counts };
    log(
      `doctor (${name}): median ${round(percentile(ms, 50) / 1000, 2)} s (min ` +
        `${round(ms[0]! / 1000, 2)}, max ${round(ms[ms.length - 1]! / 1000, 2)}` +
        `) over ${ROUNDS} rounds, ${requests} requests, ${JSON.stringify(counts)}`,
    );
  }
} finally {
  await ref.close();
}
log(`wrote ${writeReport('doctor', figures)}`);
