/**
 * A path whose empty request is answered "not found" (harness/init/paths.ts): a route that reads the path's last word as a
 * resource's number (/payouts/{payout_no} taking "cancel" for one) answers any word alike, and is no endpoint; an
 * endpoint that answers an empty request notFound is one when another word there is answered as an unknown path.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Evidence } from '../../harness/init/evidence.js';
import { discoverPaths } from '../../harness/init/paths.js';
import { Prober } from '../../harness/init/prober.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A target whose answer to an empty request is `answer(path)`: an envelope, or undefined for HTTP 404. */
async function target(answer: (path: string) => { code: number; msg: string } | undefined): Promise<string> {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const a = answer(req.url ?? '');
      if (!a) res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(a));
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

async function discover(url: string) {
  const p = new Prober({
    baseUrl: url,
    merchantId: 'M1',
    secret: 'k',
    budget: 500,
    timeLimitMs: 60_000,
    deadlineMs: 5000,
    progress: () => {},
  });
  try {
    return await discoverPaths(p, new Evidence(() => {}));
  } finally {
    await p.close();
  }
}

const fields = { code: 400, msg: 'Field PaymentMethod is required|invalidRequest' };

describe('a path answered "not found" to an empty request', () => {
  it('is no endpoint when any other word in its place is answered alike (a route reading it as a number)', async () => {
    const url = await target((path) =>
      /^\/api\/v1\/payments\/(checkout|query)$/.test(path)
        ? fields
        : /^\/api\/v1\/payouts\/[^/]+$/.test(path)
          ? { code: 5002, msg: 'Payout not found|notFound' }
          : undefined,
    );
    const found = await discover(url);
    expect(found.checkout).toBe('/api/v1/payments/checkout');
    expect(found.payoutCancel).toBeUndefined();
    expect(found.payoutQuery).toBeUndefined();
  });

  it('is an endpoint when another word there is answered as an unknown path', async () => {
    const url = await target((path) =>
      /^\/api\/v1\/payments\/(checkout|query)$/.test(path)
        ? fields
        : path === '/api/v1/payouts/cancel'
          ? { code: 422, msg: 'Payout not found|notFound' }
          : undefined,
    );
    const found = await discover(url);
    expect(found.payoutCancel).toBe('/api/v1/payouts/cancel');
  });
});
