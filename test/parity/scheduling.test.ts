/**
 * A parity verdict is about the targets, never about the order in which our requests happened to reach
 * them. The same reference on both sides, each side's requests held back by its own seeded random
 * delays, so the parallel lanes of a stateful check interleave differently on each side (what a loaded
 * machine does): every check must still compare equal. The flake this pins down: the lanes of the
 * payouts sequences spent the low-balance merchant's five dollars side by side, so which payout was
 * refused for funds depended on which lane came first (duplicate-refund-wrong-key).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SuiteDef } from '../../harness/check/define.js';
import type { Client } from '../../harness/http/client.js';
import { runParity } from '../../harness/parity/run.js';
import { loadProfile, type LoadedProfile } from '../../harness/profile/load.js';
import { loadSuites } from '../../harness/run/suites.js';
import { REFERENCE_PROFILE } from '../cli/helpers.js';

/** Each request waits 0–`maxMs` ms (a seeded draw) before it is sent. */
function jittered(seed: number, maxMs: number): (c: Client) => Client {
  let s = seed >>> 0;
  const next = () => {
    // mulberry32: a fixed sequence per seed, so a failure names the seed that shows it.
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (c) => ({
    async send(req, opts) {
      await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * maxMs)));
      return c.send(req, opts);
    },
    close: () => c.close(),
    openSection: (spec, holds) => c.openSection(spec, holds),
  });
}

let loaded: LoadedProfile;
let stateful: SuiteDef;

beforeAll(async () => {
  loaded = loadProfile(REFERENCE_PROFILE);
  stateful = (await loadSuites()).find((s) => s.name === 'stateful')!;
});

describe('parity does not depend on the scheduling of requests', () => {
  for (const seeds of [
    [1, 2],
    [3, 4],
  ] as const) {
    it(`the stateful sequences compare equal when each side's requests are delayed differently (seeds ${seeds.join(', ')})`, async () => {
      const r = await runParity({
        a: { loaded, baseUrl: 'embedded', wrapClient: jittered(seeds[0], 12) },
        b: { loaded, baseUrl: 'embedded', wrapClient: jittered(seeds[1], 12) },
        suites: [stateful],
        settings: { seed: 9, numRuns: 10, webhooks: 'quick' },
        safe: false,
        declared: [],
        // A confirmation run could hide a scheduling-dependent difference as "unstable": one run must be equal.
        confirmRuns: 0,
      });
      expect(r.comparisons.length).toBe(stateful.checks.length);
      const different = r.comparisons
        .filter((c) => c.verdict !== 'equal')
        .map(
          (c) =>
            `${c.checkId}: ${c.verdict}; ${c.differences
              .slice(0, 3)
              .map((d) => `${d.aspect} ${d.detail}`)
              .join(' | ')}`,
        );
      expect(different).toEqual([]);
    }, 90_000);
  }
});
