import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { CARDS, cardBody, checkoutBody, payoutBody, refundBody, usd } from './helpers/builders.js';
import { call, keyOf, PRIMARY, type Reply, SECOND, uniq, verifies } from './helpers/client.js';
import { type Receiver, sleep, startReceiver } from './helpers/receiver.js';

let ref: RunningReference;
let hooks: Receiver;
const CHECKOUT = '/api/v1/payments/checkout';
const CARD = '/api/v1/payments/card';

beforeAll(async () => {
  ref = await startReference();
  hooks = await startReceiver();
});
afterAll(async () => {
  await ref.close();
  await hooks.close();
});

function expectError(r: Reply, code: number, key: string): void {
  expect(r.json.code).toBe(code);
  expect(keyOf(r)).toBe(key);
  expect(r.json).not.toHaveProperty('data');
  expect(verifies(r.headers, r.raw, PRIMARY)).toBe(true);
}

async function paidCard(): Promise<{ order_no: string; merchant_order_no: string }> {
  return (await call(ref.url, CARD, cardBody())).json.data;
}

describe('idempotency', () => {
  it('refuses a repeated checkout with 422 duplicateMerchantOrder, not replaying the original', async () => {
    const b = checkoutBody();
    const first = await call(ref.url, CHECKOUT, b);
    const again = await call(ref.url, CHECKOUT, b);
    expect(first.json.code).toBe(0);
    expectError(again, 422, 'duplicateMerchantOrder');
    const q = await call(ref.url, '/api/v1/payments/query', { merchant_order_no: b['merchant_order_no'] });
    expect(q.json.data.order_no).toBe(first.json.data.order_no);
  });

  it('lets exactly one of 50 parallel checkouts with one number succeed', async () => {
    const b = checkoutBody();
    const replies = await Promise.all(Array.from({ length: 50 }, () => call(ref.url, CHECKOUT, b)));
    expect(replies.filter((r) => r.json.code === 0)).toHaveLength(1);
    expect(replies.filter((r) => keyOf(r) === 'duplicateMerchantOrder')).toHaveLength(49);
  });

  it('lets exactly one of 50 parallel card payments, refunds and payouts per number succeed', async () => {
    const p = await paidCard();
    const bodies: Array<[string, Record<string, unknown>]> = [
      [CARD, cardBody()],
      ['/api/v1/refunds/create', refundBody({ original_order_no: p.order_no, refund_amount: usd('0.10') })],
      ['/api/v1/payouts/create', payoutBody({ trans_amount: usd('1.00') })],
    ];
    for (const [path, b] of bodies) {
      const replies = await Promise.all(Array.from({ length: 50 }, () => call(ref.url, path, b)));
      expect(
        replies.filter((r) => r.json.code === 0),
        path,
      ).toHaveLength(1);
    }
  });

  it('blocks a payment number already used as a refund number (shared namespace)', async () => {
    const p = await paidCard();
    const refundNo = uniq('shared');
    expect(
      (await call(ref.url, '/api/v1/refunds/create', refundBody({ merchant_refund_no: refundNo, original_order_no: p.order_no }))).json
        .code,
    ).toBe(0);
    expectError(await call(ref.url, CHECKOUT, checkoutBody({ merchant_order_no: refundNo })), 422, 'duplicateMerchantOrder');
  });

  it('blocks a refund number already used as a payment number (shared namespace)', async () => {
    const p = await paidCard();
    expectError(
      await call(ref.url, '/api/v1/refunds/create', refundBody({ merchant_refund_no: p.merchant_order_no, original_order_no: p.order_no })),
      422,
      'duplicateRefundOrder',
    );
  });

  it('keeps payout numbers apart from payment numbers', async () => {
    const p = await paidCard();
    expect((await call(ref.url, '/api/v1/payouts/create', payoutBody({ merchant_payout_no: p.merchant_order_no }))).json.code).toBe(0);
  });

  it('lets two merchants use the same number', async () => {
    const b = checkoutBody();
    expect((await call(ref.url, CHECKOUT, b)).json.code).toBe(0);
    expect((await call(ref.url, CHECKOUT, b, { creds: SECOND })).json.code).toBe(0);
  });

  it('keeps the number of a declined card payment used', async () => {
    const b = cardBody({ card: { ...(cardBody()['card'] as object), card_number: CARDS.declined } });
    expectError(await call(ref.url, CARD, b), 422, 'paymentFailed');
    expectError(await call(ref.url, CARD, { ...b, card: cardBody()['card'] }), 422, 'duplicateMerchantOrder');
  });

  it('keeps the number of a risk-declined card payment used', async () => {
    const b = cardBody({ card: { ...(cardBody()['card'] as object), card_number: CARDS.risk } });
    expectError(await call(ref.url, CARD, b), 422, 'validationFailed');
    expectError(await call(ref.url, CARD, { ...b, card: cardBody()['card'] }), 422, 'duplicateMerchantOrder');
  });

  it('leaves the number free after refusals that recorded nothing (invalid card, no channel, bad amount)', async () => {
    const b = cardBody({ card: { ...(cardBody()['card'] as object), card_number: CARDS.badLuhn } });
    expectError(await call(ref.url, CARD, b), 422, 'systemBusy');
    expectError(
      await call(ref.url, CARD, { ...b, card: { ...(cardBody()['card'] as object), card_number: CARDS.noChannel } }),
      422,
      'validationFailed',
    );
    expectError(await call(ref.url, CARD, { ...b, trans_amount: usd('0') }), 422, 'invalidAmount');
    expect((await call(ref.url, CARD, { ...b, card: cardBody()['card'] })).json.code).toBe(0);
  });
});

describe('sandbox controls', () => {
  it('completes a checkout as SUCCESS or FAILED and sends payment.updated', async () => {
    for (const outcome of ['SUCCESS', 'FAILED']) {
      const c = await call(ref.url, CHECKOUT, checkoutBody({ notify_url: hooks.url }));
      const r = await call(ref.url, '/sandbox/v1/checkout/complete', { merchant_order_no: c.json.data.merchant_order_no, outcome });
      expect(r.json.data.status).toBe(outcome);
      expect(r.json.data.finished_at).toBeDefined();
      const [hit] = await hooks.waitFor(1, 5000, (h) => h.json?.order_no === c.json.data.order_no);
      expect(hit?.json.status).toBe(outcome);
    }
  });

  it('refuses to complete a checkout that is already final with 422 validationFailed', async () => {
    const c = await call(ref.url, CHECKOUT, checkoutBody());
    await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: c.json.data.order_no, outcome: 'SUCCESS' });
    expectError(
      await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: c.json.data.order_no, outcome: 'FAILED' }),
      422,
      'validationFailed',
    );
    expectError(await call(ref.url, '/sandbox/v1/checkout/expire', { order_no: c.json.data.order_no }), 422, 'validationFailed');
  });

  it('expires a pending checkout without a webhook', async () => {
    const c = await call(ref.url, CHECKOUT, checkoutBody({ notify_url: hooks.url }));
    const r = await call(ref.url, '/sandbox/v1/checkout/expire', { order_no: c.json.data.order_no });
    expect(r.json.data.status).toBe('EXPIRED');
    await sleep(200);
    expect(hooks.hits.filter((h) => h.json?.order_no === c.json.data.order_no)).toHaveLength(0);
  });

  it('records a chargeback without a webhook and without changing the status', async () => {
    const c = await call(ref.url, CHECKOUT, checkoutBody({ notify_url: hooks.url }));
    await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: c.json.data.order_no, outcome: 'SUCCESS' });
    await hooks.waitFor(1, 5000, (h) => h.json?.order_no === c.json.data.order_no);
    const r = await call(ref.url, '/sandbox/v1/payments/chargeback', { order_no: c.json.data.order_no });
    expect(r.json.data.status).toBe('SUCCESS');
    expectError(await call(ref.url, '/sandbox/v1/payments/chargeback', { order_no: c.json.data.order_no }), 422, 'validationFailed');
    await sleep(200);
    expect(hooks.hits.filter((h) => h.json?.order_no === c.json.data.order_no)).toHaveLength(1);
  });

  it('refuses a chargeback of an unpaid payment with 422 validationFailed', async () => {
    const c = await call(ref.url, CHECKOUT, checkoutBody());
    expectError(await call(ref.url, '/sandbox/v1/payments/chargeback', { order_no: c.json.data.order_no }), 422, 'validationFailed');
  });

  it('refuses an outcome other than SUCCESS or FAILED with 400 invalidRequest naming Outcome', async () => {
    const c = await call(ref.url, CHECKOUT, checkoutBody());
    const r = await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: c.json.data.order_no, outcome: 'DONE' });
    expectError(r, 400, 'invalidRequest');
    expect(r.json.msg).toContain('Outcome');
  });

  it('answers controls on unknown records with the not-found keys', async () => {
    expectError(await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: 'P0', outcome: 'SUCCESS' }), 2002, 'orderNotFound');
    expectError(await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: 'R0', outcome: 'SUCCESS' }), 2002, 'refundNotFound');
    expectError(await call(ref.url, '/sandbox/v1/payouts/settle', { payout_no: 'T0', outcome: 'SUCCESS' }), 5002, 'notFound');
  });

  it('refuses to settle a refund twice with 422 validationFailed', async () => {
    const p = await paidCard();
    const r = await call(ref.url, '/api/v1/refunds/create', refundBody({ original_order_no: p.order_no }));
    await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: r.json.data.refund_no, outcome: 'SUCCESS' });
    expectError(
      await call(ref.url, '/sandbox/v1/refunds/settle', { refund_no: r.json.data.refund_no, outcome: 'SUCCESS' }),
      422,
      'validationFailed',
    );
  });
});
