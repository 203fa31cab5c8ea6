/**
 * The round trip the CLI measures before vitest starts (harness/run/round-trip.ts): it sets the run's workers, so a
 * far target must read as far, a near one as near, and one that does not answer as unknown (the usual workers).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { measureRoundTrip } from '../../harness/run/round-trip.js';
import { FAR_ROUND_TRIP_MS } from '../../harness/run/sequencer.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(delayMs: number): Promise<string> {
  const s = createServer((_req, res) => {
    setTimeout(() => res.writeHead(404).end(), delayMs);
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v3`;
}

describe('measureRoundTrip', () => {
  it('reads a target that answers 100 ms late as far, whatever it answers', async () => {
    const ms = await measureRoundTrip(await serve(100));
    expect(ms).toBeGreaterThanOrEqual(FAR_ROUND_TRIP_MS);
  });

  it('reads a target on loopback that answers at once as near', async () => {
    const ms = await measureRoundTrip(await serve(0));
    expect(ms).toBeDefined();
    // The fewest of three: a busy machine would have to delay every one of them by 40 ms.
    expect(ms!).toBeLessThan(FAR_ROUND_TRIP_MS);
  });

  it('gives no figure for a target that does not answer, or a base URL that is not http(s)', async () => {
    const url = await serve(0);
    await new Promise((resolve) => servers.pop()!.close(resolve));
    expect(await measureRoundTrip(url)).toBeUndefined();
    expect(await measureRoundTrip('embedded')).toBeUndefined();
    expect(await measureRoundTrip('ftp://example.invalid/')).toBeUndefined();
  });

  it('gives up on a target that never answers within its deadline', async () => {
    const s = createServer(() => {});
    servers.push(s);
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const t0 = performance.now();
    expect(await measureRoundTrip(`http://127.0.0.1:${(s.address() as AddressInfo).port}/`, undefined, 3, 200)).toBeUndefined();
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
