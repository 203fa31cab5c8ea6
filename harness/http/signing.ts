import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';

/** The four signing headers, in the spelling the interface uses. */
export const SIGNING_HEADERS = ['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign'] as const;
export type SigningHeader = (typeof SIGNING_HEADERS)[number];
export type SigningHeaders = Record<SigningHeader, string>;

export interface Credentials {
  merchantId: string;
  /** Never copied into exchanges, reports or errors. */
  secret: string;
}

const LF = Buffer.from('\n');

/** merchantID LF timestamp LF nonce LF rawBody — the body as bytes, never re-serialised. */
export function stringToSign(merchantId: string, timestamp: string, nonce: string, rawBody: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(merchantId, 'utf8'), LF, Buffer.from(timestamp, 'utf8'), LF, Buffer.from(nonce, 'utf8'), LF, rawBody]);
}

export function hmacSha256(secret: string, data: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(data).digest();
}

export function hmacHex(secret: string, data: Uint8Array): string {
  return hmacSha256(secret, data).toString('hex');
}

/**
 * HMAC-SHA256 over stringToSign(merchantId, timestamp, nonce, rawBody), fed in two parts instead of
 * one concatenated copy: the UTF-8 bytes of the three fields and their LFs are the same bytes.
 */
function signatureMac(secret: string, merchantId: string, timestamp: string, nonce: string, rawBody: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${merchantId}\n${timestamp}\n${nonce}\n`, 'utf8').update(rawBody).digest();
}

const NONCE_BYTES = 18;
// One call into the CSPRNG per 227 nonces rather than one per nonce (a few µs each, on every
// exchange); every nonce is still 18 bytes of it, used once.
const noncePool = Buffer.alloc(NONCE_BYTES * 227);
let nonceAt = noncePool.length;

/** 24 characters: inside the recommended 16..32. */
export function newNonce(): string {
  if (nonceAt + NONCE_BYTES > noncePool.length) {
    randomFillSync(noncePool);
    nonceAt = 0;
  }
  const nonce = noncePool.toString('base64url', nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return nonce;
}

export function unixSeconds(now: number = Date.now()): string {
  return String(Math.floor(now / 1000));
}

export interface SignOptions {
  timestamp?: string;
  nonce?: string;
}

export function sign(creds: Credentials, rawBody: Uint8Array, opts: SignOptions = {}): SigningHeaders {
  const timestamp = opts.timestamp ?? unixSeconds();
  const nonce = opts.nonce ?? newNonce();
  return {
    'X-MerchantID': creds.merchantId,
    'X-Timestamp': timestamp,
    'X-Nonce': nonce,
    'X-Sign': signatureMac(creds.secret, creds.merchantId, timestamp, nonce, rawBody).toString('hex'),
  };
}

export type VerifyFailure =
  | { ok: false; reason: 'missing-header'; header: SigningHeader }
  | { ok: false; reason: 'empty-header'; header: SigningHeader }
  | { ok: false; reason: 'duplicate-header'; header: SigningHeader }
  | { ok: false; reason: 'merchant-mismatch'; expected: string; seen: string }
  | { ok: false; reason: 'not-lower-hex'; seen: string }
  | { ok: false; reason: 'upper-case-hex' }
  | { ok: false; reason: 'base64' }
  | { ok: false; reason: 'mismatch' };
export type VerifyResult = { ok: true } | VerifyFailure;

/** Header lookup that tolerates any case, as HTTP does; a repeated header counts as its first value. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === lower) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

/** Every value of a header, splitting none: Node and undici give repeated headers as arrays. */
export function headerValues(headers: Record<string, string | string[] | undefined>, name: string): string[] {
  const lower = name.toLowerCase();
  const out: string[] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== lower || v === undefined) continue;
    if (Array.isArray(v)) out.push(...v);
    else out.push(v);
  }
  return out;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function timingSafeEqualText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const LOWER_HEX_64 = /^[0-9a-f]{64}$/;
/** Lower-case signing header name → its index in SIGNING_HEADERS. */
const SIGNING_INDEX = new Map<string, number>(SIGNING_HEADERS.map((h, i) => [h.toLowerCase(), i]));
const ANY_HEX_64 = /^[0-9a-fA-F]{64}$/;

/**
 * Verifies a signed response or webhook over its raw bytes. The comparison is constant-time
 * so the harness never becomes a timing oracle when used as a merchant-side example.
 */
export function verify(headers: Record<string, string | string[] | undefined>, rawBody: Uint8Array, creds: Credentials): VerifyResult {
  // One pass over the headers for all four (headerValue / headerValues per header would walk them
  // eight times): per signing header, the first value of the first name that matches, and how many
  // values all matching names carry.
  const first: (string | undefined)[] = [undefined, undefined, undefined, undefined];
  const found = [false, false, false, false];
  const counts = [0, 0, 0, 0];
  for (const k of Object.keys(headers)) {
    const i = SIGNING_INDEX.get(k) ?? SIGNING_INDEX.get(k.toLowerCase());
    if (i === undefined) continue;
    const v = headers[k];
    if (!found[i]) {
      found[i] = true;
      first[i] = Array.isArray(v) ? v[0] : v;
    }
    if (v !== undefined) counts[i] += Array.isArray(v) ? v.length : 1;
  }
  const values = {} as SigningHeaders;
  for (let i = 0; i < SIGNING_HEADERS.length; i++) {
    const h = SIGNING_HEADERS[i]!;
    // Two values for one signing header is ambiguous: a verifier that takes either could be fooled.
    if (counts[i]! > 1) return { ok: false, reason: 'duplicate-header', header: h };
    const v = first[i];
    if (v === undefined) return { ok: false, reason: 'missing-header', header: h };
    if (v === '') return { ok: false, reason: 'empty-header', header: h };
    values[h] = v;
  }
  if (values['X-MerchantID'] !== creds.merchantId) {
    return { ok: false, reason: 'merchant-mismatch', expected: creds.merchantId, seen: clip(values['X-MerchantID']) };
  }
  const seen = values['X-Sign'];
  const expected = signatureMac(creds.secret, values['X-MerchantID'], values['X-Timestamp'], values['X-Nonce'], rawBody);
  if (!LOWER_HEX_64.test(seen)) {
    if (ANY_HEX_64.test(seen) && timingSafeEqual(Buffer.from(seen.toLowerCase(), 'hex'), expected)) {
      return { ok: false, reason: 'upper-case-hex' };
    }
    if (timingSafeEqualText(seen, expected.toString('base64'))) return { ok: false, reason: 'base64' };
    return { ok: false, reason: 'not-lower-hex', seen: clip(seen) };
  }
  return timingSafeEqual(Buffer.from(seen, 'hex'), expected) ? { ok: true } : { ok: false, reason: 'mismatch' };
}

export function describeVerifyFailure(f: VerifyFailure): string {
  switch (f.reason) {
    case 'missing-header':
      return `header ${f.header} is missing`;
    case 'empty-header':
      return `header ${f.header} is empty`;
    case 'duplicate-header':
      return `header ${f.header} appears more than once`;
    case 'base64':
      return 'X-Sign is the right HMAC but in Base64; the interface requires lower-case hex';
    case 'merchant-mismatch':
      return `X-MerchantID is ${JSON.stringify(f.seen)}, expected ${JSON.stringify(f.expected)}`;
    case 'upper-case-hex':
      return 'X-Sign is the right HMAC but in upper-case hex; the interface requires lower-case';
    case 'not-lower-hex':
      return `X-Sign ${JSON.stringify(f.seen)} is not 64 lower-case hex digits`;
    case 'mismatch':
      return 'X-Sign does not match HMAC-SHA256(secret, merchantID LF timestamp LF nonce LF rawBody)';
  }
}
