/**
 * A deliberately tiny client for the reference tests: plain node:http, our own HMAC code (never
 * the harness's), exact bytes on the wire and the raw reply bytes back.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';

export interface Creds {
  id: string;
  secret: string;
}

export const PRIMARY: Creds = { id: 'M100001', secret: 'sk_test_primary_5f2c9a7e41d84b06' };
export const SECOND: Creds = { id: 'M100002', secret: 'sk_test_second_8b1e6d3c90a24f57' };
export const LOWBAL: Creds = { id: 'M100003', secret: 'sk_test_lowbal_2d7a4f9c6e1b3058' };
export const FROZEN: Creds = { id: 'M100009', secret: 'sk_test_frozen_9c4e2b7d1a6f3085' };

export function hmacHex(secret: string, id: string, timestamp: string, nonce: string, raw: Buffer): string {
  return createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${id}\n${timestamp}\n${nonce}\n`, 'utf8'), raw]))
    .digest('hex');
}

export function nowSeconds(): string {
  return String(Math.floor(Date.now() / 1000));
}

export function newNonce(): string {
  return randomBytes(12).toString('hex');
}

export function signedHeaders(creds: Creds, raw: Buffer, over: { timestamp?: string; nonce?: string } = {}): Record<string, string> {
  const timestamp = over.timestamp ?? nowSeconds();
  const nonce = over.nonce ?? newNonce();
  return {
    'X-MerchantID': creds.id,
    'X-Timestamp': timestamp,
    'X-Nonce': nonce,
    'X-Sign': hmacHex(creds.secret, creds.id, timestamp, nonce, raw),
  };
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: tests read envelopes loosely and assert on them
  json: any;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

export function send(url: string, method: string, headers: Record<string, string>, raw: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, 'Content-Length': String(raw.length) }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: body, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(raw);
  });
}

export interface CallOptions {
  creds?: Creds;
  /** Header overrides; `undefined` removes the header. */
  headers?: Record<string, string | undefined>;
  english?: boolean;
  method?: string;
}

/** Signs and posts; `body` may be raw bytes (sent as is) or a value to serialise. */
export async function call(base: string, path: string, body: unknown, opts: CallOptions = {}): Promise<Reply> {
  const creds = opts.creds ?? PRIMARY;
  const raw = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body), 'utf8');
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...signedHeaders(creds, raw) };
  if (opts.english) headers['Accept-Language'] = 'en';
  for (const [k, v] of Object.entries(opts.headers ?? {})) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  return send(base + path, opts.method ?? 'POST', headers, raw);
}

function headerOf(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Verifies a reply's (or a webhook's) signature over its raw bytes with our own code. */
export function verifies(headers: IncomingHttpHeaders, raw: Buffer, creds: Creds): boolean {
  const id = headerOf(headers, 'X-MerchantID');
  const ts = headerOf(headers, 'X-Timestamp');
  const nonce = headerOf(headers, 'X-Nonce');
  const sign = headerOf(headers, 'X-Sign');
  if (!id || !ts || !nonce || !sign || id !== creds.id || !/^[0-9a-f]{64}$/.test(sign)) return false;
  return timingSafeEqual(Buffer.from(sign, 'hex'), Buffer.from(hmacHex(creds.secret, id, ts, nonce, raw), 'hex'));
}

export function isSigned(r: Reply): boolean {
  return ['x-merchantid', 'x-timestamp', 'x-nonce', 'x-sign'].some((h) => r.headers[h] !== undefined);
}

/** The key after the last `|`. */
export function keyOf(r: Reply): string {
  const msg: string = r.json?.msg ?? '';
  return msg.slice(msg.lastIndexOf('|') + 1);
}

let counter = 0;
/** Unique merchant numbers per test process, so tests never collide inside one server. */
export function uniq(prefix = 'N'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}`;
}

/** Sends raw HTTP over a socket to `url`'s host and returns everything the server wrote before closing. */
export function rawExchange(url: string, text: string | Buffer, endAfterWrite = false): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(text);
      if (endAfterWrite) socket.end();
    });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error('no answer'));
    });
  });
}
