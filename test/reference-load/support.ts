/**
 * A tiny client for loading the reference over plain HTTP: our own HMAC signer (never the
 * harness's), node:http with a keep-alive agent, exact bytes on the wire, raw bytes back. Also a
 * raw-socket sender for requests node:http will not write (broken framing, bad header bytes).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface Creds {
  id: string;
  secret: string;
}

export const PRIMARY: Creds = { id: 'M100001', secret: 'sk_test_primary_5f2c9a7e41d84b06' };

export function hmacHex(creds: Creds, timestamp: string, nonce: string, raw: Buffer): string {
  return createHmac('sha256', creds.secret).update(`${creds.id}\n${timestamp}\n${nonce}\n`).update(raw).digest('hex');
}

export function signHeaders(creds: Creds, raw: Buffer): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(12).toString('hex');
  return { 'X-MerchantID': creds.id, 'X-Timestamp': timestamp, 'X-Nonce': nonce, 'X-Sign': hmacHex(creds, timestamp, nonce, raw) };
}

function one(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? undefined : v;
}

/** True when the four signing headers verify over the raw body for `creds`. */
export function responseVerifies(headers: IncomingHttpHeaders, raw: Buffer, creds: Creds): boolean {
  const id = one(headers, 'x-merchantid');
  const ts = one(headers, 'x-timestamp');
  const nonce = one(headers, 'x-nonce');
  const sign = one(headers, 'x-sign');
  if (id !== creds.id || !ts || !nonce || !sign || !/^[0-9a-f]{64}$/.test(sign)) return false;
  return timingSafeEqual(Buffer.from(hmacHex(creds, ts, nonce, raw), 'hex'), Buffer.from(sign, 'hex'));
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  json: unknown;
}

export function makeAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

function parse(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** One POST with exactly these headers (plus Content-Length) and bytes. Rejects only on socket errors. */
export function send(agent: Agent, url: string, headers: Record<string, string>, raw: Buffer, method = 'POST'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers: { ...headers, 'Content-Length': String(raw.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, raw: body, json: parse(body) });
      });
    });
    req.on('error', reject);
    req.end(raw);
  });
}

/** Signed JSON POST as the primary merchant. */
export function call(agent: Agent, base: string, path: string, body: unknown, creds: Creds = PRIMARY): Promise<Reply> {
  const raw = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body), 'utf8');
  return send(agent, base + path, { 'Content-Type': 'application/json', ...signHeaders(creds, raw) }, raw);
}

export interface RawReply {
  /** HTTP status of the first response, or undefined when the server closed without one. */
  status?: number;
  bytes: number;
}

/** Writes raw bytes (optionally half-closing), reads until the server closes or `waitMs` passes. */
export function sendRaw(url: string, bytes: Buffer, opts: { halfClose?: boolean; waitMs?: number } = {}): Promise<RawReply> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : undefined, bytes: text.length });
    };
    const timer = setTimeout(finish, opts.waitMs ?? 5000);
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One complete response is enough: stop at the end of its head plus declared body.
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end >= 0) {
        const cl = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
        if (cl && text.length >= end + 4 + Number(cl[1])) finish();
      }
    });
    socket.write(bytes);
    if (opts.halfClose) socket.end();
  });
}

export async function inBatches<T>(items: readonly T[], size: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map((item, j) => fn(item, i + j)));
}

/** Runs `fn` over `count` indices with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export function uniq(prefix: string): string {
  return `${prefix}${Date.now().toString(36).toUpperCase()}${randomBytes(3).toString('hex').toUpperCase()}`;
}

export function checkoutBody(merchantOrderNo: string): Record<string, unknown> {
  return {
    payment_method: 'PAYPAL',
    merchant_order_no: merchantOrderNo,
    trans_amount: { currency: 'USD', value: '25.00' },
    trade_info: { goods_name: 'Green tea' },
    // Never completed in these tests, so nothing is ever sent there (reserved TLD).
    notify_url: 'https://merchant.invalid/notify',
    return_url: 'https://merchant.invalid/return',
  };
}

export function cardBody(merchantOrderNo: string, notifyUrl: string, value = '40.00'): Record<string, unknown> {
  return {
    payment_method: 'CARD',
    merchant_order_no: merchantOrderNo,
    trans_amount: { currency: 'USD', value },
    trade_info: { goods_name: 'Coffee beans' },
    notify_url: notifyUrl,
    card: {
      card_number: '4242424242424242',
      cardholder_name: 'Ada Lovelace',
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      cvc: '123',
    },
    billing_address: { country: 'US', email: 'ada@merchant.invalid', city: 'Springfield' },
    device_ip: '203.0.113.7',
  };
}

export function keyOf(json: unknown): string | undefined {
  const msg = (json as { msg?: unknown } | undefined)?.msg;
  return typeof msg === 'string' ? msg.slice(msg.lastIndexOf('|') + 1) : undefined;
}

export function codeOf(json: unknown): unknown {
  return (json as { code?: unknown } | undefined)?.code;
}
