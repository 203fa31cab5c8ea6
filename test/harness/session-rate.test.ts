/**
 * A session that sends alone (the doctor, before a run's checks) paces itself at the profile's whole `http.rateLimit`,
 * not at the share of one of the run's worker processes: a rate-limited run spent the doctor's ~150 requests
 * at a third of the rate, seconds the bound counts as requests ÷ rate.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile } from '../../harness/profile/load.js';
import { openSession } from '../../harness/run/session.js';

const RATE = 20;
const REQUESTS = 11;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Milliseconds `REQUESTS` sequential requests of one session take under a profile rate of `RATE`. */
async function paced(rateShares: number | undefined): Promise<number> {
  const loaded = loadProfile(fileURLToPath(new URL('../../fixtures/profiles/reference.json', import.meta.url)));
  loaded.profile.http = { ...loaded.profile.http, rateLimit: RATE };
  const session = openSession({ loaded, baseUrl: url, ...(rateShares !== undefined ? { rateShares } : {}) });
  try {
    const t0 = performance.now();
    for (let i = 0; i < REQUESTS; i++) await session.target.post('/x', {});
    return performance.now() - t0;
  } finally {
    await session.close();
  }
}

describe('a session that sends alone', () => {
  it('paces at the whole rate; a worker without the pool at its share of it', async () => {
    // Ten intervals: at the share of three processes at least 10 × 1/(20 × 0.95 / 3) s = 1.58 s (a lower bound, so
    // not at the mercy of load); at the whole rate 0.53 s, and a second of our machine's delay is allowed on top.
    expect(await paced(undefined)).toBeGreaterThanOrEqual(1_550);
    expect(await paced(1)).toBeLessThan(1_500);
  });
});
