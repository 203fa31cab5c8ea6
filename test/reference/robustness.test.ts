import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { cardBody, checkoutBody, payoutBody, refundBody } from './helpers/builders.js';
import { ACK, startReceiver } from './helpers/receiver.js';
import { call, PRIMARY, type Reply, send, signedHeaders, verifies } from './helpers/client.js';

let ref: RunningReference;
const internalFailures: string[] = [];
beforeAll(async () => {
  ref = await startReference({ readTimeoutMs: 300, log: (line) => /internal failure/.test(line) && internalFailures.push(line) });
});
afterAll(async () => {
  await ref.close();
});

const PATHS = [
  '/api/v1/payments/query',
  '/api/v1/payments/checkout',
  '/api/v1/payments/card',
  '/api/v1/refunds/create',
  '/api/v1/refunds/query',
  '/api/v1/payouts/create',
  '/api/v1/payouts/query',
  '/api/v1/payouts/cancel',
  '/sandbox/v1/checkout/complete',
  '/sandbox/v1/checkout/expire',
  '/sandbox/v1/payments/chargeback',
  '/sandbox/v1/refunds/settle',
  '/sandbox/v1/payouts/settle',
  '/api/v1/unknown',
];

/** A signed request must always get a signed HTTP 200 envelope: a number code and a string msg. */
function expectWellFormed(r: Reply, label: string): void {
  expect([200, 401, 403, 500], label).toContain(r.status);
  expect(r.status, label).toBe(200);
  expect(typeof r.json?.code, label).toBe('number');
  expect(typeof r.json?.msg, label).toBe('string');
  if (r.json.code === 0) expect(r.json.data, label).toBeTypeOf('object');
  else expect(r.json, label).not.toHaveProperty('data');
  expect(verifies(r.headers, r.raw, PRIMARY), label).toBe(true);
}

async function inBatches<T>(items: T[], size: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map((item, j) => fn(item, i + j)));
  }
}

/** Replaces the value at a random path of a valid body with an arbitrary JSON value. */
function mutate(body: Record<string, unknown>, pick: number, replacement: unknown): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const paths: string[][] = [];
  const walk = (o: Record<string, unknown>, prefix: string[]): void => {
    for (const [k, v] of Object.entries(o)) {
      paths.push([...prefix, k]);
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, [...prefix, k]);
    }
  };
  walk(copy, []);
  const path = paths[pick % paths.length] ?? [];
  let target: Record<string, unknown> = copy;
  for (const k of path.slice(0, -1)) target = target[k] as Record<string, unknown>;
  const last = path[path.length - 1] ?? 'x';
  if (replacement === undefined) delete target[last];
  else target[last] = replacement;
  return copy;
}

describe('robustness', () => {
  it('answers 1500 arbitrary JSON bodies on every path with a well-formed signed envelope', async () => {
    const samples = fc.sample(fc.tuple(fc.nat(PATHS.length - 1), fc.jsonValue({ maxDepth: 4 })), { numRuns: 1500, seed: 42 });
    await inBatches(samples, 50, async ([p, value], i) => {
      const path = PATHS[p] as string;
      const r = await call(ref.url, path, Buffer.from(JSON.stringify(value) ?? 'null'));
      expectWellFormed(r, `#${i} ${path}`);
    });
  });

  it('answers 1500 valid bodies with one field replaced by anything', async () => {
    const bases: Array<[string, () => Record<string, unknown>]> = [
      ['/api/v1/payments/checkout', () => checkoutBody()],
      ['/api/v1/payments/card', () => cardBody()],
      ['/api/v1/refunds/create', () => refundBody({ original_order_no: 'P1' })],
      ['/api/v1/payouts/create', () => payoutBody()],
    ];
    const replacement = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constant(undefined),
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.constantFrom('', '0', '-1', '1e9', '9'.repeat(40), '12.345', 'NaN', '\u0000', 'CARD', 'USD'),
    );
    const samples = fc.sample(fc.tuple(fc.nat(bases.length - 1), fc.nat(50), replacement), { numRuns: 1500, seed: 7 });
    await inBatches(samples, 50, async ([b, pick, value], i) => {
      const [path, make] = bases[b] as [string, () => Record<string, unknown>];
      const r = await call(ref.url, path, mutate(make(), pick, value));
      expectWellFormed(r, `#${i} ${path}`);
    });
  });

  it('answers 500 random byte strings as bodies', async () => {
    const samples = fc.sample(fc.uint8Array({ maxLength: 200 }), { numRuns: 500, seed: 3 });
    await inBatches(samples, 50, async (bytes, i) => {
      const r = await call(ref.url, '/api/v1/payments/checkout', Buffer.from(bytes));
      expectWellFormed(r, `#${i}`);
    });
  });

  it('refuses 300 random signing headers only with unsigned 401 or 403', async () => {
    const header = fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 80 }).map((s) => s.replace(/[^\x21-\x7e]/g, 'a')),
    );
    const samples = fc.sample(fc.tuple(header, header, header, header), { numRuns: 300, seed: 11 });
    await inBatches(samples, 50, async ([id, ts, nonce, sign], i) => {
      const raw = Buffer.from('{}');
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (id !== undefined) headers['X-MerchantID'] = id;
      if (ts !== undefined) headers['X-Timestamp'] = ts;
      if (nonce !== undefined) headers['X-Nonce'] = nonce;
      if (sign !== undefined) headers['X-Sign'] = sign;
      const r = await send(`${ref.url}/api/v1/payments/query`, 'POST', headers, raw);
      expect([401, 403], `#${i}`).toContain(r.status);
      expect(r.headers['x-sign'], `#${i}`).toBeUndefined();
    });
  });

  it('survives hostile JSON: deep nesting, huge arrays, prototype keys, odd numbers and long strings', async () => {
    const hostile: string[] = [
      '['.repeat(200_000),
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      `{"merchant_order_no":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}`,
      `[${'1,'.repeat(200_000)}1]`,
      '{"__proto__":{"polluted":1},"order_no":"P1"}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"order_no":"P1","order_no":"P2"}',
      '{"payment_method":"constructor","merchant_order_no":"x","trans_amount":{"currency":"USD","value"' +
        ':"1.00"},"trade_info":{"goods_name":"g"},"notify_url":"http://a.b/","return_url":"http://a.b/"}',
      '{"payment_method":"toString","merchant_order_no":"x","trans_amount":{"currency":"USD","value":' +
        '"1.00"},"trade_info":{"goods_name":"g"},"notify_url":"http://a.b/","return_url":"http://a.b/"}',
      '{"trans_amount":{"currency":"USD","value":1e309}}',
      '{"order_no":"\\ud800"}',
      `{"order_no":"${'x'.repeat(900_000)}"}`,
      `{"${'k'.repeat(100_000)}":1}`,
      '\ufeff{"order_no":"P1"}',
    ];
    for (const [i, text] of hostile.entries()) {
      for (const path of ['/api/v1/payments/query', '/api/v1/payments/checkout']) {
        const r = await call(ref.url, path, Buffer.from(text, 'utf8'));
        expectWellFormed(r, `hostile #${i} ${path}`);
      }
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('still answers normally after all of the above', async () => {
    const raw = Buffer.from(JSON.stringify(checkoutBody()));
    const r = await send(
      `${ref.url}/api/v1/payments/checkout`,
      'POST',
      { 'Content-Type': 'application/json', ...signedHeaders(PRIMARY, raw) },
      raw,
    );
    expect(r.json.code).toBe(0);
  });

  it('never fell back to the catch-all systemBusy: every refusal above was a known error', () => {
    expect(internalFailures).toEqual([]);
  });
});

describe('options', () => {
  it('refuses a non-positive time scale and an invalid port', async () => {
    await expect(startReference({ timeScale: 0 })).rejects.toThrow(/timeScale/);
    await expect(startReference({ timeScale: Number.NaN })).rejects.toThrow(/timeScale/);
    await expect(startReference({ port: 70000 })).rejects.toThrow(/port/);
  });

  it('keeps serving and delivering when the log callback throws', async () => {
    const noisy = await startReference({
      timeScale: 0.001,
      log: () => {
        throw new Error('log sink broken');
      },
    });
    const hooks = await startReceiver(ACK);
    try {
      const r = await call(noisy.url, '/api/v1/payments/card', cardBody({ notify_url: hooks.url }));
      expect(r.json.code).toBe(0);
      await hooks.waitFor(1);
    } finally {
      await noisy.close();
      await hooks.close();
    }
  });
});
