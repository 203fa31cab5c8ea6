import { defineSuite } from '../harness/check/define.js';
import { expectEqual, expectError, expectSuccess, pick } from '../harness/check/expect.js';
import { skipUnless } from '../harness/check/failure.js';
import { checkout, checkoutBody, createCheckout, queryPayment } from '../harness/ops.js';
import { fitLength } from '../harness/profile/lengths.js';

/** Fields of a checkout request and values of the wrong JSON type for each (Amount values excluded: see the amounts suite). */
const WRONG_TYPES: readonly { path: string; value: unknown }[] = [
  { path: 'payment_method', value: 42 },
  { path: 'payment_method', value: ['CARD'] },
  { path: 'merchant_order_no', value: 12345 },
  { path: 'merchant_order_no', value: { no: '1' } },
  { path: 'trans_amount', value: '10.00' },
  { path: 'trans_amount', value: [] },
  { path: 'trade_info', value: 'Conformance test item' },
  { path: 'trade_info.goods_name', value: 42 },
  { path: 'trade_info.goods_name', value: { name: 'item' } },
  { path: 'trade_info.description', value: 7 },
  { path: 'metadata', value: { a: 1 } },
  { path: 'metadata', value: 3 },
];

function setPath(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const parts = path.split('.');
  let cur = copy;
  for (const p of parts.slice(0, -1)) cur = cur[p] as Record<string, unknown>;
  cur[parts[parts.length - 1]!] = value;
  return copy;
}

/** INTERFACE.md › POST /api/v1/payments/checkout, Payment: what a checkout creates and which fields it requires. */
export default defineSuite('checkout', { area: 'payments', resource: 'payment' }, [
  {
    title: 'creates a payment that a query finds by its order_no and by its merchant_order_no',
    clause: ['checkout.creates', 'query.returns-record'],
    async run({ target }) {
      const order = await createCheckout(target, 'checkout.creates');
      const rec = target.profile.paymentRecord;
      for (const by of [{ order_no: order.orderNo }, { merchant_order_no: order.merchantOrderNo }]) {
        const field = Object.keys(by)[0]!;
        const q = await queryPayment(target, by, { label: `query the new checkout by ${field}` });
        const data = expectSuccess(q, { what: `a query by ${field} for the checkout just created` });
        if (rec) {
          expectEqual(pick(data, rec.orderNo), order.orderNo, 'query.returns-record', {
            code: 'WRONG_RECORD',
            title: `the query by ${field} should return the payment created (order_no)`,
            exchange: q,
          });
          expectEqual(pick(data, rec.merchantOrderNo), order.merchantOrderNo, 'query.returns-record', {
            code: 'WRONG_RECORD',
            title: `the query by ${field} should return the payment created (merchant_order_no)`,
            exchange: q,
          });
        }
      }
    },
  },
  {
    title: 'records a new checkout with the status the profile declares for an unpaid checkout',
    clause: 'checkout.creates',
    async run({ target }) {
      const pending = target.profile.checkout?.pendingStatus;
      const rec = target.profile.paymentRecord;
      skipUnless(pending, 'the profile declares no status of an unpaid checkout (checkout.pendingStatus)', {
        declare: ['checkout.pendingStatus'],
      });
      skipUnless(rec, 'the profile declares no payment record shape (paymentRecord)', { declare: ['paymentRecord'] });
      const order = await createCheckout(target, 'checkout.creates');
      const q = await queryPayment(target, { order_no: order.orderNo });
      const data = expectSuccess(q, { what: 'querying the checkout just created' });
      expectEqual(pick(data, rec.status), pending, {
        code: 'WRONG_PAYMENT_STATUS',
        title: 'a checkout nobody has paid yet should show the declared pending status',
        exchange: q,
      });
    },
  },
  {
    title: 'refuses a checkout without merchant_order_no as invalidRequest',
    clause: ['payment.merchant-order-no.required', 'err.req.invalid-request'],
    async run({ target }) {
      const ex = await checkout(target, { omit: ['merchant_order_no'] }, { label: 'checkout without merchant_order_no' });
      expectError(ex, { code: 400, key: 'invalidRequest' }, { what: 'a checkout without merchant_order_no' });
    },
  },
  {
    title: 'refuses a checkout without trans_amount as invalidRequest',
    clause: ['payment.trans-amount.required', 'err.req.invalid-request'],
    async run({ target }) {
      const ex = await checkout(target, { omit: ['trans_amount'] }, { label: 'checkout without trans_amount' });
      expectError(ex, { code: 400, key: 'invalidRequest' }, { what: 'a checkout without trans_amount' });
    },
  },
  {
    title: 'accepts a checkout whose trade_info carries goods_name and no description',
    clause: 'checkout.description-optional',
    async run({ target }) {
      // trade_info.description is "Optional in the shape": goods_name alone, whatever the profile's extras would add.
      const body: Record<string, unknown> = {
        ...checkoutBody(target),
        trade_info: { goods_name: fitLength(target.profile, 'goodsName', 'Conformance test item') },
      };
      const ex = await target.post(target.path('checkout', { merchant_order_no: body.merchant_order_no }), body, {
        label: 'checkout without trade_info.description',
      });
      expectSuccess(ex, { what: 'a checkout whose trade_info has goods_name and no description' });
    },
  },
  {
    title: 'refuses a checkout field of the wrong JSON type as invalidRequest',
    clause: 'err.req.invalid-request',
    async run({ target }) {
      // Twelve cases: every one of them, not a sample.
      for (const { path, value } of WRONG_TYPES) {
        const base = checkoutBody(target, { description: 'Conformance test description', metadata: 'conformance' });
        const ex = await target.post(target.path('checkout'), setPath(base, path, value), {
          label: `checkout with ${path} = ${JSON.stringify(value)}`,
        });
        expectError(ex, { code: 400, key: 'invalidRequest' }, { what: `a checkout whose ${path} is ${JSON.stringify(value)}` });
      }
    },
  },
]);
