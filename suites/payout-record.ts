import { defineSuite } from '../harness/check/define.js';
import { expectString, expectSuccess, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import type { Exchange } from '../harness/http/exchange.js';
import {
  cancelPayout,
  createPayout,
  lookupFor,
  lookupsAt,
  PAYOUT_NUMBERS,
  payoutMethod,
  queryPayout,
  settlePayout,
  payoutsOf,
} from '../harness/ops.js';
import type { Target } from '../harness/target.js';

/** A payout created; its record (the create answer's data) must show a status. */
async function createdWithStatus(t: Target, method: string): Promise<{ payoutNo: string; merchantPayoutNo: string }> {
  const merchantPayoutNo = t.newNo('payout');
  const ex = await createPayout(t, { payoutNo: merchantPayoutNo, method });
  const data = expectSuccess(ex, { what: `creating a ${method} payout` });
  const payoutNo = expectString(data, payoutsOf(t).data.payoutNo, 'payout.fields', ex);
  expectString(data, payoutsOf(t).data.status, 'payout.fields', ex);
  return { payoutNo, merchantPayoutNo };
}

/** Both queries (by each number the query takes) show the payout's record with a status. */
async function queriesShowStatus(t: Target, p: { payoutNo: string; merchantPayoutNo: string }, when: string): Promise<void> {
  for (const by of lookupsAt(t, 'payoutQuery', PAYOUT_NUMBERS, { serviceNo: p.payoutNo, merchantNo: p.merchantPayoutNo })) {
    const ex = await queryPayout(t, by);
    const data = expectSuccess(ex, { what: `querying the payout ${when}` });
    expectString(data, payoutsOf(t).data.status, 'payout.fields', ex);
  }
}

/**
 * The cancel answer's shape is not shown: where it carries the payout's record (its number at the record's path), the
 * record has a status; an answer without the record says nothing about this clause.
 */
function cancelAnswerShowsStatus(t: Target, ex: Exchange, payoutNo: string): void {
  const data = expectSuccess(ex, { what: 'cancelling the payout' });
  if (pick(data, payoutsOf(t).data.payoutNo) !== payoutNo) return;
  expectString(data, payoutsOf(t).data.status, 'payout.fields', ex);
}

/** INTERFACE.md › Payout: "Has `status`" — in every record of a payout an answer shows, whatever its status. */
export default defineSuite('payout-record', { area: 'payouts', resource: 'payout' }, [
  {
    title: "shows a payout's status on creation, in both queries and in the cancel answer, before and after a cancel",
    clause: ['payout.fields'],
    async run({ target: t }) {
      t.require('payoutQuery');
      t.require('payoutCancel');
      const p = await createdWithStatus(t, payoutMethod(t, { cancel: true }));
      await queriesShowStatus(t, p, 'before the cancel');
      const by = lookupFor(t, 'payoutCancel', PAYOUT_NUMBERS, { serviceNo: p.payoutNo, merchantNo: p.merchantPayoutNo });
      cancelAnswerShowsStatus(t, await cancelPayout(t, by), p.payoutNo);
      await queriesShowStatus(t, p, 'after the cancel');
    },
  },
  {
    title: "shows a payout's status in both queries once the sandbox settles it",
    clause: ['payout.fields'],
    async run({ target: t }) {
      t.require('payoutQuery');
      if (!t.profile.sandbox?.settlePayout)
        throw new PreconditionSkip('the profile declares no sandbox control to settle a payout (sandbox.settlePayout)', {
          declare: ['sandbox.settlePayout'],
        });
      for (const outcome of ['success', 'failed'] as const) {
        const p = await createdWithStatus(t, payoutMethod(t));
        await settlePayout(t, p, outcome, 'payout.fields');
        await queriesShowStatus(t, p, `settled as ${outcome}`);
      }
    },
  },
]);
