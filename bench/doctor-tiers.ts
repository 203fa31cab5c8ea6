/**
 * The profile doctor's budget on a long list: a profile listing 102 price points for each wallet method against a
 * reference that has them (test/doctor/long-list.ts), the doctor's default 400 requests. Says the requests it sent,
 * each kind's share (harness/doctor/budget.ts), the tiers it probed and left, and which sections had a verified item.
 *
 *   npx tsx bench/doctor-tiers.ts [seed]
 */
import { runDoctor } from '../harness/doctor/run.js';
import { startReference } from '../reference/index.js';
import { longListProfile, longListTarget } from '../test/doctor/long-list.js';
import { log, writeReport } from './support/report.js';

const seed = Number(process.argv[2] ?? 1);
const ref = await startReference({ target: longListTarget(), timeScale: 0.005 });
try {
  const r = await runDoctor({ loaded: longListProfile(), baseUrl: ref.url, seed });
  const verified = new Set(r.items.filter((i) => i.status === 'verified').map((i) => i.path.split(/[.[]/, 2).join('.')));
  const figures = {
    seed,
    requests: r.requests,
    exitCode: r.exitCode,
    counts: r.counts,
    tiersVerified: r.items.filter((i) => i.status === 'verified' && /^pricePoints\.tiers\[\d+\]/.test(i.path)).length,
    tiersLeft: r.items.filter((i) => i.path === 'pricePoints.tiers' && i.status === 'not-verifiable').map((i) => i.assumption),
    sectionsVerified: [...verified].sort(),
    topLevel: r.items.find((i) => i.path === 'top level')?.answered,
    budget: r.budget,
  };
  log(JSON.stringify(figures, null, 2));
  log(`wrote ${writeReport('doctor-tiers', figures)}`);
} finally {
  await ref.close();
}
