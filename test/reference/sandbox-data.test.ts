/**
 * The reference is configurable from a target description (reference/sandbox-data.ts): each dimension a generated
 * target varies changes what the server answers, and no description leaves the README's defaults in place.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../harness/profile/types.js';
import { startEmbeddedReferenceProcess } from '../../harness/run/embedded.js';
import { type RunningReference, startReference } from '../../reference/index.js';
import { parseServeArgs } from '../../reference/serve.js';
import { resolveTarget, type TargetDescription } from '../../reference/sandbox-data.js';
import { cardBody, checkoutBody, payoutBody, refundBody, usd } from './helpers/builders.js';
import { call, keyOf, LOWBAL, PRIMARY, type Reply, SECOND, signedHeaders, send, verifies } from './helpers/client.js';

const TARGET: TargetDescription = {
  merchants: [
    { id: 'M100001', name: 'Kettle & Co', login: 'kettle.ops' },
    // KLARNA for the second merchant only: no other merchant has it.
    { id: 'M100002', paymentMethods: ['CARD', 'KLARNA'] },
    { id: 'M100003', payoutBalancesCents: { USD: 250, GBP: 700 }, refundCoverCents: 40 },
  ],
  paymentMethods: ['CARD', 'PAYPAL'],
  noChannelMethods: ['PAYPAL'],
  paymentChannels: {
    // Overlapping channels: 0.50-50.00 and 20.00-200.00, so 0.50-200.00 in all.
    CARD: {
      ranges: [
        { minCents: 50, maxCents: 5_000 },
        { minCents: 2_000, maxCents: 20_000 },
      ],
      refunds: 'partial',
      refundSettlesImmediately: true,
    },
    KLARNA: { ranges: [{ minCents: 100, maxCents: 1_000 }], refunds: 'none', refundSettlesImmediately: false },
  },
  payoutChannels: { BANK_TRANSFER: { currencies: ['USD', 'GBP'], minCents: 100, maxCents: 90_000, cancelable: false } },
  declineCards: ['4000000000000002', '4000000000000069'],
};

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ target: TARGET });
});
afterAll(async () => {
  await ref.close();
});

function answered(r: Reply): string {
  return r.json?.code === 0 ? 'ok' : `${r.json?.code} ${keyOf(r)}`;
}

const cardWith = (number: string, value = '40.00') =>
  cardBody({
    trans_amount: usd(value),
    card: { card_number: number, cardholder_name: 'Ada Lovelace', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123' },
  });

describe('a reference built from a target description', () => {
  it('gives a method to the one merchant that has it, and takes a method off every merchant without its own list', async () => {
    const klarna = checkoutBody({ payment_method: 'KLARNA', trans_amount: usd('5.00') });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', klarna, { creds: SECOND }))).toBe('ok');
    const again = checkoutBody({ payment_method: 'KLARNA', trans_amount: usd('5.00') });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', again))).toBe('3003 paymentMethodUnavailable');
    const cashApp = checkoutBody({ payment_method: 'CASH_APP' });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', cashApp))).toBe('3003 paymentMethodUnavailable');
  });

  it('has a method whose channel is down, and overlapping channels that accept their union', async () => {
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: 'PAYPAL' })))).toBe(
      '422 validationFailed',
    );
    expect(answered(await call(ref.url, '/api/v1/payments/card', cardWith('4242424242424242', '150.00')))).toBe('ok');
    expect(answered(await call(ref.url, '/api/v1/payments/card', cardWith('4242424242424242', '200.01')))).toBe('2006 amountOutOfRange');
  });

  it('declines every decline card of the description', async () => {
    for (const n of ['4000000000000002', '4000000000000069']) {
      expect(answered(await call(ref.url, '/api/v1/payments/card', cardWith(n)))).toBe('422 paymentFailed');
    }
  });

  it('creates refunds SUCCESS at once where the channel settles them so', async () => {
    const paid = await call(ref.url, '/api/v1/payments/card', cardWith('4242424242424242'));
    const r = await call(ref.url, '/api/v1/refunds/create', refundBody({ original_order_no: paid.json.data.order_no }));
    expect(r.json.data.status).toBe('SUCCESS');
  });

  it('holds the balances of the description, in their own currencies', async () => {
    const gbp = (value: string) =>
      payoutBody({ payment_method: 'BANK_TRANSFER', trans_amount: { currency: 'GBP', value }, payee: { name: 'G', account: 'A1' } });
    expect(answered(await call(ref.url, '/api/v1/payouts/create', gbp('7.01'), { creds: LOWBAL }))).toBe('5004 insufficientFunds');
    expect(answered(await call(ref.url, '/api/v1/payouts/create', gbp('7.00'), { creds: LOWBAL }))).toBe('ok');
    const usd3 = payoutBody({ trans_amount: usd('2.51') });
    expect(answered(await call(ref.url, '/api/v1/payouts/create', usd3, { creds: LOWBAL }))).toBe('5004 insufficientFunds');
  });

  it("refuses the merchant's name and login as X-MerchantID (401 merchantNotFound)", async () => {
    for (const id of ['Kettle & Co', 'kettle.ops']) {
      const raw = Buffer.from(JSON.stringify({ order_no: 'P1' }));
      const headers = { 'Content-Type': 'application/json', ...signedHeaders({ id, secret: PRIMARY.secret }, raw) };
      const r = await send(`${ref.url}/api/v1/payments/query`, 'POST', headers, raw);
      expect([r.status, keyOf(r)]).toEqual([401, 'merchantNotFound']);
    }
  });

  it("reaches the reference's own process from a profile's embedded.target (as a conformance run starts it)", async () => {
    const profile = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Profile;
    const proc = await startEmbeddedReferenceProcess({ ...profile, embedded: { target: TARGET as Record<string, unknown> } });
    try {
      const klarna = checkoutBody({ payment_method: 'KLARNA', trans_amount: usd('5.00') });
      expect(answered(await call(proc.url, '/api/v1/payments/checkout', klarna, { creds: SECOND }))).toBe('ok');
      expect(answered(await call(proc.url, '/api/v1/payments/card', cardWith('4000000000000069')))).toBe('422 paymentFailed');
    } finally {
      await proc.close();
    }
  }, 30_000);

  it("answers to the ids and keys the description assigns, signs with them, and no longer knows the fixtures'", async () => {
    const own = { id: 'MCH20417', secret: 'sk_test_0f9e8d7c6b5a4f3e2d1c0b9a' };
    const other = await startReference({
      target: {
        merchants: [
          { id: 'M100001', assignedId: own.id, secret: own.secret, productionSecret: 'live_11aa22bb33cc44dd55ee66ff' },
          { id: 'M100002', assignedId: 'MCH20424', secret: 'sk_test_a1b2c3d4e5f6a7b8c9d0e1f2' },
        ],
      },
    });
    try {
      const q = { order_no: 'P1' };
      const mine = await call(other.url, '/api/v1/payments/query', q, { creds: own });
      expect(answered(mine)).toBe('2002 orderNotFound');
      expect(verifies(mine.headers, mine.raw, own)).toBe(true);
      expect(answered(await call(other.url, '/api/v1/payments/query', q, { creds: PRIMARY }))).toBe('401 merchantNotFound');
      const wrongKey = await call(other.url, '/api/v1/payments/query', q, { creds: { id: own.id, secret: PRIMARY.secret } });
      expect(answered(wrongKey)).toBe('403 forbidden');
    } finally {
      await other.close();
    }
    expect(() => resolveTarget({ merchants: [{ id: 'M100002', assignedId: 'M100001' }] })).toThrow(
      /the id M100001 is given to two merchants/,
    );
  });

  it("rounds a price-point method's amount by its channel's own rule: the nearest tier within its distance, else refused", async () => {
    const tiered = (rounding?: { mode: 'nearest'; maxDistanceCents: number }) => ({
      tiersCents: [100, 300],
      refunds: 'none' as const,
      refundSettlesImmediately: false,
      ...(rounding ? { rounding } : {}),
    });
    const other = await startReference({
      target: { paymentChannels: { APPLE_PAY: tiered({ mode: 'nearest', maxDistanceCents: 20 }), GOOGLE_PAY: tiered() } },
    });
    try {
      const pay = async (method: string, value: string) => {
        const r = await call(other.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: method, trans_amount: usd(value) }));
        return r.json?.code === 0 ? `charged ${r.json.data.trans_amount.value}` : answered(r);
      };
      expect(await pay('APPLE_PAY', '1.15')).toBe('charged 1.00');
      expect(await pay('APPLE_PAY', '1.50')).toBe('422 notSupported');
      expect(await pay('GOOGLE_PAY', '1.15')).toBe('charged 3.00');
    } finally {
      await other.close();
    }
  });

  it('requires the payee fields the description gives a payout method, and no others', async () => {
    const other = await startReference({ target: { payeeFields: { PAYPAL: ['email', 'name'], BANK_TRANSFER: ['account'] } } });
    try {
      const paypal = (payee: Record<string, string>) => payoutBody({ payment_method: 'PAYPAL', trans_amount: usd('5.00'), payee });
      const bank = (payee: Record<string, string>) => payoutBody({ trans_amount: usd('5.00'), payee });
      const create = async (body: Record<string, unknown>) => answered(await call(other.url, '/api/v1/payouts/create', body));
      expect(await create(paypal({ email: 'a@b.invalid' }))).toBe('400 invalidRequest');
      expect(await create(paypal({ email: 'a@b.invalid', name: 'Ada' }))).toBe('ok');
      expect(await create(bank({ account: 'US00BANK0000000002' }))).toBe('ok');
    } finally {
      await other.close();
    }
    expect(() => resolveTarget({ payeeFields: { PAYPAL: ['iban'] } })).toThrow(/payeeFields.PAYPAL: iban is not one of/);
  });

  it('retries a webhook on the schedule of the description: as many attempts as its waits allow, then none', async () => {
    const seen: number[] = [];
    // Two waits of 1 s at a thousandth of real time: three attempts within milliseconds; the README's schedule (eight waits,
    // 1.2 s for the first six at this scale) would make more in the time watched.
    const two = await startReference({
      target: { retryWaitsMs: [1_000, 1_000] },
      timeScale: 0.001,
      onDelivery: (d) => seen.push(d.attempt),
    });
    try {
      const paid = await call(two.url, '/api/v1/payments/card', cardWith('4242424242424242'));
      expect(paid.json.code).toBe(0);
      await new Promise((r) => setTimeout(r, 2_000));
      expect(seen).toEqual([1, 2, 3]);
    } finally {
      await two.close();
    }
  });

  it('refuses a description it cannot be, clearly', () => {
    expect(() => resolveTarget({ paymentMethods: ['BITCOIN'] })).toThrow(/unknown method\(s\) BITCOIN/);
    expect(() => resolveTarget({ merchants: [{ id: 'M1' }] })).toThrow(/no fixture merchant M1/);
    expect(() => resolveTarget({ retryWaitsMs: [15_000, -1] })).toThrow(/retryWaitsMs: give 1 to 8 positive integer waits/);
    expect(() => resolveTarget({ retryWaitsMs: new Array<number>(9).fill(1_000) })).toThrow(/9 attempts at most/);
    expect(() => parseServeArgs(['--target', '[1]'])).toThrow(/--target must be a JSON object/);
    expect(parseServeArgs(['--target', JSON.stringify(TARGET)]).opts.target).toEqual(TARGET);
  });
});
