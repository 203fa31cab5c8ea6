import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { CARDS, cardBody, checkoutBody, refundBody, usd } from './helpers/builders.js';
import { type Creds, call, FROZEN, keyOf, LOWBAL, PRIMARY, type Reply, SECOND, uniq, verifies } from './helpers/client.js';
import { type Receiver, sleep, startReceiver } from './helpers/receiver.js';

let ref: RunningReference;
let hooks: Receiver;
const CREATE = '/api/v1/refunds/create';
const QUERY = '/api/v1/refunds/query';
const PAY_QUERY = '/api/v1/payments/query';

beforeAll(async () => {
  ref = await startReference();
  hooks = await startReceiver();
});
afterAll(async () => {
  await ref.close();
  await hooks.close();
});

function expectError(r: Reply, code: number, key: string, creds: Creds = PRIMARY): void {
  expect(r.status).toBe(200);
  expect(r.json.code).toBe(code);
  expect(keyOf(r)).toBe(key);
  expect(r.json).not.toHaveProperty('data');
  expect(verifies(r.headers, r.raw, creds)).toBe(true);
}

/** A paid payment: card (direct) or a checkout completed through the sandbox. */
async function paid(method = 'CARD', value = '40.00', creds: Creds = PRIMARY): Promise<{ order_no: string; merchant_order_no: string }> {
  if (method === 'CARD') {
    const r = await call(ref.url, '/api/v1/payments/card', cardBody({ trans_amount: usd(value), notify_url: hooks.url }), { creds });
    expect(r.json.code).toBe(0);
    return r.json.data;
  }
  const c = await call(
    ref.url,
    '/api/v1/payments/checkout',
    checkoutBody({ payment_method: method, trans_amount: usd(value), notify_url: hooks.url }),
    { creds },
  );
  expect(c.json.code).toBe(0);
  const done = await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: c.json.data.order_no, outcome: 'SUCCESS' }, { creds });
  expect(done.json.code).toBe(0);
  return c.json.data;
}

describe('refund creation', () => {
  it('refunds part of a card payment as PENDING, then SUCCESS when the sandbox settles it', async () => {
    const p = await paid('CARD', '40.00');
    const b = refundBody({ original_order_no: p.order_no, refund_amount: usd('10.5') });
    const r = await call(ref.url, CREATE, b);
    expect(r.json.code).toBe(0);
    expect(r.json.data).toMatchObject({
      merchant_refund_no: b['merchant_refund_no'],
      original_order_no: p.order_no,
      original_merchant_order_no: p.merchant_order_no,
      refund_amount: usd('10.50'),
      reason: 'Customer request',
      status: 'PENDING',
    });
    expect(r.json.data.refund_no).toMatch(/^R\d{18}$/);
    expect(r.json.data).not.toHaveProperty('finished_at');
    const s = await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: r.json.data.refund_no, outcome: 'SUCCESS' });
    expect(s.json.data.status).toBe('SUCCESS');
    expect(s.json.data.finished_at).toBeDefined();
    const hits = await hooks.waitFor(2, 5000, (h) => h.json?.order_no === r.json.data.refund_no);
    expect(hits.map((h) => h.json.event)).toEqual(['refund.updated', 'refund.updated']);
    const q = await call(ref.url, PAY_QUERY, { order_no: p.order_no });
    expect(q.json.data.status).toBe('SUCCESS');
  });

  it('refunds a PayPal payment at once as SUCCESS, by original_merchant_order_no', async () => {
    const p = await paid('PAYPAL', '30.00');
    const r = await call(ref.url, CREATE, refundBody({ original_merchant_order_no: p.merchant_order_no, refund_amount: usd('30.00') }));
    expect(r.json.data.status).toBe('SUCCESS');
    const q = await call(ref.url, PAY_QUERY, { order_no: p.order_no });
    expect(q.json.data.status).toBe('REFUNDED');
  });

  it('refunds a Cash App payment in full', async () => {
    const p = await paid('CASH_APP', '20.00');
    const r = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('20.00') }));
    expect(r.json.data.status).toBe('PENDING');
  });

  it('refuses a non-positive refund amount with 422 invalidRefundAmount', async () => {
    const p = await paid();
    for (const value of ['0', '0.00', '-1.00']) {
      expectError(
        await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd(value) })),
        422,
        'invalidRefundAmount',
      );
    }
  });

  it('refuses a refund amount with three decimals with 422 validationFailed', async () => {
    const p = await paid();
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('1.005') })),
      422,
      'validationFailed',
    );
  });

  it('refuses a non-USD refund with 422 notSupported', async () => {
    const p = await paid();
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: { currency: 'EUR', value: '1.00' } })),
      422,
      'notSupported',
    );
  });

  it('refuses a refund of an unknown order with 422 orderNotFound', async () => {
    expectError(await call(ref.url, CREATE, refundBody({ original_order_no: 'P999999999999999999' })), 422, 'orderNotFound');
    expectError(await call(ref.url, CREATE, refundBody({ original_merchant_order_no: uniq() })), 422, 'orderNotFound');
  });

  it("refuses a refund of another merchant's order with 422 orderNotFound", async () => {
    const p = await paid();
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no }), { creds: SECOND }),
      422,
      'orderNotFound',
      SECOND,
    );
  });

  it('refuses a refund of a payment not paid (PENDING, FAILED, EXPIRED) with 422 refundOrderNotPaid', async () => {
    const pending = await call(ref.url, '/api/v1/payments/checkout', checkoutBody());
    const expired = await call(ref.url, '/api/v1/payments/checkout', checkoutBody());
    await call(ref.url, '/sandbox/v1/checkout/expire', { order_no: expired.json.data.order_no });
    const failed = cardBody({ card: { ...(cardBody()['card'] as object), card_number: CARDS.declined } });
    await call(ref.url, '/api/v1/payments/card', failed);
    for (const ref_ of [
      { original_order_no: pending.json.data.order_no },
      { original_order_no: expired.json.data.order_no },
      { original_merchant_order_no: failed['merchant_order_no'] },
    ]) {
      expectError(await call(ref.url, CREATE, refundBody(ref_)), 422, 'refundOrderNotPaid');
    }
  });

  it('refuses a refund of a charged-back payment with 422 validationFailed', async () => {
    const p = await paid();
    const cb = await call(ref.url, '/sandbox/v1/payments/chargeback', { order_no: p.order_no });
    expect(cb.json.data.status).toBe('SUCCESS');
    expectError(await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no })), 422, 'validationFailed');
  });

  it('refuses a refund above the amount charged with 422 refundAmountExceeded', async () => {
    const p = await paid('CARD', '10.00');
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('10.01') })),
      422,
      'refundAmountExceeded',
    );
  });

  it('counts earlier pending and successful refunds, not failed ones, against the amount', async () => {
    const p = await paid('CARD', '10.00');
    const first = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('6.00') }));
    expect(first.json.code).toBe(0);
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('4.01') })),
      422,
      'refundAmountExceeded',
    );
    await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: first.json.data.refund_no, outcome: 'FAILED' });
    const again = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('10.00') }));
    expect(again.json.code).toBe(0);
  });

  it('makes a payment REFUNDED once successful refunds total the amount, and then refuses more', async () => {
    const p = await paid('CARD', '10.00');
    const a = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('4.00') }));
    const b = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('6.00') }));
    await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: a.json.data.refund_no, outcome: 'SUCCESS' });
    expect((await call(ref.url, PAY_QUERY, { order_no: p.order_no })).json.data.status).toBe('SUCCESS');
    await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: b.json.data.refund_no, outcome: 'SUCCESS' });
    expect((await call(ref.url, PAY_QUERY, { order_no: p.order_no })).json.data.status).toBe('REFUNDED');
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('0.01') })),
      422,
      'refundAmountExceeded',
    );
  });

  it('refuses a repeated refund number with 422 duplicateRefundOrder', async () => {
    const p = await paid();
    const b = refundBody({ original_order_no: p.order_no, refund_amount: usd('1.00') });
    expect((await call(ref.url, CREATE, b)).json.code).toBe(0);
    expectError(await call(ref.url, CREATE, b), 422, 'duplicateRefundOrder');
  });

  it('refuses a refund the merchant balance cannot cover with its fee with 422 validationFailed', async () => {
    const p = await paid('CARD', '10.00', LOWBAL);
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('0.71') }), { creds: LOWBAL }),
      422,
      'validationFailed',
      LOWBAL,
    );
    const ok = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('0.70') }), { creds: LOWBAL });
    expect(ok.json.code).toBe(0);
  });

  it('refuses a refund on a channel without refunds (Apple Pay, Google Pay) with 422 notSupported', async () => {
    for (const m of ['APPLE_PAY', 'GOOGLE_PAY']) {
      const p = await paid(m, '9.99');
      expectError(
        await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('1.00') })),
        422,
        'notSupported',
      );
    }
  });

  it('refuses a partial refund on a full-refund-only channel (Cash App) with 422 notSupported', async () => {
    const p = await paid('CASH_APP', '20.00');
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('5.00') })),
      422,
      'notSupported',
    );
  });

  it('records a sandbox-failing refund as FAILED, answers 422 refundFailed and keeps the number used', async () => {
    const p = await paid('CARD', '40.00');
    const b = refundBody({ original_order_no: p.order_no, reason: 'sandbox:refund-failed' });
    expectError(await call(ref.url, CREATE, b), 422, 'refundFailed');
    const q = await call(ref.url, QUERY, { merchant_refund_no: b['merchant_refund_no'] });
    expect(q.json.data.status).toBe('FAILED');
    expectError(await call(ref.url, CREATE, { ...b, reason: 'retry' }), 422, 'duplicateRefundOrder');
    const [hit] = await hooks.waitFor(1, 5000, (h) => h.json?.merchant_order_no === b['merchant_refund_no']);
    expect(hit?.json.status).toBe('FAILED');
  });

  it('refuses a refund naming neither original with 400 mutuallyRequiredFieldsMissing', async () => {
    expectError(await call(ref.url, CREATE, refundBody()), 400, 'mutuallyRequiredFieldsMissing');
  });

  it('refuses a refund naming both originals with 400 mutuallyExclusiveFieldsConflict', async () => {
    const p = await paid();
    expectError(
      await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, original_merchant_order_no: p.merchant_order_no })),
      400,
      'mutuallyExclusiveFieldsConflict',
    );
  });

  for (const [field, name] of [
    ['merchant_refund_no', 'MerchantRefundNo'],
    ['refund_amount', 'RefundAmount'],
    ['reason', 'Reason'],
  ] as const) {
    it(`refuses a refund without ${field} with 400 invalidRequest naming ${name}`, async () => {
      const b = refundBody({ original_order_no: 'P1' });
      delete b[field];
      const r = await call(ref.url, CREATE, b);
      expectError(r, 400, 'invalidRequest');
      expect(r.json.msg).toContain(name);
    });
  }

  it('refuses a refund amount value sent as a number, naming RefundAmount.Value', async () => {
    const r = await call(ref.url, CREATE, refundBody({ original_order_no: 'P1', refund_amount: { currency: 'USD', value: 1 } }));
    expectError(r, 400, 'invalidRequest');
    expect(r.json.msg).toContain('RefundAmount.Value');
  });

  it('refuses refunds of a frozen merchant with 1001 merchantFrozen', async () => {
    const r = await call(ref.url, CREATE, refundBody({ original_order_no: 'P1' }), { creds: FROZEN });
    expect(r.json.code).toBe(1001);
    expect(keyOf(r)).toBe('merchantFrozen');
  });
});

describe('refund query', () => {
  it('finds a refund by refund_no and by merchant_refund_no', async () => {
    const p = await paid();
    const c = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('2.00') }));
    const a = await call(ref.url, QUERY, { refund_no: c.json.data.refund_no });
    const b = await call(ref.url, QUERY, { merchant_refund_no: c.json.data.merchant_refund_no });
    expect(a.json.data).toEqual(c.json.data);
    expect(b.json.data).toEqual(c.json.data);
  });

  it('answers an unknown refund with 2002 refundNotFound', async () => {
    expectError(await call(ref.url, QUERY, { refund_no: 'R000' }), 2002, 'refundNotFound');
    expectError(await call(ref.url, QUERY, { merchant_refund_no: uniq() }), 2002, 'refundNotFound');
  });

  it("answers another merchant's refund with 2002 refundNotFound", async () => {
    const p = await paid();
    const c = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('2.00') }));
    expectError(await call(ref.url, QUERY, { refund_no: c.json.data.refund_no }, { creds: SECOND }), 2002, 'refundNotFound', SECOND);
  });

  it('refuses neither or both numbers with the mutual-field keys', async () => {
    expectError(await call(ref.url, QUERY, {}), 400, 'mutuallyRequiredFieldsMissing');
    expectError(await call(ref.url, QUERY, { refund_no: 'R1', merchant_refund_no: 'X' }), 400, 'mutuallyExclusiveFieldsConflict');
  });
});

describe('refund webhooks', () => {
  it('sends refund.updated with the reason as goods_name, the refunded amount and the original numbers', async () => {
    const p = await call(ref.url, '/api/v1/payments/card', cardBody({ notify_url: hooks.url, metadata: 'pm' }));
    const c = await call(
      ref.url,
      CREATE,
      refundBody({ original_order_no: p.json.data.order_no, refund_amount: usd('3'), reason: 'Damaged box' }),
    );
    const [hit] = await hooks.waitFor(1, 5000, (h) => h.json?.order_no === c.json.data.refund_no);
    expect(hit?.json).toEqual({
      event: 'refund.updated',
      order_no: c.json.data.refund_no,
      merchant_order_no: c.json.data.merchant_refund_no,
      payment_method: 'CARD',
      trans_amount: usd('3.00'),
      trade_info: { goods_name: 'Damaged box' },
      status: 'PENDING',
      metadata: 'pm',
      original_order_no: p.json.data.order_no,
      original_merchant_order_no: p.json.data.merchant_order_no,
      created_at: c.json.data.created_at,
    });
  });

  it('sends only refund.updated, never payment.updated, when a payment becomes REFUNDED', async () => {
    const p = await paid('PAYPAL', '15.00');
    await hooks.waitFor(1, 5000, (h) => h.json?.order_no === p.order_no);
    const r = await call(ref.url, CREATE, refundBody({ original_order_no: p.order_no, refund_amount: usd('15.00') }));
    expect(r.json.data.status).toBe('SUCCESS');
    await hooks.waitFor(1, 5000, (h) => h.json?.order_no === r.json.data.refund_no);
    await sleep(200);
    const paymentEvents = hooks.hits.filter((h) => h.json?.order_no === p.order_no);
    expect(paymentEvents).toHaveLength(1);
    expect(paymentEvents[0]?.json.status).toBe('SUCCESS');
  });
});
