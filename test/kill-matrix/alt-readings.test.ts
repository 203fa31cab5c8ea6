/**
 * The reference's other readings (reference/readings/, fixtures/profiles/reference-alt.json) are as
 * conformant as its default ones: the whole suite runs against them under the kill matrix's three
 * seeds with quick webhooks, and under the first with the full retry schedule, with zero failures.
 * A check that fails here was tuned to our default reference, not to the document.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SuiteDef } from '../../harness/check/define.js';
import { loadProfile } from '../../harness/profile/load.js';
import type { ConformantRun } from '../../harness/proof/render.js';
import { conformantRun } from '../../harness/proof/run.js';
import { loadSuites } from '../../harness/run/suites.js';

const SEEDS = [1, 2, 3];
const ALT = 'fixtures/profiles/reference-alt.json';
let runs: ConformantRun[];
let suites: SuiteDef[];

beforeAll(async () => {
  suites = await loadSuites();
  const loaded = loadProfile(ALT);
  // The full-schedule run is mostly waiting; the quick ones go one after another, as this file runs beside
  // the kill matrix and webhook acknowledgements within the target's ack limit need a machine not flooded.
  const full = conformantRun(loaded, suites, SEEDS[0]!, 20, 'full');
  const quick: ConformantRun[] = [];
  for (const s of SEEDS) quick.push(await conformantRun(loaded, suites, s, 20, 'quick'));
  runs = [...quick, await full];
}, 600_000);

describe('the reference with its other readings', () => {
  it('is started with the alt readings by its own profile', () => {
    expect(loadProfile(ALT).profile.embedded?.readings).toBe('alt');
  });

  it('passes the whole suite under three seeds and with the full webhook schedule', () => {
    const failures = runs.flatMap((c) => c.failed.map((f) => `seed ${c.seed} ${c.webhooks}: ${f}`));
    expect(failures).toEqual([]);
    expect(runs.map((c) => c.seed)).toEqual([...SEEDS, SEEDS[0]]);
    // Nearly every check runs: a profile that skipped most of the suite would prove nothing.
    for (const c of runs) expect(c.passed, `seed ${c.seed} ${c.webhooks}: ${c.skipped} skipped`).toBeGreaterThan(190);
  });
});
