import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite } from '../harness/check/define.js';
import { expectEqual, expectError, expectOneOf, expectString, expectSuccess, failCheck, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { splitMsg } from '../harness/http/envelope.js';
import { checkout, checkoutBody, createCheckout, defaultAmount, queryBody, queryPayment, checkoutMethodsOf } from '../harness/ops.js';
import { recordReading } from '../harness/check/context.js';
import { shortJson } from '../harness/http/exchange-text.js';
import { expectRowError } from './support/charge.js';
import type { Target } from '../harness/target.js';

interface ForeignOrder {
  orderNo: string;
  merchantOrderNo: string;
  /** Texts of the order that must not show in another merchant's answer. */
  secrets: string[];
}

/**
 * A checkout created by the second fixture merchant, with the first checkout method enabled for it
 * (merchants.second.paymentMethods, else the primary merchant's methods).
 */
async function secondMerchantOrder(t: Target, clause: ClauseId): Promise<ForeignOrder> {
  t.merchant('second');
  const goodsName = `Conformance item ${t.newNo('order')}`;
  for (const method of checkoutMethodsOf(t, 'second')) {
    const merchantOrderNo = t.newNo('order');
    const ex = await checkout(
      t,
      { method, merchantOrderNo, goodsName },
      { as: 'second', label: `checkout with ${method} as the second merchant` },
    );
    const code = (ex.response?.json as { code?: unknown } | undefined)?.code;
    if (code !== 0) continue;
    const data = expectSuccess(ex, clause, { what: 'a checkout by the second merchant' });
    const orderNo = expectString(data, t.profile.checkout?.data.orderNo ?? 'order_no', clause, ex);
    return { orderNo, merchantOrderNo, secrets: [merchantOrderNo, goodsName, defaultAmount(t, method)] };
  }
  throw new PreconditionSkip(
    'the second merchant (merchants.second) could not create a checkout with any of the declared checkout methods',
    { declare: ['merchants.second.paymentMethods'] },
  );
}

/** INTERFACE.md › POST /api/v1/payments/query, Payment errors: unknown orders and other merchants' orders. */
export default defineSuite('payment-query', { area: 'payments', resource: 'payment' }, [
  {
    title: 'answers a query by an unknown order_no with orderNotFound',
    clause: ['query.not-found', 'err.pay.order-not-found'],
    async run({ target }) {
      const ex = await queryPayment(target, { order_no: target.newNo('order') }, { label: 'query by an order_no never issued' });
      expectRowError(
        ex,
        { code: 2002, key: 'orderNotFound' },
        'query.not-found',
        'err.pay.order-not-found',
        'a query by an order_no that no order has',
        'key',
      );
    },
  },
  {
    title: 'answers a query by an unknown merchant_order_no with orderNotFound',
    clause: ['query.not-found', 'err.pay.order-not-found'],
    async run({ target }) {
      const ex = await queryPayment(
        target,
        { merchant_order_no: target.newNo('order') },
        { label: 'query by a merchant_order_no never used' },
      );
      expectRowError(
        ex,
        { code: 2002, key: 'orderNotFound' },
        'query.not-found',
        'err.pay.order-not-found',
        'a query by a merchant_order_no that no order has',
        'key',
      );
    },
  },
  {
    title: "refuses a query by order_no for another merchant's order with orderAccessDenied and no data",
    clause: ['query.other-merchant', 'err.pay.access-denied', 'env.data.omitted-on-error'],
    async run({ target }) {
      const order = await secondMerchantOrder(target, 'query.other-merchant');
      const ex = await queryPayment(target, { order_no: order.orderNo }, { label: "query another merchant's order by order_no" });
      expectRowError(
        ex,
        { code: 403, key: 'orderAccessDenied' },
        'query.other-merchant',
        'err.pay.access-denied',
        "a query for another merchant's order",
      );
      const body = ex.response!.json as Record<string, unknown>;
      if ('data' in body) {
        failCheck({
          code: 'ACCESS_DENIED_WITH_DATA',
          title: "a refused query for another merchant's order must not carry data",
          expected: 'no data',
          seen: JSON.stringify(body.data),
          exchange: ex,
        });
      }
    },
  },
  {
    title: "reveals nothing of another merchant's order in the access-denied message",
    clause: 'query.other-merchant',
    level: 'should',
    async run({ target }) {
      const order = await secondMerchantOrder(target, 'query.other-merchant');
      const ex = await queryPayment(target, { order_no: order.orderNo }, { label: "query another merchant's order by order_no" });
      expectError(ex, { code: 403, key: 'orderAccessDenied' }, { what: "a query for another merchant's order" });
      const { message } = splitMsg((ex.response!.json as { msg: string }).msg);
      const leaked = order.secrets.filter((s) => message.includes(s));
      if (leaked.length > 0) {
        failCheck({
          code: 'ACCESS_DENIED_LEAKS_ORDER',
          title: "the access-denied message shows details of another merchant's order",
          expected: 'none of its merchant_order_no, goods name or amount',
          seen: `${JSON.stringify(message)} (contains ${leaked.map((s) => JSON.stringify(s)).join(', ')})`,
          exchange: ex,
        });
      }
    },
  },
  {
    title: "does not return another merchant's order to a query by its merchant_order_no",
    clause: ['query.other-merchant', 'query.not-found'],
    async run({ target }) {
      const order = await secondMerchantOrder(target, 'query.other-merchant');
      const ex = await queryPayment(
        target,
        { merchant_order_no: order.merchantOrderNo },
        { label: "query another merchant's order by merchant_order_no" },
      );
      // Merchant numbers are the merchant's own: the primary has no order under this number (2002),
      // and the order is another merchant's (403). Both readings are accepted and recorded.
      expectOneOf(
        ex,
        [
          { code: 2002, key: 'orderNotFound' },
          { code: 403, key: 'orderAccessDenied' },
        ],
        { topic: 'query.other-merchant.by-merchant-order-no', what: "a query by another merchant's merchant_order_no" },
      );
    },
  },
  {
    title: 'returns an order to the merchant that created it',
    clause: ['query.returns-record', 'query.other-merchant'],
    async run({ target }) {
      const order = await secondMerchantOrder(target, 'query.returns-record');
      const ex = await queryPayment(target, { order_no: order.orderNo }, { as: 'second', label: 'query the order by its own merchant' });
      const data = expectSuccess(ex, { what: 'a query by the merchant that created the order' });
      const rec = target.profile.paymentRecord;
      if (rec)
        expectEqual(pick(data, rec.merchantOrderNo), order.merchantOrderNo, {
          code: 'WRONG_RECORD',
          title: 'the query should return the order created',
          exchange: ex,
        });
    },
  },
  {
    title: 'serves the payment query and the checkout at the paths the document gives, under /api/v1/',
    clause: 'ep.versioned-path',
    async run({ target }) {
      // The document's own paths, not the profile's: the version is part of the interface.
      const created = await target.post('/api/v1/payments/checkout', checkoutBody(target), {
        label: 'checkout at /api/v1/payments/checkout',
      });
      expectSuccess(created, { what: 'a checkout sent to {base_url}/api/v1/payments/checkout' });
      const q = await target.post('/api/v1/payments/query', queryBody(target, 'payment', { merchant_order_no: target.newNo('order') }), {
        label: 'query an unknown order at /api/v1/payments/query',
      });
      expectError(
        q,
        { code: 2002, key: 'orderNotFound' },
        { what: 'a query for an unknown order sent to {base_url}/api/v1/payments/query' },
      );
    },
  },
  {
    title: 'does not serve a correctly signed request sent with Content-Type text/plain',
    clause: 'ep.post-json',
    // The document gives the request form and lists Content-Type among the causes of 401/403, but
    // never says the service must refuse another type: a failure here is a warning, not a verdict.
    level: 'should',
    async run({ target }) {
      // An existing order, so serving the request would be a success; any refusal is allowed
      // (a request error, or authentication, which the troubleshooting list ties to Content-Type).
      const order = await createCheckout(target, 'ep.post-json');
      const ex = await queryPayment(
        target,
        { order_no: order.orderNo },
        { contentType: 'text/plain', label: 'query the checkout with Content-Type text/plain' },
      );
      const body = ex.response?.json as { code?: unknown; msg?: unknown } | undefined;
      if (ex.response?.status === 200 && body?.code === 0) {
        failCheck({
          code: 'NON_JSON_CONTENT_TYPE_SERVED',
          title: 'a request must be sent with Content-Type: application/json; one sent as text/plain was served',
          expected: 'a refusal (non-zero code, or an authentication error)',
          seen: `HTTP 200, code 0`,
          exchange: ex,
        });
      }
      recordReading(
        'ep.content-type.text-plain',
        `HTTP ${ex.response?.status ?? '-'} code ${shortJson(body?.code)} ` +
          `${typeof body?.msg === 'string' ? (splitMsg(body.msg).key ?? '') : ''}`,
      );
    },
  },
]);
