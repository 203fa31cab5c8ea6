/**
 * A seeded fuzzer of malformed requests for the reference (shared by test/reference-load and
 * bench/): random bytes, broken JSON, wrong types, huge nesting, broken signing headers and
 * content types over node:http, and broken HTTP framing over raw sockets. Every answer must be
 * an HTTP status the interface allows (200 signed; 401, 403, 500 unsigned), every 200 a signed
 * JSON envelope, and 500 only where the body really could not be read.
 */
import type { Agent } from 'node:http';
import { hmacHex, PRIMARY, responseVerifies, send, sendRaw, signHeaders, type Reply } from './support.js';

export type FuzzKind = 'valid' | 'random-bytes' | 'broken-json' | 'wrong-types' | 'nesting' | 'bad-headers' | 'raw-http';

/** Share of each kind, per 1000. */
const WEIGHTS: Array<[FuzzKind, number]> = [
  ['valid', 100],
  ['random-bytes', 150],
  ['broken-json', 200],
  ['wrong-types', 260],
  ['nesting', 10],
  ['bad-headers', 220],
  ['raw-http', 60],
];

export const PATHS = [
  '/api/v1/payments/query',
  '/api/v1/payments/checkout',
  '/api/v1/payments/card',
  '/api/v1/refunds/create',
  '/api/v1/refunds/query',
  '/api/v1/payouts/create',
  '/api/v1/payouts/query',
  '/api/v1/payouts/cancel',
  '/sandbox/v1/checkout/complete',
  '/sandbox/v1/payments/chargeback',
  '/sandbox/v1/refunds/settle',
  '/api/v1/payments/query?x=1',
  '/api/v1/unknown',
  '/',
];

const ALLOWED = new Set([200, 401, 403, 500]);

/** mulberry32: small, fast, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type R = () => number;
const int = (r: R, n: number): number => Math.floor(r() * n);
const pickOf = <T>(r: R, xs: readonly T[]): T => xs[int(r, xs.length)]!;

function bytes(r: R, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = int(r, 256);
  return b;
}

function validBody(r: R, i: number): Record<string, unknown> {
  const no = `FZ${i.toString(36).toUpperCase()}${int(r, 1e6)}`;
  const amount = { currency: 'USD', value: pickOf(r, ['10.00', '1', '25.5', '99.99']) };
  return pickOf(r, [
    { merchant_order_no: no },
    { order_no: `P${no}` },
    {
      payment_method: pickOf(r, ['PAYPAL', 'CARD', 'CASH_APP', 'APPLE_PAY']),
      merchant_order_no: no,
      trans_amount: amount,
      trade_info: { goods_name: 'Fuzz', description: 'd' },
      notify_url: 'https://merchant.invalid/n',
      return_url: 'https://merchant.invalid/r',
      metadata: 'm',
    },
    { merchant_refund_no: `R${no}`, original_merchant_order_no: no, refund_amount: amount, reason: 'r' },
    {
      payment_method: 'BANK_TRANSFER',
      merchant_payout_no: `O${no}`,
      trans_amount: amount,
      payee: { name: 'G', account: 'A1' },
      notify_url: 'https://merchant.invalid/n',
    },
    {
      payment_method: 'CARD',
      merchant_order_no: no,
      trans_amount: amount,
      trade_info: { goods_name: 'x' },
      notify_url: 'https://merchant.invalid/n',
      card: { card_number: '4242424242424242', cardholder_name: 'A', exp_month: 12, exp_year: 2031, cvc: '123' },
      billing_address: { country: 'US' },
      device_ip: '203.0.113.7',
    },
  ]);
}

/** JSON texts of values of the wrong type or shape, spliced in as written (duplicate and special keys kept). */
const WRONG_VALUES: string[] = [
  '0',
  '-1',
  '1e308',
  '1e999',
  '12.345',
  '9007199254740993',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  '""',
  '" "',
  '"0"',
  '"-0"',
  '"12.345"',
  '"1e3"',
  '"NaN"',
  '"Infinity"',
  '"\\u0000"',
  '"\\ud800"',
  '"é"',
  '"💳"',
  JSON.stringify('x'.repeat(10_000)),
  '[1,2,3]',
  '[{}]',
  '{"currency":"USD"}',
  '{"value":"1.00"}',
  '{"currency":"usd","value":"1.00"}',
  '{"currency":"USD","value":1}',
  '{"currency":"USD","value":"1.00","currency":"EUR"}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"toString":"x","valueOf":1,"hasOwnProperty":2}',
];

function paths(o: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (o && typeof o === 'object' && !Array.isArray(o)) {
    for (const [k, v] of Object.entries(o)) {
      out.push([...prefix, k]);
      paths(v, [...prefix, k], out);
    }
  }
  return out;
}

function withWrongType(r: R, body: Record<string, unknown>): string {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  const all = paths(copy);
  const n = 1 + int(r, 3);
  for (let k = 0; k < n; k++) {
    const p = pickOf(r, all);
    let target = copy as Record<string, unknown>;
    for (const seg of p.slice(0, -1)) {
      const next = target[seg];
      if (!next || typeof next !== 'object' || Array.isArray(next)) break;
      target = next as Record<string, unknown>;
    }
    const last = p[p.length - 1]!;
    if (r() < 0.1) delete target[last];
    else target[last] = `\u0001WRONG${int(r, WRONG_VALUES.length)}\u0001`;
  }
  let text = JSON.stringify(copy).replace(/"\\u0001WRONG(\d+)\\u0001"/g, (_, n: string) => WRONG_VALUES[Number(n)]!);
  // Keys JSON.stringify would drop or that matter to naive parsers.
  if (r() < 0.1) text = text.replace(/^\{/, '{"__proto__":{"admin":true},');
  if (r() < 0.05) text = text.replace(/^\{/, '{"merchant_order_no":"dup",');
  return text;
}

function brokenJson(r: R, body: Record<string, unknown>): Buffer {
  const text = JSON.stringify(body);
  switch (int(r, 9)) {
    case 0:
      return Buffer.from(text.slice(0, int(r, text.length)));
    case 1: {
      const at = int(r, text.length);
      return Buffer.from(text.slice(0, at) + pickOf(r, ['{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', '\n']) + text.slice(at));
    }
    case 2: {
      const at = int(r, text.length);
      return Buffer.from(text.slice(0, at) + text.slice(at + 1));
    }
    case 3:
      return Buffer.from(text.replace(/\}$/, ',}'));
    case 4:
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    case 5:
      return Buffer.from(text.replace(/"/g, "'"));
    case 6:
      return Buffer.from(`${text}${text}`);
    case 7:
      return Buffer.from(text, 'utf16le');
    default:
      return Buffer.from(pickOf(r, ['', 'null', 'true', '1', '"x"', '[]', '[{}]', 'NaN', '{"a":undefined}', '{"a":01}', '{"a":1e999}']));
  }
}

function nesting(r: R): Buffer {
  const depth = 1000 + int(r, 150_000);
  const open = r() < 0.5 ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  const inner = `${open.repeat(depth)}1${close.repeat(r() < 0.8 ? depth : int(r, depth))}`;
  return Buffer.from(r() < 0.5 ? inner : `{"merchant_order_no":${inner}}`);
}

export interface FuzzCase {
  kind: FuzzKind;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: Buffer;
  raw?: { bytes: Buffer; halfClose: boolean; variant: string };
  /** A 500 is the right answer only when the body could not be read. */
  unreadable: boolean;
}

function signedJson(body: Buffer): Record<string, string> {
  return { 'Content-Type': 'application/json', ...signHeaders(PRIMARY, body) };
}

function badHeaders(r: R, body: Buffer, lastNonce: { value: string }): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = signedJson(body);
  const names = ['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign'];
  switch (int(r, 14)) {
    case 0:
      delete h[pickOf(r, names)];
      break;
    case 1:
      h[pickOf(r, names)] = '';
      break;
    case 2:
      h['X-Sign'] = [h['X-Sign'] as string, h['X-Sign'] as string];
      break;
    case 3:
      h['X-Sign'] = (h['X-Sign'] as string).toUpperCase();
      break;
    case 4: {
      const ts = String(Math.floor(Date.now() / 1000) - 3600);
      h['X-Timestamp'] = ts;
      h['X-Sign'] = hmacHex(PRIMARY, ts, h['X-Nonce'] as string, body);
      break;
    }
    case 5: {
      const ts = String(Date.now());
      h['X-Timestamp'] = ts;
      h['X-Sign'] = hmacHex(PRIMARY, ts, h['X-Nonce'] as string, body);
      break;
    }
    case 6:
      if (lastNonce.value) {
        h['X-Nonce'] = lastNonce.value;
        h['X-Sign'] = hmacHex(PRIMARY, h['X-Timestamp'] as string, lastNonce.value, body);
      }
      break;
    case 7:
      h['X-MerchantID'] = pickOf(r, ['M999999', 'm100001', ' M100001', 'M100001 ', 'M1000010', 'x'.repeat(2000)]);
      break;
    case 8:
      h['Content-Type'] = pickOf(r, [
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=utf-16',
        'APPLICATION/JSON',
        'application/jsonx',
        '',
      ]);
      break;
    case 9:
      delete h['Content-Type'];
      break;
    case 10:
      h[pickOf(r, names)] = 'v'.repeat(8000);
      break;
    case 11:
      h['Accept-Language'] = pickOf(r, ['en', 'EN-us', 'zh-CN,en;q=0.1', '*', 'x'.repeat(500)]);
      break;
    case 12:
      h['X-Sign'] = Buffer.from(h['X-Sign'] as string, 'hex').toString('base64');
      break;
    default:
      h['X-Timestamp'] = pickOf(r, ['-1', '1e9', '0x10', '¹²³', '2026-11-22T10:00:00Z', '99999999999999999999']);
      break;
  }
  if (typeof h['X-Nonce'] === 'string') lastNonce.value = h['X-Nonce'];
  return h;
}

function rawHttp(r: R, path: string, port: string): NonNullable<FuzzCase['raw']> & { unreadable: boolean } {
  const body = Buffer.from(JSON.stringify({ merchant_order_no: 'RAW1' }));
  const sig = Object.entries(signedJson(body))
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const host = `Host: 127.0.0.1:${port}\r\n`;
  const b = (s: string): Buffer => Buffer.from(s, 'latin1');
  switch (int(r, 11)) {
    case 0:
      return { bytes: bytes(r, 1 + int(r, 300)), halfClose: true, variant: 'random-bytes', unreadable: true };
    case 1:
      return { bytes: b(`POST ${path} HTTP/9.9\r\n${host}\r\n`), halfClose: true, variant: 'unknown-version', unreadable: true };
    case 2:
      return {
        bytes: b(`POST ${path} HTTP/1.1\r\n${host}No colon here\r\n\r\n`),
        halfClose: true,
        variant: 'header-without-colon',
        unreadable: true,
      };
    case 3:
      return {
        bytes: Buffer.concat([
          b(`POST ${path} HTTP/1.1\r\n${host}${sig}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n`),
          body,
        ]),
        halfClose: true,
        variant: 'cl-and-te',
        unreadable: true,
      };
    case 4:
      return {
        bytes: b(`POST ${path} HTTP/1.1\r\n${host}${sig}Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`),
        halfClose: true,
        variant: 'bad-chunk-size',
        unreadable: true,
      };
    case 5:
      // Declares more than it sends, then half-closes: the unreadable-body case.
      return {
        bytes: Buffer.concat([b(`POST ${path} HTTP/1.1\r\n${host}${sig}Content-Length: ${body.length + 50}\r\n\r\n`), body]),
        halfClose: true,
        variant: 'short-body-half-close',
        unreadable: true,
      };
    case 6:
      return {
        bytes: b(`POST ${path} HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
        halfClose: true,
        variant: 'oversized-header',
        unreadable: true,
      };
    case 7:
      return {
        bytes: Buffer.concat([
          b(`POST ${path} HTTP/1.1\r\n${host}X-Bad: \x01\x7f\xff\r\n${sig}Content-Length: ${body.length}\r\n\r\n`),
          body,
        ]),
        halfClose: true,
        variant: 'control-bytes-in-header',
        unreadable: true,
      };
    case 8:
      // Chunked, correctly framed: must be read like any body.
      return {
        bytes: Buffer.concat([
          b(`POST ${path} HTTP/1.1\r\n${host}${sig}Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n`),
          body,
          b('\r\n0\r\n\r\n'),
        ]),
        halfClose: false,
        variant: 'chunked',
        unreadable: false,
      };
    case 9:
      return {
        bytes: Buffer.concat([b(`POST ${path} HTTP/1.0\r\n${host}${sig}Content-Length: ${body.length}\r\n\r\n`), body]),
        halfClose: false,
        variant: 'http-1.0',
        unreadable: false,
      };
    default:
      // Bare LF line ends: RFC 9112 §2.2 lets a recipient accept them (MAY), so refusing them as unreadable is allowed too.
      return {
        bytes: Buffer.concat([
          b(`POST ${path} HTTP/1.1\n${host.replace('\r\n', '\n')}${sig.replace(/\r\n/g, '\n')}Content-Length: ${body.length}\n\n`),
          body,
        ]),
        halfClose: false,
        variant: 'bare-lf',
        unreadable: true,
      };
  }
}

export function fuzzCase(r: R, i: number, port: string, lastNonce: { value: string }): FuzzCase {
  let roll = int(r, 1000);
  let kind: FuzzKind = 'valid';
  for (const [k, w] of WEIGHTS) {
    if (roll < w) {
      kind = k;
      break;
    }
    roll -= w;
  }
  const path = pickOf(r, PATHS);
  const base = validBody(r, i);
  switch (kind) {
    case 'valid': {
      const body = Buffer.from(JSON.stringify(base));
      return { kind, path, headers: signedJson(body), body, unreadable: false };
    }
    case 'random-bytes': {
      const body = bytes(r, int(r, 400));
      return { kind, path, headers: signedJson(body), body, unreadable: false };
    }
    case 'broken-json': {
      const body = brokenJson(r, base);
      return { kind, path, headers: signedJson(body), body, unreadable: false };
    }
    case 'wrong-types': {
      const body = Buffer.from(withWrongType(r, base));
      return { kind, path, headers: signedJson(body), body, unreadable: false };
    }
    case 'nesting': {
      const body = nesting(r);
      return { kind, path, headers: signedJson(body), body, unreadable: false };
    }
    case 'bad-headers': {
      const body = Buffer.from(JSON.stringify(base));
      return { kind, path, headers: badHeaders(r, body, lastNonce), body, unreadable: false };
    }
    case 'raw-http': {
      const { unreadable, ...raw } = rawHttp(r, path, port);
      return { kind, path, raw, unreadable };
    }
  }
}

export interface FuzzStats {
  sent: number;
  byKind: Record<string, number>;
  /** "kind status" → count; "none" when the server closed without answering. */
  byStatus: Record<string, number>;
  violations: string[];
  ms: number;
  /** Summed latency per kind, ms. */
  msByKind: Record<string, number>;
}

function envelopeProblem(reply: Reply): string | undefined {
  const j = reply.json as { code?: unknown; msg?: unknown } | undefined;
  if (!j || typeof j !== 'object' || Array.isArray(j)) return 'body is not a JSON object';
  if (!Number.isInteger(j.code)) return 'code is not an integer';
  if (typeof j.msg !== 'string') return 'msg is not a string';
  return undefined;
}

/** Sends `count` fuzzed requests, `concurrency` at a time; never throws for a server answer. */
export async function runFuzz(opts: {
  url: string;
  agent: Agent;
  count: number;
  seed: number;
  concurrency: number;
  onProgress?: (done: number) => void;
}): Promise<FuzzStats> {
  const r = rng(opts.seed);
  const port = new URL(opts.url).port;
  const lastNonce = { value: '' };
  const stats: FuzzStats = { sent: 0, byKind: {}, byStatus: {}, violations: [], ms: 0, msByKind: {} };
  const violation = (i: number, c: FuzzCase, what: string): void => {
    if (stats.violations.length < 50) stats.violations.push(`#${i} ${c.kind}${c.raw ? ` (${c.raw.variant})` : ''} ${c.path}: ${what}`);
  };
  const t0 = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < opts.count) {
      const i = next++;
      const c = fuzzCase(r, i, port, lastNonce);
      stats.byKind[c.kind] = (stats.byKind[c.kind] ?? 0) + 1;
      const started = performance.now();
      let status: number | undefined;
      if (c.raw) {
        const reply = await sendRaw(opts.url + c.path, c.raw.bytes, { halfClose: c.raw.halfClose, waitMs: 5000 });
        status = reply.status;
        if (status === 500 && !c.unreadable) violation(i, c, 'HTTP 500 for a readable request');
      } else {
        let reply: Reply;
        try {
          reply = await send(opts.agent, opts.url + c.path, c.headers as Record<string, string>, c.body!);
        } catch (err) {
          violation(i, c, `no response (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
          stats.byStatus[`${c.kind} none`] = (stats.byStatus[`${c.kind} none`] ?? 0) + 1;
          stats.sent += 1;
          continue;
        }
        status = reply.status;
        const problem = envelopeProblem(reply);
        if (problem) violation(i, c, `HTTP ${status}: ${problem}`);
        if (status === 200 && !responseVerifies(reply.headers, reply.raw, PRIMARY))
          violation(i, c, 'HTTP 200 whose signature does not verify');
        if (status !== 200 && reply.headers['x-sign'] !== undefined)
          violation(i, c, `HTTP ${status} carries X-Sign (authentication and unreadable-body errors are unsigned)`);
        if (status === 500) violation(i, c, 'HTTP 500 for a complete body under the size limit (500 is for an unreadable body only)');
      }
      const key = `${c.raw ? `raw-http/${c.raw.variant}` : c.kind} ${status ?? 'none'}`;
      stats.byStatus[key] = (stats.byStatus[key] ?? 0) + 1;
      stats.msByKind[c.kind] = (stats.msByKind[c.kind] ?? 0) + (performance.now() - started);
      if (status !== undefined && !ALLOWED.has(status)) violation(i, c, `HTTP ${status} is outside {200, 401, 403, 500}`);
      stats.sent += 1;
      if (opts.onProgress && stats.sent % 10_000 === 0) opts.onProgress(stats.sent);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  stats.ms = performance.now() - t0;
  return stats;
}
