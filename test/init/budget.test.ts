/** Wherever the budget runs out, init stops there, says so, and still writes a profile that validates. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInit } from '../../harness/init/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import { type RunningReference, startReference } from '../../reference/index.js';

const SECRET = 'sk_test_primary_5f2c9a7e41d84b06';

describe('init under a small budget', () => {
  let ref: RunningReference;
  beforeAll(async () => {
    ref = await startReference({ port: 0, timeScale: 0.005 });
  });
  afterAll(async () => {
    await ref?.close();
  });

  it.each([3, 12])('budget %i: stops before a payment method is known, says so, and writes nothing', async (budget) => {
    await expect(
      runInit({ baseUrl: ref.url, merchantId: 'M100001', secret: SECRET, secretEnv: 'X', budget, timeLimitMs: 60_000, progress: () => {} }),
    ).rejects.toThrow(
      `init stopped (the probe budget (${budget} requests) is spent) before it learnt a ` +
        `single accepted payment method: nothing is written; raise --budget or --time-limit`,
    );
  });

  it.each([40, 90, 200, 300, 370])('budget %i: at most that many requests, a TODO saying it stopped, a valid draft', async (budget) => {
    const r = await runInit({
      baseUrl: ref.url,
      merchantId: 'M100001',
      secret: SECRET,
      secretEnv: 'INIT_BUDGET_SECRET',
      budget,
      timeLimitMs: 60_000,
      progress: () => {},
    });
    expect(r.probes).toBeLessThanOrEqual(budget);
    expect(r.stopped).toContain(`the probe budget (${budget} requests) is spent`);
    expect(r.evidence.todos.map((t) => t.path)).toContain('(budget)');
    expect(() => parseProfile(JSON.stringify(r.profile), 'draft', { INIT_BUDGET_SECRET: SECRET })).not.toThrow();
  });
});
