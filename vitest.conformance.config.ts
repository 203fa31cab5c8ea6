import { defineConfig } from 'vitest/config';
import { readRunConfig } from './harness/run/config.js';
import { reportPaths } from './harness/report/paths.js';
import ProgressReporter from './harness/report/progress-reporter.js';

const cfg = readRunConfig();
const paths = reportPaths(cfg.reportsDir);

// The conformance run: suites against one target. Progress on the terminal, results, JUnit and
// Allure results under reportsDir; the CLI (harness/cli/run.ts) turns them into the verdict,
// the certificate and the HTML report afterwards.
export default defineConfig({
  test: {
    include: ['suites/**/*.test.ts'],
    globalSetup: ['./harness/run/global-setup.ts'],
    setupFiles: ['allure-vitest/setup'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: [
      new ProgressReporter({ runStatusFile: paths.runStatus }),
      ['junit', { outputFile: paths.junit, suiteName: 'mpsi-conformance', includeConsoleOutput: false }],
      ['allure-vitest/reporter', { resultsDir: paths.allureResults, reportMatchers: false }],
    ],
  },
});
