/**
 * A reference that asks more of a request than the document shows (reference/request-limits.ts): a query parameter
 * beside the lookup number, shorter string limits and a smaller body. Each refusal is the document's answer for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { resolveTarget } from '../../reference/sandbox-data.js';
import { checkoutBody } from './helpers/builders.js';
import { call, keyOf, PRIMARY, type Reply, SECOND, uniq } from './helpers/client.js';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({
    target: {
      queryParams: { payments: { store_id: 'S-17', merchant: { merchantId: true } }, refunds: { store_id: 'S-17' } },
      maxLengths: { merchantOrderNo: 20, goodsName: 12, metadata: 16 },
      maxBodyBytes: 1_024,
    },
  });
});
afterAll(async () => {
  await ref.close();
});

const answered = (r: Reply): string => (r.json?.code === 0 ? 'ok' : `${r.json?.code} ${keyOf(r)}`);
const query = (body: Record<string, unknown>, creds = PRIMARY) => call(ref.url, '/api/v1/payments/query', body, { creds });

describe('a reference whose queries need another parameter', () => {
  it('refuses a payment query without it, or with another value, as invalidRequest naming the field', async () => {
    const no = uniq('Q');
    const missing = await query({ merchant_order_no: no });
    expect(answered(missing)).toBe('400 invalidRequest');
    expect(String(missing.json?.msg)).toContain('store_id');
    expect(answered(await query({ merchant_order_no: no, store_id: 'S-99', merchant: PRIMARY.id }))).toBe('400 invalidRequest');
    expect(answered(await query({ merchant_order_no: no, store_id: 'S-17', merchant: SECOND.id }))).toBe('400 invalidRequest');
  });

  it('answers a query that carries it as the document says', async () => {
    const no = uniq('Q');
    expect(answered(await query({ merchant_order_no: no, store_id: 'S-17', merchant: PRIMARY.id }))).toBe('2002 orderNotFound');
    expect(answered(await query({ merchant_order_no: no, store_id: 'S-17', merchant: SECOND.id }, SECOND))).toBe('2002 orderNotFound');
    // The other queries ask only what they are told to: the payout query none.
    const payout = await call(ref.url, '/api/v1/payouts/query', { merchant_payout_no: no });
    expect(answered(payout)).toBe('5002 notFound');
    const refund = await call(ref.url, '/api/v1/refunds/query', { merchant_refund_no: no });
    expect(answered(refund)).toBe('400 invalidRequest');
  });
});

describe('a reference with shorter limits', () => {
  it('accepts values at their limits and refuses a longer one with validationFailed naming the field', async () => {
    const at = checkoutBody({ merchant_order_no: uniq('L').slice(0, 20).padEnd(20, '0'), metadata: 'm'.repeat(16) });
    (at.trade_info as Record<string, unknown>).goods_name = 'g'.repeat(12);
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', at))).toBe('ok');
    const longName = checkoutBody({ trade_info: { goods_name: 'g'.repeat(13) } });
    const refused = await call(ref.url, '/api/v1/payments/checkout', longName);
    expect(answered(refused)).toBe('422 validationFailed');
    expect(String(refused.json?.msg)).toContain('goods_name');
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', checkoutBody({ metadata: 'm'.repeat(17) })))).toBe(
      '422 validationFailed',
    );
    const longNo = checkoutBody({ merchant_order_no: `N${'0'.repeat(20)}` });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', longNo))).toBe('422 validationFailed');
  });

  it('refuses a body larger than its limit with validationFailed', async () => {
    const big = checkoutBody({ padding: 'x'.repeat(1_100) });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', big))).toBe('422 validationFailed');
  });

  it('refuses a description it cannot be', () => {
    expect(() => resolveTarget({ maxLengths: { metadata: 0 } })).toThrow(/maxLengths.metadata/);
    expect(() => resolveTarget({ queryParams: { payments: { store_id: 7 as unknown as string } } })).toThrow(
      /queryParams.payments.store_id/,
    );
  });
});
