/**
 * The reading catalogue and the alt set: every reading quotes the document, the alt set takes each
 * one once, and the alt server answers the other way where the default one does not (through plain
 * HTTP). The whole conformance suite against it runs in test/kill-matrix/alt-readings.test.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readingCatalogue, type RunningReference, startReference } from '../../reference/index.js';
import { BY_NAME_ONLY, READING_SETS } from '../../reference/readings/index.js';
import { checkoutBody, usd } from './helpers/builders.js';
import { call, keyOf, PRIMARY, type Reply, send, signedHeaders, uniq, verifies } from './helpers/client.js';

/** INTERFACE.md is kept beside the project (../shared): looked for upwards, as worktrees sit deeper. */
function interfaceText(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const p = join(dir, 'shared', 'INTERFACE.md');
    if (existsSync(p)) return readFileSync(p, 'utf8');
    dir = dirname(dir);
  }
  return undefined;
}

/** The quoted passages of a doc line: text between double quotes, split where it elides with "...". */
function quotes(doc: string): string[] {
  return [...doc.matchAll(/"((?:[^"\\]|\\.)+)"/g)].flatMap((m) =>
    m[1]!
      .split('...')
      .map((s) => s.trim())
      .filter((s) => s.length > 8),
  );
}

describe('reading catalogue', () => {
  it('names each reading once and puts every reading in the alt set once, but those selected by name only', () => {
    const names = readingCatalogue.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...READING_SETS.alt!].sort()).toEqual(names.filter((n) => !BY_NAME_ONLY.has(n)).sort());
    expect(READING_SETS.default).toEqual([]);
    expect(names.length).toBeGreaterThanOrEqual(12);
  });

  const doc = interfaceText();
  it.skipIf(doc === undefined)("quotes in each reading's doc sentences that INTERFACE.md contains word for word", () => {
    const squash = (s: string) => s.replace(/\s+/g, ' ');
    const text = squash(doc!);
    for (const r of readingCatalogue) {
      const qs = quotes(r.doc);
      expect(qs.length, `${r.name} quotes nothing`).toBeGreaterThan(0);
      for (const q of qs) expect(text.includes(squash(q)), `${r.name}: not in INTERFACE.md: ${q}`).toBe(true);
    }
  });

  it('refuses an unknown set or reading name, listing the known ones', async () => {
    await expect(startReference({ readings: 'other' })).rejects.toThrow(/Unknown reading set "other"\. Known sets: default, alt/);
    await expect(startReference({ readings: ['no-such-reading'] })).rejects.toThrow(
      /Unknown reading "no-such-reading"\. Known readings: .*other-endpoint-paths/,
    );
  });
});

describe('the alt set through HTTP', () => {
  let alt: RunningReference;
  let plain: RunningReference;
  beforeAll(async () => {
    [alt, plain] = await Promise.all([startReference({ readings: 'alt' }), startReference()]);
  });
  afterAll(async () => {
    await Promise.all([alt.close(), plain.close()]);
  });

  function ok(r: Reply): Record<string, unknown> {
    expect(r.json.code).toBe(0);
    expect(verifies(r.headers, r.raw, PRIMARY)).toBe(true);
    return r.json.data as Record<string, unknown>;
  }

  it('shows a new checkout under other field and status names, a UUID number and a +05:30 time', async () => {
    const data = ok(await call(alt.url, '/api/v1/payments/checkout', checkoutBody()));
    expect(data['trade_no']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(data['state']).toBe('WAITING_PAYMENT');
    expect(data['created_at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+05:30$/);
    expect(data).not.toHaveProperty('order_no');
    const q = ok(await call(alt.url, '/api/v1/payments/query', { order_no: data['trade_no'] }));
    expect(q['state']).toBe('WAITING_PAYMENT');
  });

  it('serves card payments and payouts at its own paths only', async () => {
    const body = {
      payment_method: 'BANK_TRANSFER',
      merchant_payout_no: uniq('T'),
      trans_amount: usd('10.00'),
      beneficiary: { name: 'Grace Hopper', account: 'US00BANK0000000001' },
      notify_url: 'http://127.0.0.1:9/unused',
    };
    const created = ok(await call(alt.url, '/api/v1/payouts/submit', body));
    expect(created['payout_status']).toBe('PROCESSING');
    const old = await call(alt.url, '/api/v1/payouts/create', { ...body, merchant_payout_no: uniq('T') });
    expect([old.json.code, keyOf(old)]).toEqual([400, 'invalidRequest']);
    const byDefault = await call(plain.url, '/api/v1/payouts/submit', body);
    expect([byDefault.json.code, keyOf(byDefault)]).toEqual([400, 'invalidRequest']);
  });

  it('answers with the other code where the document names two', async () => {
    const payout = {
      merchant_payout_no: uniq('T'),
      trans_amount: usd('10.00'),
      beneficiary: { name: 'G', account: 'A1' },
      notify_url: 'http://127.0.0.1:9/unused',
    };
    const unknown = await call(alt.url, '/api/v1/payouts/submit', { ...payout, payment_method: 'NO_SUCH_METHOD' });
    expect([unknown.json.code, keyOf(unknown)]).toEqual([3003, 'unsupportedPaymentMethod']);
    const eur = await call(alt.url, '/api/v1/payouts/submit', {
      ...payout,
      payment_method: 'BANK_TRANSFER',
      trans_amount: { currency: 'GBP', value: '10.00' },
    });
    expect([eur.json.code, keyOf(eur)]).toEqual([5008, 'notSupported']);
    const far = await call(alt.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: 'APPLE_PAY', trans_amount: usd('3.00') }));
    expect([far.json.code, keyOf(far)]).toEqual([2006, 'amountOutOfRange']);
  });

  it('charges the nearest price point within 0.50, ties to the higher', async () => {
    for (const [sent, tier] of [
      ['1.40', '0.99'],
      ['1.49', '1.99'],
      ['5.49', '4.99'],
      ['0.49', '0.99'],
    ] as const) {
      const data = ok(
        await call(alt.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: 'APPLE_PAY', trans_amount: usd(sent) })),
      );
      expect([sent, data['trans_amount']]).toEqual([sent, usd(tier)]);
      expect(data['requested_amount']).toEqual(usd(sent));
    }
    const beyond = await call(
      alt.url,
      '/api/v1/payments/checkout',
      checkoutBody({ payment_method: 'APPLE_PAY', trans_amount: usd('0.48') }),
    );
    expect(keyOf(beyond)).toBe('amountOutOfRange');
  });

  it('refuses a timestamp in milliseconds with HTTP 401 unauthorized', async () => {
    const raw = Buffer.from(JSON.stringify({ order_no: 'X' }));
    const headers = { 'Content-Type': 'application/json', ...signedHeaders(PRIMARY, raw, { timestamp: String(Date.now()) }) };
    const r = await send(`${alt.url}/api/v1/payments/query`, 'POST', headers, raw);
    expect([r.status, r.json.code, keyOf(r)]).toEqual([401, 401, 'unauthorized']);
  });
});
