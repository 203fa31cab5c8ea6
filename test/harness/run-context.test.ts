import { afterEach, describe, expect, it } from 'vitest';
import { RUN_CONFIG_ENV } from '../../harness/run/config.js';
import { runContext } from '../../harness/vitest/register.js';

const saved = process.env[RUN_CONFIG_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[RUN_CONFIG_ENV];
  else process.env[RUN_CONFIG_ENV] = saved;
});

/**
 * A worker runs about fourteen suite files: the run's profile is loaded and validated, and its redactor
 * built, once per worker, not once per file; another run configuration is read anew.
 */
describe("the run's context in a worker", () => {
  it('is read once for every suite file of the same run, and again for another run configuration', () => {
    process.env[RUN_CONFIG_ENV] = JSON.stringify({ seed: 1 });
    const first = runContext();
    expect(runContext()).toBe(first);
    expect(runContext().loaded).toBe(first.loaded);
    process.env[RUN_CONFIG_ENV] = JSON.stringify({ seed: 2 });
    const second = runContext();
    expect(second).not.toBe(first);
    expect(second.cfg.seed).toBe(2);
    expect(second.loaded.profile.name).toBe(first.loaded.profile.name);
  });
});
