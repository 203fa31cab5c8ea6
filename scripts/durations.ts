/**
 * `npx tsx scripts/durations.ts <quick-run reports dir> [<full-run reports dir>]`: rewrites
 * harness/run/durations.json, the expected seconds per suite file that harness/run/sequencer.ts
 * starts longest first, from the stored results of runs against the reference. A file's time is the
 * sum of its checks' times, or the longest one for a suite whose checks run at once (concurrent).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readResults } from '../harness/run/results.js';
import { loadSuites } from '../harness/run/suites.js';

const [quickDir, fullDir] = process.argv.slice(2);
if (!quickDir) {
  console.error('usage: durations <quick-run reports dir> [<full-run reports dir>]');
  process.exit(2);
}
const concurrent = new Set((await loadSuites()).filter((s) => s.concurrent).map((s) => s.name));

/** Seconds per suite file (keyed like suites/<key>.test.ts), files under 0.5 s left out: their order does not matter. */
function secondsPerFile(dir: string): Record<string, number> {
  const per = new Map<string, number[]>();
  for (const r of readResults(join(dir, 'results'))) per.set(r.suite, [...(per.get(r.suite) ?? []), r.durationMs / 1000]);
  const out: [string, number][] = [];
  for (const [suite, xs] of per) {
    const s = concurrent.has(suite) ? Math.max(...xs) : xs.reduce((a, b) => a + b, 0);
    if (s >= 0.5) out.push([suite, Math.round(s * 10) / 10]);
  }
  return Object.fromEntries(out.sort((a, b) => b[1] - a[1]));
}

const file = fileURLToPath(new URL('../harness/run/durations.json', import.meta.url));
const quick = secondsPerFile(quickDir);
const durations = {
  $comment: 'Expected seconds per suite file on the reference (harness/run/sequencer.ts starts the longest first). Rewrite with: npx tsx scripts/durations.ts <reports-dir-of-a-quick-run> <reports-dir-of-a-full-run>',
  quick,
  full: fullDir ? secondsPerFile(fullDir) : quick,
  off: {},
};
writeFileSync(file, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`wrote ${file}`);
