/** The reference's observer option, through plain HTTP: exact bytes and headers seen, answers untouched, a throwing observer harmless. */
import { describe, expect, it } from 'vitest';
import { type ObservedExchange, startReference } from '../../reference/index.js';

const body = '{ "merchant_order_no" :"NOPE-1",\n  "x": 1 }';
const headers = { 'Content-Type': 'application/json', 'X-MerchantID': 'M100001', 'X-Timestamp': '1700000000', 'X-Nonce': 'abcdefghijklmnopqr', 'X-Sign': 'f'.repeat(64) };

describe('startReference({ onExchange })', () => {
  it('reports the raw bytes, the headers and the answer of each request', async () => {
    const seen: ObservedExchange[] = [];
    const ref = await startReference({ onExchange: (x) => seen.push(x) });
    try {
      const res = await fetch(`${ref.url}/api/v1/payments/query`, { method: 'POST', headers, body });
      expect(await res.json()).toEqual({ code: 403, msg: 'Invalid signature|forbidden' });
      expect(seen).toHaveLength(1);
      const x = seen[0]!;
      expect(x.body?.toString()).toBe(body);
      expect(x.headers['x-sign']).toBe('f'.repeat(64));
      expect([x.method, x.path, x.http, x.code, x.key]).toEqual(['POST', '/api/v1/payments/query', 403, 403, 'forbidden']);
      expect(x.answeredAt).toBeGreaterThanOrEqual(x.receivedAt);
      expect(x.connection.index).toBe(0);
    } finally {
      await ref.close();
    }
  });

  it('a throwing observer changes nothing for the client', async () => {
    const ref = await startReference({
      onExchange: () => {
        throw new Error('observer bug');
      },
    });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${ref.url}/api/v1/payments/query`, { method: 'POST', headers: { ...headers, 'X-Nonce': '' }, body });
        expect([res.status, await res.json()]).toEqual([401, { code: 401, msg: 'Missing authentication headers|unauthorized' }]);
      }
    } finally {
      await ref.close();
    }
  });
});
