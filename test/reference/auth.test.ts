import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import {
  call,
  hmacHex,
  isSigned,
  keyOf,
  newNonce,
  nowSeconds,
  PRIMARY,
  rawExchange,
  SECOND,
  send,
  signedHeaders,
  verifies,
} from './helpers/client.js';

let ref: RunningReference;
const QUERY = '/api/v1/payments/query';
const body = { merchant_order_no: 'does-not-exist' };

beforeAll(async () => {
  ref = await startReference({ readTimeoutMs: 300 });
});
afterAll(async () => {
  await ref.close();
});

describe('authentication', () => {
  it('accepts a correctly signed request and signs the answer', async () => {
    const r = await call(ref.url, QUERY, body);
    expect(r.status).toBe(200);
    expect(r.json.code).toBe(2002);
    expect(verifies(r.headers, r.raw, PRIMARY)).toBe(true);
  });

  for (const h of ['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign']) {
    it(`refuses a request without ${h} with an unsigned HTTP 401 unauthorized`, async () => {
      const r = await call(ref.url, QUERY, body, { headers: { [h]: undefined } });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ code: 401, msg: 'Missing authentication headers|unauthorized' });
      expect(isSigned(r)).toBe(false);
    });

    it(`refuses a request with an empty ${h} with an unsigned HTTP 401 unauthorized`, async () => {
      const r = await call(ref.url, QUERY, body, { headers: { [h]: '' } });
      expect(r.status).toBe(401);
      expect(keyOf(r)).toBe('unauthorized');
      expect(isSigned(r)).toBe(false);
    });
  }

  it('refuses an unknown merchant id with an unsigned HTTP 401 merchantNotFound', async () => {
    const r = await call(ref.url, QUERY, body, { creds: { id: 'M999999', secret: 'x' } });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ code: 401, msg: 'Merchant ID not found or invalid|merchantNotFound' });
    expect(isSigned(r)).toBe(false);
  });

  it('refuses a signature made with the wrong secret with an unsigned HTTP 403 forbidden', async () => {
    const r = await call(ref.url, QUERY, body, { creds: { id: PRIMARY.id, secret: SECOND.secret } });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ code: 403, msg: 'Invalid signature|forbidden' });
    expect(isSigned(r)).toBe(false);
  });

  it('refuses the right HMAC written in upper-case hex', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const h = signedHeaders(PRIMARY, raw);
    h['X-Sign'] = (h['X-Sign'] ?? '').toUpperCase();
    const r = await send(ref.url + QUERY, 'POST', { 'Content-Type': 'application/json', ...h }, raw);
    expect(r.status).toBe(403);
    expect(keyOf(r)).toBe('forbidden');
  });

  it('refuses a body changed after signing, even only in whitespace', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const h = signedHeaders(PRIMARY, raw);
    const r = await send(ref.url + QUERY, 'POST', { 'Content-Type': 'application/json', ...h }, Buffer.from(JSON.stringify(body, null, 2)));
    expect(r.status).toBe(403);
  });

  it('refuses a string to sign joined with CR LF', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const ts = nowSeconds();
    const nonce = newNonce();
    const { createHmac } = await import('node:crypto');
    const sign = createHmac('sha256', PRIMARY.secret).update(`${PRIMARY.id}\r\n${ts}\r\n${nonce}\r\n${raw.toString()}`).digest('hex');
    const r = await send(
      ref.url + QUERY,
      'POST',
      { 'Content-Type': 'application/json', 'X-MerchantID': PRIMARY.id, 'X-Timestamp': ts, 'X-Nonce': nonce, 'X-Sign': sign },
      raw,
    );
    expect(r.status).toBe(403);
  });

  it('refuses a timestamp in milliseconds', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const h = signedHeaders(PRIMARY, raw, { timestamp: String(Date.now()) });
    const r = await send(ref.url + QUERY, 'POST', { 'Content-Type': 'application/json', ...h }, raw);
    expect(r.status).toBe(403);
    expect(keyOf(r)).toBe('forbidden');
  });

  it('refuses a formatted date as timestamp', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const h = signedHeaders(PRIMARY, raw, { timestamp: new Date().toISOString() });
    const r = await send(ref.url + QUERY, 'POST', { 'Content-Type': 'application/json', ...h }, raw);
    expect(r.status).toBe(403);
  });

  it('refuses a timestamp more than 300 seconds away and accepts one 290 seconds away', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const now = Math.floor(Date.now() / 1000);
    for (const [offset, expected] of [
      [-310, 403],
      [310, 403],
      [-290, 200],
      [290, 200],
    ] as const) {
      const h = signedHeaders(PRIMARY, raw, { timestamp: String(now + offset) });
      const r = await send(ref.url + QUERY, 'POST', { 'Content-Type': 'application/json', ...h }, raw);
      expect(r.status, `offset ${offset}`).toBe(expected);
    }
  });

  it('refuses a nonce reused by the same merchant, but not by another merchant', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const nonce = newNonce();
    const first = await send(
      ref.url + QUERY,
      'POST',
      { 'Content-Type': 'application/json', ...signedHeaders(PRIMARY, raw, { nonce }) },
      raw,
    );
    const again = await send(
      ref.url + QUERY,
      'POST',
      { 'Content-Type': 'application/json', ...signedHeaders(PRIMARY, raw, { nonce }) },
      raw,
    );
    const other = await send(
      ref.url + QUERY,
      'POST',
      { 'Content-Type': 'application/json', ...signedHeaders(SECOND, raw, { nonce }) },
      raw,
    );
    expect(first.status).toBe(200);
    expect(again.status).toBe(403);
    expect(keyOf(again)).toBe('forbidden');
    expect(other.status).toBe(200);
  });

  it('does not burn a nonce on a request that failed its signature', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const nonce = newNonce();
    const bad = await send(
      ref.url + QUERY,
      'POST',
      { 'Content-Type': 'application/json', ...signedHeaders({ id: PRIMARY.id, secret: 'wrong' }, raw, { nonce }) },
      raw,
    );
    const good = await send(
      ref.url + QUERY,
      'POST',
      { 'Content-Type': 'application/json', ...signedHeaders(PRIMARY, raw, { nonce }) },
      raw,
    );
    expect(bad.status).toBe(403);
    expect(good.status).toBe(200);
  });

  it('answers authentication errors in plain English with Accept-Language: en', async () => {
    const r = await call(ref.url, QUERY, body, { english: true, headers: { 'X-Nonce': undefined } });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ code: 401, msg: 'Missing authentication headers' });
  });
});

describe('unreadable bodies', () => {
  it('answers a body shorter than its Content-Length with an unsigned HTTP 500 internalServerError', async () => {
    const raw = Buffer.from(JSON.stringify(body));
    const h = signedHeaders(PRIMARY, raw);
    const head = [
      `POST ${QUERY} HTTP/1.1`,
      'Host: x',
      'Content-Type: application/json',
      `Content-Length: ${raw.length + 50}`,
      ...Object.entries(h).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n');
    const answer = await rawExchange(ref.url, Buffer.concat([Buffer.from(head), raw]));
    expect(answer.startsWith('HTTP/1.1 500')).toBe(true);
    expect(answer).toContain('{"code":500,"msg":"Internal server error|internalServerError"}');
    expect(answer.toLowerCase()).not.toContain('x-sign');
  });

  it('answers a body cut short by a half-closed connection with an unsigned HTTP 500', async () => {
    const head = `POST ${QUERY} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":1`;
    const answer = await rawExchange(ref.url, head, true);
    expect(answer.startsWith('HTTP/1.1 500')).toBe(true);
    expect(answer).toContain('internalServerError');
  });

  it('answers a body over 1 MiB with an unsigned HTTP 500 internalServerError', async () => {
    const raw = Buffer.from(JSON.stringify({ merchant_order_no: 'x'.repeat(1024 * 1024 + 10) }));
    const r = await call(ref.url, QUERY, raw);
    expect(r.status).toBe(500);
    expect(keyOf(r)).toBe('internalServerError');
    expect(isSigned(r)).toBe(false);
  });

  it('answers a chunked body growing over 1 MiB with HTTP 500 without reading it all', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(ref.url + QUERY, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      for (let i = 0; i < 6; i++) req.write(chunk);
    });
    expect(status).toBe(500);
  });

  it('still serves requests after a client vanished mid-body', async () => {
    const head = `POST ${QUERY} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a":`;
    await new Promise<void>((resolve) => {
      const { port, hostname } = new URL(ref.url);
      const s = connect(Number(port), hostname, () => {
        s.write(head);
        s.destroy();
        resolve();
      });
    });
    const r = await call(ref.url, QUERY, body);
    expect(r.status).toBe(200);
  });

  it('accepts a body of exactly 1 MiB', async () => {
    const json = JSON.stringify(body);
    const raw = Buffer.concat([Buffer.from(json), Buffer.alloc(1024 * 1024 - json.length, 0x20)]);
    const r = await call(ref.url, QUERY, raw);
    expect(r.status).toBe(200);
    expect(r.json.code).toBe(2002);
  });

  it('answers malformed HTTP with HTTP 500, not a crash', async () => {
    const answer = await rawExchange(ref.url, 'GARBAGE\r\n\r\n');
    expect(answer.startsWith('HTTP/1.1 500')).toBe(true);
    const r = await call(ref.url, QUERY, body);
    expect(r.status).toBe(200);
  });
});

describe('request framing after authentication', () => {
  it('answers a method other than POST with HTTP 405 methodNotAllowed', async () => {
    const r = await call(ref.url, QUERY, body, { method: 'GET' });
    expect(r.status).toBe(405);
    expect(r.json).toEqual({ code: 405, msg: 'Only POST is allowed|methodNotAllowed' });
    expect(r.headers['allow']).toBe('POST');
  });

  it('answers an unknown path with a signed 400 invalidRequest', async () => {
    const r = await call(ref.url, '/api/v1/payments/nothing', body);
    expect(r.status).toBe(200);
    expect(r.json.code).toBe(400);
    expect(keyOf(r)).toBe('invalidRequest');
    expect(verifies(r.headers, r.raw, PRIMARY)).toBe(true);
  });

  it('refuses a Content-Type other than application/json with a signed 400 invalidRequest', async () => {
    const r = await call(ref.url, QUERY, body, { headers: { 'Content-Type': 'text/plain' } });
    expect(r.status).toBe(200);
    expect(r.json.code).toBe(400);
    expect(keyOf(r)).toBe('invalidRequest');
  });

  it('accepts application/json with a charset parameter', async () => {
    const r = await call(ref.url, QUERY, body, { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    expect(r.json.code).toBe(2002);
  });

  for (const [label, raw] of [
    ['a body that is not JSON', Buffer.from('{"merchant_order_no":')],
    ['a JSON array', Buffer.from('[1,2]')],
    ['JSON null', Buffer.from('null')],
    ['an empty body', Buffer.alloc(0)],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])],
  ] as const) {
    it(`refuses ${label} with a signed 400 invalidRequest`, async () => {
      const r = await call(ref.url, QUERY, raw);
      expect(r.status).toBe(200);
      expect(r.json.code).toBe(400);
      expect(keyOf(r)).toBe('invalidRequest');
      expect(r.json).not.toHaveProperty('data');
      expect(verifies(r.headers, r.raw, PRIMARY)).toBe(true);
    });
  }
});

describe('signed responses', () => {
  it('signs every answer over its raw bytes with a fresh 24-character nonce and a seconds timestamp', async () => {
    const a = await call(ref.url, QUERY, body);
    const b = await call(ref.url, QUERY, body);
    for (const r of [a, b]) {
      expect(verifies(r.headers, r.raw, PRIMARY)).toBe(true);
      expect(r.headers['x-merchantid']).toBe(PRIMARY.id);
      expect(String(r.headers['x-nonce'])).toHaveLength(24);
      expect(Math.abs(Number(r.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
      expect(String(r.headers['content-type'])).toMatch(/^application\/json/);
    }
    expect(a.headers['x-nonce']).not.toBe(b.headers['x-nonce']);
  });

  it('signs answers for the calling merchant', async () => {
    const r = await call(ref.url, QUERY, body, { creds: SECOND });
    expect(r.headers['x-merchantid']).toBe(SECOND.id);
    expect(verifies(r.headers, r.raw, SECOND)).toBe(true);
    expect(verifies(r.headers, r.raw, PRIMARY)).toBe(false);
  });

  it('uses our own HMAC helper consistently (sanity check of the test helper)', () => {
    const h = hmacHex('k', 'M', '1', 'n', Buffer.from('{}'));
    expect(h).toMatch(/^[0-9a-f]{64}$/);
  });
});
