/** The stateful model's `query-payment` command: what it is called, when it applies, and what it sends, judges and records. */
import { recordReading } from '../../../../harness/check/context.js';
import { expectEqual, expectError, expectString, expectSuccess, failCheck, held, pick } from '../../../../harness/check/expect.js';
import type { Exchange } from '../../../../harness/http/exchange.js';
import { queryPayment } from '../../../../harness/ops.js';
import type { Target } from '../../../../harness/target.js';
import { expectedPaymentStatus } from '../predict.js';
import { type Model, type PaymentRec, paymentOf } from '../state.js';
import { type CommandKind, type Op, type Real, numberSlot, send } from '../real.js';
import { valueOfCents } from '../../../../harness/facts/money.js';

function describe(s: Op<'query-payment'>): string {
  return `query the payment ${s.order} by ${s.by === 'merchant' ? 'merchant_order_no' : 'order_no'}`;
}

function applicable(m: Readonly<Model>, s: Op<'query-payment'>): boolean {
  return s.by === 'merchant' ? m.numbers.has(s.order) : paymentOf(m, s.order)?.orderNo !== undefined;
}

async function queryPaymentCmd(m: Model, r: Real, s: Op<'query-payment'>): Promise<void> {
  const t = r.target;
  const slot = numberSlot(m, r, s.order);
  const p = slot.payment;
  const what = describe(s);
  const ex = await send(
    r,
    queryPayment(t, s.by === 'merchant' ? { merchant_order_no: slot.no } : { order_no: p!.orderNo }, { label: what }),
  );
  if (!p) {
    const held =
      slot.refund || slot.maybeRefund
        ? ` (${s.order} is a refund's number, not a payment's)`
        : ` (${s.order} was never used for a payment)`;
    expectError(ex, { code: 2002, key: 'orderNotFound' }, 'query.not-found', { what: `${what}${held}` });
    return;
  }
  const data = expectSuccess(ex, 'query.returns-record', { what });
  checkPaymentRecord(m, t, p, data, ex, what);
}

function checkPaymentRecord(m: Model, t: Target, p: PaymentRec, data: Record<string, unknown>, ex: Exchange, what: string): void {
  const rec = t.profile.paymentRecord;
  if (!rec) return;
  expectEqual(pick(data, rec.merchantOrderNo), p.merchantOrderNo, 'query.returns-record', {
    code: 'WRONG_RECORD',
    title: `${what} returned another payment's record (merchant_order_no)`,
    exchange: ex,
  });
  if (p.orderNo === undefined) p.orderNo = expectString(data, rec.orderNo, 'query.returns-record', ex);
  else
    expectEqual(pick(data, rec.orderNo), p.orderNo, 'query.returns-record', {
      code: 'WRONG_RECORD',
      title: `${what} returned another payment's record (order_no)`,
      exchange: ex,
    });
  const amountClause = p.refusedRepeats > 0 ? 'idem.original-unchanged' : 'payment.trans-amount.usd-charged';
  const amountNote = p.refusedRepeats > 0 ? ` after ${p.refusedRepeats} refused repeat(s) of its number` : '';
  expectEqual(pick(data, `${rec.transAmount}.value`), valueOfCents(p.cents), amountClause, {
    code: 'WRONG_AMOUNT',
    title: `${what}: the amount charged is not the amount of ${p.name}${amountNote}`,
    exchange: ex,
  });
  expectEqual(pick(data, `${rec.transAmount}.currency`), 'USD', amountClause, {
    code: 'WRONG_AMOUNT',
    title: `${what}: the amount charged is not in USD`,
    exchange: ex,
  });
  const status = pick(data, rec.status);
  const want = expectedPaymentStatus(m, p);
  if (want.values === undefined) {
    recordReading(want.topic, String(status));
    return;
  }
  if (typeof status !== 'string' || !want.values.includes(status)) {
    failCheck(want.clause, {
      code: 'WRONG_STATUS',
      title: `${what}: the status does not follow from the sequence (${statusStory(p)})`,
      expected: want.values.join(' or '),
      seen: JSON.stringify(status),
      exchange: ex,
    });
  }
  held(want.clause);
  if (want.topic) recordReading(want.topic, status);
}

function statusStory(p: PaymentRec): string {
  const parts = [`${p.name} is ${p.base}${p.declined ? ' (declined)' : ''}`];
  if (p.chargedBack) parts.push('charged back (visible only in the merchant portal)');
  for (const r of p.refunds) parts.push(`refund ${r.name} of ${valueOfCents(r.cents)} is ${r.status}`);
  return parts.join(', ');
}

export const queryPaymentCommand: CommandKind<'query-payment'> = { describe, applicable, run: queryPaymentCmd };
