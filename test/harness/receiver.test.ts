import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { sign } from '../../harness/http/signing.js';
import {
  MAX_BODY_BYTES,
  RECEIVER_PATH,
  slowReplyDelayMs,
  startReceiver,
  wireReply,
  type ReceiverOptions,
} from '../../harness/webhooks/receiver.js';
import type { Receiver, ReplyKind } from '../../harness/webhooks/types.js';
import { distinctChanges } from '../../harness/webhooks/dedup.js';
import { replyScript } from '../../fixtures/arbitraries/replies.js';

const A = { id: 'M100001', secret: 'sk_test_receiver_a_0123456789' };
const B = { id: 'M100002', secret: 'sk_test_receiver_b_9876543210' };

const open: Receiver[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

async function receiver(over: Partial<ReceiverOptions> = {}): Promise<Receiver> {
  const r = await startReceiver({ host: '127.0.0.1', port: 0, merchants: [A, B], ackTimeoutMs: 40, ...over });
  open.push(r);
  return r;
}

interface Wire {
  status?: number;
  headers?: IncomingHttpHeaders;
  body?: Buffer;
  error?: string;
  ms: number;
}

/** A raw node:http POST: what came back on the wire, byte for byte, or the connection error. */
function post(url: string, body: Buffer | string, headers: OutgoingHttpHeaders = {}, opts: { method?: string } = {}): Promise<Wire> {
  const started = Date.now();
  const raw = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: opts.method ?? 'POST', agent: false, headers: { 'Content-Length': raw.length, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), ms: Date.now() - started }),
        );
        res.on('error', (e) => resolve({ error: e.message, ms: Date.now() - started }));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message, ms: Date.now() - started }));
    req.end(raw);
  });
}

function webhookBody(merchantNo: string, over: Record<string, unknown> = {}): Buffer {
  return Buffer.from(
    JSON.stringify({
      event: 'payment.updated',
      order_no: `P-${merchantNo}`,
      merchant_order_no: merchantNo,
      payment_method: 'CARD',
      trans_amount: { currency: 'USD', value: '10.00' },
      trade_info: { goods_name: 'Tea' },
      status: 'SUCCESS',
      metadata: '',
      finished_at: '2026-11-22T10:00:00+01:00',
      created_at: '2026-11-22T10:00:00+01:00',
      ...over,
    }),
  );
}

/** A delivery signed as the interface says, by merchant `m`. */
function signedPost(r: Receiver, body: Buffer, m = A, extra: OutgoingHttpHeaders = {}): Promise<Wire> {
  return post(r.url, body, { 'Content-Type': 'application/json', ...sign({ merchantId: m.id, secret: m.secret }, body), ...extra });
}

const FAST_KINDS: ReplyKind[] = ['success', 'success-newline', 'upper', 'quoted', 'json', 'empty-200', 'http500-success', 'reject'];

describe('webhook receiver: replies on the wire', () => {
  it('listens on a free port and names its URL', async () => {
    const r = await receiver();
    expect(r.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${RECEIVER_PATH}$`));
    const pub = await receiver({ publicUrl: 'https://hooks.example.test/in' });
    expect(pub.url).toBe('https://hooks.example.test/in');
  });

  it('answers success with exactly the seven bytes "success" and HTTP 200 by default', async () => {
    const r = await receiver();
    const w = await signedPost(r, webhookBody('N-default'));
    expect(w.status).toBe(200);
    expect(w.body).toEqual(Buffer.from('success'));
    expect(w.body?.length).toBe(7);
    expect(w.headers?.['content-length']).toBe('7');
    const [d] = r.deliveries({ merchantNo: 'N-default' });
    expect(d).toMatchObject({ seq: 1, method: 'POST', merchantNo: 'N-default', reply: 'success', signature: { ok: true } });
    expect(d?.json).toMatchObject({ event: 'payment.updated' });
  });

  it.each(FAST_KINDS)('answers the scripted reply %s with its exact status and bytes', async (kind) => {
    const r = await receiver();
    r.script(`N-${kind}`, [kind]);
    const w = await signedPost(r, webhookBody(`N-${kind}`));
    const want = wireReply(kind, 40);
    expect(w.status).toBe(want.status);
    expect(w.body?.equals(want.body)).toBe(true);
    expect(Number(w.headers?.['content-length'])).toBe(want.body.length);
    expect(r.deliveries({ merchantNo: `N-${kind}` })[0]?.reply).toBe(kind);
  });

  it('gives the exact bodies the interface tells apart from "success"', () => {
    const text = (k: ReplyKind) => wireReply(k, 0).body.toString('utf8');
    expect(text('success')).toBe('success');
    expect(text('success-newline')).toBe('success\n');
    expect(text('upper')).toBe('SUCCESS');
    expect(text('quoted')).toBe('"success"');
    expect(JSON.parse(text('json'))).toEqual({ code: 0, msg: 'success' });
    expect(text('empty-200')).toBe('');
    expect(wireReply('http500-success', 0)).toMatchObject({ status: 500 });
    expect(text('http500-success')).toBe('success');
    expect(text('reject')).not.toBe('success');
  });

  it('answers slow with success only after ackTimeoutMs x 3 + 200 ms', async () => {
    const r = await receiver({ ackTimeoutMs: 60 });
    r.script('N-slow', ['slow']);
    const w = await signedPost(r, webhookBody('N-slow'));
    expect(slowReplyDelayMs(60)).toBe(380);
    expect(w.status).toBe(200);
    expect(w.body?.toString()).toBe('success');
    expect(w.ms).toBeGreaterThanOrEqual(375);
    // Recorded at arrival, before the late answer.
    expect(r.deliveries({ merchantNo: 'N-slow' })[0]?.reply).toBe('slow');
  });

  it('drops the connection without an answer for drop', async () => {
    const r = await receiver();
    r.script('N-drop', ['drop']);
    const w = await signedPost(r, webhookBody('N-drop'));
    expect(w.status).toBeUndefined();
    expect(w.error).toMatch(/ECONNRESET|socket hang up/);
    expect(r.deliveries({ merchantNo: 'N-drop' })[0]).toMatchObject({ reply: 'drop', signature: { ok: true } });
  });

  it("uses a script's replies in order, then repeats the last (any script)", async () => {
    const r = await receiver();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(replyScript({ kinds: fc.constantFrom<ReplyKind>(...FAST_KINDS, 'drop') }), async (script) => {
        const no = `N-prop-${++n}`;
        r.script(no, script);
        const sent = script.length + 2;
        for (let i = 0; i < sent; i++) {
          const want = script[Math.min(i, script.length - 1)]!;
          const w = await signedPost(r, webhookBody(no));
          const wire = wireReply(want, 40);
          if (wire.drop) expect(w.status).toBeUndefined();
          else {
            expect(w.status).toBe(wire.status);
            expect(w.body?.equals(wire.body)).toBe(true);
          }
        }
        expect(r.deliveries({ merchantNo: no }).map((d) => d.reply)).toEqual(
          Array.from({ length: sent }, (_, i) => script[Math.min(i, script.length - 1)]),
        );
      }),
      { numRuns: 25 },
    );
  });

  it('refuses an empty or unknown reply script', async () => {
    const r = await receiver();
    expect(() => r.script('N', [])).toThrow(/at least one/);
    expect(() => r.script('N', ['nope' as ReplyKind])).toThrow(/unknown reply kind/);
  });
});

describe('webhook receiver: signature verdicts (webhook.receiver-verifies)', () => {
  it('verifies with the secret of the merchant named in X-MerchantID', async () => {
    const r = await receiver();
    await signedPost(r, webhookBody('N-b'), B);
    expect(r.deliveries({ merchantNo: 'N-b' })[0]).toMatchObject({ signature: { ok: true }, reply: 'success' });
  });

  it('answers a bad signature with a non-success reply, whatever the script says', async () => {
    const r = await receiver();
    r.script('N-bad', ['success']);
    const body = webhookBody('N-bad');
    const h = sign({ merchantId: A.id, secret: 'not-the-secret' }, body);
    const w = await post(r.url, body, { 'Content-Type': 'application/json', ...h });
    expect(w.status).toBe(401);
    expect(w.body?.toString()).not.toBe('success');
    expect(r.deliveries({ merchantNo: 'N-bad' })[0]).toMatchObject({ reply: 'reject', signature: { ok: false, reason: 'mismatch' } });
  });

  it('answers a body changed after signing with a non-success reply', async () => {
    const r = await receiver();
    const body = webhookBody('N-changed');
    const h = sign({ merchantId: A.id, secret: A.secret }, body);
    const w = await post(r.url, Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2)), {
      'Content-Type': 'application/json',
      ...h,
    });
    expect(w.body?.toString()).not.toBe('success');
    expect(r.deliveries({ merchantNo: 'N-changed' })[0]?.signature).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('fails the verdict for a merchant id it does not know, signed with a valid-looking key', async () => {
    const r = await receiver();
    const body = webhookBody('N-unknown');
    const w = await post(r.url, body, { 'Content-Type': 'application/json', ...sign({ merchantId: 'M999999', secret: A.secret }, body) });
    expect(w.body?.toString()).toBe('rejected');
    const d = r.deliveries({ merchantNo: 'N-unknown' })[0]!;
    expect(d.signature).toMatchObject({ ok: false, reason: 'merchant-mismatch', seen: 'M999999' });
    expect(d.reply).toBe('reject');
  });

  it('fails the verdict for a missing signing header and for a repeated one', async () => {
    const r = await receiver();
    const body = webhookBody('N-hdr');
    const h = sign({ merchantId: A.id, secret: A.secret }, body);
    const { 'X-Nonce': _nonce, ...noNonce } = h;
    await post(r.url, body, { 'Content-Type': 'application/json', ...noNonce });
    await post(r.url, body, { 'Content-Type': 'application/json', ...h, 'X-Sign': [h['X-Sign'], h['X-Sign']] });
    const [missing, repeated] = r.deliveries({ merchantNo: 'N-hdr' });
    expect(missing?.signature).toEqual({ ok: false, reason: 'missing-header', header: 'X-Nonce' });
    expect(repeated?.signature).toEqual({ ok: false, reason: 'duplicate-header', header: 'X-Sign' });
    expect(repeated?.headers['x-sign']).toEqual([h['X-Sign'], h['X-Sign']]);
    expect([missing?.reply, repeated?.reply]).toEqual(['reject', 'reject']);
  });
});

describe('webhook receiver: junk, floods and bounds', () => {
  it('records a body that is not JSON and answers it with a non-success reply', async () => {
    const r = await receiver();
    const body = Buffer.from('this is { not json');
    const w = await signedPost(r, body);
    expect(w.status).toBe(401);
    const [d] = r.deliveries();
    expect(d?.body.equals(body)).toBe(true);
    expect(d?.json).toBeUndefined();
    expect(d?.jsonError).toBeTruthy();
    expect(d?.signature).toEqual({ ok: true });
    expect(d?.reply).toBe('reject');
  });

  it('records invalid UTF-8, an empty body and a GET without crashing', async () => {
    const r = await receiver();
    await signedPost(r, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    await signedPost(r, Buffer.alloc(0));
    await post(r.url, '', {}, { method: 'GET' });
    const ds = r.deliveries();
    expect(ds.map((d) => d.jsonError)).toEqual(['body is not valid UTF-8', 'empty body', 'empty body']);
    expect(ds[2]?.method).toBe('GET');
    expect(ds.every((d) => d.reply === 'reject')).toBe(true);
  });

  it('keeps only the first MiB of a huge body and still answers', async () => {
    const r = await receiver();
    const huge = Buffer.alloc(5 * 1024 * 1024, 0x61);
    const w = await signedPost(r, huge);
    expect(w.status).toBe(401);
    const [d] = r.deliveries();
    expect(d?.body.length).toBe(MAX_BODY_BYTES);
    expect(d?.truncated).toBe(true);
    expect(d?.jsonError).toMatch(/only its start was kept/);
    const after = await signedPost(r, webhookBody('N-after-huge'));
    expect(after.body?.toString()).toBe('success');
  });

  it('records a flood of duplicate deliveries, answers each, and they deduplicate to one change', async () => {
    const r = await receiver();
    const body = webhookBody('N-flood');
    const ws = await Promise.all(Array.from({ length: 300 }, () => signedPost(r, body)));
    expect(ws.every((w) => w.status === 200 && w.body?.toString() === 'success')).toBe(true);
    const ds = r.deliveries({ merchantNo: 'N-flood' });
    expect(ds).toHaveLength(300);
    expect(new Set(ds.map((d) => d.seq)).size).toBe(300);
    expect(distinctChanges(ds.map((d) => d.json))).toEqual([{ event: 'payment.updated', orderNo: 'P-N-flood', status: 'SUCCESS' }]);
  });

  it('forgets the oldest deliveries past its memory bound, keeping the newest', async () => {
    const r = await receiver({ maxDeliveries: 40 });
    for (let i = 0; i < 100; i++) await signedPost(r, webhookBody(`N-bound-${i % 5}`));
    const ds = r.deliveries();
    expect(ds.length).toBeLessThanOrEqual(40);
    expect(ds.at(-1)?.seq).toBe(100);
    expect(r.deliveries({ merchantNo: 'N-bound-4' }).every((d) => d.seq > 60)).toBe(true);
    const total = ['0', '1', '2', '3', '4'].reduce((n, k) => n + r.deliveries({ merchantNo: `N-bound-${k}` }).length, 0);
    expect(total).toBe(ds.length);
  });

  it('survives bytes that are not HTTP and keeps serving', async () => {
    const r = await receiver();
    const port = Number(new URL(r.url).port);
    const reply = await new Promise<string>((resolve) => {
      const s = connect(port, '127.0.0.1', () => s.write('\u0000\u0001 GARBAGE \r\n\r\n\u00ff'));
      let got = '';
      s.on('data', (c) => {
        got += c.toString('latin1');
      });
      s.on('close', () => resolve(got));
      s.on('error', () => resolve(got));
    });
    expect(reply === '' || reply.startsWith('HTTP/1.1 400')).toBe(true);
    const w = await signedPost(r, webhookBody('N-after-junk'));
    expect(w.body?.toString()).toBe('success');
  });

  it('records a delivery its sender abandoned mid-body', async () => {
    const r = await receiver();
    const done = r.waitFor({}, (ds) => ds.length >= 1, 2000);
    await new Promise<void>((resolve) => {
      const req = request(r.url, { method: 'POST', agent: false, headers: { 'Content-Length': 1000 } });
      req.on('error', () => resolve());
      req.write('{"event":"payment.upd', () =>
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50),
      );
    });
    const [d] = await done;
    expect(d?.reply).toBe('drop');
    expect(d?.body.toString()).toBe('{"event":"payment.upd');
    expect(d?.jsonError).toMatch(/aborted/);
  });
});

describe('webhook receiver: waiting and closing', () => {
  it('resolves waitFor as soon as the predicate holds, with the matching deliveries', async () => {
    const r = await receiver();
    const waiting = r.waitFor({ merchantNo: 'N-w', event: 'payment.updated' }, (ds) => ds.length >= 2, 5000);
    await signedPost(r, webhookBody('N-other'));
    await signedPost(r, webhookBody('N-w'));
    await signedPost(r, webhookBody('N-w', { event: 'refund.updated' }));
    const started = Date.now();
    await signedPost(r, webhookBody('N-w'));
    const ds = await waiting;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(ds.map((d) => d.merchantNo)).toEqual(['N-w', 'N-w']);
  });

  it('resolves waitFor with what came when the time is up, never rejecting', async () => {
    const r = await receiver();
    await signedPost(r, webhookBody('N-t'));
    const started = Date.now();
    const ds = await r.waitFor({ merchantNo: 'N-t' }, (x) => x.length >= 3, 150);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(ds).toHaveLength(1);
    const thrown = await r.waitFor(
      { merchantNo: 'N-t' },
      () => {
        throw new Error('cannot decide');
      },
      5000,
    );
    expect(thrown).toHaveLength(1);
  });

  it('closes with a slow reply pending: pending waits resolve and the connection ends', async () => {
    const r = await startReceiver({ host: '127.0.0.1', port: 0, merchants: [A], ackTimeoutMs: 2000 });
    r.script('N-slow-close', ['slow']);
    const waiting = r.waitFor({ merchantNo: 'never' }, () => false, 60_000);
    const pending = signedPost(r, webhookBody('N-slow-close'));
    await r.waitFor({ merchantNo: 'N-slow-close' }, (ds) => ds.length === 1, 2000);
    const started = Date.now();
    await r.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await waiting).toEqual([]);
    const w = await pending;
    expect(w.status).toBeUndefined();
    expect(w.error).toBeTruthy();
    await r.close();
    expect(await r.waitFor({}, () => false, 60_000)).toHaveLength(1);
  });
});
