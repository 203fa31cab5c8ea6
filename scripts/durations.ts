/**
 * `npx tsx scripts/durations.ts <quick-run reports dir>[,<dir>…] [<full-run reports dir>[,<dir>…]] [<real-time quick run dirs>]`:
 * rewrites
 * harness/run/durations.json, the expected seconds per suite file that harness/run/sequencer.ts
 * starts longest first, from the stored results of runs against the reference. A file's time is the
 * sum of its checks' times, or the longest one for a suite whose checks run at once (concurrent);
 * with several reports directories (comma-separated), the median over them. `-` keeps a mode's figures as they are;
 * the real-time figures come from quick runs of a profile whose webhooks `timeScale` is 1 (bench/pool.ts's realtime).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readResults } from '../harness/run/results.js';
import { loadSuites } from '../harness/run/suites.js';
import { runsConcurrently } from '../harness/check/define.js';

const [quickDir, fullDir, realtimeDir] = process.argv.slice(2);
if (!quickDir) {
  console.error('usage: durations <quick-run reports dir|-> [<full-run reports dir|->] [<real-time quick-run reports dir>]');
  process.exit(2);
}
const suites = await loadSuites();
// Measured on the reference, whose webhook time scale is compressed (below 1), or at real time (some suites run their
// checks at once only there).
const concurrentAt = (timeScale: number) => new Set(suites.filter((s) => runsConcurrently(s, timeScale)).map((s) => s.name));
let concurrent = concurrentAt(0);

/**
 * Seconds per suite file (keyed like suites/<key>.test.ts), every file: a 0.4-s file left unknown
 * sorts by name and may start last, where it alone keeps a finished run waiting.
 */
function secondsOfOneRun(dir: string): Map<string, number> {
  const per = new Map<string, number[]>();
  for (const r of readResults(join(dir, 'results'))) per.set(r.suite, [...(per.get(r.suite) ?? []), r.durationMs / 1000]);
  return new Map([...per].map(([suite, xs]) => [suite, concurrent.has(suite) ? Math.max(...xs) : xs.reduce((a, b) => a + b, 0)]));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function secondsPerFile(dirs: string): Record<string, number> {
  const runs = dirs.split(',').map(secondsOfOneRun);
  const suites = new Set(runs.flatMap((r) => [...r.keys()]));
  const out: [string, number][] = [...suites].map((suite) => [
    suite,
    Math.max(0.01, Math.round(median(runs.map((r) => r.get(suite) ?? 0)) * 100) / 100),
  ]);
  return Object.fromEntries(out.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
}

const file = fileURLToPath(new URL('../harness/run/durations.json', import.meta.url));
type Figures = Record<string, number>;
const previous = existsSync(file)
  ? (JSON.parse(readFileSync(file, 'utf8')) as { quick?: Figures; full?: Figures; realtime?: Figures })
  : {};
const given = (dir: string | undefined): dir is string => dir !== undefined && dir !== '-';
const quick = given(quickDir) ? secondsPerFile(quickDir) : (previous.quick ?? {});
const full = given(fullDir) ? secondsPerFile(fullDir) : (previous.full ?? quick);
concurrent = concurrentAt(1);
const realtime = given(realtimeDir) ? secondsPerFile(realtimeDir) : previous.realtime;
const durations = {
  $comment:
    'Expected seconds per suite file on the reference (harness/run/sequencer.ts starts the longest first). Rewrite ' +
    'with: npx tsx scripts/durations.ts <reports-dirs-of-quick-runs,comma-separated> [<reports-dir-of-a-full-run>] ' +
    '[<reports-dirs-of-real-time-quick-runs>] (- keeps a mode as it is)',
  quick,
  // Without a full run's reports the full-mode figures stay as they are (a quick run's would misorder a full one).
  full,
  off: {},
  ...(realtime ? { realtime } : {}),
};
writeFileSync(file, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`wrote ${file}`);
