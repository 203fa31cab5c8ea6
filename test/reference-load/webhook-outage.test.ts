/**
 * A merchant's webhook receiver that is down for a while (its port closed, then opened again):
 * the reference keeps retrying (INTERFACE.md › Acknowledgement and retries, up to 9 attempts) and
 * every webhook arrives once the receiver is back — none is lost. Time scale 0.002: the nominal
 * waits 15 s, 60 s, 180 s, 300 s, 600 s … become 30 ms, 120 ms, 360 ms, 600 ms, 1.2 s …, so the
 * 5th attempt comes about 1.1 s and the 6th about 2.3 s after the first.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../reference/index.js';
import { call, cardBody, codeOf, makeAgent, PRIMARY, responseVerifies, uniq } from './support.js';

let ref: RunningReference;
const agent = makeAgent(32);
let receiver: Server | undefined;

beforeAll(async () => {
  ref = await startReference({ port: 0, timeScale: 0.002 });
});
afterAll(async () => {
  agent.destroy();
  await ref.close();
  if (receiver) {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver!.close(resolve));
  }
});

/** A port that was free a moment ago and on which nothing listens now. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

interface Hit {
  at: number;
  key: string;
  verified: boolean;
}

describe('a webhook receiver that is down for a while', () => {
  it('loses no webhook: every payment and refund event arrives once the port opens again', async () => {
    const port = await closedPort();
    const notifyUrl = `http://127.0.0.1:${port}/hooks`;
    const prefix = uniq('OUT');

    // 20 card payments (payment.updated SUCCESS each) and a refund of 10 of them (refund.updated each).
    const payments = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const r = await call(agent, ref.url, '/api/v1/payments/card', cardBody(`${prefix}-P${i}`, notifyUrl));
        expect(codeOf(r.json)).toBe(0);
        return (r.json as { data: { order_no: string; merchant_order_no: string } }).data;
      }),
    );
    const refunds = await Promise.all(
      payments.slice(0, 10).map(async (p, i) => {
        const r = await call(agent, ref.url, '/api/v1/refunds/create', {
          merchant_refund_no: `${prefix}-R${i}`,
          original_merchant_order_no: p.merchant_order_no,
          refund_amount: { currency: 'USD', value: '5.00' },
          reason: 'Customer request',
        });
        expect(codeOf(r.json)).toBe(0);
        return (r.json as { data: { refund_no: string; status: string } }).data;
      }),
    );
    const downAt = Date.now();

    // Down for 2.5 s: attempts 1 to 5 find the port closed.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const hits: Hit[] = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const json = JSON.parse(raw.toString('utf8')) as { event: string; order_no: string; status: string };
        hits.push({
          at: Date.now(),
          key: `${json.event} ${json.order_no} ${json.status}`,
          verified: responseVerifies(req.headers, raw, PRIMARY),
        });
        res.end('success');
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(port, '127.0.0.1', resolve));
    const upAt = Date.now();

    const paymentKeys = payments.map((p) => `payment.updated ${p.order_no} SUCCESS`);
    const refundNos = new Set(refunds.map((r) => r.refund_no));
    const complete = (): boolean => {
      const seen = new Set(hits.map((h) => h.key));
      const refundsSeen = new Set(hits.filter((h) => h.key.startsWith('refund.updated ')).map((h) => h.key.split(' ')[1]));
      return paymentKeys.every((k) => seen.has(k)) && [...refundNos].every((n) => refundsSeen.has(n));
    };
    const deadline = Date.now() + 15_000;
    while (!complete() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));

    const seen = new Set(hits.map((h) => h.key));
    expect(
      paymentKeys.filter((k) => !seen.has(k)),
      'payment webhooks lost',
    ).toEqual([]);
    const refundsSeen = new Set(hits.filter((h) => h.key.startsWith('refund.updated ')).map((h) => h.key.split(' ')[1]));
    expect(
      [...refundNos].filter((n) => !refundsSeen.has(n)),
      'refund webhooks lost',
    ).toEqual([]);
    expect(
      hits.every((h) => h.verified),
      'every delivery is signed for the merchant',
    ).toBe(true);
    // Nothing was delivered while the port was closed, and the retries reached the receiver soon after it opened.
    expect(Math.min(...hits.map((h) => h.at))).toBeGreaterThanOrEqual(upAt);
    expect(Math.min(...hits.map((h) => h.at)) - downAt).toBeLessThan(10_000);
  });
});
