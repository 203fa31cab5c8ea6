/**
 * Faults compose with genomes: a fault of the reference laid over a generated target is killed by its own
 * clause. Found by bench/legal-targets.ts --kill (seed 7): the faults that rewrite an error on one endpoint
 * matched the request path, so with other endpoint paths (a legal target) they never fired and survived.
 * Error hooks now see the route; these faults, on the smallest genome that showed it, fail without that.
 */
import { describe, expect, it } from 'vitest';
import { runKillMatrix } from '../../harness/proof/kill-matrix.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue } from '../../reference/index.js';
import { loadTrueProfile } from './genome.js';

// One fault per endpoint whose path other-endpoint-paths changes (payout create and cancel, refund create, card payment).
const FAULTS = [
  'payout-unknown-method-as-payout-method',
  'payout-cancel-not-found-5002',
  'refund-errors-code-400',
  'out-of-range-code-422',
];

describe('faults over a generated target', () => {
  it('kills each fault by its own clause on a target with other endpoint paths', async () => {
    const faults = faultCatalogue.filter((f) => FAULTS.includes(f.name));
    expect(faults.map((f) => f.name).sort()).toEqual([...FAULTS].sort());
    const rows = await runKillMatrix({
      loaded: loadTrueProfile({ readings: ['other-endpoint-paths'] }),
      suites: await loadSuites(),
      seed: 1,
      numRuns: 5,
      faults,
      parallel: 2,
    });
    expect(rows.map((r) => `${r.name}: ${r.verdict}${r.errors.length > 0 ? ` ${r.errors.join('; ')}` : ''}`)).toEqual(
      faults.map((f) => `${f.name}: killed`),
    );
  }, 120_000);
});
