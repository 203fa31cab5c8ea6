/** The reference's observer option, through plain HTTP: exact bytes and headers seen, answers untouched, a throwing observer harmless. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ObservedDelivery, type ObservedExchange, startReference } from '../../reference/index.js';
import { Tamperer } from '../../reference/rough/tamper.js';
import { startClientReceiver } from './client-app.js';

const body = '{ "merchant_order_no" :"NOPE-1",\n  "x": 1 }';
const headers = {
  'Content-Type': 'application/json',
  'X-MerchantID': 'M100001',
  'X-Timestamp': '1700000000',
  'X-Nonce': 'abcdefghijklmnopqr',
  'X-Sign': 'f'.repeat(64),
};

describe('startReference({ onExchange })', () => {
  it('reports the raw bytes, the headers and the answer of each request', async () => {
    const seen: ObservedExchange[] = [];
    const ref = await startReference({ onExchange: (x) => seen.push(x) });
    try {
      const res = await fetch(`${ref.url}/api/v1/payments/query`, { method: 'POST', headers, body });
      expect(await res.json()).toEqual({ code: 403, msg: 'Invalid signature|forbidden' });
      expect(seen).toHaveLength(1);
      const x = seen[0]!;
      expect(x.body?.toString()).toBe(body);
      expect(x.headers['x-sign']).toBe('f'.repeat(64));
      expect([x.method, x.path, x.http, x.code, x.key]).toEqual(['POST', '/api/v1/payments/query', 403, 403, 'forbidden']);
      expect(x.answeredAt).toBeGreaterThanOrEqual(x.receivedAt);
      expect(x.connection.index).toBe(0);
    } finally {
      await ref.close();
    }
  });

  it('a throwing observer changes nothing for the client', async () => {
    const ref = await startReference({
      onExchange: () => {
        throw new Error('observer bug');
      },
    });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${ref.url}/api/v1/payments/query`, { method: 'POST', headers: { ...headers, 'X-Nonce': '' }, body });
        expect([res.status, await res.json()]).toEqual([401, { code: 401, msg: 'Missing authentication headers|unauthorized' }]);
      }
    } finally {
      await ref.close();
    }
  });
});

describe('startReference({ tamperResponses })', () => {
  const KEY = 'sk_test_primary_5f2c9a7e41d84b06';
  const signed = (body: string) => {
    const h = {
      'X-MerchantID': 'M100001',
      'X-Timestamp': String(Math.floor(Date.now() / 1000)),
      'X-Nonce': `n${Math.random().toString(36).slice(2)}`.padEnd(20, 'x'),
    };
    return {
      ...h,
      'Content-Type': 'application/json',
      'X-Sign': createHmac('sha256', KEY).update(`${h['X-MerchantID']}\n${h['X-Timestamp']}\n${h['X-Nonce']}\n${body}`).digest('hex'),
    };
  };
  const verifies = (res: Response, raw: string) =>
    createHmac('sha256', KEY)
      .update(`${res.headers.get('x-merchantid')}\n${res.headers.get('x-timestamp')}\n${res.headers.get('x-nonce')}\n${raw}`)
      .digest('hex') === res.headers.get('x-sign');

  it(`alters the number and status of a successful answer under a \
signature that does not verify, and tells only the observer`, async () => {
    const seen: ObservedExchange[] = [];
    const ref = await startReference({ onExchange: (x) => seen.push(x), tamperResponses: { seed: 1, rate: 1 } });
    try {
      const body = JSON.stringify({
        payment_method: 'CARD',
        merchant_order_no: `TAMPER-${Date.now()}`,
        trans_amount: { currency: 'USD', value: '10.00' },
        trade_info: { goods_name: 'x' },
        card: { card_number: '4242424242424242', cardholder_name: 'A B', exp_month: 12, exp_year: 2099, cvc: '123' },
        billing_address: {
          country: 'US',
          first_name: 'A',
          last_name: 'B',
          email: 'a@b.invalid',
          phone: '+15550100',
          state: 'CA',
          city: 'SF',
          address: 'Market St',
          street_number: '1',
          postal_code: '94105',
        },
        device_ip: '203.0.113.7',
      });
      const res = await fetch(`${ref.url}/api/v1/payments/card`, { method: 'POST', headers: signed(body), body });
      const raw = await res.text();
      expect(verifies(res, raw)).toBe(false);
      const data = (JSON.parse(raw) as { data: Record<string, string> }).data;
      const t = seen[0]!.tampered!;
      expect(t.find((f) => f.field === 'order_no')).toEqual({ field: 'order_no', genuine: expect.any(String), sent: data['order_no'] });
      expect(t.find((f) => f.field === 'order_no')!.genuine).not.toBe(data['order_no']);
      // An error answer carries no number: it is never altered, and verifies.
      const q = JSON.stringify({ merchant_order_no: 'NOPE-1' });
      const res2 = await fetch(`${ref.url}/api/v1/payments/query`, { method: 'POST', headers: signed(q), body: q });
      expect(verifies(res2, await res2.text())).toBe(true);
      expect(seen[1]!.tampered).toBeUndefined();
    } finally {
      await ref.close();
    }
  });

  it('--rough sends each webhook again, built at its own sending time: a payment refunded in full since shows REFUNDED', async () => {
    const attempts: ObservedDelivery[] = [];
    const rx = await startClientReceiver({ merchantId: 'M100001', secret: KEY });
    // rate 0: no transient answers and nothing held back, only the copies (up to 15 s x 0.05 later; with
    // seed 3 the payment's copy comes about 540 ms after its first attempt, long after the refund below).
    const ref = await startReference({ onDelivery: (d) => attempts.push(d), rough: { seed: 3, rate: 0 }, timeScale: 0.05 });
    const until = async (ok: () => boolean) => {
      for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
    };
    try {
      const no = `ROUGH-${Date.now()}`;
      const pay = JSON.stringify({
        payment_method: 'CARD',
        merchant_order_no: no,
        trans_amount: { currency: 'USD', value: '10.00' },
        notify_url: rx.url,
        trade_info: { goods_name: 'x' },
        card: { card_number: '4242424242424242', cardholder_name: 'A B', exp_month: 12, exp_year: 2099, cvc: '123' },
        billing_address: {
          country: 'US',
          first_name: 'A',
          last_name: 'B',
          email: 'a@b.invalid',
          phone: '+15550100',
          state: 'CA',
          city: 'SF',
          address: 'Market St',
          street_number: '1',
          postal_code: '94105',
        },
        device_ip: '203.0.113.7',
      });
      expect(
        (await (await fetch(`${ref.url}/api/v1/payments/card`, { method: 'POST', headers: signed(pay), body: pay })).json()) as {
          code: number;
        },
      ).toMatchObject({ code: 0 });
      await until(() => attempts.some((d) => d.event === 'payment.updated' && !d.copy));
      const first = attempts.find((d) => d.event === 'payment.updated' && !d.copy)!;
      expect([first.status, first.acked]).toEqual(['SUCCESS', true]);
      const refund = JSON.stringify({
        merchant_refund_no: `${no}-R`,
        original_merchant_order_no: no,
        refund_amount: { currency: 'USD', value: '10.00' },
        reason: 'full',
      });
      expect(
        (await (await fetch(`${ref.url}/api/v1/refunds/create`, { method: 'POST', headers: signed(refund), body: refund })).json()) as {
          code: number;
        },
      ).toMatchObject({ code: 0 });
      const settle = JSON.stringify({ merchant_refund_no: `${no}-R`, outcome: 'SUCCESS' });
      expect(
        (await (await fetch(`${ref.url}/sandbox/v1/refunds/settle`, { method: 'POST', headers: signed(settle), body: settle })).json()) as {
          code: number;
        },
      ).toMatchObject({ code: 0 });
      await until(() => attempts.some((d) => d.event === 'payment.updated' && d.copy));
      const copy = attempts.find((d) => d.event === 'payment.updated' && d.copy)!;
      expect([copy.orderNo, copy.status, copy.acked]).toEqual([first.orderNo, 'REFUNDED', true]);
    } finally {
      await ref.close();
      await rx.close();
    }
  });

  it('without it, answers are never altered', async () => {
    const seen: ObservedExchange[] = [];
    const ref = await startReference({ onExchange: (x) => seen.push(x) });
    try {
      const q = JSON.stringify({ merchant_order_no: 'NOPE-2' });
      const res = await fetch(`${ref.url}/api/v1/payments/query`, { method: 'POST', headers: signed(q), body: q });
      expect(verifies(res, await res.text())).toBe(true);
      expect(seen[0]!.tampered).toBeUndefined();
    } finally {
      await ref.close();
    }
  });
});

describe('Tamperer: the answers whose numbers a client sends back come first', () => {
  const answer = (order_no: string) => ({ code: 0, msg: 'success', data: { order_no, status: 'SUCCESS' } });
  const altered = (t: Tamperer, no: string, merchant = 'M1') => t.tamper(answer(no), merchant) !== undefined;

  it("alters each merchant's first answer that tells it a new number, at any rate and seed", () => {
    for (let seed = 0; seed < 50; seed++) {
      const t = new Tamperer({ seed, rate: 0.01 });
      expect(altered(t, 'P1'), `seed ${seed}`).toBe(true);
      expect(altered(t, 'Q1', 'M2'), `seed ${seed}`).toBe(true);
    }
  });

  it("alters at least the rate's share of fresh answers, for every seed", () => {
    for (let seed = 0; seed < 20; seed++) {
      const t = new Tamperer({ seed, rate: 0.25 });
      const fresh = Array.from({ length: 40 }, (_, i) => altered(t, `F${i}`));
      expect(fresh.filter(Boolean).length, `seed ${seed}`).toBeGreaterThanOrEqual(10);
    }
  });

  it('an error, or an answer without a service number, is never altered', () => {
    const t = new Tamperer({ seed: 1, rate: 1 });
    expect(t.tamper({ code: 2002, msg: 'Order not found|orderNotFound' }, 'M1')).toBeUndefined();
    expect(t.tamper({ code: 0, msg: 'success', data: { status: 'SUCCESS' } }, 'M1')).toBeUndefined();
  });
});
