/**
 * The reference under concurrent creates (INTERFACE.md › Idempotency: a repeated number is
 * refused, never replayed; Refund errors: refundAmountExceeded). Whatever the interleaving, each
 * number is taken exactly once and no refund total passes the amount charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReference, type RunningReference } from '../../reference/index.js';
import { call, cardBody, checkoutBody, codeOf, keyOf, makeAgent, responseVerifies, PRIMARY, uniq, type Reply } from './support.js';

let ref: RunningReference;
const agent = makeAgent(200);

beforeAll(async () => {
  ref = await startReference({ port: 0, timeScale: 0.002 });
});
afterAll(async () => {
  agent.destroy();
  await ref.close();
});

describe('parallel creates', () => {
  it('1,000 parallel checkouts over 50 distinct numbers: exactly 50 succeed, 950 are refused as duplicates', async () => {
    const prefix = uniq('RACE');
    const numbers = Array.from({ length: 50 }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
    // Interleaved so that copies of one number are spread over the whole burst.
    const bodies = Array.from({ length: 1000 }, (_, i) => checkoutBody(numbers[i % 50]!));
    const replies: Reply[] = await Promise.all(bodies.map((b) => call(agent, ref.url, '/api/v1/payments/checkout', b)));

    for (const r of replies) {
      expect(r.status).toBe(200);
      expect(responseVerifies(r.headers, r.raw, PRIMARY)).toBe(true);
    }
    const wins = replies.filter((r) => codeOf(r.json) === 0);
    const losses = replies.filter((r) => codeOf(r.json) !== 0);
    expect(wins).toHaveLength(50);
    expect(losses).toHaveLength(950);
    for (const r of losses) {
      expect(codeOf(r.json)).toBe(422);
      expect(keyOf(r.json)).toBe('duplicateMerchantOrder');
      expect(r.json).not.toHaveProperty('data');
    }
    const winners = wins.map((r) => (r.json as { data: { merchant_order_no?: string; order_no?: string } }).data);
    expect(new Set(winners.map((d) => d.order_no)).size).toBe(50);

    // Each number now names exactly the one order created for it.
    for (const no of numbers) {
      const q = await call(agent, ref.url, '/api/v1/payments/query', { merchant_order_no: no });
      expect(codeOf(q.json), no).toBe(0);
    }
  });

  it(`300 parallel 1.00 refunds of a 100.00 payment, 30 of them \
repeats: 100 succeed, the rest are duplicates or exceed the amount`, async () => {
    const orderNo = uniq('RFP');
    const paid = await call(agent, ref.url, '/api/v1/payments/card', cardBody(orderNo, 'https://merchant.invalid/notify', '100.00'));
    expect(codeOf(paid.json)).toBe(0);
    const prefix = uniq('RFN');
    // 270 distinct numbers; numbers 0..29 are each sent twice.
    const nos = [...Array.from({ length: 270 }, (_, i) => `${prefix}-${i}`), ...Array.from({ length: 30 }, (_, i) => `${prefix}-${i}`)];
    const replies = await Promise.all(
      nos.map((no) =>
        call(agent, ref.url, '/api/v1/refunds/create', {
          merchant_refund_no: no,
          original_merchant_order_no: orderNo,
          refund_amount: { currency: 'USD', value: '1.00' },
          reason: 'Customer request',
        }),
      ),
    );
    const byKey = new Map<string, number>();
    for (const r of replies) {
      expect(r.status).toBe(200);
      const k = codeOf(r.json) === 0 ? 'ok' : `${codeOf(r.json)} ${keyOf(r.json)}`;
      byKey.set(k, (byKey.get(k) ?? 0) + 1);
    }
    expect(byKey.get('ok'), JSON.stringify([...byKey])).toBe(100);
    // Every other reply is one of the two refusals the interface names for this.
    for (const k of byKey.keys()) expect(['ok', '422 duplicateRefundOrder', '422 refundAmountExceeded']).toContain(k);
    const succeeded = replies.filter((r) => codeOf(r.json) === 0).map((r) => (r.json as { data: { merchant_refund_no?: string } }).data);
    expect(new Set(succeeded.map((d) => d.merchant_refund_no)).size).toBe(100);
  });
});
