/**
 * The sandbox controls shaped by a target description (reference/sandbox-shape.ts): the vendor's paths, body field
 * names and outcome values, a failure switch of two values, and one that matches a refund by its own number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { resolveTarget, type TargetDescription } from '../../reference/sandbox-data.js';
import { cardBody, refundBody, usd } from './helpers/builders.js';
import { call, keyOf, type Reply, uniq } from './helpers/client.js';

const SWITCH = {
  QUERY_FAILED: { operation: 'query', error: '500' },
  ORDER_CREATION_FAILED: { operation: 'create', error: 'busy' },
  REFUND_SYSTEM_BUSY: { operation: 'refund', error: 'busy' },
  REFUND_FAILED: { operation: 'refund', error: 'failed' },
};

const TARGET: TargetDescription = {
  sandbox: {
    paths: { '/sandbox/v1/failures/arm': '/test/faults', '/sandbox/v1/checkout/complete': '/test/pay' },
    fieldNames: { trade_no: 'order_no', result: 'outcome' },
    outcomes: { success: 'approve', failed: 'decline' },
    armFailure: { values: SWITCH, refundSubject: 'merchantRefundNo', subjectField: 'reference' },
  },
};

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ target: TARGET });
});
afterAll(async () => {
  await ref.close();
});

const answered = (r: Reply): string => (r.json?.code === 0 ? 'ok' : `${r.json?.code} ${keyOf(r)}`);

async function paidCard(): Promise<string> {
  const merchantOrderNo = uniq('O');
  const r = await call(ref.url, '/api/v1/payments/card', cardBody({ merchant_order_no: merchantOrderNo, trans_amount: usd('20.00') }));
  expect(answered(r)).toBe('ok');
  return merchantOrderNo;
}

describe('sandbox controls of a described shape', () => {
  it('serves a moved control at its own path only, with its field names and outcome values', async () => {
    const checkout = await call(ref.url, '/api/v1/payments/checkout', {
      payment_method: 'PAYPAL',
      merchant_order_no: uniq('O'),
      trans_amount: usd('10.00'),
      trade_info: { goods_name: 'Tea' },
      notify_url: 'https://merchant.invalid/n',
      return_url: 'https://merchant.invalid/r',
    });
    expect(answered(checkout)).toBe('ok');
    const orderNo = (checkout.json?.data as { order_no?: string } | undefined)?.order_no;
    expect(answered(await call(ref.url, '/sandbox/v1/checkout/complete', { order_no: orderNo, outcome: 'SUCCESS' }))).toBe(
      '400 invalidRequest',
    );
    expect(answered(await call(ref.url, '/test/pay', { trade_no: orderNo, result: 'SUCCESS' }))).toBe('400 invalidRequest');
    expect(answered(await call(ref.url, '/test/pay', { trade_no: orderNo, result: 'approve' }))).toBe('ok');
  });

  it('arms a failure by its two values, and refuses values that name no failure', async () => {
    const merchantOrderNo = await paidCard();
    expect(answered(await call(ref.url, '/test/faults', { operation: 'query', error: 'busy', reference: merchantOrderNo }))).toBe(
      '400 invalidRequest',
    );
    expect(answered(await call(ref.url, '/test/faults', { operation: 'query', reference: merchantOrderNo }))).toBe('400 invalidRequest');
    expect(answered(await call(ref.url, '/test/faults', { ...SWITCH.QUERY_FAILED, reference: merchantOrderNo }))).toBe('ok');
    expect(answered(await call(ref.url, '/api/v1/payments/query', { merchant_order_no: merchantOrderNo }))).toBe('500 queryFailed');
    expect(answered(await call(ref.url, '/api/v1/payments/query', { merchant_order_no: merchantOrderNo }))).toBe('ok');
  });

  it('matches a refund failure by the refund number, not by its payment', async () => {
    const merchantOrderNo = await paidCard();
    const refundNo = uniq('RF');
    // Armed for the payment's number: no refund of it fails.
    expect(answered(await call(ref.url, '/test/faults', { ...SWITCH.REFUND_FAILED, reference: merchantOrderNo }))).toBe('ok');
    const other = refundBody({ original_merchant_order_no: merchantOrderNo, refund_amount: usd('1.00') });
    expect(answered(await call(ref.url, '/api/v1/refunds/create', other))).toBe('ok');
    expect(answered(await call(ref.url, '/test/faults', { ...SWITCH.REFUND_FAILED, reference: refundNo }))).toBe('ok');
    const armed = refundBody({ original_merchant_order_no: merchantOrderNo, merchant_refund_no: refundNo, refund_amount: usd('1.00') });
    expect(answered(await call(ref.url, '/api/v1/refunds/create', armed))).toBe('422 refundFailed');
  });

  it('refuses a description it cannot be', () => {
    expect(() => resolveTarget({ sandbox: { outcomes: { success: 'X', failed: 'X' } } })).toThrow(/two different/);
    expect(() => resolveTarget({ sandbox: { armFailure: { values: { ...SWITCH, REFUND_FAILED: SWITCH.REFUND_SYSTEM_BUSY } } } })).toThrow(
      /same values/,
    );
    expect(() => resolveTarget({ sandbox: { paths: { '/sandbox/v1/failures/arm': 'faults' } } })).toThrow(/starting with/);
  });
});
