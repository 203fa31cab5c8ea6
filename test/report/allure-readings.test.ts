import { describe, expect, it } from 'vitest';
import { completeAllureResults } from '../../harness/report/allure.js';
import type { RunMeta } from '../../harness/report/run-meta.js';

describe('the Allure report', () => {
  it('lists the readings the target took beside the run settings', () => {
    const meta: RunMeta = {
      kit: { name: 'k', version: '1' },
      startedAt: '2026-01-01T00:00:00Z',
      seed: 1,
      numRuns: 1,
      webhooks: 'off',
      profile: { name: 'p', file: 'p.json', environment: 'sandbox' },
      target: 'embedded',
      filters: { suites: [], clauses: [] },
      faults: [],
    };
    const files = new Map<string, Buffer>();
    completeAllureResults(
      files,
      meta,
      'http://t',
      [],
      [{ topic: 'price-point.unroundable', reading: '422 notSupported', checks: ['price-points/a', 'stateful/b'] }],
    );
    const env = files.get('environment.properties')!.toString('utf8');
    expect(env).toContain('reading.price-point.unroundable=422 notSupported (2 checks\\: price-points/a, stateful/b)');
  });
});
