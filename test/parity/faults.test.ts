/**
 * Reference vs reference-with-one-fault: parity must name the fault's clause as different, and
 * (ideally) nothing else. Each run takes the suites that hold a check of the fault's clause, so
 * the neighbouring checks of those suites are compared too: a fault leaking into their clauses
 * shows up here. parity-cli.test.ts runs one fault over every suite.
 *
 * `alsoDifferent` lists what else a fault is known to make differ, and why: the clauses other
 * checks charge their own findings to. Anything beyond it fails the test; so does a listed clause
 * that stops differing (the list must stay true).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SuiteDef } from '../../harness/check/define.js';
import { runParity } from '../../harness/parity/run.js';
import { loadProfile, type LoadedProfile } from '../../harness/profile/load.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue } from '../../reference/index.js';
import { REFERENCE_PROFILE } from '../cli/helpers.js';

const FAULTS: { fault: string; alsoDifferent?: string[] }[] = [
  // A production key is a signature mismatch too: the environment-keys check sees the same wrong status.
  { fault: 'auth-bad-sign-unauthorized', alsoDifferent: ['auth.env-keys'] },
  { fault: 'resp-uppercase-hex' },
  { fault: 'env-msg-ok' },
  { fault: 'accept-language-ignored' },
  { fault: 'amount-accept-3-decimals' },
  { fault: 'mutual-both-accepted' },
  { fault: 'declined-as-system-busy' },
  { fault: 'frozen-merchant-pays' },
  { fault: 'price-point-unroundable-accepted' },
  { fault: 'payout-cash-app-accepted' },
  { fault: 'payout-query-not-found-422' },
  { fault: 'refund-exceed-allowed' },
  { fault: 'webhook-refund-order-no-of-payment' },
  // A webhook that never comes: the sequence of events differs.
  { fault: 'webhook-none-on-payout-cancel' },
  // The idempotency suite's "stays used" check also sees the wrong key, and charges it to its own clause.
  { fault: 'duplicate-refund-wrong-key', alsoDifferent: ['idem.refused-stays-used'] },
  // The metadata check of payment.updated reads the same null, under the payment clause it enforces.
  { fault: 'webhook-metadata-null', alsoDifferent: ['payment.metadata.echo'] },
];

let loaded: LoadedProfile;
let suites: SuiteDef[];

beforeAll(async () => {
  loaded = loadProfile(REFERENCE_PROFILE);
  suites = await loadSuites();
});

describe('parity pinpoints the clause of a fault', () => {
  for (const { fault, alsoDifferent = [] } of FAULTS) {
    it(fault, async () => {
      const info = faultCatalogue.find((f) => f.name === fault);
      expect(info, `fault ${fault} is in the catalogue`).toBeDefined();
      const picked = suites.filter((s) => s.checks.some((c) => (c.clauses as readonly string[]).includes(info!.clause)));
      expect(picked.length, `a suite checks ${info!.clause}`).toBeGreaterThan(0);
      const r = await runParity({
        a: { loaded, baseUrl: 'embedded' },
        b: { loaded, baseUrl: 'embedded', faults: [fault] },
        suites: picked,
        settings: { seed: 9, numRuns: 10, webhooks: 'quick' },
        safe: false,
        declared: [],
      });
      const different = r.rows.filter((row) => row.verdict === 'different').map((row) => row.clause);
      expect(different, `${fault} breaks ${info!.clause}; suites ${picked.map((s) => s.name).join(', ')}`).toContain(info!.clause);
      expect(different.filter((c) => c !== info!.clause).sort()).toEqual([...alsoDifferent].sort());
      expect(r.figures.undeclared).toBeGreaterThan(0);
      // About 3 s on an idle machine; a clean-clone CI beside seven other processes on two cores took more than 20 s.
    }, 90_000);
  }
});
