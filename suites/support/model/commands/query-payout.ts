/** The stateful model's `query-payout` command: what it is called, when it applies, and what it sends, judges and records. */
import { recordReading } from '../../../../harness/check/context.js';
import { expectEqual, expectError, expectOneOf, expectSuccess, failCheck, held, pick } from '../../../../harness/check/expect.js';
import { queryPayout } from '../../../../harness/ops.js';
import { lookupVia, mayHaveEnded, type Model, payoutSlotOf } from '../state.js';
import { type CommandKind, type Op, type Real, FINAL_PAYOUT, lb, payoutSlot, send } from '../real.js';

function describe(s: Op<'query-payout'>): string {
  return `query the payout ${s.payout}${lb(s.merchant)} by ${s.by === 'merchant' ? 'merchant_payout_no' : 'payout_no'}`;
}

function applicable(m: Readonly<Model>, s: Op<'query-payout'>): boolean {
  const slot = payoutSlotOf(m, s.merchant, s.payout);
  const known = s.by === 'merchant' ? slot !== undefined : slot?.payout !== undefined;
  // A path carrying the payout's number (version 4) says which number the query is by.
  return known && lookupVia(m.caps.lookupPaths?.payoutQuery, s.by, { service: slot?.payout?.payoutNo, merchant: '' }) !== undefined;
}

async function queryPayoutCmd(m: Model, r: Real, s: Op<'query-payout'>): Promise<void> {
  const t = r.target;
  const slot = payoutSlot(m, r, s.merchant, s.payout);
  const po = slot.payout;
  const what = describe(s);
  const ex = await send(
    r,
    queryPayout(t, lookupVia(m.caps.lookupPaths?.payoutQuery, s.by, { service: po?.payoutNo, merchant: slot.no })!, {
      label: what,
      as: s.merchant,
    }),
  );
  if (!po) {
    const notFound = { code: 5002, key: 'notFound' };
    if (slot.maybe) {
      const code = (ex.response?.json as { code?: unknown } | undefined)?.code;
      if (code === 0) recordReading('stateful.refused-payout-queried', 'found');
      else expectOneOf(ex, [notFound], 'err.po.query-not-found', { topic: 'stateful.refused-payout-queried', what });
      return;
    }
    expectError(ex, notFound, 'err.po.query-not-found', { what: `${what} (${s.payout} was never used for a payout)` });
    return;
  }
  const data = expectSuccess(ex, 'payout.ids', { what });
  const paths = t.profile.payouts!.data;
  expectEqual(pick(data, paths.payoutNo), po.payoutNo, 'payout.ids', {
    code: 'WRONG_RECORD',
    title: `${what} returned another payout's record`,
    exchange: ex,
  });
  const seen = pick(data, paths.status);
  // Time the vendor keeps: once its delay may have passed, an open payout may show the status it ends in by itself.
  const ended = mayHaveEnded(m, po);
  if (ended !== undefined && seen === ended) {
    po.status = ended;
    held('state.payout.values');
    return;
  }
  if (po.status === 'open') {
    if (po.openSeen !== undefined)
      expectEqual(seen, po.openSeen, 'state.payout.values', {
        code: 'WRONG_STATUS',
        title: `${what}: the payout is still open`,
        exchange: ex,
      });
    else if (typeof seen === 'string' && FINAL_PAYOUT.has(seen))
      failCheck('state.payout.values', {
        code: 'WRONG_STATUS',
        title: `${what}: the payout is still open`,
        expected: 'a status other than SUCCESS, FAILED, CANCELED',
        seen,
        exchange: ex,
      });
    else if (typeof seen === 'string') held('state.payout.values');
  } else {
    expectEqual(seen, po.status, 'state.payout.values', {
      code: 'WRONG_STATUS',
      title: `${what}: the status does not follow from the sequence`,
      exchange: ex,
    });
  }
}

export const queryPayoutCommand: CommandKind<'query-payout'> = { describe, applicable, run: queryPayoutCmd };
