import { defineConfig } from 'vitest/config';
import { readRunConfig } from './harness/run/config.js';
import { reportPaths } from './harness/report/paths.js';
import ProgressReporter from './harness/report/progress-reporter.js';
import LongestFirstSequencer, { runWorkers } from './harness/run/sequencer.js';
import StreamingAllureReporter from './harness/report/allure-streaming.js';
import { loadProfile } from './harness/profile/load.js';
import { makeRedactor } from './harness/kit/redact.js';
import { join } from 'node:path';
import { CODE_EXT, VITE_CACHE_DIR } from './harness/kit/kit-files.js';
import { nativeModules } from './harness/run/native-modules.js';
import { warmValidatorCache } from './harness/http/envelope.js';

const cfg = readRunConfig();
const paths = reportPaths(cfg.reportsDir);
// The workers' schema validators compiled here, once, when the cache lacks them (a kit's first run): otherwise each
// worker compiles the same ones at the same time.
warmValidatorCache();

/** What the terminal shows goes through the same redactor as every file the run writes. */
function terminalRedactor(): (text: string) => string {
  try {
    const loaded = loadProfile(cfg.profilePath, process.env, { schemaPassedSha256: cfg.profileSha256 });
    return makeRedactor(Object.values(loaded.merchants).flatMap((m) => (typeof m === 'object' ? [m.secret] : [])));
  } catch {
    return (text) => text;
  }
}

// The conformance run: suites against one target. Progress on the terminal, results, JUnit and
// Allure results under reportsDir; the CLI (harness/cli/run.ts) turns them into the verdict,
// the certificate and the HTML report afterwards.
export default defineConfig({
  // vitest's own cache (its results.json) in the run's folder: written by this run alone, removed with it.
  cacheDir: cfg.moduleCacheDir ? join(cfg.moduleCacheDir, 'vite') : VITE_CACHE_DIR,
  test: {
    // From sources in a clone (.ts), compiled under dist/ in an installed kit (.js).
    include: [`suites/**/*.test${CODE_EXT}`],
    globalSetup: [`./harness/run/global-setup${CODE_EXT}`],
    setupFiles: ['allure-vitest/setup'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two on two cores: each worker loads the whole harness (about 0.7 s of CPU), and
    // the run-wide request pool (harness/run/pool.ts) keeps both busy with concurrent checks. A third worker let the
    // rest run beside the two longest files (webhook watch windows) while they wait, but on two cores the CPU it
    // costs is wall time too. At real time a third (harness/run/sequencer.ts, workersFor): the waits set the run there.
    maxWorkers: runWorkers(cfg),
    // One module graph per worker: the harness is imported twice per run, not once per suite file.
    isolate: false,
    // Longest files first (harness/run/sequencer.ts); a concurrent suite's checks all start at once.
    sequence: { sequencer: LongestFirstSequencer },
    maxConcurrency: 32,
    // The transformed harness and suites are kept on disk between runs (keyed on each file's content):
    // a run transforms only what changed since the last one, instead of every module (about 1.5 s of
    // the main process's time, which the workers wait on at start-up). In a folder of this run's own, seeded from
    // a store that runs only add whole entries to (harness/run/module-cache.ts): runs side by side share nothing
    // they write.
    server: { deps: { external: nativeModules() } },
    experimental: cfg.moduleCacheDir ? { fsModuleCache: true, fsModuleCachePath: cfg.moduleCacheDir } : { fsModuleCache: false },
    reporters: [
      new ProgressReporter({ runStatusFile: paths.runStatus, redact: terminalRedactor() }),
      ['junit', { outputFile: paths.junit, suiteName: 'mpsi-conformance', includeConsoleOutput: false }],
      new StreamingAllureReporter({ pack: paths.allureResultsPack, reportMatchers: false }),
    ],
  },
});
