import { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectPool, type PoolServer, startPoolServer } from '../../harness/run/pool.js';
import { Pacer } from '../../harness/http/throttle.js';

let server: PoolServer | undefined;
let client: { close(): void } | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/**
 * A worker's lines to the run-wide pool: written once per tick, not once per ask and release. Two system
 * calls per request made the pool client a worker's costliest writer; the pool must still see every line, in order.
 */
describe("a worker's writes to the request pool", () => {
  it('sends the asks of one tick in one write, and every one of them is granted', async () => {
    server = await startPoolServer({ concurrency: 100 });
    const pool = connectPool(server.port, new Pacer());
    client = pool;
    // Connected first: the connection's own writes are not the asks'.
    await pool.acquire();
    pool.release(false);
    const writes = vi.spyOn(Socket.prototype, 'write');
    await Promise.all(Array.from({ length: 8 }, () => pool.acquire()));
    const fromWorker = writes.mock.calls.map(([data]) => String(data)).filter((d) => /^(a\d+|r0)$/m.test(d));
    expect(fromWorker).toHaveLength(1);
    expect(fromWorker[0]!.split('\n').filter((l) => l.startsWith('a'))).toHaveLength(8);
    expect(server.granted()).toBe(9);
  });

  it('sends a release and the next ask of the same tick together, the release first', async () => {
    server = await startPoolServer({ concurrency: 1 });
    const pool = connectPool(server.port, new Pacer());
    client = pool;
    await pool.acquire();
    const writes = vi.spyOn(Socket.prototype, 'write');
    pool.release(false);
    // A budget of one: granted only if the pool read the release before the ask.
    await pool.acquire();
    const lines = writes.mock.calls.map(([data]) => String(data));
    expect(lines.filter((l) => l.includes('r0') || l.includes('a'))).toHaveLength(1);
    expect(lines.find((l) => l.includes('r0'))).toMatch(/^r0\na\d+\n$/);
    expect(server.granted()).toBe(2);
    expect(server.maxInFlight()).toBe(1);
  });
});
