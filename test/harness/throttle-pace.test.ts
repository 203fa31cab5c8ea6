/**
 * Throttling without a declared rate: the in-flight window alone let a run send far above a gateway's 50/s
 * (about 1,100 throttled answers for 1,300 requests) and a throttled request, waiting its Retry-After holding no slot,
 * could lose ten times in a row to fresh requests. The pacer now learns a rate from the throttling onset, paces under
 * it and keeps adapting it; a resend goes before every fresh request, in the pacer and in the run-wide pool.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newRecorder, withRecorder } from '../../harness/check/context.js';
import { computeFloor, floorLine } from '../../harness/report/floor.js';
import { connectPool, type PoolServer, parseRelease, releaseLine, startPoolServer } from '../../harness/run/pool.js';
import { Pacer, type RequestPacer, sleep, type WireAttempt } from '../../harness/http/throttle.js';

/**
 * A gateway as reference/gateway.ts counts: the requests it let through in the last second; beyond `limit`, throttled
 * with Retry-After `retryMs`. `limit` may change while it runs (a target whose limit is lower than learnt).
 */
function gateway(limit: { value: number }) {
  const admitted: number[] = [];
  return (now: number): boolean => {
    while (admitted.length > 0 && admitted[0]! <= now - 1000) admitted.shift();
    if (admitted.length >= limit.value) return false;
    admitted.push(now);
    return true;
  };
}

interface Sent {
  sent: number;
  throttled: number;
  /** Throttled answers per request, most of any one. */
  worst: number;
  /** When each throttled answer came (performance.now()). */
  throttledAt: number[];
}

/**
 * `workers` loops, each sending one request after another through `pacer` for `ms`, each request resent after its
 * throttled answer's Retry-After until admitted, as harness/http/client.ts does. A round trip is about 1 ms (loopback).
 */
async function drive(pacer: RequestPacer, admit: (now: number) => boolean, o: { workers: number; ms: number; retryMs: number }) {
  const out: Sent = { sent: 0, throttled: 0, worst: 0, throttledAt: [] };
  const end = performance.now() + o.ms;
  const loop = async () => {
    while (performance.now() < end) {
      let answers = 0;
      for (;;) {
        await pacer.acquire({ resend: answers > 0 });
        const at = performance.now();
        const ok = admit(at);
        await sleep(1);
        const attempt: WireAttempt = { at, answeredAt: performance.now(), answer: ok ? 'admitted' : 'throttled' };
        out.sent += 1;
        if (ok) {
          pacer.release(false, { attempt });
          break;
        }
        pacer.release(true, { attempt, waitMs: o.retryMs });
        out.throttled += 1;
        out.throttledAt.push(attempt.answeredAt);
        answers += 1;
        out.worst = Math.max(out.worst, answers);
        await sleep(o.retryMs);
      }
    }
  };
  await Promise.all(Array.from({ length: o.workers }, loop));
  return out;
}

describe('a rate learnt from the throttling onset (no rate declared)', () => {
  it('paces under a 20/s gateway after its onset: few throttled answers, none twice in a row', async () => {
    const pacer = new Pacer({ concurrency: 8 });
    const r = await drive(pacer, gateway({ value: 20 }), { workers: 8, ms: 4_000, retryMs: 1_000 });
    // The window alone (the old pacer): 32 of 120 sends throttled, one request 4 times in a row. Learnt: 8 of 74, none
    // twice: the onset's burst (at most the 8 in flight when the gateway's second filled), then a probe at most: the
    // rate rises by 10 % a second from the onset's sure count (13) and passes 20 once within 4 s if at all. 12 leaves
    // room for a probe's answer or two on a slow machine.
    expect(r.throttled, JSON.stringify({ ...r, throttledAt: undefined })).toBeLessThanOrEqual(12);
    expect(r.worst).toBeLessThanOrEqual(2);
    const learnt = pacer.learntRate;
    expect(learnt).toBeDefined();
    // throttleOnset's count is a sure one: never above what the gateway let through.
    expect(learnt!.proposed).toBeLessThanOrEqual(20);
    expect(learnt!.proposed).toBeGreaterThanOrEqual(5);
    // Paced, not stopped: most of the gateway's rate was used (2 s of it at least, whatever the load).
    expect(r.sent - r.throttled).toBeGreaterThanOrEqual(40);
  }, 20_000);

  it('converges when the limit falls below the rate learnt: at most a probe or two in the last 2 s', async () => {
    const pacer = new Pacer({ concurrency: 4 });
    const limit = { value: 30 };
    const admit = gateway(limit);
    await drive(pacer, admit, { workers: 4, ms: 2_500, retryMs: 500 });
    const before = pacer.learntRate!.current;
    limit.value = 8;
    const t0 = performance.now();
    const r = await drive(pacer, admit, { workers: 4, ms: 7_000, retryMs: 500 });
    const after = pacer.learntRate!;
    expect(after.current).toBeLessThan(before);
    expect(after.decreases).toBeGreaterThanOrEqual(1);
    // A probe above the limit costs an answer now and then (2 % a second rises from 8 × 0.95 past 8 in 3 s or more);
    // what must not happen is throttling all along, as with a rate that never comes down.
    const late = r.throttledAt.filter((t) => t > t0 + 5_000);
    expect(late.length, JSON.stringify({ after, late: late.length, throttled: r.throttled })).toBeLessThanOrEqual(2);
    expect(after.current).toBeLessThanOrEqual(8 / 0.95 + 1);
  }, 30_000);

  it('raises the rate again once the target stops throttling, while the rate holds requests back', async () => {
    const pacer = new Pacer({ concurrency: 4 });
    const limit = { value: 10 };
    const admit = gateway(limit);
    await drive(pacer, admit, { workers: 4, ms: 1_500, retryMs: 300 });
    const learnt = pacer.learntRate!.current;
    limit.value = 1_000_000;
    await drive(pacer, admit, { workers: 4, ms: 4_000, retryMs: 300 });
    expect(pacer.learntRate!.current).toBeGreaterThan(learnt);
  }, 20_000);

  it('waits out the throttled answer that taught it the rate: the gateway second is full', async () => {
    const pacer = new Pacer();
    // Ten admitted one after another within 100 ms, then one throttled: the gateway let ten through in its second.
    const base = performance.now() - 300;
    for (let i = 0; i < 10; i++) {
      await pacer.acquire();
      pacer.release(false, { attempt: { at: base + i * 10, answeredAt: base + i * 10 + 1, answer: 'admitted' } });
    }
    await pacer.acquire();
    pacer.release(true, { attempt: { at: base + 200, answeredAt: base + 201, answer: 'throttled' }, waitMs: 400 });
    expect(pacer.learntRate).toEqual({ proposed: 10, current: 10, decreases: 0 });
    const t0 = performance.now();
    await pacer.acquire();
    pacer.release(false);
    await pacer.acquire();
    // The Retry-After, then one interval at 10/s less 5 %: about 505 ms.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(480);
  });

  it('never changes a declared rate, whatever the target throttles', async () => {
    const pacer = new Pacer({ ratePerSecond: 40 });
    const r = await drive(pacer, gateway({ value: 10 }), { workers: 2, ms: 1_000, retryMs: 100 });
    expect(r.throttled).toBeGreaterThan(0);
    expect(pacer.learntRate).toBeUndefined();
  });
});

describe("a rate handed on from the doctor's onset", () => {
  it('paces from the first request: the onset burst a fresh pacer is throttled for does not happen', async () => {
    // Under a second: a learnt rate rises by a tenth after a second held back with nothing throttled, a probe that may
    // cost a throttled answer; what is compared here is the start.
    const o = { workers: 8, ms: 900, retryMs: 100 };
    const fresh = await drive(new Pacer(), gateway({ value: 20 }), o);
    const seeded = new Pacer();
    seeded.seedRate(20, 'doctor');
    const handed = await drive(seeded, gateway({ value: 20 }), o);
    // A fresh pacer learns only from throttled answers: its 8 loops in flight past the 20th request are the burst.
    expect(fresh.throttled).toBeGreaterThanOrEqual(4);
    expect(handed.throttled).toBe(0);
    expect(handed.sent).toBeGreaterThanOrEqual(10);
    expect(seeded.learntRate).toMatchObject({ proposed: 20, decreases: 0, from: 'doctor' });
  });

  it('leaves a declared rate, and a rate learnt already, as they are', () => {
    const declared = new Pacer({ ratePerSecond: 40 });
    declared.seedRate(20, 'doctor');
    expect(declared.learntRate).toBeUndefined();
    const seeded = new Pacer();
    seeded.seedRate(20, 'doctor');
    seeded.seedRate(5, 'doctor');
    expect(seeded.learntRate?.proposed).toBe(20);
  });

  it("says in the run's output whose onset the rate came from", () => {
    const floor = computeFloor({
      results: [],
      doctorRequests: 10,
      pool: { concurrency: 8, learntRate: { proposed: 48, current: 48, decreases: 0, from: 'doctor' } },
      wallMs: 1000,
    });
    expect(floorLine(floor)).toMatch(/learnt 48 requests\/s from the doctor's throttling onset/);
  });
});

describe('resends before fresh requests', () => {
  it('in a pacer: a resend whose wait is over goes before the fresh requests that asked earlier', async () => {
    const pacer = new Pacer({ ratePerSecond: 20 });
    const order: string[] = [];
    const ask = (name: string, resend = false) =>
      pacer.acquire({ resend }).then(() => {
        order.push(name);
        pacer.release(false);
      });
    const all = [ask('f1'), ask('f2'), ask('f3'), ask('f4')];
    await sleep(10);
    all.push(ask('r1', true), ask('r2', true));
    await Promise.all(all);
    // f1 took the first token at once; the resends then go before the fresh requests left, in their own order.
    expect(order).toEqual(['f1', 'r1', 'r2', 'f2', 'f3', 'f4']);
  });

  describe('in the run-wide pool', () => {
    const servers: PoolServer[] = [];
    const clients: { close(): void }[] = [];
    afterEach(async () => {
      for (const c of clients.splice(0)) c.close();
      for (const s of servers.splice(0)) await s.close();
    });

    it("a resend goes before an earlier-started check's fresh request", async () => {
      const s = await startPoolServer({ concurrency: 1 });
      servers.push(s);
      const a = connectPool(s.port, new Pacer());
      const b = connectPool(s.port, new Pacer());
      clients.push(a, b);
      await a.acquire();
      const fresh = withRecorder(newRecorder([], 1_000_000), () => a.acquire());
      await sleep(50);
      const resend = withRecorder(newRecorder([], 2_000_000), () => b.acquire({ resend: true }));
      await sleep(50);
      a.release(false);
      const first = await Promise.race([fresh.then(() => 'fresh'), resend.then(() => 'resend')]);
      expect(first).toBe('resend');
      b.release(false);
      await fresh;
    });

    it('learns the rate from the attempts every worker reports, and paces every worker under it', async () => {
      const s = await startPoolServer({ concurrency: 8 });
      servers.push(s);
      const ws = [connectPool(s.port, new Pacer()), connectPool(s.port, new Pacer())];
      clients.push(...ws);
      // 12 admitted within a few ms, half from each worker: the gateway counted all of them before the throttled one.
      for (let i = 0; i < 12; i++) {
        const w = ws[i % 2]!;
        await w.acquire();
        const at = performance.now();
        await sleep(1);
        w.release(false, { attempt: { at, answeredAt: performance.now(), answer: 'admitted' } });
      }
      await ws[0]!.acquire();
      const at = performance.now();
      await sleep(1);
      ws[0]!.release(true, { attempt: { at, answeredAt: performance.now(), answer: 'throttled' }, waitMs: 200 });
      await sleep(50);
      expect(s.learntRate()).toEqual({ proposed: 12, current: 12, decreases: 0 });
      const t0 = performance.now();
      for (let i = 0; i < 6; i++) {
        const w = ws[i % 2]!;
        await w.acquire();
        w.release(false);
      }
      // What is left of the 200 ms Retry-After (one goes at its end), then 5 intervals at 12/s less 5 %: about 590 ms.
      expect(performance.now() - t0).toBeGreaterThanOrEqual(500);
    });

    it('carries the wire times on the shared clock, and refuses a malformed release line', () => {
      const attempt: WireAttempt = { at: performance.now() - 5, answeredAt: performance.now(), answer: 'throttled' };
      const parsed = parseRelease(releaseLine(true, { attempt, waitMs: 1000 }).trimEnd());
      expect(parsed?.throttled).toBe(true);
      expect(parsed?.opts.waitMs).toBe(1000);
      expect(parsed?.opts.attempt?.at).toBeCloseTo(attempt.at, 0);
      expect(parsed?.opts.attempt?.answeredAt).toBeCloseTo(attempt.answeredAt, 0);
      expect(parseRelease('r0')).toEqual({ throttled: false, opts: {} });
      expect(releaseLine(false, { attempt: { ...attempt, answer: 'none' } })).toBe('r0\n');
      for (const bad of ['r2', 'r1 x y', 'r1 1 2 3 4', 'r1 -1 2', 'r0 1e9 2']) expect(parseRelease(bad)).toBeUndefined();
    });
  });
});

describe("the run's output", () => {
  it('says the rate was learnt, and which rate to declare', () => {
    const floor = computeFloor({
      results: [],
      doctorRequests: 10,
      pool: { concurrency: 8, learntRate: { proposed: 49, current: 41.3, decreases: 2 } },
      wallMs: 1000,
    });
    expect(floor.learntRate).toEqual({ proposed: 49, current: 41.3, decreases: 2 });
    const text = floorLine(floor);
    expect(text).toMatch(/learnt 49 requests\/s from the throttling onset/);
    expect(text).toMatch(/"rateLimit": 41 \}/);
    expect(floorLine(computeFloor({ results: [], doctorRequests: 1, pool: { concurrency: 8 }, wallMs: 10 }))).not.toMatch(/learnt/);
  });
});
