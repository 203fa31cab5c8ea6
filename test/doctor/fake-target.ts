/**
 * A small fake target for the doctor's version-2 code paths the reference does not serve yet:
 * per-merchant payment methods, channels with a gap, a card that stays pending until a complete-card
 * control, and one-shot armed failures. Signs its answers like the interface says; nothing else.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { sign, verify } from '../../harness/http/signing.js';
import type { Json } from './support.js';

export const FAKE_MERCHANTS = {
  primary: { id: 'F100001', secret: 'sk_test_fake_primary_0a1b2c3d' },
  second: { id: 'F100002', secret: 'sk_test_fake_second_4e5f6a7b' },
};
const ENABLED: Record<string, string[]> = { F100001: ['PAYPAL', 'CARD'], F100002: ['PAYPAL'] };
const KNOWN = ['PAYPAL', 'CARD', 'KLARNA'];
/** PAYPAL has two channels: 1.00–100.00 and 500.00–1000.00. */
const PAYPAL_CHANNELS: [number, number][] = [
  [100, 10_000],
  [50_000, 100_000],
];
export const FAKE_CARDS = { success: '4242424242424242', pending: '4000000000003220', decline: '4000000000000002' };
const ARMABLE: Record<string, 'query' | 'checkout'> = { QUERY_FAILED: 'query', ORDER_CREATION_FAILED: 'checkout' };

interface Order {
  order_no: string;
  merchant_order_no: string;
  merchant: string;
  status: string;
  trans_amount: { currency: string; value: string };
}

export interface FakeTarget {
  url: string;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
  });
}

const err = (code: number, msg: string, key: string) => ({ code, msg: `${msg}|${key}` });

export async function startFakeTarget(): Promise<FakeTarget> {
  const orders = new Map<string, Order>();
  const armed = new Map<string, Set<string>>();
  let seq = 0;
  const find = (merchant: string, b: Record<string, unknown>) =>
    [...orders.values()].find(
      (o) => o.merchant === merchant && (o.order_no === b['order_no'] || o.merchant_order_no === b['merchant_order_no']),
    );
  const shot = (merchant: string, kind: 'query' | 'checkout') => {
    const set = armed.get(merchant);
    if (!set?.has(kind)) return false;
    set.delete(kind);
    return true;
  };
  const create = (merchant: string, b: Record<string, unknown>, status: string): Order => {
    seq += 1;
    const o: Order = {
      order_no: `FK${seq}`,
      merchant_order_no: String(b['merchant_order_no']),
      merchant,
      status,
      trans_amount: b['trans_amount'] as Order['trans_amount'],
    };
    orders.set(o.order_no, o);
    return o;
  };
  const routes: Record<string, (merchant: string, b: Record<string, unknown>) => Record<string, unknown>> = {
    '/api/v1/payments/query': (m, b) => {
      if (shot(m, 'query')) return err(500, 'Query failed', 'queryFailed');
      const o = find(m, b);
      return o ? { code: 0, msg: 'success', data: { ...o, merchant: undefined } } : err(2002, 'Order not found', 'orderNotFound');
    },
    '/api/v1/payments/checkout': (m, b) => {
      const method = String(b['payment_method']);
      if (!KNOWN.includes(method)) return err(3003, 'Unsupported payment method', 'unsupportedPaymentMethod');
      if (!ENABLED[m]!.includes(method)) return err(3003, 'Payment method not available', 'paymentMethodUnavailable');
      const cents = Math.round(Number((b['trans_amount'] as { value: string }).value) * 100);
      if (method === 'PAYPAL' && !PAYPAL_CHANNELS.some(([lo, hi]) => cents >= lo && cents <= hi))
        return err(2006, 'No channel accepts the amount', 'amountOutOfRange');
      if (shot(m, 'checkout')) return err(422, 'Order creation failed', 'systemBusy');
      const o = create(m, b, 'PENDING');
      return { code: 0, msg: 'success', data: { order_no: o.order_no, status: o.status } };
    },
    '/api/v1/payments/card': (m, b) => {
      const number = (b['card'] as { card_number: string }).card_number;
      if (number === FAKE_CARDS.decline) return err(422, 'Declined', 'paymentFailed');
      const o = create(m, b, number === FAKE_CARDS.pending ? 'PENDING' : 'SUCCESS');
      return { code: 0, msg: 'success', data: { order_no: o.order_no, status: o.status } };
    },
    '/sandbox/v1/cards/complete': (m, b) => {
      const o = find(m, b);
      if (o?.status !== 'PENDING') return err(422, 'Not pending', 'validationFailed');
      o!.status = String(b['outcome']);
      const done = o!;
      return { code: 0, msg: 'success', data: { order_no: done.order_no, status: done.status } };
    },
    '/sandbox/v1/failures/arm': (m, b) => {
      const kind = ARMABLE[String(b['failure'])];
      // Like some vendors' sandboxes: an unknown failure name is taken and does nothing.
      if (kind) armed.set(m, new Set([...(armed.get(m) ?? []), kind]));
      return { code: 0, msg: 'success', data: {} };
    },
  };
  const server: Server = createServer(async (req, res) => {
    const raw = await body(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const id = String(req.headers['x-merchantid'] ?? '');
    const merchant = Object.values(FAKE_MERCHANTS).find((m) => m.id === id);
    const plain = (status: number, value: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (!merchant) return plain(401, err(401, 'Merchant ID not found or invalid', 'merchantNotFound'));
    if (!verify(req.headers, raw, { merchantId: merchant.id, secret: merchant.secret }).ok)
      return plain(403, err(403, 'Invalid signature', 'forbidden'));
    const route = routes[path];
    if (!route) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('Not Found');
      return;
    }
    const answer = Buffer.from(JSON.stringify(route(merchant.id, JSON.parse(raw.toString('utf8')) as Record<string, unknown>)), 'utf8');
    res.writeHead(200, { 'Content-Type': 'application/json', ...sign({ merchantId: merchant.id, secret: merchant.secret }, answer) });
    res.end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The profile that describes the fake target truly (test/doctor/fake-profile.json, at this URL). */
export function fakeProfile(url: string): Json {
  const p = JSON.parse(readFileSync(new URL('./fake-profile.json', import.meta.url), 'utf8')) as Json;
  p.baseUrl = url;
  return p;
}
