import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { payoutBody, usd } from './helpers/builders.js';
import { type Creds, call, FROZEN, keyOf, LOWBAL, PRIMARY, type Reply, SECOND, uniq, verifies } from './helpers/client.js';
import { type Receiver, sleep, startReceiver } from './helpers/receiver.js';

let ref: RunningReference;
let hooks: Receiver;
const CREATE = '/api/v1/payouts/create';
const QUERY = '/api/v1/payouts/query';
const CANCEL = '/api/v1/payouts/cancel';
const SETTLE = '/sandbox/v1/payouts/settle';

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

async function created(over: Record<string, unknown> = {}, creds: Creds = PRIMARY): Promise<Record<string, string>> {
  const r = await call(ref.url, CREATE, payoutBody({ notify_url: hooks.url, ...over }), { creds });
  expect(r.json.code).toBe(0);
  return r.json.data;
}

describe('payout creation', () => {
  it('creates a PENDING payout with two-decimal amount and sends no webhook yet', async () => {
    const d = await created({ trans_amount: usd('250.5') });
    expect(d).toMatchObject({
      payment_method: 'BANK_TRANSFER',
      trans_amount: usd('250.50'),
      status: 'PENDING',
      payee: { name: 'Grace Hopper', account: 'GB33BUKB20201555555555' },
    });
    expect(d['payout_no']).toMatch(/^T\d{18}$/);
    expect(d).not.toHaveProperty('finished_at');
    await sleep(150);
    expect(hooks.hits.filter((h) => h.json?.order_no === d['payout_no'])).toHaveLength(0);
  });

  it('refuses a known method that is not a payout method (CASH_APP) with 5007 unsupportedPayoutMethod', async () => {
    expectError(await call(ref.url, CREATE, payoutBody({ payment_method: 'CASH_APP' })), 5007, 'unsupportedPayoutMethod');
  });

  it('refuses an unknown payout method with 5007 unsupportedPaymentMethod', async () => {
    expectError(await call(ref.url, CREATE, payoutBody({ payment_method: 'WIRE' })), 5007, 'unsupportedPaymentMethod');
  });

  it('refuses payouts of a frozen merchant with 1001 merchantFrozen', async () => {
    expectError(await call(ref.url, CREATE, payoutBody(), { creds: FROZEN }), 1001, 'merchantFrozen', FROZEN);
  });

  it('refuses a non-USD payout with 5008 amountOutOfRange', async () => {
    expectError(await call(ref.url, CREATE, payoutBody({ trans_amount: { currency: 'GBP', value: '10.00' } })), 5008, 'amountOutOfRange');
  });

  it('refuses amounts outside the method range with 5008 amountOutOfRange and accepts the bounds', async () => {
    for (const [method, min, max, below, above] of [
      ['BANK_TRANSFER', '1.00', '50000.00', '0.99', '50000.01'],
      ['PAYPAL', '1.00', '10000.00', '0.99', '10000.01'],
    ] as const) {
      expect((await call(ref.url, CREATE, payoutBody({ payment_method: method, trans_amount: usd(min) }))).json.code).toBe(0);
      expect((await call(ref.url, CREATE, payoutBody({ payment_method: method, trans_amount: usd(max) }))).json.code).toBe(0);
      expectError(await call(ref.url, CREATE, payoutBody({ payment_method: method, trans_amount: usd(below) })), 5008, 'amountOutOfRange');
      expectError(await call(ref.url, CREATE, payoutBody({ payment_method: method, trans_amount: usd(above) })), 5008, 'amountOutOfRange');
    }
  });

  // A BANK_TRANSFER payout takes its fee with it (M100003's own: 0.25 + 12 %, half up, at most 0.50): 5.00 covers 4.50 and its
  // fee, not 4.51.
  it('refuses a payout above the payout balance with 5004 insufficientFunds, counting reserved payouts and fees', async () => {
    expectError(
      await call(ref.url, CREATE, payoutBody({ trans_amount: usd('4.51') }), { creds: LOWBAL }),
      5004,
      'insufficientFunds',
      LOWBAL,
    );
    const first = await created({ trans_amount: usd('3.00') }, LOWBAL);
    expectError(
      await call(ref.url, CREATE, payoutBody({ trans_amount: usd('3.00') }), { creds: LOWBAL }),
      5004,
      'insufficientFunds',
      LOWBAL,
    );
    await call(ref.url, CANCEL, { payout_no: first['payout_no'] }, { creds: LOWBAL });
    const second = await created({ trans_amount: usd('4.50') }, LOWBAL);
    await call(ref.url, SETTLE, { payout_no: second['payout_no'], outcome: 'FAILED' }, { creds: LOWBAL });
    await created({ trans_amount: usd('4.50') }, LOWBAL);
  });

  // EUR 3.00 covers 2.50 and its fee (at most 0.50), not 2.51.
  it("draws a payout in another currency on that currency's balance only (M100003 holds EUR 3.00)", async () => {
    const eur = (value: string) => ({ currency: 'EUR', value });
    expectError(
      await call(ref.url, CREATE, payoutBody({ trans_amount: eur('2.51') }), { creds: LOWBAL }),
      5004,
      'insufficientFunds',
      LOWBAL,
    );
    const held = await created({ trans_amount: eur('2.50') }, LOWBAL);
    expectError(
      await call(ref.url, CREATE, payoutBody({ trans_amount: eur('1.00') }), { creds: LOWBAL }),
      5004,
      'insufficientFunds',
      LOWBAL,
    );
    await call(ref.url, CANCEL, { payout_no: held['payout_no'] }, { creds: LOWBAL });
    await call(ref.url, CANCEL, { payout_no: (await created({ trans_amount: eur('2.50') }, LOWBAL))['payout_no'] }, { creds: LOWBAL });
  });

  it('refuses a repeated payout number with 422 duplicatePayoutOrder', async () => {
    const b = payoutBody();
    expect((await call(ref.url, CREATE, b)).json.code).toBe(0);
    expectError(await call(ref.url, CREATE, b), 422, 'duplicatePayoutOrder');
  });

  it('refuses amount shape errors like payments do (400, 422 validationFailed, 422 invalidAmount)', async () => {
    expectError(await call(ref.url, CREATE, payoutBody({ trans_amount: { currency: 'USD', value: 10 } })), 400, 'invalidRequest');
    expectError(await call(ref.url, CREATE, payoutBody({ trans_amount: usd('10.001') })), 422, 'validationFailed');
    expectError(await call(ref.url, CREATE, payoutBody({ trans_amount: usd('0.00') })), 422, 'invalidAmount');
  });

  for (const [label, over, name] of [
    ['without payee', { payee: undefined }, 'Payee'],
    ['without payee name', { payee: { account: 'X' } }, 'Payee.Name'],
    ['without payee account', { payee: { name: 'X' } }, 'Payee.Account'],
    ['without notify_url', { notify_url: undefined }, 'NotifyURL'],
    ['without merchant_payout_no', { merchant_payout_no: undefined }, 'MerchantPayoutNo'],
    ['without payment_method', { payment_method: undefined }, 'PaymentMethod'],
  ] as const) {
    it(`refuses a payout ${label} with 400 invalidRequest naming ${name}`, async () => {
      const b = payoutBody(over);
      for (const [k, v] of Object.entries(over)) if (v === undefined) delete b[k];
      const r = await call(ref.url, CREATE, b);
      expectError(r, 400, 'invalidRequest');
      expect(r.json.msg).toContain(name);
    });
  }
});

describe('payout query, settle and cancel', () => {
  it('finds a payout by either number', async () => {
    const d = await created();
    const a = await call(ref.url, QUERY, { payout_no: d['payout_no'] });
    const b = await call(ref.url, QUERY, { merchant_payout_no: d['merchant_payout_no'] });
    expect(a.json.data).toEqual(d);
    expect(b.json.data).toEqual(d);
  });

  it('answers an unknown payout query with 5002 notFound', async () => {
    expectError(await call(ref.url, QUERY, { payout_no: 'T0' }), 5002, 'notFound');
  });

  it("answers another merchant's payout with 5002 notFound", async () => {
    const d = await created();
    expectError(await call(ref.url, QUERY, { payout_no: d['payout_no'] }, { creds: SECOND }), 5002, 'notFound', SECOND);
  });

  it('refuses neither or both numbers with the mutual-field keys', async () => {
    expectError(await call(ref.url, QUERY, {}), 400, 'mutuallyRequiredFieldsMissing');
    expectError(await call(ref.url, CANCEL, { payout_no: 'T1', merchant_payout_no: 'x' }), 400, 'mutuallyExclusiveFieldsConflict');
  });

  it('settles a payout as SUCCESS with a payout.updated webhook carrying status_reason', async () => {
    const d = await created({ trans_amount: usd('12') });
    const s = await call(ref.url, SETTLE, { payout_no: d['payout_no'], outcome: 'SUCCESS' });
    expect(s.json.data).toMatchObject({ status: 'SUCCESS', status_reason: 'Paid' });
    const [hit] = await hooks.waitFor(1, 5000, (h) => h.json?.order_no === d['payout_no']);
    expect(hit?.json).toEqual({
      event: 'payout.updated',
      order_no: d['payout_no'],
      merchant_order_no: d['merchant_payout_no'],
      payment_method: 'BANK_TRANSFER',
      trans_amount: usd('12.00'),
      status: 'SUCCESS',
      status_reason: 'Paid',
      metadata: '',
      finished_at: s.json.data.finished_at,
      created_at: d['created_at'],
    });
  });

  it('settles a payout as FAILED with a reason', async () => {
    const d = await created();
    const s = await call(ref.url, SETTLE, { merchant_payout_no: d['merchant_payout_no'], outcome: 'FAILED' });
    expect(s.json.data).toMatchObject({ status: 'FAILED', status_reason: 'Beneficiary account closed' });
  });

  it('cancels a PENDING payout as CANCELED with a webhook', async () => {
    const d = await created();
    const c = await call(ref.url, CANCEL, { merchant_payout_no: d['merchant_payout_no'] });
    expect(c.json.data).toMatchObject({ status: 'CANCELED', status_reason: 'Canceled by merchant' });
    const [hit] = await hooks.waitFor(1, 5000, (h) => h.json?.order_no === d['payout_no']);
    expect(hit?.json.status).toBe('CANCELED');
  });

  it('refuses to cancel a payout in SUCCESS with 5003 payoutNotCancelable naming the status', async () => {
    const d = await created();
    await call(ref.url, SETTLE, { payout_no: d['payout_no'], outcome: 'SUCCESS' });
    const r = await call(ref.url, CANCEL, { payout_no: d['payout_no'] });
    expectError(r, 5003, 'payoutNotCancelable');
    expect(r.json.msg).toBe('Payout cannot be canceled in status SUCCESS|payoutNotCancelable');
  });

  it('refuses to cancel twice, naming CANCELED', async () => {
    const d = await created();
    await call(ref.url, CANCEL, { payout_no: d['payout_no'] });
    const r = await call(ref.url, CANCEL, { payout_no: d['payout_no'] });
    expect(r.json.msg).toContain('CANCELED');
  });

  it('refuses to cancel on a channel without cancel (PayPal) with 422 notSupported', async () => {
    const d = await created({ payment_method: 'PAYPAL' });
    expectError(await call(ref.url, CANCEL, { payout_no: d['payout_no'] }), 422, 'notSupported');
  });

  it('answers a cancel of an unknown payout with 422 notFound', async () => {
    expectError(await call(ref.url, CANCEL, { merchant_payout_no: uniq() }), 422, 'notFound');
  });

  it('refuses to settle a payout that is no longer PENDING with 422 validationFailed', async () => {
    const d = await created();
    await call(ref.url, SETTLE, { payout_no: d['payout_no'], outcome: 'SUCCESS' });
    expectError(await call(ref.url, SETTLE, { payout_no: d['payout_no'], outcome: 'FAILED' }), 422, 'validationFailed');
  });
});
