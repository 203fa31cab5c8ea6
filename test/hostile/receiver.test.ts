/**
 * The harness's webhook receiver against hostile senders: deliveries with bad signatures, floods
 * of duplicates, junk bodies, non-HTTP bytes, senders that stall or give up mid-body. The receiver
 * must answer or drop every one without crashing, refuse what does not verify, acknowledge every
 * verified duplicate, keep its record within its bounds, and close at once whatever is still open.
 */
import { createHmac } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startReceiver } from '../../harness/webhooks/receiver.js';
import type { Receiver } from '../../harness/webhooks/types.js';
import { sampleRss, watchProcessErrors } from './support.js';

const PRIMARY = { id: 'M100001', secret: 'sk_test_primary_5f2c9a7e41d84b06' };
const SECOND = { id: 'M100002', secret: 'sk_test_second_8b1e6d3c90a24f57' };

let watch: ReturnType<typeof watchProcessErrors>;
const agent = new Agent({ connections: 64, keepAliveTimeout: 2000 });
const receivers: Receiver[] = [];

beforeAll(() => {
  watch = watchProcessErrors();
});
afterEach(() => {
  expect(watch.errors, 'no unhandled rejection or uncaught exception').toEqual([]);
});
afterAll(async () => {
  for (const r of receivers) await r.close();
  await agent.destroy();
  watch.uninstall();
});

async function receiver(maxDeliveries?: number): Promise<Receiver> {
  const r = await startReceiver({ host: '127.0.0.1', port: 0, merchants: [PRIMARY, SECOND], ackTimeoutMs: 250, maxDeliveries });
  receivers.push(r);
  return r;
}

/** Our own signer (the sender side), independent of harness/http/signing.ts. */
function signed(creds: { id: string; secret: string }, raw: Buffer, nonce: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const sign = createHmac('sha256', creds.secret).update(`${creds.id}\n${timestamp}\n${nonce}\n`).update(raw).digest('hex');
  return { 'Content-Type': 'application/json', 'X-MerchantID': creds.id, 'X-Timestamp': timestamp, 'X-Nonce': nonce, 'X-Sign': sign };
}

async function post(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
  const res = await request(url, { method: 'POST', headers, body, dispatcher: agent, headersTimeout: 10_000, bodyTimeout: 10_000 });
  return { status: res.statusCode, body: await res.body.text() };
}

function webhookBody(no: string, status = 'SUCCESS'): Buffer {
  return Buffer.from(
    JSON.stringify({
      event: 'payment.updated',
      order_no: `P${no}`,
      merchant_order_no: no,
      payment_method: 'CARD',
      trans_amount: { currency: 'USD', value: '10.00' },
      trade_info: { goods_name: 'Item' },
      status,
      metadata: '',
      finished_at: '2026-11-22T10:00:00+00:00',
      created_at: '2026-11-22T09:59:00+00:00',
    }),
  );
}

async function inBatches<T>(items: T[], size: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map((item, j) => fn(item, i + j)));
}

/** Opens a raw socket, writes `bytes`, and resolves with what came back once the socket closes (or after waitMs). */
function rawExchange(
  url: string,
  bytes: Buffer,
  opts: { end?: boolean; waitMs?: number } = {},
): Promise<{ reply: string; socket: Socket }> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('error', () => {});
    socket.on('data', (c: Buffer) => chunks.push(c));
    const done = (): void => resolve({ reply: Buffer.concat(chunks).toString('latin1'), socket });
    const timer = setTimeout(done, opts.waitMs ?? 2000);
    socket.once('close', () => {
      clearTimeout(timer);
      done();
    });
    socket.write(bytes);
    if (opts.end) socket.end();
  });
}

describe('webhooks with bad signatures', () => {
  it('refuses every delivery that does not verify, and records why', async () => {
    const r = await receiver();
    const cases: Array<[string, (raw: Buffer, nonce: string) => Record<string, string>, RegExp]> = [
      ['wrong secret', (raw, n) => signed({ id: PRIMARY.id, secret: 'sk_test_wrong_0000000000000000' }, raw, n), /mismatch/],
      [
        'upper-case hex',
        (raw, n) => ({ ...signed(PRIMARY, raw, n), 'X-Sign': signed(PRIMARY, raw, n)['X-Sign']!.toUpperCase() }),
        /upper-case-hex|mismatch/,
      ],
      [
        'base64',
        (raw, n) => ({ ...signed(PRIMARY, raw, n), 'X-Sign': Buffer.from(signed(PRIMARY, raw, n)['X-Sign']!, 'hex').toString('base64') }),
        /base64|not-lower-hex/,
      ],
      ['signed by another merchant, named as primary', (raw, n) => ({ ...signed(SECOND, raw, n), 'X-MerchantID': PRIMARY.id }), /mismatch/],
      ['unknown merchant', (raw, n) => signed({ id: 'M999999', secret: 'x' }, raw, n), /merchant-mismatch/],
      [
        'no X-Sign',
        (raw, n) => {
          const h = signed(PRIMARY, raw, n);
          delete h['X-Sign'];
          return h;
        },
        /missing-header/,
      ],
      ['empty X-Nonce', (raw) => ({ ...signed(PRIMARY, raw, ''), 'X-Nonce': '' }), /empty-header|missing-header/],
      ['body altered after signing', (raw, n) => signed(PRIMARY, Buffer.concat([raw, Buffer.from(' ')]), n), /mismatch/],
    ];
    const sent: { label: string; no: string; why: RegExp }[] = [];
    await inBatches(
      Array.from({ length: 400 }, (_, i) => i),
      50,
      async (i) => {
        const [label, make, why] = cases[i % cases.length]!;
        const no = `BADSIG${String(i).padStart(5, '0')}`;
        const raw = webhookBody(no);
        const reply = await post(r.url, make(raw, `nonce-${i}-abcdefghijklmnop`), raw);
        expect(reply.body, label).not.toBe('success');
        expect(reply.status, label).toBe(401);
        sent.push({ label, no, why });
      },
    );
    for (const s of sent) {
      const [d] = r.deliveries({ merchantNo: s.no });
      expect(d, s.label).toBeDefined();
      expect(d!.signature.ok, s.label).toBe(false);
      expect(d!.reply, s.label).toBe('reject');
      expect(d!.signature.ok ? '' : d!.signature.reason, s.label).toMatch(s.why);
    }
  });
});

const FLOOD = 6000;

describe('a flood of duplicate webhooks', () => {
  it('acknowledges 6,000 copies of one verified webhook and keeps its record within bounds', async () => {
    const r = await receiver(2000);
    const raw = webhookBody('FLOOD00001');
    const rss = sampleRss(20);
    const t0 = performance.now();
    let acked = 0;
    await inBatches(
      Array.from({ length: FLOOD }, (_, i) => i),
      64,
      async (i) => {
        const reply = await post(r.url, signed(PRIMARY, raw, `flood-nonce-${String(i).padStart(8, '0')}`), raw);
        if (reply.status === 200 && reply.body === 'success') acked += 1;
      },
    );
    const ms = performance.now() - t0;
    const mem = rss.stop();
    expect(acked, 'a duplicate is acknowledged too, or it would come again').toBe(FLOOD);
    const kept = r.deliveries({ merchantNo: 'FLOOD00001' });
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length, 'the record is bounded by maxDeliveries').toBeLessThanOrEqual(2000);
    expect(r.deliveries().length).toBeLessThanOrEqual(2000);
    expect(kept.every((d) => d.signature.ok && d.reply === 'success')).toBe(true);
    // The newest are kept, in order of arrival.
    const seqs = kept.map((d) => d.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(seqs.at(-1)).toBe(FLOOD);
    expect(mem.growthMb, `RSS grew by ${mem.growthMb.toFixed(1)} MB`).toBeLessThan(150);
    expect(ms, 'the flood is absorbed in bounded time').toBeLessThan(30_000);
    // Still answering normally afterwards.
    const after = webhookBody('AFTERFLOOD');
    expect((await post(r.url, signed(PRIMARY, after, 'after-flood-nonce-000001'), after)).body).toBe('success');
    const got = await r.waitFor({ merchantNo: 'AFTERFLOOD' }, (ds) => ds.length === 1, 1000);
    expect(got).toHaveLength(1);
  });
});

describe('junk at the receiver', () => {
  it('refuses junk bodies (random bytes, empty, not an object, deep nesting, invalid UTF-8, 5 MB) without crashing', async () => {
    const r = await receiver();
    let x = 99;
    const random = (n: number): Buffer => {
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) {
        x = (x * 1103515245 + 12345) & 0x7fffffff;
        b[i] = x & 0xff;
      }
      return b;
    };
    const junk: Array<[string, Buffer]> = [
      ['random bytes', random(512)],
      ['empty', Buffer.alloc(0)],
      ['JSON array', Buffer.from('[1,2,3]')],
      ['JSON string', Buffer.from('"success"')],
      ['JSON null', Buffer.from('null')],
      ['truncated JSON', webhookBody('JUNK1').subarray(0, 40)],
      ['deep nesting', Buffer.from(`${'['.repeat(200_000)}${']'.repeat(200_000)}`)],
      ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
      ['5 MB of JSON', Buffer.from(`{"pad":"${'a'.repeat(5 * 1024 * 1024)}"}`)],
    ];
    for (const [label, body] of junk) {
      // Validly signed, so only the body is at fault.
      const reply = await post(r.url, signed(PRIMARY, body, `junk-nonce-${label.replace(/\W/g, '')}-0000000`), body);
      expect(reply.status, label).toBe(401);
      expect(reply.body, label).toBe('rejected');
    }
    const ds = r.deliveries();
    expect(ds).toHaveLength(junk.length);
    for (const d of ds) expect(d.reply).toBe('reject');
    const big = ds.at(-1)!;
    expect(big.truncated).toBe(true);
    expect(big.body.length).toBe(1024 * 1024);
  });

  it('answers bytes that are not HTTP with 400 and stays up', async () => {
    const r = await receiver();
    const { reply } = await rawExchange(r.url, Buffer.from('\x00\x01\x02 GARBAGE \xff\xfe\r\n\r\n', 'latin1'));
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    const ok = webhookBody('AFTERJUNK');
    expect((await post(r.url, signed(PRIMARY, ok, 'after-junk-nonce-0000001'), ok)).body).toBe('success');
  });

  it('records a sender that gives up mid-body, and closes at once while senders stall', async () => {
    const r = await receiver();
    const { port } = new URL(r.url);
    const body = webhookBody('GAVEUP0001');
    const headers = Object.entries(signed(PRIMARY, body, 'gave-up-nonce-000000001'))
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const headText = `POST /mpsi/webhooks HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Content-Length: ${body.length}\r\n\r\n`;
    // Half the body, then a reset.
    const gaveUp = connect(Number(port), '127.0.0.1');
    gaveUp.on('error', () => {});
    gaveUp.write(Buffer.concat([Buffer.from(headText, 'latin1'), body.subarray(0, 50)]));
    await new Promise((resolve) => setTimeout(resolve, 100));
    gaveUp.resetAndDestroy();
    const [d] = await r.waitFor({}, (ds) => ds.length >= 1, 2000);
    expect(d?.reply).toBe('drop');
    expect(d?.jsonError).toMatch(/aborted by the sender/);
    expect(d?.body.length).toBe(50);

    // Ten senders that declare a body and stall after its first bytes, and one that never ends its head.
    const stalled: Socket[] = [];
    for (let i = 0; i < 10; i++) {
      const s = connect(Number(port), '127.0.0.1');
      s.on('error', () => {});
      s.write(Buffer.concat([Buffer.from(headText, 'latin1'), body.subarray(0, 10)]));
      stalled.push(s);
    }
    const slowHead = connect(Number(port), '127.0.0.1');
    slowHead.on('error', () => {});
    slowHead.write('POST /mpsi/webhooks HTTP/1.1\r\nX-Slow: ');
    stalled.push(slowHead);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const t0 = performance.now();
    await r.close();
    expect(performance.now() - t0, 'close() does not wait for stalled senders').toBeLessThan(1000);
    for (const s of stalled) s.destroy();
  });
});
