/**
 * Webhook bodies as the Events section describes them (field order as its Body fields table), as
 * fast-check arbitraries, and the bytes and headers the kit plays the service with: correctly
 * signed, or signed wrongly in one named way.
 */
import fc from 'fast-check';
import { hmacHex, newNonce, stringToSign, unixSeconds } from '../../http/signing.js';
import { valueOfCents } from '../../facts/money.js';

export type Kind = 'payment' | 'refund' | 'payout';
export const EVENT: Record<Kind, string> = { payment: 'payment.updated', refund: 'refund.updated', payout: 'payout.updated' };
/** Every status the document names per event (payment REFUNDED: a retried payment.updated). */
export const STATUSES: Record<Kind, readonly string[]> = {
  payment: ['SUCCESS', 'FAILED', 'REFUNDED'],
  refund: ['PENDING', 'SUCCESS', 'FAILED'],
  payout: ['SUCCESS', 'FAILED', 'CANCELED'],
};

export type Body = Record<string, unknown>;
export type Offsets = 'utc' | 'non-utc';

const amount = fc.integer({ min: 1, max: 99_999_999 }).map((cents) => ({ currency: 'USD', value: valueOfCents(cents) }));
const metadata = fc.oneof(fc.constant(''), fc.string({ minLength: 1, maxLength: 40 }), fc.json({ maxDepth: 1 }));
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,23}$/);
const method = fc.constantFrom('CARD', 'PAYPAL', 'CASH_APP', 'APPLE_PAY', 'GOOGLE_PAY');
const payoutMethod = fc.constantFrom('BANK_TRANSFER', 'PAYPAL');
const offsetMinutes = fc.integer({ min: -12 * 60, max: 14 * 60 }).filter((m) => m !== 0 && m % 15 === 0);

function rfc3339(epochMs: number, offsetMin: number | 'Z' | '+00:00'): string {
  const off = typeof offsetMin === 'number' ? offsetMin : 0;
  const local = new Date(epochMs + off * 60_000).toISOString().slice(0, 19);
  if (typeof offsetMin !== 'number') return `${local}${offsetMin}`;
  const sign = offsetMin < 0 ? '-' : '+';
  const a = Math.abs(offsetMin);
  return `${local}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

const time = (offsets: Offsets) =>
  fc
    .record({
      at: fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2027, 0, 1) }),
      off: offsets === 'utc' ? fc.constantFrom<'Z' | '+00:00'>('Z', '+00:00') : offsetMinutes,
    })
    .map(({ at, off }) => rfc3339(at, off));

let serial = 0;
/** Every generated webhook names its own order: no two properties' bodies collide by accident. */
function uniq(prefix: string): string {
  serial += 1;
  return `${prefix}${Date.now().toString(36)}${serial.toString(36)}`.toUpperCase();
}

export function bodyArb(kind: Kind, offsets: Offsets = 'utc', status?: string): fc.Arbitrary<Body> {
  const st = status ? fc.constant(status) : fc.constantFrom(...STATUSES[kind]);
  if (kind === 'payment') {
    return fc
      .record({
        m: method,
        amt: amount,
        req: fc.option(amount, { nil: undefined }),
        goods: word,
        desc: fc.option(word, { nil: undefined }),
        st,
        meta: metadata,
        fin: time(offsets),
        cre: time(offsets),
      })
      .map((x) => ({
        event: EVENT.payment,
        order_no: uniq('PO'),
        merchant_order_no: uniq('MO'),
        payment_method: x.m,
        trans_amount: x.amt,
        ...(x.req ? { requested_amount: x.req } : {}),
        trade_info: x.desc === undefined ? { goods_name: x.goods } : { goods_name: x.goods, description: x.desc },
        status: x.st,
        metadata: x.meta,
        finished_at: x.fin,
        created_at: x.cre,
      }));
  }
  if (kind === 'refund') {
    return fc.record({ m: method, amt: amount, reason: word, st, meta: metadata, cre: time(offsets) }).map((x) => ({
      event: EVENT.refund,
      order_no: uniq('RF'),
      merchant_order_no: uniq('MR'),
      payment_method: x.m,
      trans_amount: x.amt,
      trade_info: { goods_name: x.reason },
      status: x.st,
      metadata: x.meta,
      original_order_no: uniq('PO'),
      original_merchant_order_no: uniq('MO'),
      created_at: x.cre,
    }));
  }
  return fc.record({ m: payoutMethod, amt: amount, st, reason: word, meta: metadata, fin: time(offsets), cre: time(offsets) }).map((x) => ({
    event: EVENT.payout,
    order_no: uniq('PY'),
    merchant_order_no: uniq('MP'),
    payment_method: x.m,
    trans_amount: x.amt,
    status: x.st,
    status_reason: x.reason,
    metadata: x.meta,
    finished_at: x.fin,
    created_at: x.cre,
  }));
}

/** One concrete body of `kind` (for the checks that need one, not a property). */
export function sampleBody(kind: Kind, seed: number, status?: string, offsets: Offsets = 'utc'): Body {
  return fc.sample(bodyArb(kind, offsets, status), { seed, numRuns: 1 })[0]!;
}

export type Layout = 'compact' | 'pretty' | 'spaced' | 'reordered';
export const LAYOUTS: readonly Layout[] = ['compact', 'pretty', 'spaced', 'reordered'];

function reorder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reorder);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v as Body)
        .reverse()
        .map(([k, x]) => [k, reorder(x)]),
    );
  return v;
}

/** The bytes of a body in one of several layouts the service may send; each is signed over itself. */
export function bytesOf(body: Body, layout: Layout = 'compact'): Buffer {
  if (layout === 'pretty') return Buffer.from(JSON.stringify(body, null, 2));
  if (layout === 'spaced')
    return Buffer.from(
      JSON.stringify(body)
        .replace(/([^\\])":/g, '$1": ')
        .replace(/,"/g, ', "'),
    );
  if (layout === 'reordered') return Buffer.from(JSON.stringify(reorder(body)));
  return Buffer.from(JSON.stringify(body));
}

export interface Identity {
  merchantId: string;
  secret: string;
}

export type Headers = Record<string, string>;

/** Signed exactly as the Delivery section says, with a fresh timestamp and nonce. */
export function signed(id: Identity, raw: Buffer, at: { timestamp?: string; nonce?: string } = {}): Headers {
  const timestamp = at.timestamp ?? unixSeconds();
  const nonce = at.nonce ?? newNonce();
  return {
    'Content-Type': 'application/json',
    'X-MerchantID': id.merchantId,
    'X-Timestamp': timestamp,
    'X-Nonce': nonce,
    'X-Sign': hmacHex(id.secret, stringToSign(id.merchantId, timestamp, nonce, raw)),
  };
}

/** X-Sign over the string joined by CR LF instead of LF. */
export function crlfSigned(id: Identity, raw: Buffer): Headers {
  const h = signed(id, raw);
  const input = Buffer.concat([Buffer.from(`${id.merchantId}\r\n${h['X-Timestamp']}\r\n${h['X-Nonce']}\r\n`), raw]);
  return { ...h, 'X-Sign': hmacHex(id.secret, input) };
}

/** A key that is not the receiver's (derived, so it never equals it). */
export function otherKey(secret: string): string {
  return `other_${hmacHex('mpsi-conformance', Buffer.from(secret)).slice(0, 24)}`;
}

/** A merchant id that is not the receiver's. */
export function otherMerchant(id: string): string {
  return id === 'M999998' ? 'M999997' : 'M999998';
}
