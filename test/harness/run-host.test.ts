/**
 * A CLI run hosts the embedded reference and the request pool in its own process (harness/run/host.ts):
 * both serve, the reference writes this process's stalls to its lag file, and closing stops both and gives the pool's
 * counts, so nothing keeps the CLI alive after its run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PoolFacts } from '../../harness/report/floor.js';
import { loadProfile } from '../../harness/profile/load.js';
import { startRunHost } from '../../harness/run/host.js';
import { connectPool } from '../../harness/run/pool.js';
import { Pacer } from '../../harness/http/throttle.js';
import { call } from '../reference/helpers/client.js';

const profile = loadProfile('fixtures/profiles/reference.json').profile;
/** Its readings are not the default's: a path only they have shows the profile reached the hosted reference. */
const altProfile = loadProfile('fixtures/profiles/reference-alt.json').profile;

function blockFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // this process cannot run its timers
  }
}

describe('the run host', () => {
  it('serves the reference and the pool, logs its stalls, and stops both when closed', async () => {
    const host = await startRunHost({ profile: altProfile, faults: [], embedded: true });
    const url = host.facts.referenceUrl;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    let facts: PoolFacts;
    try {
      expect(String((await call(url!, '/api/v1/payouts/submit', {})).json.msg)).toMatch(/^(?!Unknown path)/);
      const client = connectPool(host.facts.poolPort, new Pacer());
      await client.acquire();
      client.release(false);
      client.close();
      blockFor(150);
      await new Promise((r) => setTimeout(r, 50));
      const lines = readFileSync(host.facts.lagFile, 'utf8').trim().split('\n');
      // The block is one stall of at least its length (a loaded machine may add others around it).
      expect(Math.max(...lines.map((l) => Number(l.split(' ')[1])))).toBeGreaterThanOrEqual(100);
    } finally {
      facts = await host.close();
    }
    expect(facts).toMatchObject({ concurrency: altProfile.http?.concurrency, granted: 1, maxInFlight: 1 });
    // When the checks' first request went out and their last came back: the run's fixed start-up and report time.
    expect(facts.firstGrantAt).toBeGreaterThan(0);
    expect(facts.lastReleaseAt).toBeGreaterThanOrEqual(facts.firstGrantAt!);
    await expect(fetch(url!, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    expect(existsSync(dirname(host.facts.lagFile))).toBe(false);
    // A second close (the CLI's finally after its own close) is the same close.
    await expect(host.close()).resolves.toMatchObject({ granted: 1 });
  }, 30_000);

  it('hosts no reference for a target of its own, only the pool', async () => {
    const host = await startRunHost({ profile, faults: [], embedded: false });
    expect(host.facts.referenceUrl).toBeUndefined();
    expect(host.facts.lagFile).toBe('');
    await host.close();
  });

  it("fails with the reference's own message for a fault it does not know", async () => {
    const host = await startRunHost({ profile, faults: ['no-such-fault'], embedded: true }).then(
      (h) => h,
      (e: unknown) => e as Error,
    );
    expect(host).toBeInstanceOf(Error);
    expect((host as Error).message).toMatch(/no-such-fault/);
  });
});
