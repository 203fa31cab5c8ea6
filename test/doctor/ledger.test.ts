/**
 * The doctor's account of the money it moved (harness/doctor/ledger.ts), from exchanges alone: numbers in templated
 * paths and in bodies of any shape, an Amount object wherever a template puts it, a control's own variables.
 */
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../harness/exchange.js';
import { Ledger, sumsText } from '../../harness/doctor/ledger.js';
import type { Profile } from '../../harness/profile/types.js';

const profile = {
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
        amount: '10.5',
        currency: 'USD',
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
});
