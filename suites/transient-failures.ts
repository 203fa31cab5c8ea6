import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite } from '../harness/check/define.js';
import { expectError, expectSuccess, failCheck, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import type { Exchange } from '../harness/exchange.js';
import { checkout, createCheckout, createRefund, queryPayment, underArmedFailure, usd } from '../harness/ops.js';
import type { Target } from '../harness/target.js';
import { valueOfCents } from '../harness/money.js';
import { methodsWithSupport, payOrder } from './support/paid-orders.js';

/**
 * Transient failures no ordinary request provokes: the profile's sandbox control (sandbox.armFailure) arms one for the
 * next request of its kind, so the document's rows for them can be checked. Each is armed and met inside the exclusive
 * section the switch needs (harness/ops.ts `underArmedFailure`, sandbox.armFailure.scope): no request of another check
 * that the switch could hit is sent meanwhile, and what one arming leaves (sandbox.armFailure.count) is used up there.
 */

/** Whether the answer is a refusal (code other than 0), whatever its code and key. */
function refused(ex: Exchange): boolean {
  const code = (ex.response?.json as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code !== 0;
}

/** A checkout that exists, to query while its query failure is armed. */
async function orderForQueryFailure(t: Target, clause: ClauseId) {
  if (!t.profile.sandbox?.armFailure?.failures.queryFailed)
    throw new PreconditionSkip("the profile's sandbox control cannot arm a query failure (sandbox.armFailure.failures.queryFailed)", {
      declare: ['sandbox.armFailure.failures.queryFailed'],
    });
  return createCheckout(t, clause);
}

/** How many requests one arming fails (sandbox.armFailure.count). */
function armedCount(t: Target): number {
  return t.profile.sandbox?.armFailure?.count ?? 1;
}

/** A paid payment whose method refunds (partially or in full), and the amount to refund. */
async function refundablePayment(t: Target, clause: ClauseId) {
  const method = methodsWithSupport(t, ['partial', 'full'])[0];
  if (!method)
    throw new PreconditionSkip('the profile declares no payment method that supports refunds (refunds.support)', {
      declare: ['refunds.support'],
    });
  const paid = await payOrder(t, method, clause);
  return { paid, amount: usd(valueOfCents(paid.cents)) };
}

/** INTERFACE.md › POST /payments/query ("Transient failure: code 500 queryFailed (try again)"), Payment errors, Refund errors. */
export default defineSuite('transient-failures', { area: 'errors', resource: 'payment' }, [
  {
    title: 'answers a payment query that fails transiently with 500 queryFailed',
    clause: ['err.pay.query-failed', 'query.transient'],
    async run({ target: t }) {
      const order = await orderForQueryFailure(t, 'err.pay.query-failed');
      const query = (label: string) => queryPayment(t, { merchant_order_no: order.merchantOrderNo }, { label });
      await underArmedFailure(
        t,
        'queryFailed',
        'err.pay.query-failed',
        { ...order, again: () => query('query the order again') },
        async () => {
          const ex = await query('query the order while a transient failure is armed');
          expectError(ex, { code: 500, key: 'queryFailed' }, { what: 'a payment query that fails transiently' });
        },
      );
    },
  },
  {
    title: 'answers the same payment query with the record when it is tried again after a transient failure',
    clause: 'query.transient',
    async run({ target: t }) {
      const order = await orderForQueryFailure(t, 'query.transient');
      const query = (label: string) => queryPayment(t, { merchant_order_no: order.merchantOrderNo }, { label });
      const again = await underArmedFailure(
        t,
        'queryFailed',
        'query.transient',
        { ...order, again: () => query('query the order again') },
        async () => {
          const first = await query('query the order while a transient failure is armed');
          if (!refused(first)) {
            failCheck('err.pay.query-failed', {
              code: 'ARMED_FAILURE_NOT_SEEN',
              title: 'the query a transient failure was armed for should fail (500 queryFailed)',
              expected: 'code 500, key queryFailed',
              seen: 'a successful answer',
              exchange: first,
            });
          }
          // One arming may fail several queries (sandbox.armFailure.count): "try again" until the failures it armed are over.
          let next = await query('try the same query again');
          for (let tries = 1; tries < armedCount(t) && refused(next); tries++) next = await query('try the same query again');
          return next;
        },
      );
      const data = expectSuccess(again, { what: 'the same payment query tried again after a transient failure ("try again")' });
      const rec = t.profile.paymentRecord;
      if (rec && pick(data, rec.merchantOrderNo) !== order.merchantOrderNo) {
        failCheck({
          code: 'WRONG_RECORD',
          title: 'the query tried again should return the payment asked for',
          expected: `merchant_order_no ${order.merchantOrderNo}`,
          seen: `merchant_order_no ${String(pick(data, rec.merchantOrderNo))}`,
          exchange: again,
        });
      }
    },
  },
  {
    title: 'refuses a payment whose order creation fails with 422 systemBusy',
    clause: 'err.pay.creation-failed',
    async run({ target: t }) {
      if (!t.profile.sandbox?.armFailure?.failures.orderCreationFailed)
        throw new PreconditionSkip(
          "the profile's sandbox control cannot arm an order creation failure (sandbox.armFailure.failures.orderCreationFailed)",
          { declare: ['sandbox.armFailure.failures.orderCreationFailed'] },
        );
      const merchantOrderNo = t.newNo('order');
      // Another checkout the switch may fail (a switch of the check's own number fails none but that one).
      const again = () => checkout(t, { merchantOrderNo: t.newNo('order') }, { label: 'another checkout while the failure may be armed' });
      await underArmedFailure(t, 'orderCreationFailed', 'err.pay.creation-failed', { merchantOrderNo, again }, async () => {
        const ex = await checkout(t, { merchantOrderNo }, { label: 'checkout whose order creation fails' });
        expectError(ex, { code: 422, key: 'systemBusy' }, { what: 'a checkout whose order creation fails' });
      });
    },
  },
  {
    title: 'refuses a refund whose creation fails with 422 systemBusy',
    clause: 'err.ref.system-busy',
    async run({ target: t }) {
      if (!t.profile.sandbox?.armFailure?.failures.refundSystemBusy)
        throw new PreconditionSkip(
          "the profile's sandbox control cannot arm a refund creation failure (sandbox.armFailure.failures.refundSystemBusy)",
          { declare: ['sandbox.armFailure.failures.refundSystemBusy'] },
        );
      const { paid, amount } = await refundablePayment(t, 'err.ref.system-busy');
      // Numbered before arming: a switch may match the refund by its own number (sandbox.armFailure.refundSubject).
      const refundNo = t.newNo('refund');
      const again = () => createRefund(t, { order: paid, amount }, { label: 'another refund while the failure may be armed' });
      const subjects = { merchantOrderNo: paid.merchantOrderNo, merchantRefundNo: refundNo, again };
      await underArmedFailure(t, 'refundSystemBusy', 'err.ref.system-busy', subjects, async () => {
        const ex = await createRefund(t, { refundNo, order: paid, amount }, { label: 'refund whose creation fails' });
        expectError(ex, { code: 422, key: 'systemBusy' }, { what: 'a refund whose creation fails' });
      });
    },
  },
  {
    title: 'refuses a refund the sandbox makes fail with 422 refundFailed',
    clause: 'err.ref.failed',
    async run({ target: t }) {
      if (!t.profile.sandbox?.armFailure?.failures.refundFailed)
        throw new PreconditionSkip("the profile's sandbox control cannot arm a failed refund (sandbox.armFailure.failures.refundFailed)", {
          declare: ['sandbox.armFailure.failures.refundFailed'],
        });
      const { paid, amount } = await refundablePayment(t, 'err.ref.failed');
      // Numbered before arming: a switch may match the refund by its own number (sandbox.armFailure.refundSubject).
      const refundNo = t.newNo('refund');
      const again = () => createRefund(t, { order: paid, amount }, { label: 'another refund while the failure may be armed' });
      const subjects = { merchantOrderNo: paid.merchantOrderNo, merchantRefundNo: refundNo, again };
      await underArmedFailure(t, 'refundFailed', 'err.ref.failed', subjects, async () => {
        const ex = await createRefund(t, { refundNo, order: paid, amount }, { label: 'refund the sandbox makes fail' });
        expectError(ex, { code: 422, key: 'refundFailed' }, { what: 'a refund request that failed' });
      });
    },
  },
]);
