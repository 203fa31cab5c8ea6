import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { cardBody, checkoutBody, refundBody, usd } from './helpers/builders.js';
import { call, PRIMARY, verifies } from './helpers/client.js';
import { ACK, type Hit, NEVER_ACK, type Receiver, type Script, sleep, startReceiver } from './helpers/receiver.js';

/** Nominal waits at time scale 1, in ms. */
const WAITS = [15_000, 60_000, 180_000, 300_000, 600_000, 900_000, 1_200_000, 2_400_000];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setup(timeScale: number, script: Script, faults: string[] = []): Promise<{ ref: RunningReference; hooks: Receiver }> {
  const ref = await startReference({ timeScale, faults });
  const hooks = await startReceiver(script);
  cleanups.push(
    () => ref.close(),
    () => hooks.close(),
  );
  return { ref, hooks };
}

async function cardPayment(ref: RunningReference, url: string, over: Record<string, unknown> = {}): Promise<Record<string, string>> {
  const r = await call(ref.url, '/api/v1/payments/card', cardBody({ notify_url: url, ...over }));
  expect(r.json.code).toBe(0);
  return r.json.data;
}

describe('webhook bodies and signing', () => {
  it('sends payment.updated with exactly the interface fields, signed over the raw body', async () => {
    const { ref, hooks } = await setup(1, ACK);
    const d = await cardPayment(ref, hooks.url, { trans_amount: usd('7.5') });
    const [hit] = await hooks.waitFor(1);
    expect(hit?.json).toEqual({
      event: 'payment.updated',
      order_no: d['order_no'],
      merchant_order_no: d['merchant_order_no'],
      payment_method: 'CARD',
      trans_amount: usd('7.50'),
      trade_info: { goods_name: 'Coffee beans' },
      status: 'SUCCESS',
      metadata: '',
      finished_at: d['finished_at'],
      created_at: d['created_at'],
    });
    expect(verifies(hit!.headers, hit!.raw, PRIMARY)).toBe(true);
    expect(hit?.headers['content-type']).toBe('application/json');
    expect(String(hit?.headers['x-nonce']).length).toBeGreaterThanOrEqual(16);
    expect(Math.abs(Number(hit?.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('includes requested_amount only when a wallet amount was rounded', async () => {
    const { ref, hooks } = await setup(1, ACK);
    const c = await call(
      ref.url,
      '/api/v1/payments/checkout',
      checkoutBody({ payment_method: 'APPLE_PAY', trans_amount: usd('3'), notify_url: hooks.url }),
    );
    await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: c.json.data.order_no, outcome: 'SUCCESS' });
    const [hit] = await hooks.waitFor(1);
    expect(hit?.json).toMatchObject({
      trans_amount: usd('4.99'),
      requested_amount: usd('3.00'),
      trade_info: { goods_name: 'Green tea', description: 'Two boxes' },
    });
  });

  it('sends nothing for a payment without notify_url', async () => {
    const { ref, hooks } = await setup(1, ACK);
    const b = cardBody();
    delete b['notify_url'];
    expect((await call(ref.url, '/api/v1/payments/card', b)).json.code).toBe(0);
    await cardPayment(ref, hooks.url);
    await hooks.waitFor(1);
    await sleep(100);
    expect(hooks.hits).toHaveLength(1);
  });
});

describe('acknowledgement and retries', () => {
  it('makes exactly 9 attempts over growing waits to a receiver that never acknowledges, each freshly signed', async () => {
    const scale = 0.001;
    const { ref, hooks } = await setup(scale, NEVER_ACK);
    await cardPayment(ref, hooks.url);
    const hits = await hooks.waitFor(9, 30_000);
    await sleep(1500);
    expect(hooks.hits).toHaveLength(9);
    const gaps = hits.slice(1).map((h, i) => h.at - (hits[i] as Hit).at);
    for (const [i, g] of gaps.entries()) expect(g, `gap ${i}`).toBeGreaterThanOrEqual((WAITS[i] as number) * scale - 5);
    // From the fifth gap on, nominal waits differ by 300 ms or more: their order must show even on a busy machine.
    for (let i = 4; i < gaps.length; i++) expect(gaps[i], `gap ${i}`).toBeGreaterThan(gaps[i - 1] as number);
    expect((gaps[7] as number) / (gaps[0] as number)).toBeGreaterThan(10);
    const nonces = new Set(hits.map((h) => h.headers['x-nonce']));
    expect(nonces.size).toBe(9);
    for (const h of hits) expect(verifies(h.headers, h.raw, PRIMARY)).toBe(true);
  });

  it('makes exactly one attempt to a receiver that answers success', async () => {
    const { ref, hooks } = await setup(0.001, ACK);
    await cardPayment(ref, hooks.url);
    await hooks.waitFor(1);
    await sleep(400);
    expect(hooks.hits).toHaveLength(1);
  });

  it('counts the body only: HTTP 500 with body success is an acknowledgement', async () => {
    const { ref, hooks } = await setup(0.001, () => ({ status: 500, body: 'success' }));
    await cardPayment(ref, hooks.url);
    await hooks.waitFor(1);
    await sleep(400);
    expect(hooks.hits).toHaveLength(1);
  });

  for (const body of ['success\n', 'SUCCESS', '"success"', ' success', '', '{"code":0}']) {
    it(`retries after a reply of ${JSON.stringify(body)} with HTTP 200`, async () => {
      const { ref, hooks } = await setup(0.001, (_h, i) => (i === 0 ? { status: 200, body } : { status: 200, body: 'success' }));
      await cardPayment(ref, hooks.url);
      await hooks.waitFor(2);
      await sleep(300);
      expect(hooks.hits).toHaveLength(2);
    });
  }

  it('retries when success arrives after the ack limit (1 s floor at a tiny time scale)', async () => {
    const { ref, hooks } = await setup(0.001, (_h, i) => (i === 0 ? { body: 'success', delayMs: 1600 } : { body: 'success' }));
    await cardPayment(ref, hooks.url);
    await hooks.waitFor(2);
    expect(hooks.hits).toHaveLength(2);
  });

  it('accepts success well inside the floor of the ack limit', async () => {
    const { ref, hooks } = await setup(0.001, () => ({ body: 'success', delayMs: 30 }));
    await cardPayment(ref, hooks.url);
    await hooks.waitFor(1);
    await sleep(400);
    expect(hooks.hits).toHaveLength(1);
  });

  it('loses nothing while the receiver is down for a while', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const ref = await startReference({ timeScale: 0.001 });
    cleanups.push(() => ref.close());
    const url = `http://127.0.0.1:${port}/hook`;
    const orders = [await cardPayment(ref, url), await cardPayment(ref, url), await cardPayment(ref, url)];
    await sleep(400);
    const hooks = await startReceiver(ACK, port);
    cleanups.push(() => hooks.close());
    await hooks.waitFor(3, 10_000);
    await sleep(300);
    expect(hooks.hits.map((h) => h.json.order_no).sort()).toEqual(orders.map((o) => o['order_no']).sort());
  });

  it('shows the status at sending time: a retried payment.updated of a since-refunded payment says REFUNDED', async () => {
    const { ref, hooks } = await setup(0.05, (h, i) =>
      h.json?.event === 'payment.updated' && i === 0 ? { body: 'no' } : { body: 'success' },
    );
    const d = await cardPayment(ref, hooks.url, { trans_amount: usd('10.00') });
    await hooks.waitFor(1, 5000, (h) => h.json?.event === 'payment.updated');
    const r = await call(ref.url, '/api/v1/refunds/create', refundBody({ original_order_no: d['order_no'], refund_amount: usd('10.00') }));
    await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: r.json.data.refund_no, outcome: 'SUCCESS' });
    const payments = await hooks.waitFor(2, 10_000, (h) => h.json?.event === 'payment.updated');
    expect(payments.map((h) => h.json.status)).toEqual(['SUCCESS', 'REFUNDED']);
  });

  it('stops retrying once closed', async () => {
    const ref = await startReference({ timeScale: 0.001 });
    const hooks = await startReceiver(NEVER_ACK);
    cleanups.push(() => hooks.close());
    await cardPayment(ref, hooks.url);
    await hooks.waitFor(1);
    await ref.close();
    const seen = hooks.hits.length;
    await sleep(500);
    expect(hooks.hits.length).toBe(seen);
  });

  it('delivers many webhooks with a bounded number of concurrent connections', async () => {
    let open = 0;
    let maxOpen = 0;
    const { ref, hooks } = await setup(1, () => {
      open += 1;
      maxOpen = Math.max(maxOpen, open);
      setTimeout(() => {
        open -= 1;
      }, 100);
      return { body: 'success', delayMs: 100 };
    });
    await Promise.all(Array.from({ length: 40 }, () => cardPayment(ref, hooks.url)));
    await hooks.waitFor(40, 15_000);
    expect(maxOpen).toBeLessThanOrEqual(16);
    expect(new Set(hooks.hits.map((h) => h.json.order_no)).size).toBe(40);
  });
});

describe('events the interface rules out', () => {
  let ref: RunningReference;
  let hooks: Receiver;
  beforeAll(async () => {
    ref = await startReference();
    hooks = await startReceiver(ACK);
  });
  afterAll(async () => {
    await ref.close();
    await hooks.close();
  });

  it('sends no webhook when a checkout expires', async () => {
    const c = await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ notify_url: hooks.url }));
    await call(ref.url, '/sandbox/v1/checkout/expire', { order_no: c.json.data.order_no });
    await sleep(200);
    expect(hooks.hits.filter((h) => h.json.order_no === c.json.data.order_no)).toHaveLength(0);
  });

  it('sends no webhook for a chargeback', async () => {
    const d = await cardPayment(ref, hooks.url);
    await hooks.waitFor(1, 5000, (h) => h.json.order_no === d['order_no']);
    await call(ref.url, '/sandbox/v1/payments/chargeback', { order_no: d['order_no'] });
    await sleep(200);
    expect(hooks.hits.filter((h) => h.json.order_no === d['order_no'])).toHaveLength(1);
  });

  it('sends refund.updated, not payment.updated, when a payment is refunded in full', async () => {
    const d = await cardPayment(ref, hooks.url, { trans_amount: usd('5.00') });
    await hooks.waitFor(1, 5000, (h) => h.json.order_no === d['order_no']);
    const r = await call(ref.url, '/api/v1/refunds/create', refundBody({ original_order_no: d['order_no'], refund_amount: usd('5.00') }));
    // Bodies show the status at sending time: settle only once the creation event went out as PENDING.
    await hooks.waitFor(1, 5000, (h) => h.json.order_no === r.json.data.refund_no);
    await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: r.json.data.refund_no, outcome: 'SUCCESS' });
    const refunds = await hooks.waitFor(2, 5000, (h) => h.json.order_no === r.json.data.refund_no);
    expect(refunds.map((h) => `${h.json.event} ${h.json.status}`)).toEqual(['refund.updated PENDING', 'refund.updated SUCCESS']);
    await sleep(200);
    expect(hooks.hits.filter((h) => h.json.event === 'payment.updated' && h.json.order_no === d['order_no'])).toHaveLength(1);
  });
});

describe('write times for a kit on the same machine', () => {
  it('tells onWebhookWritten each attempt, by its X-Nonce, with the time it was written', async () => {
    const written: { nonce: string; at: number }[] = [];
    const ref = await startReference({ timeScale: 0.005, onWebhookWritten: (nonce, at) => written.push({ nonce, at }) });
    const hooks = await startReceiver(NEVER_ACK);
    cleanups.push(
      () => ref.close(),
      () => hooks.close(),
    );
    const before = Date.now();
    await cardPayment(ref, hooks.url);
    const hits = await hooks.waitFor(2);
    const after = Date.now();
    for (const hit of hits.slice(0, 2)) {
      const w = written.find((x) => x.nonce === hit.headers['x-nonce']);
      expect(w, 'a write time for every attempt').toBeDefined();
      expect(w!.at).toBeGreaterThanOrEqual(before);
      expect(w!.at).toBeLessThanOrEqual(after);
    }
  });
});
