import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { CARDS, cardBody, checkoutBody, usd } from './helpers/builders.js';
import { call, FROZEN, keyOf, PRIMARY, type Reply, SECOND, uniq, verifies } from './helpers/client.js';
import { type Receiver, startReceiver } from './helpers/receiver.js';

let ref: RunningReference;
let hooks: Receiver;
const CHECKOUT = '/api/v1/payments/checkout';
const CARD = '/api/v1/payments/card';
const QUERY = '/api/v1/payments/query';
const RFC3339_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

beforeAll(async () => {
  ref = await startReference();
  hooks = await startReceiver();
});
afterAll(async () => {
  await ref.close();
  await hooks.close();
});

function expectError(r: Reply, code: number, key: string): void {
  expect(r.status).toBe(200);
  expect(r.json.code).toBe(code);
  expect(keyOf(r)).toBe(key);
  expect(r.json).not.toHaveProperty('data');
  expect(verifies(r.headers, r.raw, PRIMARY)).toBe(true);
}

describe('checkout', () => {
  it('creates a PENDING payment with a checkout link and two-decimal amounts', async () => {
    const b = checkoutBody({ trans_amount: usd('12.5') });
    const r = await call(ref.url, CHECKOUT, b);
    expect(r.json.code).toBe(0);
    expect(r.json.msg).toBe('success');
    const d = r.json.data;
    expect(d).toMatchObject({
      merchant_order_no: b['merchant_order_no'],
      payment_method: 'PAYPAL',
      trans_amount: usd('12.50'),
      status: 'PENDING',
    });
    expect(d.order_no).toMatch(/^P\d{18}$/);
    expect(d.checkout_url).toBe(`${ref.url}/checkout/${d.order_no}`);
    expect(d.created_at).toMatch(RFC3339_OFFSET);
    expect(d.created_at.endsWith('+00:00')).toBe(true);
    expect(d).not.toHaveProperty('requested_amount');
  });

  it('accepts every enabled payment method', async () => {
    for (const m of ['CARD', 'PAYPAL', 'CASH_APP', 'APPLE_PAY', 'GOOGLE_PAY']) {
      const r = await call(ref.url, CHECKOUT, checkoutBody({ payment_method: m, trans_amount: usd('9.99') }));
      expect(r.json.code, m).toBe(0);
    }
  });

  const required: Array<[string, (b: Record<string, unknown>) => void, string]> = [
    ['payment_method', (b) => delete b['payment_method'], 'PaymentMethod'],
    ['merchant_order_no', (b) => delete b['merchant_order_no'], 'MerchantOrderNo'],
    ['trans_amount', (b) => delete b['trans_amount'], 'TransAmount'],
    ['trans_amount.currency', (b) => (b['trans_amount'] = { value: '1.00' }), 'TransAmount.Currency'],
    ['trans_amount.value', (b) => (b['trans_amount'] = { currency: 'USD' }), 'TransAmount.Value'],
    ['trade_info', (b) => delete b['trade_info'], 'TradeInfo.GoodsName'],
    ['trade_info.goods_name', (b) => (b['trade_info'] = { description: 'x' }), 'TradeInfo.GoodsName'],
    ['notify_url', (b) => delete b['notify_url'], 'NotifyURL'],
    ['return_url', (b) => delete b['return_url'], 'ReturnURL'],
    ['an empty merchant_order_no', (b) => (b['merchant_order_no'] = ''), 'MerchantOrderNo'],
  ];
  for (const [what, mutate, name] of required) {
    it(`refuses a checkout without ${what} with 400 invalidRequest naming ${name}`, async () => {
      const b = checkoutBody();
      mutate(b);
      const r = await call(ref.url, CHECKOUT, b);
      expectError(r, 400, 'invalidRequest');
      expect(r.json.msg).toContain(name);
    });
  }

  const wrongTypes: Array<[string, string, unknown, string]> = [
    ['payment_method', 'a number', 5, 'PaymentMethod'],
    ['merchant_order_no', 'null', null, 'MerchantOrderNo'],
    ['trade_info', 'an array', ['x'], 'TradeInfo'],
    ['trans_amount', 'a string', '10.00', 'TransAmount'],
    ['metadata', 'an object', { a: 1 }, 'Metadata'],
    ['notify_url', 'a boolean', true, 'NotifyURL'],
  ];
  for (const [field, label, value, name] of wrongTypes) {
    it(`refuses ${field} given as ${label} with 400 invalidRequest naming ${name}`, async () => {
      const r = await call(ref.url, CHECKOUT, checkoutBody({ [field]: value }));
      expectError(r, 400, 'invalidRequest');
      expect(r.json.msg).toContain(name);
    });
  }

  it('refuses goods_name given as a number, naming TradeInfo.GoodsName', async () => {
    const r = await call(ref.url, CHECKOUT, checkoutBody({ trade_info: { goods_name: 7 } }));
    expectError(r, 400, 'invalidRequest');
    expect(r.json.msg).toBe('Field TradeInfo.GoodsName must be a string|invalidRequest');
  });

  it('refuses an amount value sent as a JSON number, naming TransAmount.Value', async () => {
    const r = await call(ref.url, CHECKOUT, checkoutBody({ trans_amount: { currency: 'USD', value: 12.5 } }));
    expectError(r, 400, 'invalidRequest');
    expect(r.json.msg).toContain('TransAmount.Value');
  });

  for (const value of ['abc', '1e3', '12.', '.5', '+5', ' 5', '5,00', '']) {
    it(`refuses the malformed amount value ${JSON.stringify(value)} with 400 invalidRequest`, async () => {
      const r = await call(ref.url, CHECKOUT, checkoutBody({ trans_amount: usd(value) }));
      expectError(r, 400, 'invalidRequest');
    });
  }

  for (const currency of ['usd', 'US', 'USDD', '', 'U$D']) {
    it(`refuses the currency ${JSON.stringify(currency)} with 400 invalidRequest naming TransAmount.Currency`, async () => {
      const r = await call(ref.url, CHECKOUT, checkoutBody({ trans_amount: { currency, value: '10.00' } }));
      expectError(r, 400, 'invalidRequest');
      expect(r.json.msg).toContain('TransAmount.Currency');
    });
  }

  for (const value of ['10.100', '12.500', '1.001', '-5.123']) {
    it(`refuses ${value} (more than 2 decimals) with 422 validationFailed`, async () => {
      expectError(await call(ref.url, CHECKOUT, checkoutBody({ trans_amount: usd(value) })), 422, 'validationFailed');
    });
  }

  for (const value of ['0', '0.00', '-5', '-0.01', '-0']) {
    it(`refuses the non-positive amount ${value} with 422 invalidAmount`, async () => {
      expectError(await call(ref.url, CHECKOUT, checkoutBody({ trans_amount: usd(value) })), 422, 'invalidAmount');
    });
  }

  it('refuses a well-formed non-USD currency with 422 notSupported', async () => {
    expectError(await call(ref.url, CHECKOUT, checkoutBody({ trans_amount: { currency: 'EUR', value: '10.00' } })), 422, 'notSupported');
  });

  it('refuses an unknown payment method with 3003 unsupportedPaymentMethod', async () => {
    expectError(await call(ref.url, CHECKOUT, checkoutBody({ payment_method: 'BITCOIN' })), 3003, 'unsupportedPaymentMethod');
  });

  it('refuses a known method not enabled for the merchant (KLARNA) with 3003 paymentMethodUnavailable', async () => {
    expectError(await call(ref.url, CHECKOUT, checkoutBody({ payment_method: 'KLARNA' })), 3003, 'paymentMethodUnavailable');
  });

  it('refuses the payout-only BANK_TRANSFER as a payment method with 3003 paymentMethodUnavailable', async () => {
    expectError(await call(ref.url, CHECKOUT, checkoutBody({ payment_method: 'BANK_TRANSFER' })), 3003, 'paymentMethodUnavailable');
  });

  const limits: Array<[string, string, string]> = [
    ['CARD', '0.50', '10000.00'],
    ['PAYPAL', '1.00', '5000.00'],
    ['CASH_APP', '1.00', '2500.00'],
  ];
  for (const [method, min, max] of limits) {
    it(`accepts ${method} at ${min} and ${max} and refuses just outside with 2006 amountOutOfRange`, async () => {
      const cents = (s: string): number => Math.round(Number(s) * 100);
      const fmt = (c: number): string => (c / 100).toFixed(2);
      for (const [value, ok] of [
        [min, true],
        [max, true],
        [fmt(cents(min) - 1), false],
        [fmt(cents(max) + 1), false],
      ] as const) {
        const r = await call(ref.url, CHECKOUT, checkoutBody({ payment_method: method, trans_amount: usd(value) }));
        if (ok) expect(r.json.code, `${method} ${value}`).toBe(0);
        else expectError(r, 2006, 'amountOutOfRange');
      }
    });
  }

  it('refuses an absurdly large amount with 2006 amountOutOfRange instead of failing', async () => {
    for (const value of ['1000000000000.00', '9'.repeat(400), `${'9'.repeat(200_000)}.99`]) {
      expectError(await call(ref.url, CHECKOUT, checkoutBody({ trans_amount: usd(value) })), 2006, 'amountOutOfRange');
    }
  });

  it('rounds an Apple Pay amount up to the next price point and shows the requested amount', async () => {
    const r = await call(ref.url, CHECKOUT, checkoutBody({ payment_method: 'APPLE_PAY', trans_amount: usd('5') }));
    expect(r.json.data).toMatchObject({ trans_amount: usd('9.99'), requested_amount: usd('5.00') });
  });

  it('charges a Google Pay amount equal to a price point as is, without requested_amount', async () => {
    const r = await call(ref.url, CHECKOUT, checkoutBody({ payment_method: 'GOOGLE_PAY', trans_amount: usd('19.99') }));
    expect(r.json.data.trans_amount).toEqual(usd('19.99'));
    expect(r.json.data).not.toHaveProperty('requested_amount');
  });

  it('rounds the smallest Google Pay amount up to 0.99', async () => {
    const r = await call(ref.url, CHECKOUT, checkoutBody({ payment_method: 'GOOGLE_PAY', trans_amount: usd('0.01') }));
    expect(r.json.data).toMatchObject({ trans_amount: usd('0.99'), requested_amount: usd('0.01') });
  });

  it('refuses a wallet amount above every price point with 422 notSupported', async () => {
    expectError(
      await call(ref.url, CHECKOUT, checkoutBody({ payment_method: 'APPLE_PAY', trans_amount: usd('100.00') })),
      422,
      'notSupported',
    );
  });

  for (const key of ['paymentMethod', 'merchantOrderNo', 'transAmount', 'notifyUrl']) {
    it(`refuses the camelCase key ${key} with 400 invalidRequest naming it`, async () => {
      const r = await call(ref.url, CHECKOUT, { ...checkoutBody(), [key]: 'x' });
      expectError(r, 400, 'invalidRequest');
      expect(r.json.msg).toContain(key);
    });
  }

  it('refuses a camelCase key inside trade_info', async () => {
    const r = await call(ref.url, CHECKOUT, checkoutBody({ trade_info: { goodsName: 'Tea' } }));
    expectError(r, 400, 'invalidRequest');
    expect(r.json.msg).toContain('goodsName');
  });

  it('refuses a whole camelCase request', async () => {
    const r = await call(ref.url, CHECKOUT, {
      paymentMethod: 'PAYPAL',
      merchantOrderNo: uniq(),
      transAmount: usd('10.00'),
      tradeInfo: { goodsName: 'Tea' },
      notifyUrl: 'http://127.0.0.1:9/x',
      returnUrl: 'http://127.0.0.1:9/y',
    });
    expectError(r, 400, 'invalidRequest');
  });

  for (const url of ['ftp://example.com/x', 'not a url', '/relative/path', 'http://']) {
    it(`refuses notify_url ${JSON.stringify(url)} with 400 invalidRequest naming NotifyURL`, async () => {
      const r = await call(ref.url, CHECKOUT, checkoutBody({ notify_url: url }));
      expectError(r, 400, 'invalidRequest');
      expect(r.json.msg).toContain('NotifyURL');
    });
  }

  it('refuses a frozen merchant with 1001 merchantFrozen', async () => {
    const r = await call(ref.url, CHECKOUT, checkoutBody(), { creds: FROZEN });
    expect(r.json.code).toBe(1001);
    expect(keyOf(r)).toBe('merchantFrozen');
    expect(verifies(r.headers, r.raw, FROZEN)).toBe(true);
  });

  it('answers in plain English without key or field details for Accept-Language: en', async () => {
    const b = checkoutBody();
    delete b['trade_info'];
    for (const lang of ['en', 'en-US', 'EN-gb', 'en;q=0.9, fr']) {
      const r = await call(ref.url, CHECKOUT, b, { headers: { 'Accept-Language': lang } });
      expect(r.json.code).toBe(400);
      expect(r.json.msg).toBe('The request is invalid.');
    }
    const fr = await call(ref.url, CHECKOUT, b, { headers: { 'Accept-Language': 'fr, en' } });
    expect(fr.json.msg).toContain('|invalidRequest');
  });

  it('keeps unicode goods names and metadata intact', async () => {
    const b = checkoutBody({ trade_info: { goods_name: 'Thé vert 🍵 «extra»', description: '日本茶' }, metadata: 'ü\u0000\u2028' });
    const r = await call(ref.url, CHECKOUT, b);
    const q = await call(ref.url, QUERY, { order_no: r.json.data.order_no });
    expect(q.json.data.trade_info).toEqual({ goods_name: 'Thé vert 🍵 «extra»', description: '日本茶' });
    expect(q.json.data.metadata).toBe('ü\u0000\u2028');
  });
});

describe('card payments', () => {
  it('charges a fixture success card at once and sends payment.updated SUCCESS', async () => {
    const b = cardBody({ notify_url: hooks.url, metadata: 'm-1' });
    const r = await call(ref.url, CARD, b);
    expect(r.json.code).toBe(0);
    expect(r.json.data).toMatchObject({
      status: 'SUCCESS',
      merchant_order_no: b['merchant_order_no'],
      trans_amount: usd('40.00'),
      metadata: 'm-1',
    });
    expect(r.json.data.finished_at).toMatch(RFC3339_OFFSET);
    const [hit] = await hooks.waitFor(1, 5000, (h) => h.json?.order_no === r.json.data.order_no);
    expect(hit?.json).toMatchObject({ event: 'payment.updated', status: 'SUCCESS' });
  });

  it('charges any other Luhn-valid card', async () => {
    const r = await call(ref.url, CARD, cardBody({ card: { ...(cardBody()['card'] as object), card_number: CARDS.otherValid } }));
    expect(r.json.data.status).toBe('SUCCESS');
  });

  it('answers a provider decline with 422 paymentFailed, records FAILED and sends a FAILED webhook without a reason', async () => {
    const b = cardBody({ notify_url: hooks.url, card: { ...(cardBody()['card'] as object), card_number: CARDS.declined } });
    const r = await call(ref.url, CARD, b);
    expectError(r, 422, 'paymentFailed');
    const q = await call(ref.url, QUERY, { merchant_order_no: b['merchant_order_no'] });
    expect(q.json.data.status).toBe('FAILED');
    const [hit] = await hooks.waitFor(1, 5000, (h) => h.json?.merchant_order_no === b['merchant_order_no']);
    expect(hit?.json.status).toBe('FAILED');
    expect(Object.keys(hit?.json ?? {}).some((k) => /reason|error|fail/i.test(k))).toBe(false);
  });

  // "A declined payment ends as FAILED and a payment.updated webhook follows": a risk decline too.
  it('answers a risk decline with 422 validationFailed, records FAILED and sends a FAILED webhook', async () => {
    const b = cardBody({ notify_url: hooks.url, card: { ...(cardBody()['card'] as object), card_number: CARDS.risk } });
    expectError(await call(ref.url, CARD, b), 422, 'validationFailed');
    const q = await call(ref.url, QUERY, { merchant_order_no: b['merchant_order_no'] });
    expect(q.json.data.status).toBe('FAILED');
    const [hit] = await hooks.waitFor(1, 5000, (h) => h.json?.merchant_order_no === b['merchant_order_no']);
    expect(hit?.json.status).toBe('FAILED');
  });

  it('answers "no channel available" with 422 validationFailed and records nothing', async () => {
    const b = cardBody({ card: { ...(cardBody()['card'] as object), card_number: CARDS.noChannel } });
    expectError(await call(ref.url, CARD, b), 422, 'validationFailed');
    expectError(await call(ref.url, QUERY, { merchant_order_no: b['merchant_order_no'] }), 2002, 'orderNotFound');
  });

  const badCards: Array<[string, Record<string, unknown>]> = [
    ['a card number failing Luhn', { card_number: CARDS.badLuhn }],
    ['a card number with letters', { card_number: '4242abcd42424242' }],
    ['expiry month 13', { exp_month: 13 }],
    ['expiry month 0', { exp_month: 0 }],
    ['an expired year', { exp_year: new Date().getUTCFullYear() - 1 }],
    ['a two-digit CVC', { cvc: '12' }],
    ['a CVC with letters', { cvc: '12a' }],
  ];
  for (const [label, over] of badCards) {
    it(`answers ${label} with 422 systemBusy and the interface's message, recording nothing`, async () => {
      const b = cardBody({ card: { ...(cardBody()['card'] as object), ...over } });
      const r = await call(ref.url, CARD, b);
      expectError(r, 422, 'systemBusy');
      expect(r.json.msg).toBe('System busy, please try again later|systemBusy');
      expectError(await call(ref.url, QUERY, { merchant_order_no: b['merchant_order_no'] }), 2002, 'orderNotFound');
    });
  }

  const cardFields: Array<[string, Record<string, unknown>, string]> = [
    ['without card', { card: undefined }, 'Card'],
    ['without card_number', { card: { cardholder_name: 'A', exp_month: 1, exp_year: 2099, cvc: '123' } }, 'Card.CardNumber'],
    ['with exp_month as a string', { card: { ...(cardBody()['card'] as object), exp_month: '12' } }, 'Card.ExpMonth'],
    ['with exp_year as a float', { card: { ...(cardBody()['card'] as object), exp_year: 2030.5 } }, 'Card.ExpYear'],
    ['without billing_address', { billing_address: undefined }, 'BillingAddress'],
    ['without billing country', { billing_address: { email: 'a@b.c' } }, 'BillingAddress.Country'],
    ['without billing email', { billing_address: { country: 'US' } }, 'BillingAddress.Email'],
    ['with an unknown billing key', { billing_address: { country: 'US', email: 'a@b.c', zip: '1' } }, 'zip'],
    ['without device_ip', { device_ip: undefined }, 'DeviceIP'],
    ['with an invalid device_ip', { device_ip: '999.1.1.1' }, 'DeviceIP'],
    ['without trade_info.goods_name', { trade_info: {} }, 'TradeInfo.GoodsName'],
  ];
  for (const [label, over, name] of cardFields) {
    it(`refuses a card payment ${label} with 400 invalidRequest naming ${name}`, async () => {
      const b = cardBody(over);
      for (const [k, v] of Object.entries(over)) if (v === undefined) delete b[k];
      const r = await call(ref.url, CARD, b);
      expectError(r, 400, 'invalidRequest');
      expect(r.json.msg).toContain(name);
    });
  }

  it('accepts a far-future expiry year', async () => {
    const r = await call(ref.url, CARD, cardBody({ card: { ...(cardBody()['card'] as object), exp_year: 2099 } }));
    expect(r.json.code).toBe(0);
  });

  it('accepts a card expiring this month', async () => {
    const now = new Date();
    const r = await call(
      ref.url,
      CARD,
      cardBody({ card: { ...(cardBody()['card'] as object), exp_year: now.getUTCFullYear(), exp_month: now.getUTCMonth() + 1 } }),
    );
    expect(r.json.code).toBe(0);
  });

  it('accepts an IPv6 device address', async () => {
    expect((await call(ref.url, CARD, cardBody({ device_ip: '2001:db8::1' }))).json.code).toBe(0);
  });

  it('refuses another known method on the card endpoint with 3003 paymentMethodUnavailable', async () => {
    expectError(await call(ref.url, CARD, cardBody({ payment_method: 'PAYPAL' })), 3003, 'paymentMethodUnavailable');
  });

  it('refuses an unknown method on the card endpoint with 3003 unsupportedPaymentMethod', async () => {
    expectError(await call(ref.url, CARD, cardBody({ payment_method: 'VISA' })), 3003, 'unsupportedPaymentMethod');
  });

  it('refuses a card amount below 0.50 with 2006 amountOutOfRange', async () => {
    expectError(await call(ref.url, CARD, cardBody({ trans_amount: usd('0.49') })), 2006, 'amountOutOfRange');
  });

  it('refuses card payments of a frozen merchant with 1001 merchantFrozen', async () => {
    const r = await call(ref.url, CARD, cardBody(), { creds: FROZEN });
    expect(r.json.code).toBe(1001);
  });
});

describe('payment query', () => {
  let order: { order_no: string; merchant_order_no: string };
  beforeAll(async () => {
    const r = await call(ref.url, CHECKOUT, checkoutBody({ metadata: 'meta-7' }));
    order = r.json.data;
  });

  it('finds a payment by order_no and by merchant_order_no with the same record', async () => {
    const a = await call(ref.url, QUERY, { order_no: order.order_no });
    const b = await call(ref.url, QUERY, { merchant_order_no: order.merchant_order_no });
    expect(a.json.code).toBe(0);
    expect(a.json.data).toEqual(b.json.data);
    expect(Object.keys(a.json.data).sort()).toEqual(
      ['created_at', 'merchant_order_no', 'metadata', 'order_no', 'payment_method', 'status', 'trade_info', 'trans_amount'].sort(),
    );
    expect(a.json.data.metadata).toBe('meta-7');
  });

  it('refuses a query with neither number with 400 mutuallyRequiredFieldsMissing', async () => {
    expectError(await call(ref.url, QUERY, {}), 400, 'mutuallyRequiredFieldsMissing');
  });

  it('counts empty strings as not sent', async () => {
    expectError(await call(ref.url, QUERY, { order_no: '', merchant_order_no: '' }), 400, 'mutuallyRequiredFieldsMissing');
    expect((await call(ref.url, QUERY, { order_no: order.order_no, merchant_order_no: '' })).json.code).toBe(0);
  });

  it('refuses a query with both numbers with 400 mutuallyExclusiveFieldsConflict', async () => {
    expectError(
      await call(ref.url, QUERY, { order_no: order.order_no, merchant_order_no: order.merchant_order_no }),
      400,
      'mutuallyExclusiveFieldsConflict',
    );
  });

  it('answers an unknown order with 2002 orderNotFound', async () => {
    expectError(await call(ref.url, QUERY, { order_no: 'P000000000000000000' }), 2002, 'orderNotFound');
  });

  it("answers another merchant's order_no with 403 orderAccessDenied and no data", async () => {
    const r = await call(ref.url, QUERY, { order_no: order.order_no }, { creds: SECOND });
    expect(r.status).toBe(200);
    expect(r.json.code).toBe(403);
    expect(keyOf(r)).toBe('orderAccessDenied');
    expect(r.json).not.toHaveProperty('data');
    expect(verifies(r.headers, r.raw, SECOND)).toBe(true);
  });

  it("treats another merchant's merchant_order_no as not found", async () => {
    const r = await call(ref.url, QUERY, { merchant_order_no: order.merchant_order_no }, { creds: SECOND });
    expect(r.json.code).toBe(2002);
  });

  it('lets a frozen merchant query', async () => {
    const r = await call(ref.url, QUERY, { order_no: 'P1' }, { creds: FROZEN });
    expect(r.json.code).toBe(2002);
  });

  it('refuses a lookup number of the wrong type with 400 invalidRequest naming it', async () => {
    const r = await call(ref.url, QUERY, { order_no: 42 });
    expectError(r, 400, 'invalidRequest');
    expect(r.json.msg).toContain('OrderNo');
  });
});
