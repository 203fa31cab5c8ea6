import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeFloor, floorLine, readPoolFacts, writePoolFacts } from '../../harness/report/floor.js';

function ex(id: string, totalMs: number, queuedMs?: number) {
  return { id, timings: { totalMs, ...(queuedMs !== undefined ? { queuedMs } : {}) } };
}

describe('run floor', () => {
  it('is the longest check less its queue waits when that dominates, and the ratio is wall ÷ floor', () => {
    const f = computeFloor({
      results: [
        { checkId: 'webhook-ack/late', durationMs: 5_000, exchanges: [ex('x-000001', 100, 1_000), ex('wh-000001', 0)] },
        { checkId: 'amounts/three-decimals', durationMs: 300, exchanges: [ex('x-000002', 100), ex('x-000003', 100)] },
      ],
      doctorRequests: 7,
      pool: { concurrency: 8 },
      wallMs: 6_000,
    });
    expect(f).toEqual({
      longestForcedWaitMs: 4_000,
      longestCheck: 'webhook-ack/late',
      // Three of the checks' requests (the webhook delivery is the target's) and the doctor's seven.
      requests: 10,
      rateLimit: null,
      rateFloorMs: 0,
      concurrency: 8,
      sequentialRoundTripsMs: Math.round(300 / 8),
      floorMs: 4_000,
      bound: 'longest-check',
      wallMs: 6_000,
      ratio: 1.5,
    });
    expect(floorLine(f)).toBe('Run time:    6.0 s against a floor of 4.0 s (the longest check, webhook-ack/late): ratio 1.50');
  });

  it('is requests ÷ rate limit when the declared rate dominates', () => {
    const results = Array.from({ length: 100 }, (_, i) => ({
      checkId: `c/${i}`,
      durationMs: 50,
      exchanges: [ex(`x-${i}`, 10)],
    }));
    const f = computeFloor({ results, doctorRequests: 0, pool: { concurrency: 8, rateLimit: 50 }, wallMs: 2_600 });
    expect(f.rateFloorMs).toBe(2_000);
    expect(f.bound).toBe('rate');
    expect(f.floorMs).toBe(2_000);
    expect(f.ratio).toBe(1.3);
    expect(floorLine(f)).toContain('100 requests at 50/s');
  });

  it("counts a check's tally of every request it sent, not only the exchanges it kept", () => {
    const results = [
      { checkId: 'p/1', durationMs: 5_000, exchanges: [ex('x-1', 10)], traffic: { requests: 500, roundTripMs: 4_000, queuedMs: 1_000 } },
    ];
    const f = computeFloor({ results, doctorRequests: 100, pool: { concurrency: 2, rateLimit: 50 }, wallMs: 15_000 });
    expect(f.requests).toBe(600);
    expect(f.rateFloorMs).toBe(12_000);
    expect(f.sequentialRoundTripsMs).toBe(2_000);
    expect(f.longestForcedWaitMs).toBe(4_000);
  });

  it('counts the rate the run learnt when none is declared, and says it was learnt', () => {
    const results = Array.from({ length: 100 }, (_, i) => ({
      checkId: `c/${i}`,
      durationMs: 50,
      exchanges: [ex(`x-${i}`, 10)],
    }));
    const learntRate = { proposed: 40, current: 50, decreases: 1 };
    const f = computeFloor({ results, doctorRequests: 0, pool: { concurrency: 8, learntRate }, wallMs: 2_600 });
    expect(f).toMatchObject({ rateLimit: 50, rateLearnt: true, rateFloorMs: 2_000, bound: 'rate', ratio: 1.3 });
    expect(floorLine(f)).toContain('100 requests at 50/s (learnt)');
    // A declared rate is the profile's word: a rate learnt beside it (none is, today) would not replace it.
    const declared = computeFloor({ results, doctorRequests: 0, pool: { concurrency: 8, rateLimit: 25, learntRate }, wallMs: 2_600 });
    expect(declared.rateLimit).toBe(25);
    expect(declared.rateLearnt).toBeUndefined();
  });

  it('is Σ round trips ÷ concurrency when many short checks wait on the network', () => {
    const results = Array.from({ length: 40 }, (_, i) => ({
      checkId: `c/${i}`,
      durationMs: 1_000,
      exchanges: Array.from({ length: 10 }, (_, j) => ex(`x-${i}-${j}`, 100)),
    }));
    const f = computeFloor({ results, doctorRequests: 0, pool: { concurrency: 4 }, wallMs: 20_000 });
    expect(f.sequentialRoundTripsMs).toBe(10_000);
    expect(f.bound).toBe('round-trips');
    expect(f.ratio).toBe(2);
  });

  it('gives no ratio when no check ran', () => {
    const f = computeFloor({ results: [], doctorRequests: 0, pool: { concurrency: 8 }, wallMs: 1_000 });
    expect(f.floorMs).toBe(0);
    expect(f.ratio).toBeNull();
    expect(floorLine(f)).toContain('no ratio');
  });

  it('reads back the pool facts it wrote, none from a run without them, and refuses a file that is not them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'floor-'));
    const file = join(dir, 'pool.json');
    expect(readPoolFacts(file)).toBeUndefined();
    writePoolFacts(file, { concurrency: 8, rateLimit: 50, granted: 1_500, maxInFlight: 8 });
    expect(readPoolFacts(file)).toEqual({ concurrency: 8, rateLimit: 50, granted: 1_500, maxInFlight: 8 });
    writeFileSync(file, '{"suite":"x"}');
    expect(() => readPoolFacts(file)).toThrow(/not the request pool/);
  });
});
