import { describe, expect, it } from 'vitest';
import { validate } from '../../harness/http/envelope.js';

const payment = {
  event: 'payment.updated',
  order_no: 'P1',
  merchant_order_no: 'M1',
  payment_method: 'PAYPAL',
  trans_amount: { currency: 'USD', value: '10.00' },
  trade_info: { goods_name: 'Item' },
  status: 'SUCCESS',
  metadata: '',
  finished_at: '2026-11-23T10:00:00+01:00',
  created_at: '2026-11-23T09:59:00+01:00',
};

describe('webhook body schema', () => {
  it('accepts a payment.updated body with every field of the Events table', () => {
    expect(validate('webhook', payment)).toEqual([]);
  });

  it('reports a missing event once, without applying every per-event rule', () => {
    const { event: _event, ...rest } = payment;
    const problems = validate('webhook', rest);
    expect(problems.some((p) => p.includes("'event'"))).toBe(true);
    expect(problems.filter((p) => /original_order_no|status_reason|goods_name/.test(p))).toEqual([]);
  });

  it('refuses a refund.updated body without original_order_no', () => {
    const refund = { ...payment, event: 'refund.updated', status: 'PENDING', original_merchant_order_no: 'M1', finished_at: undefined };
    expect(validate('webhook', JSON.parse(JSON.stringify(refund))).some((p) => p.includes('original_order_no'))).toBe(true);
  });
});
