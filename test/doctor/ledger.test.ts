/**
 * The doctor's account of the money it moved (harness/doctor/ledger.ts), from exchanges alone: numbers in templated
 * paths and in bodies of any shape, an Amount object wherever a template puts it, a control's own variables.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../harness/http/exchange.js';
import { Ledger, sumsText } from '../../harness/doctor/ledger.js';
import type { Profile } from '../../harness/profile/types.js';

// What the ledger reads of a profile (the facts of each merchant are resolved from `merchants` and `methods`).
const profile = {
  merchants: { primary: { id: 'M1' } },
  methods: { checkout: [] },
  endpoints: { cardPayment: '/v2/charges', payoutCancel: '/v2/payouts/{payout_no}/cancel' },
  checkout: { data: { orderNo: 'checkout.id' } },
  cardPayment: { data: { orderNo: 'charge.id', status: 'charge.state' } },
  payouts: { data: { payoutNo: 'payout.id' } },
  sandbox: {
    completeCheckout: { outcomes: { success: 'PAID', failed: 'DECLINED' } },
    settlePayout: { outcomes: { success: 'DONE', failed: 'BOUNCED' } },
  },
} as unknown as Profile;

let n = 0;
function ex(path: string, body: unknown, data: unknown, code = 0): Exchange {
  n += 1;
  return {
    id: `x-${n}`,
    label: 'test',
    request: { method: 'POST', url: `https://sandbox.example/gw${path}`, headers: {}, body: Buffer.from(JSON.stringify(body)) },
    response: { status: 200, headers: {}, body: Buffer.alloc(0), truncated: false, json: { code, msg: '', data } },
    timings: { startedAt: '', totalMs: 1 },
  };
}

const ledger = () => new Ledger(profile, 'KDOC', (url) => new URL(url).pathname.slice('/gw'.length));

describe('the doctor ledger', () => {
  it('counts a card payment answered SUCCESS as paid, and what its refunds came to', () => {
    const l = ledger();
    const amount = { currency: 'USD', value: '10.5' };
    l.sent(
      ex('/v2/charges', { order: { ref: 'KDOC-1', money: amount } }, { charge: { id: 'CH1', state: 'SUCCESS' } }),
      'M1',
      'payment.create',
    );
    l.sent(
      ex('/v2/charges', { order: { ref: 'KDOC-2', money: amount } }, { charge: { id: 'CH2', state: 'PENDING' } }),
      'M1',
      'payment.create',
    );
    l.sent(
      ex('/v2/refunds', { of: 'CH1', refund: { ref: 'KDOC-3', amount: { currency: 'USD', value: '4.00' } } }, {}),
      'M1',
      'refund.create',
    );
    // A refused refund gives nothing back.
    l.sent(
      ex('/v2/refunds', { of: 'CH1', refund: { ref: 'KDOC-4', amount: { currency: 'USD', value: '6.50' } } }, {}, 422),
      'M1',
      'refund.create',
    );
    const m = l.moved();
    expect(m.payments).toEqual([
      {
        merchant: 'M1',
        merchantOrderNo: 'KDOC-1',
        orderNo: 'CH1',
        method: 'CARD',
        amount: '10.5',
        currency: 'USD',
        fee: '0.00',
        paidBy: 'card payment',
        refunded: '4.00',
      },
    ]);
    expect(sumsText(m.payments)).toBe('10.50 USD');
  });

  it('counts a checkout as paid only once a control completes it as success', () => {
    const l = ledger();
    l.sent(
      ex('/v2/checkouts', { n: 'KDOC-5', a: { value: '3.00', currency: 'USD' } }, { checkout: { id: 'CO5' } }),
      'M1',
      'payment.create',
    );
    l.sent(
      ex('/v2/checkouts', { n: 'KDOC-6', a: { value: '4.00', currency: 'USD' } }, { checkout: { id: 'CO6' } }),
      'M1',
      'payment.create',
    );
    l.control('completeCheckout', { orderNo: 'CO5', outcome: 'PAID' }, ex('/sandbox/pay', {}, {}));
    l.control('completeCheckout', { orderNo: 'CO6', outcome: 'DECLINED' }, ex('/sandbox/pay', {}, {}));
    expect(l.moved().payments.map((p) => [p.merchantOrderNo, p.paidBy])).toEqual([['KDOC-5', 'completed by sandbox control']]);
  });

  it('follows each payout to its end: a cancel by a number in the path, a settlement either way, or held', () => {
    const l = ledger();
    for (const [no, id] of [
      ['KDOC-7', 'PO7'],
      ['KDOC-8', 'PO8'],
      ['KDOC-9', 'PO9'],
      ['KDOC-10', 'PO10'],
    ])
      l.sent(ex('/v2/payouts', { ref: no, amount: { value: '1.00', currency: 'EUR' } }, { payout: { id } }), 'M2', 'payout.create');
    l.sent(ex('/v2/payouts/PO7/cancel', {}, {}), 'M2', 'payout.cancel');
    l.control('settlePayout', { payoutNo: 'PO8', outcome: 'BOUNCED' }, ex('/sandbox/settle', {}, {}));
    l.control('settlePayout', { merchantPayoutNo: 'KDOC-9', outcome: 'DONE' }, ex('/sandbox/settle', {}, {}));
    expect(l.moved().payouts.map((p) => [p.merchantPayoutNo, p.payoutNo, p.end])).toEqual([
      ['KDOC-7', 'PO7', 'given back'],
      ['KDOC-8', 'PO8', 'given back'],
      ['KDOC-9', 'PO9', 'spent'],
      ['KDOC-10', 'PO10', 'held'],
    ]);
    expect(sumsText(l.moved().payouts)).toBe('4.00 EUR');
  });

  it('says a creation that got no answer, never counting it', () => {
    const l = ledger();
    const silent = ex('/v2/payouts', { ref: 'KDOC-30', amount: { value: '7.00', currency: 'USD' } }, {});
    delete (silent as { response?: unknown }).response;
    l.sent(silent, 'M3', 'payout.create');
    const m = l.moved();
    expect(m.payouts).toEqual([]);
    expect(m.unanswered).toEqual([{ merchant: 'M3', operation: 'payout.create', merchantNo: 'KDOC-30', amount: '7.00', currency: 'USD' }]);
  });

  it('finds a payout whose number is in its creation path, and one that settled by itself from its record', () => {
    const p = {
      ...profile,
      endpoints: { payoutCreate: '/v2/payouts/{merchant_payout_no}' },
      payouts: { data: { payoutNo: 'payout.id', status: 'payout.state' }, methods: { WIRE: {} } },
      sandbox: {},
    } as unknown as Profile;
    const l = new Ledger(p, 'KDOC', (url) => new URL(url).pathname.slice('/gw'.length));
    for (const no of ['KDOC-11', 'KDOC-12'])
      l.sent(
        ex(`/v2/payouts/${no}`, { m: 'WIRE', amount: { value: '2.00', currency: 'USD' } }, { payout: { id: `P${no}` } }),
        'M1',
        'payout.create',
      );
    l.sent(ex('/v2/payouts/query', { id: 'PKDOC-12' }, { payout: { id: 'PKDOC-12', state: 'SUCCESS' } }), 'M1', 'payout.query');
    expect(l.moved().payouts.map((x) => [x.merchantPayoutNo, x.method, x.end])).toEqual([
      ['KDOC-11', 'WIRE', 'held'],
      ['KDOC-12', 'WIRE', 'spent'],
    ]);
  });

  it('sums what moved per merchant, balance and currency: fees, a refund given back, a chargeback apart', () => {
    const p = {
      ...profile,
      endpoints: { cardPayment: '/v2/charges' },
      methods: { checkout: [], card: 'CARD' },
      refunds: { data: { refundNo: 'refund.id' } },
      fees: {
        payments: { CARD: { fixed: '0.30', percent: '2.9' } },
        refunds: { CARD: { fixed: '0.25' } },
        payouts: { WIRE: { percent: '1', fixed: '0.50' } },
      },
      balances: { paymentsCredit: ['payout'] },
      payouts: { data: { payoutNo: 'payout.id' }, methods: { WIRE: {} } },
      sandbox: {
        chargeback: { path: '/sandbox/chargeback' },
        settleRefund: { path: '/sandbox/refund', outcomes: { success: 'OK', failed: 'NO' } },
      },
    } as unknown as Profile;
    const l = new Ledger(p, 'KDOC', (url) => new URL(url).pathname.slice('/gw'.length));
    l.sent(
      ex('/v2/charges', { n: 'KDOC-20', a: { value: '20.00', currency: 'USD' } }, { charge: { id: 'C20', state: 'SUCCESS' } }),
      'M1',
      'payment.create',
    );
    for (const [no, value] of [
      ['KDOC-21', '5.00'],
      ['KDOC-22', '3.00'],
    ] as const)
      l.sent(ex('/v2/refunds', { of: 'C20', no, amount: { value, currency: 'USD' } }, { refund: { id: `R${no}` } }), 'M1', 'refund.create');
    // A control sent by any helper is known by its path; the second refund settles as failed and gives its money back.
    l.sent(ex('/sandbox/refund', { refund: 'RKDOC-22', outcome: 'NO' }, {}), 'M1', 'sandbox');
    l.sent(ex('/sandbox/chargeback', { order: 'C20' }, {}), 'M1', 'sandbox');
    l.sent(
      ex('/v2/payouts', { no: 'KDOC-23', m: 'WIRE', amount: { value: '10.00', currency: 'USD' } }, { payout: { id: 'P23' } }),
      'M1',
      'payout.create',
    );
    const m = l.moved();
    expect(m.refunds.map((x) => [x.merchantRefundNo, x.fee, x.end])).toEqual([
      ['KDOC-21', '0.25', 'taken'],
      ['KDOC-22', '0.25', 'given back'],
    ]);
    expect(m.chargebacks.map((x) => x.merchantOrderNo)).toEqual(['KDOC-20']);
    // Payout balance: +20.00 - 0.88 (fee) credited, -10.00 - 0.60 (fee) paid out; refund balance: -5.25.
    expect(m.balances.map((x) => [x.balance, x.currency, x.moved, x.unknown.length])).toEqual([
      ['payout', 'USD', '8.52', 0],
      ['refund', 'USD', '-5.25', 0],
      ['not stated', 'USD', '0.00', 1],
    ]);
  });
  /** The same requests as above, against a profile that says what a chargeback takes and when proceeds are available. */
  function chargedBack(balances: Record<string, unknown>) {
    const p = {
      ...profile,
      endpoints: { cardPayment: '/v2/charges' },
      methods: { checkout: [], card: 'CARD' },
      fees: { payments: { CARD: { fixed: '0.30', percent: '2.9' } } },
      balances,
      sandbox: { chargeback: { path: '/sandbox/chargeback' } },
    } as unknown as Profile;
    const l = new Ledger(p, 'KDOC', (url) => new URL(url).pathname.slice('/gw'.length));
    l.sent(
      ex('/v2/charges', { n: 'KDOC-20', a: { value: '20.00', currency: 'USD' } }, { charge: { id: 'C20', state: 'SUCCESS' } }),
      'M1',
      'payment.create',
    );
    l.sent(ex('/sandbox/chargeback', { order: 'C20' }, {}), 'M1', 'sandbox');
    return l.moved();
  }

  it("sums a chargeback's debit where the profile states it (balances.chargeback): the amount and its fee", () => {
    const m = chargedBack({ paymentsCredit: ['payout'], chargeback: { from: 'payout', fee: { fixed: '15.00' } } });
    expect(m.chargebacks.map((x) => [x.merchantOrderNo, x.amount, x.fee])).toEqual([['KDOC-20', '20.00', '15.00']]);
    // +20.00 - 0.88 credited, -20.00 - 15.00 charged back.
    expect(m.balances.map((x) => [x.balance, x.currency, x.moved, x.unknown.length])).toEqual([['payout', 'USD', '-15.88', 0]]);
  });

  it('counts no pending proceeds as credited (balances.proceeds)', () => {
    const released = chargedBack({ paymentsCredit: ['refund'], proceeds: { after: 'control' }, chargeback: { from: 'refund' } });
    expect(released.balances.map((x) => [x.balance, x.moved, x.unknown.length])).toEqual([['refund', '-20.00', 0]]);
    const delayed = chargedBack({ paymentsCredit: ['refund'], proceeds: { after: 60_000 } });
    expect(delayed.balances.map((x) => [x.balance, x.moved, x.unknown])).toEqual([
      ['refund', '0.00', [expect.stringMatching(/KDOC-20 \(its proceeds wait 60000 ms: balances\.proceeds/)]],
      ['not stated', '0.00', [expect.stringMatching(/not stated \(balances\.chargeback\)/)]],
    ]);
  });
});
