/**
 * Shapes a target description gives the reference (reference/sandbox-data.ts): the whole service under a base path
 * ("The address is `{base_url}` followed by the path."), the payment query's record nested deeper ("Fields of the payment
 * record returned by a payment query: not shown."), a refund request's own fields under a key ("Refund creation request
 * fields and refund query record fields: not shown beyond the names above."). Each is what that service does and no
 * more: a path outside the base, or a flat refund body, is not that service's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { resolveTarget } from '../../reference/sandbox-data.js';
import { cardBody, refundBody } from './helpers/builders.js';
import { call, keyOf, type Reply } from './helpers/client.js';

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({
    target: { basePath: '/gateway/mpsi', paymentRecordPath: ['payment', 'order'], refundRequestUnder: 'refund' },
  });
});
afterAll(async () => {
  await ref.close();
});

const answered = (r: Reply): string => (r.json?.code === 0 ? 'ok' : `${r.json?.code} ${keyOf(r)}`);
const origin = (): string => new URL(ref.url).origin;

describe('a reference given shapes of its own', () => {
  it('is served under its base path alone, and its address ends with it', async () => {
    expect(ref.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/gateway\/mpsi$/);
    const paid = await call(ref.url, '/api/v1/payments/card', cardBody());
    expect(answered(paid)).toBe('ok');
    const outside = await call(origin(), '/api/v1/payments/card', cardBody());
    expect(answered(outside)).toBe('400 invalidRequest');
    // The path is named as it was sent, prefix and all.
    expect(outside.json?.msg).toContain('/api/v1/payments/card');
    expect(answered(await call(origin(), '/gateway/api/v1/payments/card', cardBody()))).toBe('400 invalidRequest');
  });

  it('answers a payment query with its record under the keys of the description', async () => {
    const body = cardBody();
    expect(answered(await call(ref.url, '/api/v1/payments/card', body))).toBe('ok');
    const q = await call(ref.url, '/api/v1/payments/query', { merchant_order_no: body['merchant_order_no'] });
    expect(answered(q)).toBe('ok');
    expect(Object.keys(q.json.data)).toEqual(['payment']);
    expect(Object.keys(q.json.data.payment)).toEqual(['order']);
    expect(q.json.data.payment.order).toMatchObject({ merchant_order_no: body['merchant_order_no'], status: 'SUCCESS' });
    expect(typeof q.json.data.payment.order.order_no).toBe('string');
  });

  it("reads a refund's own fields from under its key, the payment's number beside them; a flat body lacks them", async () => {
    const body = cardBody();
    expect(answered(await call(ref.url, '/api/v1/payments/card', body))).toBe('ok');
    const payment = { original_merchant_order_no: body['merchant_order_no'] };
    const nested = await call(ref.url, '/api/v1/refunds/create', { ...payment, refund: refundBody() });
    expect(answered(nested)).toBe('ok');
    expect(nested.json.data).toMatchObject({ refund_amount: { currency: 'USD', value: '5.00' } });
    // The flat form of the same request: the service reads no refund field at the top.
    expect(answered(await call(ref.url, '/api/v1/refunds/create', { ...payment, ...refundBody() }))).toBe('400 invalidRequest');
  });

  it('refuses a description of shapes it cannot be, clearly', () => {
    expect(() => resolveTarget({ basePath: 'mpsi' })).toThrow(/target basePath: a path such as \/mpsi/);
    expect(() => resolveTarget({ basePath: '/mpsi/' })).toThrow(/target basePath/);
    expect(() => resolveTarget({ paymentRecordPath: ['payment', ''] })).toThrow(/target paymentRecordPath/);
    expect(() => resolveTarget({ refundRequestUnder: 'a.b' })).toThrow(/target refundRequestUnder/);
  });
});
