import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { readRunConfig } from './harness/run/config.js';

const cfg = readRunConfig();

// The conformance run: suites against one target. Results, JUnit and Allure go under reportsDir.
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
      'default',
      ['junit', { outputFile: join(cfg.reportsDir, 'junit.xml'), suiteName: 'mpsi-conformance' }],
      ['allure-vitest/reporter', { resultsDir: join(cfg.reportsDir, 'allure-results'), reportMatchers: false }],
    ],
  },
});
