import { afterEach, describe, expect, it } from 'vitest';
import { faultCatalogue, type RunningReference, startReference } from '../../reference/index.js';
import { CARDS, cardBody, checkoutBody, payoutBody, refundBody, usd } from './helpers/builders.js';
import { call, isSigned, keyOf, PRIMARY, SECOND, verifies } from './helpers/client.js';
import { ACK, NEVER_ACK, type Receiver, type Script, sleep, startReceiver } from './helpers/receiver.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function withFault(fault: string, timeScale = 1): Promise<RunningReference> {
  const ref = await startReference({ faults: [fault], timeScale });
  cleanups.push(() => ref.close());
  return ref;
}

async function receiver(script: Script): Promise<Receiver> {
  const r = await startReceiver(script);
  cleanups.push(() => r.close());
  return r;
}

async function paidCard(ref: RunningReference, over: Record<string, unknown> = {}): Promise<Record<string, string>> {
  const r = await call(ref.url, '/api/v1/payments/card', cardBody(over));
  expect(r.json.code).toBe(0);
  return r.json.data;
}

describe('fault catalogue', () => {
  it('lists unique names with dotted clause ids and a doc line', () => {
    expect(faultCatalogue.length).toBeGreaterThanOrEqual(60);
    expect(new Set(faultCatalogue.map((f) => f.name)).size).toBe(faultCatalogue.length);
    for (const f of faultCatalogue) {
      expect(f.clause).toMatch(/^[a-z]+(\.[a-z0-9-]+)+$/);
      expect(f.doc.length).toBeGreaterThan(10);
    }
  });

  it('refuses an unknown fault name with an error listing the known ones', async () => {
    await expect(startReference({ faults: ['no-such-fault'] })).rejects.toThrow(/no-such-fault.*resp-uppercase-hex/s);
  });

  it('applies several faults together', async () => {
    const ref = await startReference({ faults: ['error-http-422', 'resp-unsigned-errors'] });
    cleanups.push(() => ref.close());
    const r = await call(ref.url, '/api/v1/payments/query', { order_no: 'P0' });
    expect(r.status).toBe(422);
    expect(isSigned(r)).toBe(false);
  });
});

describe('each fault changes observable behaviour', () => {
  it('resp-uppercase-hex: responses are signed in upper-case hex', async () => {
    const ref = await withFault('resp-uppercase-hex');
    const r = await call(ref.url, '/api/v1/payments/query', { order_no: 'P0' });
    expect(String(r.headers['x-sign'])).toMatch(/^[0-9A-F]{64}$/);
    expect(verifies(r.headers, r.raw, PRIMARY)).toBe(false);
  });

  it('resp-unsigned-errors: business errors come without signing headers', async () => {
    const ref = await withFault('resp-unsigned-errors');
    const err = await call(ref.url, '/api/v1/payments/query', { order_no: 'P0' });
    expect(err.json.code).toBe(2002);
    expect(isSigned(err)).toBe(false);
    const ok = await call(ref.url, '/api/v1/payments/checkout', checkoutBody());
    expect(verifies(ok.headers, ok.raw, PRIMARY)).toBe(true);
  });

  it('error-http-422: business errors use HTTP 422', async () => {
    const ref = await withFault('error-http-422');
    const r = await call(ref.url, '/api/v1/payments/query', { order_no: 'P0' });
    expect(r.status).toBe(422);
    expect(r.json.code).toBe(2002);
  });

  it('resp-sign-reserialised: the signature does not cover the bytes sent', async () => {
    const ref = await withFault('resp-sign-reserialised');
    const r = await call(ref.url, '/api/v1/payments/query', { order_no: 'P0' });
    expect(r.json.code).toBe(2002);
    expect(verifies(r.headers, r.raw, PRIMARY)).toBe(false);
    const pretty = Buffer.from(JSON.stringify(r.json, null, 2));
    expect(verifies(r.headers, pretty, PRIMARY)).toBe(true);
  });

  it('error-envelope-with-data: errors carry "data": null', async () => {
    const ref = await withFault('error-envelope-with-data');
    const r = await call(ref.url, '/api/v1/payments/query', { order_no: 'P0' });
    expect(r.json).toHaveProperty('data', null);
    expect(verifies(r.headers, r.raw, PRIMARY)).toBe(true);
  });

  it('auth-accept-bad-sign: a wrong signature is accepted', async () => {
    const ref = await withFault('auth-accept-bad-sign');
    const r = await call(ref.url, '/api/v1/payments/query', { order_no: 'P0' }, { creds: { id: PRIMARY.id, secret: SECOND.secret } });
    expect(r.status).toBe(200);
    expect(r.json.code).toBe(2002);
  });

  it('amount-accept-3-decimals: "10.100" is accepted', async () => {
    const ref = await withFault('amount-accept-3-decimals');
    const r = await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ trans_amount: usd('10.100') }));
    expect(r.json.code).toBe(0);
  });

  it('amount-one-decimal-echo: responses show "12.5"', async () => {
    const ref = await withFault('amount-one-decimal-echo');
    const r = await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ trans_amount: usd('12.50') }));
    expect(r.json.data.trans_amount.value).toBe('12.5');
  });

  it('accept-camelcase: camelCase keys are accepted', async () => {
    const ref = await withFault('accept-camelcase');
    const r = await call(ref.url, '/api/v1/payments/checkout', {
      paymentMethod: 'PAYPAL',
      merchantOrderNo: 'camel-1',
      transAmount: usd('10.00'),
      tradeInfo: { goodsName: 'Tea' },
      notifyUrl: 'http://127.0.0.1:9/x',
      returnUrl: 'http://127.0.0.1:9/y',
    });
    expect(r.json.code).toBe(0);
  });

  it('mutual-both-accepted: a query with both numbers is answered', async () => {
    const ref = await withFault('mutual-both-accepted');
    const c = await call(ref.url, '/api/v1/payments/checkout', checkoutBody());
    const r = await call(ref.url, '/api/v1/payments/query', {
      order_no: c.json.data.order_no,
      merchant_order_no: c.json.data.merchant_order_no,
    });
    expect(r.json.code).toBe(0);
  });

  it('idem-replay: a repeated number returns the original success', async () => {
    const ref = await withFault('idem-replay');
    const b = checkoutBody();
    const first = await call(ref.url, '/api/v1/payments/checkout', b);
    const again = await call(ref.url, '/api/v1/payments/checkout', b);
    expect(again.json.code).toBe(0);
    expect(again.json.data.order_no).toBe(first.json.data.order_no);
  });

  it('idem-separate-namespaces: a refund may reuse a payment number', async () => {
    const ref = await withFault('idem-separate-namespaces');
    const p = await paidCard(ref);
    const r = await call(
      ref.url,
      '/api/v1/refunds/create',
      refundBody({ merchant_refund_no: p['merchant_order_no'], original_order_no: p['order_no'] }),
    );
    expect(r.json.code).toBe(0);
  });

  it('declined-frees-number: the number of a declined payment can be reused', async () => {
    const ref = await withFault('declined-frees-number');
    const b = cardBody({ card: { ...(cardBody()['card'] as object), card_number: CARDS.declined } });
    expect(keyOf(await call(ref.url, '/api/v1/payments/card', b))).toBe('paymentFailed');
    const again = await call(ref.url, '/api/v1/payments/card', { ...b, card: cardBody()['card'] });
    expect(again.json.code).toBe(0);
  });

  it('refund-exceed-allowed: a refund above the amount charged is accepted', async () => {
    const ref = await withFault('refund-exceed-allowed');
    const p = await paidCard(ref, { trans_amount: usd('10.00') });
    const r = await call(ref.url, '/api/v1/refunds/create', refundBody({ original_order_no: p['order_no'], refund_amount: usd('20.00') }));
    expect(r.json.code).toBe(0);
  });

  it('refund-full-as-exceeded: a full refund is refused with refundAmountExceeded, a partial one accepted', async () => {
    const ref = await withFault('refund-full-as-exceeded');
    const full = await paidCard(ref, { trans_amount: usd('10.00') });
    const r = await call(
      ref.url,
      '/api/v1/refunds/create',
      refundBody({ original_order_no: full['order_no'], refund_amount: usd('10.00') }),
    );
    expect([r.json.code, keyOf(r)]).toEqual([422, 'refundAmountExceeded']);
    const part = await paidCard(ref, { trans_amount: usd('10.00') });
    const p = await call(
      ref.url,
      '/api/v1/refunds/create',
      refundBody({ original_order_no: part['order_no'], refund_amount: usd('4.00') }),
    );
    expect(p.json.code).toBe(0);
  });

  it("auth-sign-python-reserialised-body: a compact body is refused, the same body as Python's json.dumps writes it accepted", async () => {
    const ref = await withFault('auth-sign-python-reserialised-body');
    const value = { merchant_order_no: 'NO-SUCH-ORDER', note: 'café' };
    const compact = await call(ref.url, '/api/v1/payments/query', Buffer.from(JSON.stringify(value), 'utf8'));
    expect([compact.status, keyOf(compact)]).toEqual([403, 'forbidden']);
    const python = Buffer.from('{"merchant_order_no": "NO-SUCH-ORDER", "note": "caf\\u00e9"}', 'utf8');
    const dumped = await call(ref.url, '/api/v1/payments/query', python);
    expect(dumped.status).toBe(200);
    expect(dumped.json.code).not.toBe(403);
  });

  it('payout-cancel-success: a paid-out payout can be canceled', async () => {
    const ref = await withFault('payout-cancel-success');
    const p = await call(ref.url, '/api/v1/payouts/create', payoutBody());
    await call(ref.url, '/sandbox/v1/payouts/settle', { payout_no: p.json.data.payout_no, outcome: 'SUCCESS' });
    const r = await call(ref.url, '/api/v1/payouts/cancel', { payout_no: p.json.data.payout_no });
    expect(r.json.code).toBe(0);
    expect(r.json.data.status).toBe('CANCELED');
  });

  it('webhook-ack-trailing-newline: "success\\n" stops the retries', async () => {
    const ref = await withFault('webhook-ack-trailing-newline', 0.001);
    const hooks = await receiver(() => ({ body: 'success\n' }));
    await paidCard(ref, { notify_url: hooks.url });
    await hooks.waitFor(1);
    await sleep(400);
    expect(hooks.hits).toHaveLength(1);
  });

  it('webhook-ack-any-200: any HTTP 200 reply stops the retries', async () => {
    const ref = await withFault('webhook-ack-any-200', 0.001);
    const hooks = await receiver(() => ({ status: 200, body: 'received, thanks' }));
    await paidCard(ref, { notify_url: hooks.url });
    await hooks.waitFor(1);
    await sleep(400);
    expect(hooks.hits).toHaveLength(1);
  });

  it('webhook-3-attempts: delivery gives up after 3 attempts', async () => {
    const ref = await withFault('webhook-3-attempts', 0.001);
    const hooks = await receiver(NEVER_ACK);
    await paidCard(ref, { notify_url: hooks.url });
    await hooks.waitFor(3);
    await sleep(600);
    expect(hooks.hits).toHaveLength(3);
  });

  it('webhook-reuse-nonce: retries repeat the first timestamp and nonce', async () => {
    const ref = await withFault('webhook-reuse-nonce', 0.001);
    const hooks = await receiver(NEVER_ACK);
    await paidCard(ref, { notify_url: hooks.url });
    const hits = await hooks.waitFor(3);
    expect(new Set(hits.slice(0, 3).map((h) => h.headers['x-nonce'])).size).toBe(1);
    expect(verifies(hits[2]!.headers, hits[2]!.raw, PRIMARY)).toBe(true);
  });

  it('webhook-flat-waits: all 9 attempts arrive within a fraction of the growing schedule', async () => {
    const ref = await withFault('webhook-flat-waits', 0.001);
    const hooks = await receiver(NEVER_ACK);
    await paidCard(ref, { notify_url: hooks.url });
    // The correct schedule needs 5.6 s at this scale; flat 15 ms waits need about 0.12 s.
    const hits = await hooks.waitFor(9, 3000);
    expect(hits).toHaveLength(9);
  });

  it('webhook-slow-ack: a success arriving after the 5 s limit still counts', async () => {
    const ref = await withFault('webhook-slow-ack', 0.02);
    // Past the 1 s floor of the correct limit (5 s × 0.02 = 100 ms).
    const hooks = await receiver(() => ({ body: 'success', delayMs: 1300 }));
    await paidCard(ref, { notify_url: hooks.url });
    await hooks.waitFor(1);
    await sleep(2000);
    expect(hooks.hits).toHaveLength(1);
  });

  it('webhook-slow-ack: the correct server retries the same slow receiver (control)', async () => {
    const ref = await startReference({ timeScale: 0.02 });
    cleanups.push(() => ref.close());
    const hooks = await receiver(() => ({ body: 'success', delayMs: 1300 }));
    await paidCard(ref, { notify_url: hooks.url });
    await hooks.waitFor(2, 6000);
  });

  it('webhook-payment-updated-on-refund: a refunded payment also sends payment.updated', async () => {
    const ref = await withFault('webhook-payment-updated-on-refund');
    const hooks = await receiver(ACK);
    const c = await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ notify_url: hooks.url, trans_amount: usd('10.00') }));
    await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: c.json.data.order_no, outcome: 'SUCCESS' });
    await hooks.waitFor(1);
    await call(ref.url, '/api/v1/refunds/create', refundBody({ original_order_no: c.json.data.order_no, refund_amount: usd('10.00') }));
    const events = await hooks.waitFor(2, 5000, (h) => h.json.event === 'payment.updated');
    expect(events[1]?.json.status).toBe('REFUNDED');
  });

  it('webhook-on-expiry: an expired checkout sends payment.updated', async () => {
    const ref = await withFault('webhook-on-expiry');
    const hooks = await receiver(ACK);
    const c = await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ notify_url: hooks.url }));
    await call(ref.url, '/sandbox/v1/checkout/expire', { order_no: c.json.data.order_no });
    const [hit] = await hooks.waitFor(1);
    expect(hit?.json.status).toBe('EXPIRED');
  });

  it('webhook-metadata-null: metadata is null when none was sent', async () => {
    const ref = await withFault('webhook-metadata-null');
    const hooks = await receiver(ACK);
    await paidCard(ref, { notify_url: hooks.url });
    const [hit] = await hooks.waitFor(1);
    expect(hit?.json.metadata).toBeNull();
  });

  it('webhook-amount-no-decimals: webhook amounts lose their decimals', async () => {
    const ref = await withFault('webhook-amount-no-decimals');
    const hooks = await receiver(ACK);
    const d = await paidCard(ref, { notify_url: hooks.url, trans_amount: usd('12.00') });
    const [hit] = await hooks.waitFor(1);
    expect(hit?.json.trans_amount.value).toBe('12');
    expect((d['trans_amount'] as unknown as { value: string }).value).toBe('12.00');
  });

  it('webhook-time-no-offset: webhook times carry no offset', async () => {
    const ref = await withFault('webhook-time-no-offset');
    const hooks = await receiver(ACK);
    await paidCard(ref, { notify_url: hooks.url });
    const [hit] = await hooks.waitFor(1);
    expect(hit?.json.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });
});
