import { defineConfig } from 'vitest/config';

// The project's own tests (harness units, reference, kill matrix). The conformance run has its own config.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 3,
  },
});
