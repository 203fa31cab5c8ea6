import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite } from '../harness/check/define.js';
import { expectEqual, expectString, expectSuccess, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import type { Exchange } from '../harness/http/exchange.js';
import {
  cancelPayout,
  createPayout,
  payoutMayHaveSettled,
  payoutMethod,
  lookupFor,
  sentAtOf,
  lookupsAt,
  PAYOUT_NUMBERS,
  queryPayout,
  settlePayout,
  payoutsOf,
} from '../harness/ops.js';
import type { Target } from '../harness/target.js';
import { splitMsg } from '../harness/http/envelope.js';

/** A payout that must be created; returns both numbers. */
async function payoutCreated(
  t: Target,
  method: string,
  clause: ClauseId,
): Promise<{ payoutNo: string; merchantPayoutNo: string; exchange: Exchange; sentAt: number }> {
  const merchantPayoutNo = t.newNo('payout');
  const ex = await createPayout(t, { payoutNo: merchantPayoutNo, method });
  const data = expectSuccess(ex, clause, { what: `creating a ${method} payout` });
  return { payoutNo: expectString(data, payoutsOf(t).data.payoutNo, clause, ex), merchantPayoutNo, exchange: ex, sentAt: sentAtOf(ex) };
}

/** Queries by each number; both must find the payout in the expected status. */
async function expectPayoutStatus(
  t: Target,
  p: { payoutNo: string; merchantPayoutNo: string },
  status: string,
  clause: ClauseId,
  code: string,
  message: string,
): Promise<void> {
  for (const by of lookupsAt(t, 'payoutQuery', PAYOUT_NUMBERS, { serviceNo: p.payoutNo, merchantNo: p.merchantPayoutNo })) {
    const ex = await queryPayout(t, by);
    const data = expectSuccess(ex, clause, { what: 'querying the payout' });
    expectEqual(pick(data, payoutsOf(t).data.status), status, clause, { code, title: message, exchange: ex });
  }
}

/** INTERFACE.md › What the service does (3), Payout, States: creating, querying and cancelling payouts. */
export default defineSuite('payouts', { area: 'payouts', resource: 'payout' }, [
  {
    title: 'creates a payout on every declared method and finds it by either number',
    clause: ['payout.ids'],
    async run({ target: t }) {
      t.require('payoutQuery');
      for (const method of Object.keys(payoutsOf(t).methods)) {
        const created = await payoutCreated(t, method, 'payout.ids');
        for (const by of lookupsAt(t, 'payoutQuery', PAYOUT_NUMBERS, {
          serviceNo: created.payoutNo,
          merchantNo: created.merchantPayoutNo,
        })) {
          const ex = await queryPayout(t, by);
          const data = expectSuccess(ex, { what: `querying a ${method} payout by ${by.serviceNo ? 'payout_no' : 'merchant_payout_no'}` });
          expectEqual(expectString(data, payoutsOf(t).data.payoutNo, 'payout.ids', ex), created.payoutNo, {
            code: 'WRONG_PAYOUT',
            title: 'the query returned another payout',
            exchange: ex,
          });
        }
      }
    },
  },
  {
    title: 'cancels a pending payout on a method with cancel support and then shows it as CANCELED',
    clause: ['state.payout.values'],
    async run({ target: t }) {
      const created = await payoutCreated(t, payoutMethod(t, { cancel: true }), 'state.payout.values');
      const by = lookupFor(t, 'payoutCancel', PAYOUT_NUMBERS, { serviceNo: created.payoutNo, merchantNo: created.merchantPayoutNo });
      const cancel = await cancelPayout(t, by);
      // Time the vendor keeps (sandbox.autoSettle.payouts): a payout whose delay may have passed may have ended by itself,
      // and is then not cancelable; it must show the status it ended in.
      const ended = payoutMayHaveSettled(t, created.sentAt);
      const refusedKey = splitMsg(String((cancel.response?.json as { msg?: unknown } | undefined)?.msg ?? '')).key;
      if (ended !== undefined && refusedKey === 'payoutNotCancelable') {
        return expectPayoutStatus(
          t,
          created,
          ended,
          'state.payout.values',
          'ENDED_STATUS_NOT_SHOWN',
          `a payout that ended by itself (sandbox.autoSettle.payouts) does not show ${ended}`,
        );
      }
      expectSuccess(cancel, {
        what: 'cancelling a pending payout on a method with cancel support',
      });
      await expectPayoutStatus(
        t,
        created,
        'CANCELED',
        'state.payout.values',
        'CANCELED_NOT_SHOWN',
        'a cancelled payout does not show CANCELED',
      );
    },
  },
  {
    title: 'shows a payout as SUCCESS or FAILED once the sandbox settles it so',
    clause: ['state.payout.values'],
    async run({ target: t }) {
      if (!t.profile.sandbox?.settlePayout)
        throw new PreconditionSkip('the profile declares no sandbox control to settle a payout (sandbox.settlePayout)', {
          declare: ['sandbox.settlePayout'],
        });
      for (const [outcome, status] of [
        ['success', 'SUCCESS'],
        ['failed', 'FAILED'],
      ] as const) {
        const created = await payoutCreated(t, payoutMethod(t), 'state.payout.values');
        await settlePayout(t, created, outcome, 'state.payout.values');
        await expectPayoutStatus(
          t,
          created,
          status,
          'state.payout.values',
          'SETTLED_STATUS_NOT_SHOWN',
          `a payout settled as ${status} shows another status`,
        );
      }
    },
  },
]);
