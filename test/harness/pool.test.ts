import { afterEach, describe, expect, it } from 'vitest';
import { newRecorder, withRecorder } from '../../harness/check/context.js';
import { connectPool, type PoolServer, startPoolProcess, startPoolServer } from '../../harness/run/pool.js';
import { Pacer } from '../../harness/http/throttle.js';

const servers: PoolServer[] = [];
const clients: { close(): void }[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function pool(opts: { concurrency: number; rateLimit?: number }): Promise<PoolServer> {
  const s = await startPoolServer(opts);
  servers.push(s);
  return s;
}

function worker(port: number, fallback = new Pacer()) {
  const c = connectPool(port, fallback);
  clients.push(c);
  return c;
}

/** Runs `fn` as part of a check that started at `startedAt` (epoch ms): its asks carry that key. */
function inCheck<T>(startedAt: number, fn: () => Promise<T>): Promise<T> {
  return withRecorder(newRecorder([], startedAt), fn);
}

/** Whether the promise settled within a few event-loop turns plus `ms` (a grant travels over loopback). */
async function settles(p: Promise<unknown>, ms = 200): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

describe('run-wide request pool', () => {
  it('shares one in-flight budget between workers: the third request of a budget of two waits for a release', async () => {
    const s = await pool({ concurrency: 2 });
    const a = worker(s.port);
    const b = worker(s.port);
    await a.acquire();
    await b.acquire();
    const third = b.acquire();
    expect(await settles(third)).toBe(false);
    a.release(false);
    expect(await settles(third, 5_000)).toBe(true);
    expect(s.granted()).toBe(3);
    expect(s.maxInFlight()).toBe(2);
  });

  it('paces all workers together under the rate limit, not each under it', async () => {
    const s = await pool({ concurrency: 100, rateLimit: 20 });
    const a = worker(s.port);
    const b = worker(s.port);
    const t0 = performance.now();
    // 20 grants at 20 per second from a burst of one: at least 19 intervals of 50 ms, however the workers share them.
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).acquire().then(() => (i % 2 ? a : b).release(false))));
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? b : a).acquire().then(() => (i % 2 ? b : a).release(false))));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(900);
    expect(s.granted()).toBe(20);
  });

  it("grants a freed slot to the earliest-started check's request, not to the first to ask", async () => {
    const s = await pool({ concurrency: 1 });
    const a = worker(s.port);
    const b = worker(s.port);
    const c = worker(s.port);
    await a.acquire();
    const later = inCheck(2_000_000, () => b.acquire());
    // Asked after the later check's request has reached the pool: a pool that serves in order of asking grants b.
    await new Promise((r) => setTimeout(r, 50));
    const earlier = inCheck(1_000_000, () => c.acquire());
    await new Promise((r) => setTimeout(r, 50));
    a.release(false);
    expect(await settles(earlier, 5_000)).toBe(true);
    expect(await settles(later)).toBe(false);
    c.release(false);
    expect(await settles(later, 5_000)).toBe(true);
  });

  it("gives a worker's grant to its own earliest-started check's waiter", async () => {
    const s = await pool({ concurrency: 1 });
    const a = worker(s.port);
    await a.acquire();
    const later = inCheck(2_000_000, () => a.acquire());
    const earlier = inCheck(1_000_000, () => a.acquire());
    await new Promise((r) => setTimeout(r, 50));
    a.release(false);
    expect(await settles(earlier, 5_000)).toBe(true);
    expect(await settles(later)).toBe(false);
  });

  it("under the rate limit, an earlier check's chain of sequential requests goes before a later check's queued burst", async () => {
    const s = await pool({ concurrency: 100, rateLimit: 20 });
    const flood = worker(s.port);
    const chain = worker(s.port);
    const order: string[] = [];
    const burst = inCheck(2_000_000, () =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          flood.acquire().then(() => {
            order.push('burst');
            flood.release(false);
          }),
        ),
      ),
    );
    await new Promise((r) => setTimeout(r, 20));
    // Each step asks only once the previous one's answer is back, as a stateful sequence does.
    const steps = inCheck(1_000_000, async () => {
      for (let i = 0; i < 5; i++) {
        await chain.acquire();
        order.push('chain');
        chain.release(false);
      }
    });
    await Promise.all([burst, steps]);
    // In order of asking, the chain's first step would come after all 20 of the burst. At 20 per second a step's way
    // to the pool and back (well under the 50 ms between tokens) costs it at most a token or two each.
    const lastChain = order.lastIndexOf('chain');
    expect(lastChain, order.join(' ')).toBeLessThan(15);
    expect(s.granted()).toBe(25);
  });

  it('takes back the slots of a worker that went away', async () => {
    const s = await pool({ concurrency: 1 });
    const a = worker(s.port);
    const b = worker(s.port);
    await a.acquire();
    const waiting = b.acquire();
    expect(await settles(waiting)).toBe(false);
    a.close();
    expect(await settles(waiting, 5_000)).toBe(true);
  });

  it('narrows the window for every worker after one throttled answer', async () => {
    const s = await pool({ concurrency: 4 });
    const a = worker(s.port);
    const b = worker(s.port);
    await Promise.all([a.acquire(), a.acquire(), a.acquire(), a.acquire()]);
    a.release(true);
    a.release(false);
    a.release(false);
    // The window halved from 4 to 2, and one slot is still held: worker b gets one more, not three.
    await b.acquire();
    expect(await settles(b.acquire())).toBe(false);
  });

  it('falls back to the local pacing when the pool is gone, so no request waits for a grant that cannot come', async () => {
    const s = await pool({ concurrency: 1 });
    const a = worker(s.port);
    await a.acquire();
    const waiting = a.acquire();
    await s.close();
    servers.splice(0);
    expect(await settles(waiting, 5_000)).toBe(true);
    // Released in any order: neither a slot of the closed pool nor one of the fallback is left dangling.
    a.release(false);
    a.release(false);
    expect(await settles(a.acquire(), 5_000)).toBe(true);
  });

  it('drops a connection that speaks anything but the protocol, keeping its budget', async () => {
    const s = await pool({ concurrency: 1 });
    const { connect } = await import('node:net');
    const rogue = connect({ port: s.port, host: '127.0.0.1' });
    await new Promise<void>((r) => rogue.once('connect', () => r()));
    const closed = new Promise<void>((r) => rogue.once('close', () => r()));
    rogue.write('r0\nr0\nhello\n');
    await closed;
    const a = worker(s.port);
    expect(await settles(a.acquire(), 5_000)).toBe(true);
  });
});

describe('the pool in a process of its own', () => {
  it('serves the workers and, told to end, returns what it counted', async () => {
    const p = await startPoolProcess({ concurrency: 2 });
    const a = connectPool(p.port, new Pacer());
    const b = connectPool(p.port, new Pacer());
    await a.acquire();
    await b.acquire();
    const third = a.acquire();
    expect(await settles(third)).toBe(false);
    b.release(false);
    expect(await settles(third, 5_000)).toBe(true);
    a.close();
    b.close();
    const t0 = Date.now();
    const counts = await p.close();
    expect(counts).toMatchObject({ granted: 3, maxInFlight: 2 });
    // The checks' sending phase: from the first grant to the last release (a's, as its connection closed).
    expect(counts.firstGrantAt).toBeLessThan(t0);
    expect(counts.firstGrantAt).toBeLessThanOrEqual(counts.lastReleaseAt!);
  });
});
