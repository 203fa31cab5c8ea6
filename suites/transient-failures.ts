import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite } from '../harness/check/define.js';
import { expectError, expectSuccess, failCheck, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import type { Exchange } from '../harness/http/exchange.js';
import { checkout, createCheckout, createRefund, queryPayment, underArmedFailure, usd } from '../harness/ops.js';
import type { Target } from '../harness/target.js';
import { valueOfCents } from '../harness/facts/money.js';
import { methodsWithSupport, payOrder } from './support/paid-orders.js';
import { describeTrigger } from '../harness/profile/triggers.js';
import type { FailureTrigger } from '../harness/profile/types.js';
import { type MagicTrigger, orderToQuery, paymentCarrying, queryCarrying, refundCarrying, waysOf } from './support/triggered.js';

/**
 * Transient failures no ordinary request provokes, checked with every way the profile says the sandbox causes them
 * (harness/profile/triggers.ts). The switch (sandbox.armFailure) arms one for the next request of its kind: each is armed
 * and met inside the exclusive section the switch needs (harness/ops.ts `underArmedFailure`, sandbox.armFailure.scope),
 * so no request of another check that the switch could hit is sent meanwhile, and what one arming leaves
 * (sandbox.armFailure.count) is used up there. A magic value or header (sandbox.triggers) fails only the request that
 * carries it (suites/support/triggered.ts), which no other check sends: the kit's own values avoid it.
 */

/** Whether the answer is a refusal (code other than 0), whatever its code and key. */
function refused(ex: Exchange): boolean {
  const code = (ex.response?.json as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' && code !== 0;
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
      for (const w of waysOf(t, 'queryFailed')) {
        const what = `a payment query that fails transiently (${describeTrigger(w)})`;
        if (w.way !== 'control') {
          const order = await orderToQuery(t, w, 'err.pay.query-failed');
          const ex = await queryCarrying(t, w, order.merchantOrderNo, `query the order carrying ${describeTrigger(w)}`);
          expectError(ex, { code: 500, key: 'queryFailed' }, { what });
          continue;
        }
        const order = await createCheckout(t, 'err.pay.query-failed');
        const query = (label: string) => queryPayment(t, { merchant_order_no: order.merchantOrderNo }, { label });
        await underArmedFailure(
          t,
          'queryFailed',
          'err.pay.query-failed',
          { ...order, again: () => query('query the order again') },
          async () => {
            const ex = await query('query the order while a transient failure is armed');
            expectError(ex, { code: 500, key: 'queryFailed' }, { what });
          },
        );
      }
    },
  },
  {
    title: 'answers the same payment query with the record when it is tried again after a transient failure',
    clause: 'query.transient',
    async run({ target: t }) {
      // A magic value that fails every query carrying it fails the same query again by design: only a way that fails a
      // known number of them (its count) shows "try again".
      const ways = waysOf(t, 'queryFailed').filter((w) => w.way === 'control' || w.count !== undefined);
      if (ways.length === 0)
        throw new PreconditionSkip(
          'every way the profile declares fails each query carrying its value: none shows a query tried again ' +
            '(sandbox.triggers.queryFailed[].count, or the switch sandbox.armFailure)',
          { declare: ['sandbox.triggers.queryFailed[].count'] },
        );
      for (const w of ways) {
        const { order, again } = w.way === 'control' ? await retriedAfterSwitch(t) : await retriedAfterMagic(t, w);
        const data = expectSuccess(again, {
          what: `the same payment query tried again after a transient failure ("try again"; ${describeTrigger(w)})`,
        });
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
      }
    },
  },
  {
    title: 'refuses a payment whose order creation fails with 422 systemBusy',
    clause: 'err.pay.creation-failed',
    async run({ target: t }) {
      for (const w of waysOf(t, 'orderCreationFailed')) {
        const what = `a payment whose order creation fails (${describeTrigger(w)})`;
        if (w.way !== 'control') {
          const ex = await paymentCarrying(t, w, { label: `create a payment carrying ${describeTrigger(w)}` }).send();
          expectError(ex, { code: 422, key: 'systemBusy' }, { what });
          continue;
        }
        const merchantOrderNo = t.newNo('order');
        // Another checkout the switch may fail (a switch of the check's own number fails none but that one).
        const again = () =>
          checkout(t, { merchantOrderNo: t.newNo('order') }, { label: 'another checkout while the failure may be armed' });
        await underArmedFailure(t, 'orderCreationFailed', 'err.pay.creation-failed', { merchantOrderNo, again }, async () => {
          const ex = await checkout(t, { merchantOrderNo }, { label: 'checkout whose order creation fails' });
          expectError(ex, { code: 422, key: 'systemBusy' }, { what });
        });
      }
    },
  },
  {
    title: 'refuses a refund whose creation fails with 422 systemBusy',
    clause: 'err.ref.system-busy',
    async run({ target: t }) {
      for (const w of waysOf(t, 'refundSystemBusy'))
        await refundFailure(
          t,
          w,
          'refundSystemBusy',
          'err.ref.system-busy',
          { code: 422, key: 'systemBusy' },
          'a refund whose creation fails',
        );
    },
  },
  {
    title: 'refuses a refund the sandbox makes fail with 422 refundFailed',
    clause: 'err.ref.failed',
    async run({ target: t }) {
      for (const w of waysOf(t, 'refundFailed'))
        await refundFailure(t, w, 'refundFailed', 'err.ref.failed', { code: 422, key: 'refundFailed' }, 'a refund request that failed');
    },
  },
]);

/** The switch: a query armed to fail, then the same query tried until the failures the arming armed are over. */
async function retriedAfterSwitch(t: Target): Promise<{ order: { merchantOrderNo: string }; again: Exchange }> {
  const order = await createCheckout(t, 'query.transient');
  const query = (label: string) => queryPayment(t, { merchant_order_no: order.merchantOrderNo }, { label });
  const again = await underArmedFailure(
    t,
    'queryFailed',
    'query.transient',
    { ...order, again: () => query('query the order again') },
    async () => {
      const first = await query('query the order while a transient failure is armed');
      firstFailed(first, 'the switch');
      // One arming may fail several queries (sandbox.armFailure.count): "try again" until the failures it armed are over.
      let next = await query('try the same query again');
      for (let tries = 1; tries < armedCount(t) && refused(next); tries++) next = await query('try the same query again');
      return next;
    },
  );
  return { order, again };
}

/** A magic value that fails `count` queries of the payment carrying it: those, then the same query again. */
async function retriedAfterMagic(t: Target, w: MagicTrigger): Promise<{ order: { merchantOrderNo: string }; again: Exchange }> {
  const order = await orderToQuery(t, w, 'query.transient');
  const query = (label: string) => queryCarrying(t, w, order.merchantOrderNo, label);
  firstFailed(await query(`query the order carrying ${describeTrigger(w)}`), describeTrigger(w));
  let next = await query('try the same query again');
  for (let tries = 1; tries < (w.count ?? 1) && refused(next); tries++) next = await query('try the same query again');
  return { order, again: next };
}

/** The first query a way fails must fail: a success is evidence against the failure's own clause. */
function firstFailed(first: Exchange, way: string): void {
  if (refused(first)) return;
  failCheck('err.pay.query-failed', {
    code: 'ARMED_FAILURE_NOT_SEEN',
    title: `the query a transient failure was caused for (${way}) should fail (500 queryFailed)`,
    expected: 'code 500, key queryFailed',
    seen: 'a successful answer',
    exchange: first,
  });
}

/** One way of a refund's failure: the refund carrying its value, or, for the switch, the refund it was armed for. */
async function refundFailure(
  t: Target,
  w: FailureTrigger,
  kind: 'refundSystemBusy' | 'refundFailed',
  clause: ClauseId,
  want: { code: number; key: string },
  what: string,
): Promise<void> {
  const described = `${what} (${describeTrigger(w)})`;
  if (w.way !== 'control') {
    const refund = await refundCarrying(t, w, kind, clause);
    expectError(await refund.send(`refund carrying ${describeTrigger(w)}`), want, { what: described });
    return;
  }
  const { paid, amount } = await refundablePayment(t, clause);
  // Numbered before arming: a switch may match the refund by its own number (sandbox.armFailure.refundSubject).
  const refundNo = t.newNo('refund');
  const again = () => createRefund(t, { order: paid, amount }, { label: 'another refund while the failure may be armed' });
  const subjects = { merchantOrderNo: paid.merchantOrderNo, merchantRefundNo: refundNo, again };
  await underArmedFailure(t, kind, clause, subjects, async () => {
    const ex = await createRefund(t, { refundNo, order: paid, amount }, { label: `refund the armed ${kind} fails` });
    expectError(ex, want, { what: described });
  });
}
