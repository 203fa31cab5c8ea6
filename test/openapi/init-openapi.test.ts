/**
 * init --openapi against a target with its own description (`describe --openapi` of its true profile, as its vendor
 * would publish it): the draft states no fact otherwise than the target is (judged fact by fact by
 * test/legal-targets/init.ts), leaves nothing out without a TODO, and, on the reference's own description, the draft
 * completed at its TODOs runs the quick suite with no check failing and none skipped that the true profile runs
 * (CONFORMANT). A generated target (seed printed; LEGAL_TARGETS_SEED replays) is judged the same way, without the run,
 * on its describe'd description and on the vendor's own in each style of the gallery (fixtures/openapi-gallery/vendor.ts).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { targetGenome } from '../../fixtures/arbitraries/genome.js';
import { GALLERY_STYLES } from '../../fixtures/openapi-gallery/vendor.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { loadSuites } from '../../harness/run/suites.js';
import { initOverGenome } from '../legal-targets/init.js';
import { runSeed } from '../legal-targets/properties.js';

let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

describe('init --openapi', () => {
  it("on the reference's own description: no wrong value, a TODO for every fact left out, and completed it is CONFORMANT", async () => {
    const r = await initOverGenome({ readings: [] }, { openapi: true, run: { suites, seed: 1, numRuns: 5 } });
    console.log(`reference: ${r.written}/${r.facts} facts written with --openapi, ${r.todos.length} TODOs, ${r.probes} requests`);
    expect(r.exit, r.stdout.slice(-800)).toBe(0);
    expect(r.stdout).toMatch(/the API description .*: \d+ facts/);
    expect(r.wrong).toEqual([]);
    expect(r.untold).toEqual([]);
    expect(r.run?.failed).toEqual([]);
    expect(r.run?.inconclusive).toEqual([]);
    expect(r.run?.skippedTruthPassed).toEqual([]);
    expect(r.run?.passed).toBeGreaterThan(0);
  }, 600_000);

  it("on a generated target's own description: no wrong value and a TODO for every fact left out", async () => {
    const seed = runSeed();
    const [g] = fc.sample(targetGenome(), { seed, numRuns: 1 });
    const r = await initOverGenome(g!, { openapi: true });
    console.log(`seed ${seed} (replay: LEGAL_TARGETS_SEED=${seed}): ${r.written}/${r.facts} facts written with --openapi`);
    expect(r.exit, r.stdout.slice(-800)).toBe(0);
    expect({ seed, wrong: r.wrong, untold: r.untold }).toEqual({ seed, wrong: [], untold: [] });
  }, 300_000);

  it.each(GALLERY_STYLES)(
    "on a generated target's description in the vendor style %s (no x-mpsi extension): no wrong value, most facts written",
    async (style) => {
      const seed = runSeed();
      const [g] = fc.sample(targetGenome(), { seed, numRuns: 1 });
      const r = await initOverGenome(g!, { openapi: style });
      console.log(`${style}, seed ${seed} (replay: LEGAL_TARGETS_SEED=${seed}): ${r.written}/${r.facts} facts written with --openapi`);
      expect(r.exit, r.stdout.slice(-800)).toBe(0);
      expect({ seed, wrong: r.wrong, untold: r.untold }).toEqual({ seed, wrong: [], untold: [] });
      expect(r.written / r.facts).toBeGreaterThanOrEqual(0.6);
    },
    300_000,
  );
});
