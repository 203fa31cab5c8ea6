import { describe, expect, it } from 'vitest';
import { defineSuite, runsConcurrently } from '../../harness/check/define.js';
import { loadSuites } from '../../harness/run/suites.js';

const spec = { title: 'waits', clause: 'webhook.retry.growing-waits' as const, run: async () => {} };

describe('which suites run their checks at once', () => {
  it('runs a suite at once unless it says why not', () => {
    const free = defineSuite('free', { area: 'webhooks', resource: 'webhook' }, [spec]);
    const held = defineSuite('held', { area: 'webhooks', resource: 'webhook', sequential: 'checks share one record' }, [spec]);
    expect(runsConcurrently(free, 0.005)).toBe(true);
    expect(runsConcurrently(held, 0.005)).toBe(false);
    expect(runsConcurrently(held, 1)).toBe(false);
  });

  it('runs a timed suite one check at a time at a compressed time scale and at once at real time', () => {
    const timed = defineSuite('timed', { area: 'webhooks', resource: 'webhook', sequentialBelowRealTime: 'delivery times' }, [spec]);
    expect(runsConcurrently(timed, 0.005)).toBe(false);
    expect(runsConcurrently(timed, 1)).toBe(true);
  });

  it('lets the retry schedule checks overlap at real time, where they only wait', async () => {
    const suites = await loadSuites();
    const retry = suites.find((s) => s.name === 'webhook-retry')!;
    expect(runsConcurrently(retry, 1)).toBe(true);
    // Every suite that keeps its checks apart says why.
    for (const s of suites) if (!runsConcurrently(s, 0.005)) expect(s.sequential ?? s.sequentialBelowRealTime).toMatch(/\w/);
    expect(suites.filter((s) => runsConcurrently(s, 0.005)).length).toBeGreaterThan(suites.length / 2);
  });
});
