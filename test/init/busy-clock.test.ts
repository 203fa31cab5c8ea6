/**
 * init measures the target's clock ratio from retry waits; a wait our own machine stretched measures the machine, not
 * the target. Found by `npm test` beside a busy core (init.test.ts, LEGAL_TARGETS_SEED=380584058, a fixed genome at
 * time scale 0.005): three 75 ms waits, measured side by side, all read about 450 ms; init wrote 0.03 and the completed
 * draft's `webhook-retry` check failed FIRST_WAIT_OFF against a conformant target. A wait within which this process lost
 * time is now taken again, and if every round is stretched the clock ratio is a TODO and the webhooks section is left out.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TargetGenome } from '../../fixtures/arbitraries/genome.js';
import { LagMeter, useLagMeter } from '../../harness/check/lag.js';
import { loadSuites } from '../../harness/run/suites.js';
import { initOverGenome } from '../legal-targets/init.js';

/** A meter that reports the whole of each of its first `n` windows as lost (a machine too busy to time anything). */
class BusyFirst extends LagMeter {
  calls = 0;
  constructor(private readonly n: number) {
    super();
  }
  override lostDuring(from: number, to: number): number {
    this.calls += 1;
    return this.calls <= this.n ? to - from : super.lostDuring(from, to);
  }
}

const REFERENCE: TargetGenome = { readings: [] };

/** init over the reference's genome while the meter reports the first `n` windows it is asked about as lost. */
async function initBusyFirst(n: number, opts: Parameters<typeof initOverGenome>[1] = {}) {
  const meter = new BusyFirst(n).start();
  useLagMeter(meter);
  try {
    return await initOverGenome(REFERENCE, opts);
  } finally {
    meter.stop();
  }
}

afterEach(() => useLagMeter(undefined));

describe("init's clock ratio on a busy machine", () => {
  it('takes the retry waits again when our machine lost time within every one of the first three', async () => {
    const j = await initBusyFirst(3, { run: { suites: await loadSuites(), seed: 1, numRuns: 5 } });
    expect([j.exit, j.wrong, j.untold]).toEqual([0, [], []]);
    expect(j.draft?.webhooks?.timeScale).toBeGreaterThan(0);
    expect(j.todos.map((t) => t.path)).not.toContain('webhooks.timeScale');
    // Its evidence names the six waits: the first three, stretched, and the three taken again.
    expect(j.stdout).toMatch(/webhooks\.timeScale = [\d.]+ +\(6 refused first attempts were retried (\d+ ms \(\d+ ms of it ours\), ){3}/);
    expect(j.run?.failed).toEqual([]);
  }, 300_000);

  it('takes a second round on a fast clock even when no stall was seen: one stall the meter missed stretches a round', async () => {
    const j = await initBusyFirst(0);
    expect([j.exit, j.wrong, j.untold]).toEqual([0, [], []]);
    expect(j.stdout).toMatch(/webhooks\.timeScale = [\d.]+ +\(6 refused first attempts were retried /);
  }, 300_000);

  it('writes no clock ratio when every wait was stretched: a TODO, the section left out, the completed draft green', async () => {
    // Three rounds of three waits, every one of them stretched.
    const j = await initBusyFirst(9, { run: { suites: await loadSuites(), seed: 1, numRuns: 5 } });
    expect([j.exit, j.wrong, j.untold]).toEqual([0, [], []]);
    expect(j.draft?.webhooks).toBeUndefined();
    const todos = j.todos.map((t) => t.path);
    expect(todos).toEqual(expect.arrayContaining(['webhooks', 'webhooks.timeScale']));
    expect(j.todos.find((t) => t.path === 'webhooks.timeScale')?.what).toContain('this machine lost time within every one');
    expect(j.run?.failed).toEqual([]);
    expect(j.run?.skippedTruthPassed).toEqual([]);
  }, 300_000);
});
