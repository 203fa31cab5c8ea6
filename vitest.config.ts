import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { longestFirst } from './harness/run/sequencer.js';

/**
 * Seconds of the slowest test files in a clean clone's `npm test` (2026-11-23, 2 cores). A clean clone
 * has no vitest cache to order files by, and the kill matrix (75 s) started last kept the run open
 * alone for over a minute; these start first, everything else after them by name.
 */
const SLOWEST: Record<string, number> = {
  'test/kill-matrix/kill-matrix.test.ts': 75,
  'test/legal-targets/properties.test.ts': 70,
  'test/init/green-run.test.ts': 35,
  'test/docs/commands.test.ts': 30,
  'test/package/install.test.ts': 31,
  'test/parity/parity-cli.test.ts': 26,
  'test/parity/faults.test.ts': 21,
  'test/init/cli.test.ts': 19,
  'test/reference/webhooks.test.ts': 15,
  'test/cli/paste-commands.test.ts': 15,
  'test/merchant/kill-matrix.test.ts': 14,
  'test/init/init.test.ts': 11,
  'test/hostile/targets.test.ts': 11,
  'test/doctor/wrong-profiles.test.ts': 10,
};

class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return longestFirst(files, (f) => relative(f.project.config.root, f.moduleId), SLOWEST);
  }
}

// The project's own tests (harness units, reference, kill matrix). The conformance run has its own config.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 3,
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
