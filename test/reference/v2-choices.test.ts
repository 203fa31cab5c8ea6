/**
 * The reference's choices that a version-2 profile describes: per-merchant methods, a method with
 * no channel, two channels with a gap, a field one method requires, payees per payout method, a
 * pending card and its completion, armed one-shot failures, the settle reason, production keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { CARDS, cardBody, checkoutBody, payoutBody, refundBody, usd } from './helpers/builders.js';
import { call, keyOf, LOWBAL, PRIMARY, type Reply } from './helpers/client.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

let ref: RunningReference;
let hooks: Receiver;
const PENDING_CARD = '4000000000003220';

beforeAll(async () => {
  ref = await startReference({ timeScale: 0.01 });
  hooks = await startReceiver();
});
afterAll(async () => {
  await ref.close();
  await hooks.close();
});

function expectAnswer(r: Reply, code: number, key?: string): void {
  expect(r.status).toBe(200);
  expect(r.json.code, JSON.stringify(r.json)).toBe(code);
  if (key) expect(keyOf(r)).toBe(key);
}

const card = (number: string) => ({
  card_number: number,
  cardholder_name: 'Ada Lovelace',
  exp_month: 12,
  exp_year: new Date().getUTCFullYear() + 3,
  cvc: '123',
});

describe('methods per merchant and channels', () => {
  it('refuses a payment method not enabled for the merchant with 3003 paymentMethodUnavailable', async () => {
    expectAnswer(
      await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: 'CASH_APP' }), { creds: LOWBAL }),
      3003,
      'paymentMethodUnavailable',
    );
    expectAnswer(await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: 'CASH_APP' })), 0);
  });

  it('refuses a payout method not enabled for the merchant with 5007 unsupportedPayoutMethod', async () => {
    expectAnswer(
      await call(ref.url, '/api/v1/payouts/create', payoutBody({ payment_method: 'PAYPAL', trans_amount: usd('1.00') }), { creds: LOWBAL }),
      5007,
      'unsupportedPayoutMethod',
    );
    expectAnswer(
      await call(ref.url, '/api/v1/payouts/create', payoutBody({ payment_method: 'BANK_TRANSFER', trans_amount: usd('1.00') }), {
        creds: LOWBAL,
      }),
      0,
    );
  });

  it('refuses a method whose every channel is down with 422 validationFailed, recording nothing', async () => {
    const b = checkoutBody({ payment_method: 'VENMO' });
    const r = await call(ref.url, '/api/v1/payments/checkout', b);
    expectAnswer(r, 422, 'validationFailed');
    expect(r.json.msg).toContain('No payment channel available');
    expectAnswer(await call(ref.url, '/api/v1/payments/query', { merchant_order_no: b['merchant_order_no'] }), 2002, 'orderNotFound');
  });

  it('accepts Cash App inside either channel and refuses the gap between them with 2006', async () => {
    for (const [value, ok] of [
      ['500.00', true],
      ['500.01', false],
      ['999.99', false],
      ['1000.00', true],
      ['2500.00', true],
    ] as const) {
      const r = await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: 'CASH_APP', trans_amount: usd(value) }));
      if (ok) expectAnswer(r, 0);
      else expectAnswer(r, 2006, 'amountOutOfRange');
    }
  });

  it('requires return_url for a PayPal checkout only', async () => {
    const paypal = checkoutBody({ payment_method: 'PAYPAL' });
    delete paypal['return_url'];
    const r = await call(ref.url, '/api/v1/payments/checkout', paypal);
    expectAnswer(r, 400, 'invalidRequest');
    expect(r.json.msg).toContain('ReturnURL');
    const cash = checkoutBody({ payment_method: 'CASH_APP' });
    delete cash['return_url'];
    expectAnswer(await call(ref.url, '/api/v1/payments/checkout', cash), 0);
  });

  it('requires the payee fields of the payout method', async () => {
    const r = await call(
      ref.url,
      '/api/v1/payouts/create',
      payoutBody({ payment_method: 'PAYPAL', payee: { name: 'Grace Hopper', account: 'X' } }),
    );
    expectAnswer(r, 400, 'invalidRequest');
    expect(r.json.msg).toContain('Payee.Email');
    const ok = await call(ref.url, '/api/v1/payouts/create', payoutBody({ payment_method: 'PAYPAL' }));
    expectAnswer(ok, 0);
    expect(ok.json.data.payee).toEqual({ email: 'grace@example.com' });
  });
});

describe('sandbox controls', () => {
  it('keeps the pending card PENDING without a webhook until complete-card, then sends payment.updated', async () => {
    const b = cardBody({ card: card(PENDING_CARD), notify_url: hooks.url });
    const r = await call(ref.url, '/api/v1/payments/card', b);
    expectAnswer(r, 0);
    expect(r.json.data.status).toBe('PENDING');
    expect(r.json.data).not.toHaveProperty('finished_at');
    const done = await call(ref.url, '/sandbox/v1/payments/complete-card', { order_no: r.json.data.order_no, outcome: 'SUCCESS' });
    expectAnswer(done, 0);
    const [hit] = await hooks.waitFor(1, 5000, (h) => h.json.merchant_order_no === b['merchant_order_no']);
    expect(hit!.json).toMatchObject({ event: 'payment.updated', status: 'SUCCESS' });
    // A checkout payment is not completed by the card control.
    const co = await call(ref.url, '/api/v1/payments/checkout', checkoutBody());
    expectAnswer(
      await call(ref.url, '/sandbox/v1/payments/complete-card', { order_no: co.json.data.order_no, outcome: 'SUCCESS' }),
      422,
      'validationFailed',
    );
  });

  it('fails an armed payment query once with 500 queryFailed, for that order only', async () => {
    const a = checkoutBody();
    const other = checkoutBody();
    await call(ref.url, '/api/v1/payments/checkout', a);
    await call(ref.url, '/api/v1/payments/checkout', other);
    expectAnswer(
      await call(ref.url, '/sandbox/v1/failures/arm', { failure: 'QUERY_FAILED', merchant_order_no: a['merchant_order_no'] }),
      0,
    );
    expectAnswer(await call(ref.url, '/api/v1/payments/query', { merchant_order_no: other['merchant_order_no'] }), 0);
    expectAnswer(await call(ref.url, '/api/v1/payments/query', { merchant_order_no: a['merchant_order_no'] }), 500, 'queryFailed');
    expectAnswer(await call(ref.url, '/api/v1/payments/query', { merchant_order_no: a['merchant_order_no'] }), 0);
  });

  it('fails an armed order creation with 422 systemBusy and records nothing', async () => {
    const b = checkoutBody();
    await call(ref.url, '/sandbox/v1/failures/arm', { failure: 'ORDER_CREATION_FAILED', merchant_order_no: b['merchant_order_no'] });
    expectAnswer(await call(ref.url, '/api/v1/payments/checkout', b), 422, 'systemBusy');
    expectAnswer(await call(ref.url, '/api/v1/payments/checkout', b), 0);
  });

  it('fails an armed refund with 422 systemBusy, or records it FAILED with refundFailed', async () => {
    const paid = cardBody({ card: card(CARDS.success) });
    await call(ref.url, '/api/v1/payments/card', paid);
    const original = { original_merchant_order_no: paid['merchant_order_no'] };
    await call(ref.url, '/sandbox/v1/failures/arm', { failure: 'REFUND_SYSTEM_BUSY', merchant_order_no: paid['merchant_order_no'] });
    expectAnswer(await call(ref.url, '/api/v1/refunds/create', refundBody(original)), 422, 'systemBusy');
    await call(ref.url, '/sandbox/v1/failures/arm', { failure: 'REFUND_FAILED', merchant_order_no: paid['merchant_order_no'] });
    expectAnswer(await call(ref.url, '/api/v1/refunds/create', refundBody(original)), 422, 'refundFailed');
    expectAnswer(await call(ref.url, '/api/v1/refunds/create', refundBody(original)), 0);
  });

  it('refuses an unknown failure name with 400 invalidRequest', async () => {
    expectAnswer(await call(ref.url, '/sandbox/v1/failures/arm', { failure: 'EVERYTHING' }), 400, 'invalidRequest');
  });

  it('records the settle reason as the payout status_reason', async () => {
    const p = await call(ref.url, '/api/v1/payouts/create', payoutBody({ notify_url: hooks.url }));
    const s = await call(ref.url, '/sandbox/v1/payouts/settle', {
      payout_no: p.json.data.payout_no,
      outcome: 'FAILED',
      reason: 'Account frozen by the bank',
    });
    expectAnswer(s, 0);
    expect(s.json.data.status_reason).toBe('Account frozen by the bank');
  });
});

describe('production keys', () => {
  it("refuses a request signed with the merchant's production key with HTTP 403 forbidden", async () => {
    const live = { id: PRIMARY.id, secret: 'sk_live_primary_7d3f1a9c5e2b8046' };
    const r = await call(ref.url, '/api/v1/payments/query', { merchant_order_no: 'X1' }, { creds: live });
    expect(r.status).toBe(403);
    expect(keyOf(r)).toBe('forbidden');
  });
});
