/**
 * vitest's global setup for the conformance run (harness/run/global-setup.ts): a CLI run passes it the reference and
 * pool it hosts (RunConfig.hosted) and it starts nothing; vitest started otherwise gets both started in processes of
 * their own, stopped at teardown, with the pool's facts written for the run's floor.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_CONFIG_ENV, REFERENCE_PROFILE, type RunConfig } from '../../harness/run/config.js';
import { setup, teardown } from '../../harness/run/global-setup.js';
import { loadProfile } from '../../harness/profile/load.js';

const saved = process.env[RUN_CONFIG_ENV];
const dirs: string[] = [];
afterEach(() => {
  if (saved === undefined) delete process.env[RUN_CONFIG_ENV];
  else process.env[RUN_CONFIG_ENV] = saved;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function withConfig(extra: Partial<RunConfig>): string {
  const reportsDir = mkdtempSync(join(tmpdir(), 'mpsi-global-setup-'));
  dirs.push(reportsDir);
  process.env[RUN_CONFIG_ENV] = JSON.stringify({ profilePath: REFERENCE_PROFILE, seed: 7, reportsDir, ...extra });
  return reportsDir;
}

function fakeProject(): { project: TestProject; provided: Record<string, unknown> } {
  const provided: Record<string, unknown> = {};
  const project = { provide: (k: string, v: unknown) => (provided[k] = v) } as unknown as TestProject;
  return { project, provided };
}

describe("the conformance run's global setup", () => {
  it('takes what the CLI hosts and starts nothing of its own', async () => {
    const reportsDir = withConfig({ hosted: { referenceUrl: 'http://127.0.0.1:9', lagFile: '/nowhere/stalls.txt', poolPort: 9 } });
    const { project, provided } = fakeProject();
    await setup(project);
    await teardown();
    expect(provided).toEqual({ mpsiBaseUrl: 'http://127.0.0.1:9', mpsiSeed: 7, mpsiTargetLagFile: '/nowhere/stalls.txt', mpsiPoolPort: 9 });
    // The CLI writes the pool's facts when it closes what it hosts; global setup has none to write.
    expect(existsSync(join(reportsDir, 'pool.json'))).toBe(false);
  });

  it('started by vitest alone, starts the reference and the pool and stops both at teardown', async () => {
    const reportsDir = withConfig({});
    const { project, provided } = fakeProject();
    await setup(project);
    const url = provided.mpsiBaseUrl as string;
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(provided.mpsiTargetLagFile).toMatch(/stalls\.txt$/);
      expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBeGreaterThan(0);
    } finally {
      await teardown();
    }
    expect(JSON.parse(readFileSync(join(reportsDir, 'pool.json'), 'utf8'))).toMatchObject({
      concurrency: loadProfile(REFERENCE_PROFILE).profile.http?.concurrency,
      granted: 0,
    });
    await expect(fetch(url, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
  }, 30_000);
});
