/** The stateful model's `query-refund` command: what it is called, when it applies, and what it sends, judges and records. */
import { checkRefundAmount } from './refund.js';
import { recordReading } from '../../../../harness/check/context.js';
import { expectEqual, expectError, expectOneOf, expectString, expectSuccess, pick } from '../../../../harness/check/expect.js';
import { queryRefund } from '../../../../harness/ops.js';
import { lookupVia, type Model, refundMayHaveEnded, refundOf } from '../state.js';
import { type CommandKind, type Op, type Real, numberSlot, send } from '../real.js';

function describe(s: Op<'query-refund'>): string {
  return `query the refund ${s.refund} by ${s.by === 'merchant' ? 'merchant_refund_no' : 'refund_no'}`;
}

function applicable(m: Readonly<Model>, s: Op<'query-refund'>): boolean {
  const known = s.by === 'merchant' ? m.numbers.has(s.refund) : refundOf(m, s.refund)?.refundNo !== undefined;
  // A path carrying the refund's number (version 4) says which number the query is by.
  return (
    known && lookupVia(m.caps.lookupPaths?.refundQuery, s.by, { service: refundOf(m, s.refund)?.refundNo, merchant: '' }) !== undefined
  );
}

async function queryRefundCmd(m: Model, r: Real, s: Op<'query-refund'>): Promise<void> {
  const t = r.target;
  const slot = numberSlot(m, r, s.refund);
  const rec = slot.refund;
  const what = describe(s);
  const by = lookupVia(m.caps.lookupPaths?.refundQuery, s.by, { service: rec?.refundNo, merchant: slot.no })!;
  const ex = await send(r, queryRefund(t, by, { label: what }));
  if (!rec) {
    const notFound = { code: 2002, key: 'refundNotFound' };
    if (slot.maybeRefund) {
      const code = (ex.response?.json as { code?: unknown } | undefined)?.code;
      if (code === 0) recordReading('stateful.refused-refund-queried', 'found');
      else expectOneOf(ex, [notFound], 'err.ref.not-found', { topic: 'stateful.refused-refund-queried', what });
      return;
    }
    expectError(ex, notFound, 'err.ref.not-found', { what: `${what} (${s.refund} is not a refund's number)` });
    return;
  }
  const data = expectSuccess(ex, 'refund.ids', { what });
  const paths = t.profile.refunds!.data;
  if (rec.refundNo === undefined) rec.refundNo = expectString(data, paths.refundNo, 'refund.ids', ex);
  else
    expectEqual(pick(data, paths.refundNo), rec.refundNo, 'refund.ids', {
      code: 'WRONG_RECORD',
      title: `${what} returned another refund's record`,
      exchange: ex,
    });
  const status = pick(data, paths.status);
  // Time the vendor keeps: a PENDING refund that may have ended by itself shows that end (sandbox.autoSettle.refunds).
  const ended = refundMayHaveEnded(m, rec);
  if (ended !== undefined && status === ended) rec.status = ended;
  const clause = rec.failedAtCreation ? 'idem.refused-stays-used' : 'state.refund.values';
  expectEqual(status, rec.status, clause, {
    code: 'WRONG_STATUS',
    title: `${what}: the status does not follow from the sequence${rec.failedAtCreation ? ' (recorded as failed and refused)' : ''}`,
    exchange: ex,
  });
  checkRefundAmount(t, data, rec.cents, ex, what);
}

export const queryRefundCommand: CommandKind<'query-refund'> = { describe, applicable, run: queryRefundCmd };
