import type { ClauseId } from '../harness/clauses/registry.js';
import fc from 'fast-check';
import { defineSuite } from '../harness/check/define.js';
import { expectEqual, expectString, expectSuccess, failCheck, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { property } from '../harness/check/property.js';
import { avoidMagic, lookupFor, lookupsAt, queryPayment, queryRefund, REFUND_NUMBERS, settleRefund } from '../harness/ops.js';
import type { Exchange } from '../harness/http/exchange.js';
import type { Target } from '../harness/target.js';
import { partialRefundCents, refundSplitOfCents } from '../fixtures/arbitraries/refund-amounts.js';
import { defaultCents, methodsWithSupport, payOrder, supportOf } from './support/paid-orders.js';
import { refundAccepted, settlePending } from './support/refund-records.js';

function refundsOf(t: Target) {
  const r = t.profile.refunds;
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)', { declare: ['refunds'] });
  return r;
}

/** The status a refund query shows, with the query's exchange. */
async function refundStatus(
  t: Target,
  by: { serviceNo?: string; merchantNo?: string },
  clause: ClauseId,
): Promise<{ status: unknown; ex: Exchange }> {
  const ex = await queryRefund(t, by);
  const data = expectSuccess(ex, clause, { what: 'querying the refund' });
  return { status: pick(data, refundsOf(t).data.status), ex };
}

/** INTERFACE.md › What the service does (2), Refund, States: refunds of successful payments. */
export default defineSuite('refunds', { area: 'refunds', resource: 'refund' }, [
  {
    title: 'accepts a full refund of a paid payment on every method that supports refunds',
    clause: ['refund.channel-support'],
    async run({ target: t }) {
      for (const method of methodsWithSupport(t, ['partial', 'full'])) {
        const paid = await payOrder(t, method, 'refund.channel-support');
        await refundAccepted(
          t,
          paid,
          paid.cents,
          'refund.channel-support',
          `a full refund of a ${method} payment (support: ${supportOf(t, method)})`,
        );
      }
    },
  },
  {
    title: 'accepts a partial refund on every method that supports partial refunds',
    clause: ['refund.channel-support'],
    async run(ctx) {
      const t = ctx.target;
      const methods = methodsWithSupport(t, ['partial']);
      const arb = fc
        .constantFrom(...methods)
        .chain((method) => partialRefundCents(defaultCents(t, method), avoidMagic(t)).map((part) => ({ method, part })));
      await property(
        ctx,
        arb,
        async ({ method, part }) => {
          const paid = await payOrder(t, method, 'refund.channel-support');
          await refundAccepted(t, paid, part, 'refund.channel-support', `a partial refund of a ${method} payment`);
        },
        { numRuns: 6 },
      );
    },
  },
  {
    title: 'shows a new refund as PENDING or SUCCESS',
    clause: ['state.refund.values'],
    async run({ target: t }) {
      const allowed = ['PENDING', 'SUCCESS'];
      for (const method of methodsWithSupport(t, ['partial', 'full'])) {
        const paid = await payOrder(t, method, 'state.refund.values');
        const refund = await refundAccepted(t, paid, paid.cents, 'state.refund.values');
        if (!allowed.includes(String(refund.status))) {
          failCheck({
            code: 'REFUND_STATUS_UNNAMED',
            title: `a new ${method} refund shows a status the document does not name for a new refund`,
            expected: 'PENDING or SUCCESS',
            seen: JSON.stringify(refund.status),
            exchange: refund.exchange,
          });
        }
        const record = { serviceNo: refund.refundNo, merchantNo: refund.merchantRefundNo };
        const queried = await refundStatus(t, lookupFor(t, 'refundQuery', REFUND_NUMBERS, record, 'merchantNo'), 'state.refund.values');
        if (!allowed.includes(String(queried.status))) {
          failCheck({
            code: 'REFUND_STATUS_UNNAMED',
            title: `the query of a new ${method} refund shows a status the document does not name for a new refund`,
            expected: 'PENDING or SUCCESS',
            seen: JSON.stringify(queried.status),
            exchange: queried.ex,
          });
        }
      }
    },
  },
  {
    title: 'finds a refund by its service number and by its merchant number',
    clause: ['refund.ids'],
    async run({ target: t }) {
      const r = refundsOf(t);
      t.require('refundQuery');
      const method = methodsWithSupport(t, ['partial', 'full'])[0]!;
      const paid = await payOrder(t, method, 'refund.ids');
      const refund = await refundAccepted(t, paid, paid.cents, 'refund.ids');
      for (const by of lookupsAt(t, 'refundQuery', REFUND_NUMBERS, { serviceNo: refund.refundNo, merchantNo: refund.merchantRefundNo })) {
        const ex = await queryRefund(t, by);
        const data = expectSuccess(ex, { what: `querying the refund by ${by.serviceNo ? 'refund_no' : 'merchant_refund_no'}` });
        expectEqual(expectString(data, r.data.refundNo, 'refund.ids', ex), refund.refundNo, {
          code: 'WRONG_REFUND',
          title: 'the query returned another refund',
          exchange: ex,
        });
      }
    },
  },
  {
    title: 'shows a payment as REFUNDED once its settled refunds add up to the amount paid',
    clause: ['state.payment.refunded-status', 'state.payment.values'],
    async run(ctx) {
      const t = ctx.target;
      const rec = t.profile.paymentRecord;
      if (!rec)
        throw new PreconditionSkip('the profile does not say where a payment record keeps its status (paymentRecord)', {
          declare: ['paymentRecord'],
        });
      const methods = methodsWithSupport(t, ['partial', 'full']);
      const arb = fc.constantFrom(...methods).chain((method) => {
        const total = defaultCents(t, method);
        const parts = supportOf(t, method) === 'partial' ? refundSplitOfCents(total, 4, avoidMagic(t)) : fc.constant([total]);
        return parts.map((split) => ({ method, split }));
      });
      await property(
        ctx,
        arb,
        async ({ method, split }) => {
          const paid = await payOrder(t, method, 'state.payment.refunded-status');
          const refunds = [];
          for (const part of split) refunds.push(await refundAccepted(t, paid, part, 'state.payment.refunded-status'));
          await settlePending(t, refunds, 'state.payment.refunded-status');
          const ex = await queryPayment(t, { merchant_order_no: paid.merchantOrderNo });
          const data = expectSuccess(ex, { what: 'querying the refunded payment' });
          expectEqual(pick(data, rec.status), 'REFUNDED', {
            code: 'NOT_REFUNDED',
            title: `a ${method} payment refunded in ${split.length} part(s) adding up to its amount does not show REFUNDED`,
            exchange: ex,
          });
        },
        { numRuns: 5 },
      );
    },
  },
  {
    title: 'shows a PENDING refund as SUCCESS or FAILED once the sandbox settles it so',
    clause: ['state.refund.values'],
    async run({ target: t }) {
      if (!t.profile.sandbox?.settleRefund)
        throw new PreconditionSkip('the profile declares no sandbox control to settle a refund (sandbox.settleRefund)', {
          declare: ['sandbox.settleRefund'],
        });
      const methods = methodsWithSupport(t, ['partial', 'full']);
      for (const [outcome, status] of [
        ['success', 'SUCCESS'],
        ['failed', 'FAILED'],
      ] as const) {
        let pending: Awaited<ReturnType<typeof refundAccepted>> | undefined;
        for (const method of methods) {
          const paid = await payOrder(t, method, 'state.refund.values');
          const refund = await refundAccepted(t, paid, paid.cents, 'state.refund.values');
          if (refund.status === 'PENDING') {
            pending = refund;
            break;
          }
        }
        if (!pending) throw new PreconditionSkip('no declared method leaves a new refund PENDING');
        await settleRefund(t, { refundNo: pending.refundNo, merchantRefundNo: pending.merchantRefundNo }, outcome, 'state.refund.values');
        for (const by of lookupsAt(t, 'refundQuery', REFUND_NUMBERS, {
          serviceNo: pending.refundNo,
          merchantNo: pending.merchantRefundNo,
        })) {
          const seen = await refundStatus(t, by, 'state.refund.values');
          if (seen.status !== status)
            failCheck({
              code: 'SETTLED_STATUS_NOT_SHOWN',
              title: `a PENDING refund settled as ${status} shows another status`,
              expected: status,
              seen: JSON.stringify(seen.status),
              exchange: seen.ex,
            });
        }
      }
    },
  },
]);
