import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newRecorder, note, recordReading, withRecorder } from '../../harness/check/context.js';
import type { CommandSpec, NumberName } from '../../fixtures/arbitraries/commands.js';
import { applicable, describeCommand } from '../../suites/support/model/commands.js';
import {
  expectedPaymentStatus,
  moneyBreaches,
  predictPayment,
  predictPayout,
  predictPayoutCancel,
  predictRefund,
  refundCents,
} from '../../suites/support/model/predict.js';
import { formatSteps, inLaneOrder, laneCaps, laneRuns, laneSeed } from '../../suites/support/model/sequences.js';
import { judge } from '../../suites/support/model/verdict.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { type Model, type ModelCaps, newModel, type PaymentRec, type PayoutRec, type RefundRec } from '../../suites/support/model/state.js';

const caps: ModelCaps = {
  pendingStatus: 'PENDING',
  refundSupport: { CARD: 'partial', PAYPAL: 'partial', CASH_APP: 'full', APPLE_PAY: 'none' },
  payoutCancel: { BANK_TRANSFER: true, PAYPAL: false },
  balances: { primary: 10_000_000, lowBalance: 500 },
  paymentLimits: { CARD: [{ min: 50, max: 1_000_000 }] },
  payoutLimits: { BANK_TRANSFER: [{ min: 100, max: 5_000_000 }] },
  payoutMethods: { primary: ['BANK_TRANSFER', 'PAYPAL'], lowBalance: ['BANK_TRANSFER'] },
  refundNeedsOrderNo: false,
};

function paid(m: Model, name: NumberName, cents: number, extra: Partial<PaymentRec> = {}): PaymentRec {
  const p: PaymentRec = {
    name,
    merchantOrderNo: `M-${name}`,
    orderNo: `S-${name}`,
    method: 'CARD',
    via: 'card',
    cents,
    base: 'SUCCESS',
    declined: false,
    chargedBack: false,
    refunds: [],
    refusedRepeats: 0,
    ...extra,
  };
  m.numbers.set(name, { name, no: p.merchantOrderNo, payment: p });
  return p;
}

function refunded(
  m: Model,
  p: PaymentRec,
  name: NumberName,
  cents: number,
  status: RefundRec['status'],
  failedAtCreation = false,
): RefundRec {
  const r: RefundRec = { name, merchantRefundNo: `M-${name}`, refundNo: `R-${name}`, payment: p, cents, status, failedAtCreation };
  p.refunds.push(r);
  const slot = m.numbers.get(name) ?? { name, no: r.merchantRefundNo };
  slot.refund = r;
  m.numbers.set(name, slot);
  return r;
}

const pay = (as: NumberName, via: 'checkout' | 'card-success' | 'card-decline' = 'card-success'): Extract<CommandSpec, { op: 'pay' }> => ({
  op: 'pay',
  via,
  method: 'CARD',
  cents: 1000,
  as,
});
const refund = (order: NumberName, as: NumberName, cents: number, failing = false): Extract<CommandSpec, { op: 'refund' }> => ({
  op: 'refund',
  order,
  as,
  amount: { mode: 'fixed', cents },
  failing,
});

describe('payment predictions', () => {
  it('predicts success for a fresh number', () => {
    expect(predictPayment(newModel(caps), pay('order#1')).success).toBe('must');
  });

  it('refuses a number held by a declined payment as refused-stays-used, and nothing else', () => {
    const m = newModel(caps);
    paid(m, 'order#1', 1000, { base: 'FAILED', declined: true, orderNo: undefined });
    for (const via of ['card-success', 'card-decline', 'checkout'] as const) {
      const p = predictPayment(m, pay('order#1', via));
      expect(p.success).toBe('never');
      expect(p.refusals.map((r) => [r.key, r.clause])).toEqual([['duplicateMerchantOrder', 'idem.refused-stays-used']]);
    }
  });

  it('refuses a payment under a refund number as shared with refunds', () => {
    const m = newModel(caps);
    const p = paid(m, 'order#1', 1000);
    refunded(m, p, 'refund#1', 100, 'PENDING');
    const pred = predictPayment(m, pay('refund#1'));
    expect(pred.success).toBe('never');
    expect(pred.refusals[0]).toMatchObject({ code: 422, key: 'duplicateMerchantOrder', clause: 'idem.payment.shared-with-refunds' });
  });

  it('leaves a number open after a refund under it was refused for another reason', () => {
    const m = newModel(caps);
    m.numbers.set('refund#1', { name: 'refund#1', no: 'X', maybeRefund: true });
    expect(predictPayment(m, pay('refund#1')).success).toBe('may');
    expect(predictPayment(m, pay('refund#1', 'card-decline')).refusals.map((r) => r.key)).toEqual([
      'paymentFailed',
      'duplicateMerchantOrder',
    ]);
  });
});

describe('refund predictions', () => {
  it('accepts a partial refund within the amount paid', () => {
    const m = newModel(caps);
    paid(m, 'order#1', 1000);
    expect(predictRefund(m, refund('order#1', 'refund#1', 400), 400, true).success).toBe('must');
  });

  it('refuses a refund that takes the running total above the amount paid', () => {
    const m = newModel(caps);
    const p = paid(m, 'order#1', 1000);
    refunded(m, p, 'refund#1', 700, 'PENDING');
    const pred = predictRefund(m, refund('order#1', 'refund#2', 301), 301, true);
    expect(pred.success).toBe('never');
    expect(pred.refusals[0]).toMatchObject({ key: 'refundAmountExceeded', clause: 'err.ref.amount-exceeded' });
    expect(predictRefund(m, refund('order#1', 'refund#2', 300), 300, true).success).toBe('must');
  });

  it('does not predict when only a failed refund would make the total exceed', () => {
    const m = newModel(caps);
    const p = paid(m, 'order#1', 1000);
    refunded(m, p, 'refund#1', 700, 'FAILED');
    expect(predictRefund(m, refund('order#1', 'refund#2', 500), 500, true).success).toBe('may');
  });

  it('refuses a full-only channel partial refund, a payment not paid, and a charged-back one', () => {
    const m = newModel(caps);
    paid(m, 'order#1', 1000, { method: 'CASH_APP' });
    paid(m, 'order#2', 1000, { base: 'pending', via: 'checkout' });
    paid(m, 'refund#2', 1000, { chargedBack: true });
    expect(predictRefund(m, refund('order#1', 'refund#1', 500), 500, true).refusals[0]?.clause).toBe('err.ref.full-only');
    expect(predictRefund(m, refund('order#1', 'refund#1', 1000), 1000, true).success).toBe('must');
    expect(predictRefund(m, refund('order#2', 'refund#1', 500), 500, true).refusals[0]?.clause).toBe('state.refund.not-paid');
    expect(predictRefund(m, refund('refund#2', 'refund#1', 500), 500, true).refusals[0]?.clause).toBe('state.refund.charged-back');
  });

  it('accepts each refusal that holds when several do: an unpaid order on a method without refunds', async () => {
    const m = newModel(caps);
    paid(m, 'order#1', 1000, { base: 'pending', via: 'checkout', method: 'APPLE_PAY' });
    const pred = predictRefund(m, refund('order#1', 'refund#1', 1000), 1000, true);
    expect(pred.success).toBe('never');
    expect(pred.refusals.map((r) => [r.key, r.clause])).toEqual([
      ['refundOrderNotPaid', 'state.refund.not-paid'],
      ['notSupported', 'err.ref.not-supported'],
    ]);
    const answer = (key: string): Exchange => {
      const json = { code: 422, msg: `Refused|${key}` };
      return {
        id: 'x-1',
        label: 'l',
        request: { method: 'POST', url: 'http://127.0.0.1:1/api/v1/refunds', headers: {}, body: Buffer.from('{}') },
        response: { status: 200, headers: {}, body: Buffer.from(JSON.stringify(json)), json, truncated: false },
        timings: { startedAt: '', totalMs: 1 },
      } as Exchange;
    };
    const rec = newRecorder(['state.refund.not-paid'], 0, 'stateful/x');
    for (const key of ['notSupported', 'refundOrderNotPaid'])
      await withRecorder(rec, async () => expect(judge(answer(key), pred, 'a refund').accepted).toBe(false));
    // A refusal that does not hold is still a finding, against the first clause that does.
    await withRecorder(rec, async () =>
      expect(() => judge(answer('refundAmountExceeded'), pred, 'a refund')).toThrow(/refundOrderNotPaid or 422 notSupported/),
    );
    // An amount above the order's is one more refusal that holds, paid or not.
    const above = predictRefund(m, refund('order#1', 'refund#1', 1001), 1001, true);
    expect(above.refusals.map((r) => r.key)).toContain('refundAmountExceeded');
  });

  it('refuses a repeated refund number, and keeps a number held by a refund recorded as failed', () => {
    const m = newModel(caps);
    const p = paid(m, 'order#1', 1000);
    refunded(m, p, 'refund#1', 100, 'FAILED', true);
    const pred = predictRefund(m, refund('order#1', 'refund#1', 100, true), 100, true);
    expect(pred.success).toBe('never');
    expect(pred.refusals.map((r) => [r.key, r.clause])).toEqual([['duplicateRefundOrder', 'idem.refused-stays-used']]);
  });

  it('leaves a refund under a payment number open (scoped to refunds, shared with payments)', () => {
    const m = newModel(caps);
    paid(m, 'order#1', 1000);
    const pred = predictRefund(m, refund('order#1', 'order#1', 100), 100, true);
    expect(pred.success).toBe('may');
    expect(pred.refusals.map((r) => r.key).sort()).toEqual(['duplicateMerchantOrder', 'duplicateRefundOrder']);
  });

  it('computes the rest and the rest plus cents', () => {
    const m = newModel(caps);
    const p = paid(m, 'order#1', 1000);
    refunded(m, p, 'refund#1', 250, 'SUCCESS');
    expect(refundCents(m, { order: 'order#1', amount: { mode: 'rest' } })).toBe(750);
    expect(refundCents(m, { order: 'order#1', amount: { mode: 'rest-plus', cents: 1 } })).toBe(751);
    refunded(m, p, 'refund#2', 750, 'SUCCESS');
    expect(refundCents(m, { order: 'order#1', amount: { mode: 'rest' } })).toBeUndefined();
  });
});

describe('payment status', () => {
  it('is REFUNDED once settled refunds add up to the amount, either while partly refunded, SUCCESS before', () => {
    const m = newModel(caps);
    const p = paid(m, 'order#1', 1000);
    expect(expectedPaymentStatus(m, p)).toMatchObject({ values: ['SUCCESS'] });
    refunded(m, p, 'refund#1', 400, 'SUCCESS');
    expect(expectedPaymentStatus(m, p)).toMatchObject({ values: ['SUCCESS', 'REFUNDED'] });
    refunded(m, p, 'refund#2', 600, 'SUCCESS');
    expect(expectedPaymentStatus(m, p)).toMatchObject({ values: ['REFUNDED'], clause: 'state.payment.refunded-status' });
  });

  it('does not predict an expired checkout status, and keeps SUCCESS after a chargeback', () => {
    const m = newModel(caps);
    expect(expectedPaymentStatus(m, paid(m, 'order#1', 1000, { base: 'expired' })).values).toBeUndefined();
    expect(expectedPaymentStatus(m, paid(m, 'order#2', 1000, { chargedBack: true })).values).toEqual(['SUCCESS']);
    expect(expectedPaymentStatus(m, paid(m, 'refund#1', 1000, { base: 'FAILED', declined: true }))).toMatchObject({
      values: ['FAILED'],
      clause: 'state.payment.declined-failed',
    });
  });
});

describe('payout predictions', () => {
  function payout(
    m: Model,
    status: PayoutRec['status'],
    method = 'BANK_TRANSFER',
    merchant: 'primary' | 'lowBalance' = 'primary',
    cents = 300,
  ): void {
    const name = `payout#${m.payoutNumbers.size + 1}` as const;
    m.payoutNumbers.set(`${merchant}:${name}`, {
      name,
      merchant,
      no: `M-${name}`,
      payout: { name, merchant, merchantPayoutNo: `M-${name}`, payoutNo: `T-${name}`, method, cents, status },
    });
  }

  it('refuses a cancel of a SUCCESS payout as not cancelable, and of an open PAYPAL payout as not supported', () => {
    const m = newModel(caps);
    payout(m, 'SUCCESS');
    payout(m, 'open', 'PAYPAL');
    payout(m, 'open');
    const success = predictPayoutCancel(m, { op: 'cancel-payout', merchant: 'primary', payout: 'payout#1' });
    expect(success.refusals[0]).toMatchObject({ code: 5003, key: 'payoutNotCancelable', clause: 'state.payout.not-cancelable' });
    expect(predictPayoutCancel(m, { op: 'cancel-payout', merchant: 'primary', payout: 'payout#2' }).refusals[0]?.clause).toBe(
      'err.po.cancel-unsupported',
    );
    expect(predictPayoutCancel(m, { op: 'cancel-payout', merchant: 'primary', payout: 'payout#3' }).success).toBe('must');
    expect(predictPayoutCancel(m, { op: 'cancel-payout', merchant: 'primary', payout: 'payout#9' }).refusals[0]?.key).toBe('notFound');
  });

  it('refuses a payout above the declared balance less what the sequence holds, and any repeat', () => {
    const m = newModel(caps);
    payout(m, 'open', 'BANK_TRANSFER', 'lowBalance', 300);
    const over = predictPayout(m, { op: 'payout', merchant: 'lowBalance', method: 'BANK_TRANSFER', cents: 201, as: 'payout#2' });
    expect(over.success).toBe('never');
    expect(over.refusals[0]?.key).toBe('insufficientFunds');
    expect(predictPayout(m, { op: 'payout', merchant: 'lowBalance', method: 'BANK_TRANSFER', cents: 200, as: 'payout#2' }).success).toBe(
      'may',
    );
    const repeat = predictPayout(m, { op: 'payout', merchant: 'lowBalance', method: 'BANK_TRANSFER', cents: 100, as: 'payout#1' });
    expect(repeat.success).toBe('never');
    expect(repeat.anyRefusal?.clause).toBe('idem.payout.refused');
  });

  it('counts refunds (with their fee) against the payout balance only when the profile says it is shared', () => {
    const small = { ...caps, balances: { primary: 2000 } };
    for (const shared of [false, true]) {
      const m = newModel(shared ? { ...small, sharedBalance: { refundFeeCents: 30 } } : small);
      refunded(m, paid(m, 'order#1', 1000), 'refund#1', 1000, 'SUCCESS');
      refunded(m, paid(m, 'order#2', 500), 'refund#2', 500, 'FAILED');
      // Shared: 1000 + 30 fee held by the refund (the failed one holds nothing); 1000 more is above 2000.
      const p = predictPayout(m, { op: 'payout', merchant: 'primary', method: 'BANK_TRANSFER', cents: 1000, as: 'payout#1' });
      expect(p.success).toBe(shared ? 'never' : 'may');
      if (shared) expect(p.refusals[0]?.why).toContain('share one balance');
    }
  });
});

describe('money invariants', () => {
  it('reports refunds above the amount paid and payouts above the balance', () => {
    const m = newModel(caps);
    const p = paid(m, 'order#1', 1000);
    refunded(m, p, 'refund#1', 600, 'PENDING');
    refunded(m, p, 'refund#2', 600, 'SUCCESS');
    m.payoutNumbers.set('lowBalance:payout#1', {
      name: 'payout#1',
      merchant: 'lowBalance',
      no: 'N',
      payout: {
        name: 'payout#1',
        merchant: 'lowBalance',
        merchantPayoutNo: 'N',
        payoutNo: 'T',
        method: 'BANK_TRANSFER',
        cents: 600,
        status: 'SUCCESS',
      },
    });
    expect(moneyBreaches(m).map((b) => b.clause)).toEqual(['err.ref.amount-exceeded', 'err.po.insufficient-funds']);
  });

  it('counts neither failed refunds nor cancelled payouts', () => {
    const m = newModel(caps);
    const p = paid(m, 'order#1', 1000);
    refunded(m, p, 'refund#1', 1000, 'FAILED');
    refunded(m, p, 'refund#2', 1000, 'SUCCESS');
    expect(moneyBreaches(m)).toEqual([]);
  });
});

describe('commands', () => {
  it('read as sentences', () => {
    expect(describeCommand(refund('order#2', 'refund#1', 1234))).toBe('refund 12.34 of order#2 as refund#1');
    expect(
      describeCommand({ op: 'refund', order: 'order#1', as: 'order#2', amount: { mode: 'rest-plus', cents: 1 }, failing: true }, 1001),
    ).toBe('refund the rest + 0.01 (10.01) of order#1 as order#2 with the failing reason');
    expect(describeCommand(pay('order#1', 'card-decline'))).toBe('pay 10.00 by card with the decline card as order#1');
    expect(describeCommand({ op: 'cancel-payout', merchant: 'lowBalance', payout: 'payout#1' })).toBe(
      'cancel the payout payout#1 of the low-balance merchant',
    );
  });

  it('run only where they make sense', () => {
    const m = newModel(caps);
    expect(applicable(m, refund('order#1', 'refund#1', 100))).toBe(false);
    expect(applicable(m, { op: 'complete', order: 'order#1', outcome: 'success' })).toBe(false);
    paid(m, 'order#1', 1000, { base: 'pending', via: 'checkout' });
    expect(applicable(m, { op: 'complete', order: 'order#1', outcome: 'success' })).toBe(true);
    expect(applicable(m, { op: 'chargeback', order: 'order#1' })).toBe(false);
    expect(applicable(m, refund('order#1', 'refund#1', 100))).toBe(true);
    expect(applicable(m, { op: 'pay', via: 'card-success', method: 'CARD', cents: 49, as: 'order#2' })).toBe(false);
  });
});

describe('sequences', () => {
  it('split the sequences over the lanes and give each lane its own seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 4 }), (total, lanes) => {
        const runs = laneRuns(total, Math.min(lanes, total));
        expect(runs.reduce((a, b) => a + b, 0)).toBe(total);
        expect(Math.max(...runs) - Math.min(...runs)).toBeLessThanOrEqual(1);
      }),
    );
    expect(laneSeed(42, 0)).toBe(42);
    expect(new Set([0, 1, 2, 3].map((l) => laneSeed(42, l))).size).toBe(4);
  });

  it("leave the low-balance merchant's payouts to the first lane: side by side, whose payout is refused would be our scheduling", () => {
    const low: CommandSpec = { op: 'payout', merchant: 'lowBalance', method: 'BANK_TRANSFER', cents: 300, as: 'payout#1' };
    const primary: CommandSpec = { ...low, merchant: 'primary' };
    expect(applicable(newModel(laneCaps(caps, 0)), low)).toBe(true);
    for (const lane of [1, 2, 3]) {
      expect(applicable(newModel(laneCaps(caps, lane)), low)).toBe(false);
      expect(applicable(newModel(laneCaps(caps, lane)), primary)).toBe(true);
    }
  });

  it("join the lanes' readings and notes in lane order, whichever lane finished last", async () => {
    // Lane 0 finishes last or first: a shared recorder would end with the last finisher's reading.
    for (const delays of [
      [40, 0],
      [0, 40],
    ]) {
      const rec = newRecorder(['state.refund.values'], 0, 'stateful/x');
      const lane = (k: number, reading: string) => async () => {
        await new Promise((resolve) => setTimeout(resolve, delays[k]));
        recordReading('stateful.refund-open-outcome', reading);
        note(`lane ${k + 1}`);
        return k;
      };
      const out = await withRecorder(rec, () => inLaneOrder([lane(0, '422 validationFailed'), lane(1, '422 duplicateRefundOrder')]));
      expect(out).toEqual([0, 1]);
      expect(rec.readings['stateful.refund-open-outcome']).toBe('422 duplicateRefundOrder');
      expect(rec.notes).toEqual(['lane 1', 'lane 2']);
    }
  });

  it("read a payment's topic only where its answer is open, not from a forced refusal (a repeat, a decline)", async () => {
    const refused = (key: string): Exchange => {
      const json = { code: 422, msg: `Refused|${key}` };
      return {
        id: 'x-1',
        label: 'l',
        request: { method: 'POST', url: 'http://127.0.0.1:1/api/v1/payments/card', headers: {}, body: Buffer.from('{}') },
        response: { status: 200, headers: {}, body: Buffer.from(JSON.stringify(json)), json, truncated: false },
        timings: { startedAt: '', totalMs: 1 },
      } as Exchange;
    };
    const m = newModel(caps);
    paid(m, 'order#1', 1000);
    m.numbers.set('refund#1', { name: 'refund#1', no: 'X', maybeRefund: true });
    const topic = 'stateful.payment-under-refused-refund-number';
    // Forced: a repeated payment number, then the decline card on a fresh number. Each sequence's last forced refusal
    // used to be the reading, whatever the question the topic names.
    const rec = newRecorder(['idem.payment.shared-with-refunds'], 0, 'stateful/x');
    await withRecorder(rec, async () => {
      judge(refused('duplicateMerchantOrder'), predictPayment(m, pay('order#1')), 'a repeat');
      judge(refused('paymentFailed'), predictPayment(m, pay('order#2', 'card-decline')), 'a decline');
    });
    expect(rec.readings[topic]).toBeUndefined();
    // Open: a payment under the number of a refund that was refused and may have been recorded.
    await withRecorder(rec, async () => judge(refused('duplicateMerchantOrder'), predictPayment(m, pay('refund#1')), 'open'));
    expect(rec.readings[topic]).toBe('422 duplicateMerchantOrder');
    await withRecorder(rec, async () => judge(refused('paymentFailed'), predictPayment(m, pay('order#3', 'card-decline')), 'forced'));
    expect(rec.readings[topic]).toBe('422 duplicateMerchantOrder');
  });

  it('report a numbered list of commands with their requests and responses, marking the failing one', () => {
    const ex = {
      id: 'x-1',
      label: 'l',
      request: { method: 'POST', url: 'http://127.0.0.1:1/api/v1/payments/card', headers: {}, body: Buffer.from('{"a":1}') },
      response: { status: 200, headers: {}, body: Buffer.from('{"code":0,"msg":"success","data":{}}'), truncated: false },
      timings: { startedAt: '', totalMs: 1 },
    };
    const text = formatSteps([
      { command: 'pay 10.00 by card with the decline card as order#1', exchanges: [ex] },
      { command: 'pay 10.00 by card with the success card as order#1', exchanges: [ex] },
    ]);
    expect(text).toContain(
      '  1. pay 10.00 by card with the decline card as order#1\n     → POST /api/v1/payments/card {"a":1}\n     ← HTTP 200 {"code":0',
    );
    expect(text).toContain('  2. pay 10.00 by card with the success card as order#1   ← fails here');
  });
});
