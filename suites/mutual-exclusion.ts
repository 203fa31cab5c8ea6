import fc from 'fast-check';
import { defineSuite } from '../harness/check/define.js';
import { expectError, expectSuccess, expectEqual, expectOneOf, pick } from '../harness/check/expect.js';
import { recordReading } from '../harness/check/context.js';
import type { Exchange } from '../harness/http/exchange.js';
import { property } from '../harness/check/property.js';
import { createCheckout, queryPayment } from '../harness/ops.js';
import { expectRowError } from './support/charge.js';
import { lookupPresence, type Presence } from '../fixtures/arbitraries/lookup.js';

function responseCode(ex: Exchange): unknown {
  return (ex.response?.json as { code?: unknown } | undefined)?.code;
}

/** INTERFACE.md › payments/query: exactly one of merchant_order_no and order_no. */
export default defineSuite('mutual-exclusion', { area: 'mutual-exclusion', resource: 'payment' }, [
  {
    title: 'refuses a query with neither number as mutuallyRequiredFieldsMissing',
    clause: ['query.neither', 'err.req.mutually-required'],
    async run({ target }) {
      const ex = await queryPayment(target, {});
      expectRowError(
        ex,
        { code: 400, key: 'mutuallyRequiredFieldsMissing' },
        'query.neither',
        'err.req.mutually-required',
        'a query with neither number',
      );
    },
  },
  {
    title: 'refuses a query with both numbers as mutuallyExclusiveFieldsConflict',
    clause: ['query.both', 'err.req.mutually-exclusive'],
    async run({ target }) {
      const order = await createCheckout(target, 'query.both');
      const ex = await queryPayment(target, { order_no: order.orderNo, merchant_order_no: order.merchantOrderNo });
      expectRowError(
        ex,
        { code: 400, key: 'mutuallyExclusiveFieldsConflict' },
        'query.both',
        'err.req.mutually-exclusive',
        'a query with both numbers',
      );
    },
  },
  {
    title: 'finds the same payment by either number alone',
    clause: ['query.exactly-one', 'query.returns-record'],
    async run({ target }) {
      const order = await createCheckout(target, 'query.exactly-one');
      const rec = target.profile.paymentRecord;
      const byOrder = expectSuccess(await queryPayment(target, { order_no: order.orderNo }), { what: 'a query by order_no' });
      const byMerchant = expectSuccess(await queryPayment(target, { merchant_order_no: order.merchantOrderNo }), {
        what: 'a query by merchant_order_no',
      });
      if (rec) {
        expectEqual(pick(byOrder, rec.orderNo), order.orderNo, 'query.returns-record', {
          code: 'WRONG_RECORD',
          title: 'the query by order_no returned another order',
        });
        expectEqual(pick(byMerchant, rec.orderNo), order.orderNo, 'query.returns-record', {
          code: 'WRONG_RECORD',
          title: 'the query by merchant_order_no returned another order',
        });
      }
    },
  },
  {
    title: 'answers every combination of absent, empty and present numbers by the exactly-one rule',
    clause: ['query.exactly-one', 'query.neither', 'query.both'],
    async run(ctx) {
      const { target } = ctx;
      const order = await createCheckout(target, 'query.exactly-one');
      await property(
        ctx,
        fc.record({ orderNo: lookupPresence(), merchantNo: lookupPresence() }),
        async ({ orderNo, merchantNo }) => {
          const body: Record<string, unknown> = {};
          const put = (field: string, p: Presence, value: string) => {
            if (p === 'empty') body[field] = '';
            if (p === 'present') body[field] = value;
          };
          put('order_no', orderNo, order.orderNo);
          put('merchant_order_no', merchantNo, order.merchantOrderNo);
          const ex = await queryPayment(target, body, { label: `query with order_no ${orderNo}, merchant_order_no ${merchantNo}` });
          const sent = [orderNo, merchantNo].filter((p) => p === 'present').length;
          const empties = [orderNo, merchantNo].filter((p) => p === 'empty').length;
          if (sent === 0) expectError(ex, { code: 400, key: 'mutuallyRequiredFieldsMissing' }, 'query.neither');
          else if (sent === 2) expectError(ex, { code: 400, key: 'mutuallyExclusiveFieldsConflict' }, 'query.both');
          else if (empties === 0) expectSuccess(ex);
          // One number and one empty string: "both empty" names empty as not sent, but "both provided"
          // can be read as a key being present at all. Both readings are accepted and recorded.
          else if (responseCode(ex) === 0) recordReading('query.one-number-one-empty', 'treated as exactly one');
          else
            expectOneOf(ex, [{ code: 400, key: 'mutuallyExclusiveFieldsConflict' }], 'query.both', { topic: 'query.one-number-one-empty' });
        },
        // One order, only queried: a query changes no record, so the examples share nothing they could change.
        { numRuns: 9, independent: true },
      );
    },
  },
]);
