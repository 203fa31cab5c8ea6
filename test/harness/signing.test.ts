import { describe, expect, it } from 'vitest';
import {
  describeVerifyFailure,
  headerValue,
  hmacHex,
  SIGNING_HEADERS,
  sign,
  stringToSign,
  type VerifyFailure,
  verify,
} from '../../harness/http/signing.js';

/*
 * Every expected value below was computed outside Node with OpenSSL 3.0.19 when the test was written,
 * never with node:crypto, e.g.
 *   printf 'M100001\n1700000000\nabcdefghijklmnop\n{"a":1}' | openssl dgst -sha256 -hmac 'secret'
 *   printf 'M100001\n1700000000\nabcdefghijklmnop\n{"a":1}' | xxd -p
 * The CR LF vector uses real CR (0x0d) LF (0x0a) bytes inside the JSON string
 *   printf 'M100001\n1700000000\nabcdefghijklmnop\n{"d":"a\r\nb"}'
 * (strictly that is not valid JSON — control characters must be escaped — which is the point: the
 * signature is over bytes, whatever they are). A second vector uses the JSON escape, the six ASCII
 * characters a \ r \ n b, written with printf '...%s' '{"d":"a\r\nb"}' so printf does not expand them.
 */
const creds = { merchantId: 'M100001', secret: 'secret' };
const TS = '1700000000';
const NONCE = 'abcdefghijklmnop';

const vectors = {
  plain: {
    body: Buffer.from('{"a":1}', 'utf8'),
    toSignHex: '4d3130303030310a313730303030303030300a6162636465666768696a6b6c6d6e6f700a7b2261223a317d',
    hmac: '915caffb492b283925ed792c21110c431caf61663e3e6366c6a5a794f7bf3eaa',
  },
  utf8: {
    body: Buffer.from('{"goods_name":"Café ☕ 東京"}', 'utf8'),
    toSignHex:
      '4d3130303030310a313730303030303030300a6162636465666768696a6b6c6d6e6f7' +
      '00a7b22676f6f64735f6e616d65223a22436166c3a920e2989520e69db1e4baac227d',
    hmac: '3397fc4f033a77c0a5d31d534e225ad2a0e4e3ed55166c773f79fdff52e3dadc',
  },
  crlfRaw: {
    body: Buffer.from('{"d":"a\r\nb"}', 'utf8'), // real CR LF bytes
    toSignHex: '4d3130303030310a313730303030303030300a6162636465666768696a6b6c6d6e6f700a7b2264223a22610d0a62227d',
    hmac: '8f6e5bad2398990d399cc9c668a6c3885e1edc868f6fcc804f3f882487e9d636',
  },
  crlfEscaped: {
    body: Buffer.from(String.raw`{"d":"a\r\nb"}`, 'utf8'), // backslash-r backslash-n, valid JSON
    toSignHex: undefined,
    hmac: '97691441a8e8807a5d56932c8e4caed5813f7542b3e3fa593efc7d4abfd23b71',
  },
  empty: {
    body: Buffer.alloc(0),
    toSignHex: '4d3130303030310a313730303030303030300a6162636465666768696a6b6c6d6e6f700a',
    hmac: 'e965aa6c1c077abdb1f49d629e647e7da8e29c24b132dab242bbf7500a9ebd8c',
  },
} as const;

/** openssl dgst -sha256 -hmac 'secret' over '{"a": 1}' (one space more than plain). */
const HMAC_PLAIN_WITH_SPACE = 'cec07d1dc5af8281eeeba847beb4385b0a91252e5fd211a7420d9d6069435306';
/** openssl dgst -sha256 -hmac 'other-secret' over the plain vector. */
const HMAC_PLAIN_OTHER_SECRET = 'd5a5cd1790fbbb0f01c2c1828a9db40e287319c6e1099f24cb03def8817d5395';
/** openssl dgst -sha256 -hmac 'secret' -binary over the plain vector | base64: the right MAC, wrong encoding. */
const BASE64_PLAIN = 'kVyv+0krKDkl7XksIREMQxyvYWY+PmNmxqWnlPe/Pqo=';

function signedHeaders(xSign: string, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const h: Record<string, string | undefined> = {
    'X-MerchantID': creds.merchantId,
    'X-Timestamp': TS,
    'X-Nonce': NONCE,
    'X-Sign': xSign,
    ...overrides,
  };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = v;
  return out;
}

describe('stringToSign', () => {
  for (const [name, v] of Object.entries(vectors)) {
    if (!v.toSignHex) continue;
    it(`is merchantID LF timestamp LF nonce LF rawBody, byte for byte (${name})`, () => {
      const bytes = stringToSign(creds.merchantId, TS, NONCE, v.body);
      expect(bytes.toString('hex')).toBe(v.toSignHex);
    });
  }

  it('uses single LF separators, never CR LF', () => {
    const bytes = stringToSign(creds.merchantId, TS, NONCE, vectors.plain.body);
    expect(bytes.includes(0x0d)).toBe(false);
    expect([...bytes].filter((b) => b === 0x0a)).toHaveLength(3);
  });

  it('keeps CR LF inside the body untouched', () => {
    const bytes = stringToSign(creds.merchantId, TS, NONCE, vectors.crlfRaw.body);
    expect(bytes.subarray(bytes.length - vectors.crlfRaw.body.length).equals(vectors.crlfRaw.body)).toBe(true);
    expect(bytes.includes(Buffer.from('a\r\nb'))).toBe(true);
  });
});

describe('hmacHex', () => {
  for (const [name, v] of Object.entries(vectors)) {
    it(`matches the OpenSSL vector in lower-case hex (${name})`, () => {
      const hex = hmacHex(creds.secret, stringToSign(creds.merchantId, TS, NONCE, v.body));
      expect(hex).toBe(v.hmac);
      expect(hex).toMatch(/^[0-9a-f]{64}$/);
    });
  }

  it('depends on the secret', () => {
    expect(hmacHex('other-secret', stringToSign(creds.merchantId, TS, NONCE, vectors.plain.body))).toBe(HMAC_PLAIN_OTHER_SECRET);
  });

  it('depends on body whitespace (equal JSON, different bytes, different signature)', () => {
    const spaced = Buffer.from('{"a": 1}', 'utf8');
    expect(hmacHex(creds.secret, stringToSign(creds.merchantId, TS, NONCE, spaced))).toBe(HMAC_PLAIN_WITH_SPACE);
    expect(HMAC_PLAIN_WITH_SPACE).not.toBe(vectors.plain.hmac);
  });
});

describe('sign', () => {
  it('returns the four headers, in interface spelling, with a fixed timestamp and nonce', () => {
    const h = sign(creds, vectors.utf8.body, { timestamp: TS, nonce: NONCE });
    expect(h).toEqual({
      'X-MerchantID': 'M100001',
      'X-Timestamp': '1700000000',
      'X-Nonce': 'abcdefghijklmnop',
      'X-Sign': vectors.utf8.hmac,
    });
    expect(Object.keys(h)).toEqual([...SIGNING_HEADERS]);
  });

  it('signs an empty body', () => {
    expect(sign(creds, vectors.empty.body, { timestamp: TS, nonce: NONCE })['X-Sign']).toBe(vectors.empty.hmac);
  });

  it('defaults to a seconds timestamp and a 16..32 character nonce', () => {
    const before = Math.floor(Date.now() / 1000);
    const h = sign(creds, vectors.plain.body);
    const after = Math.floor(Date.now() / 1000);
    expect(h['X-Timestamp']).toMatch(/^\d{10}$/);
    expect(Number(h['X-Timestamp'])).toBeGreaterThanOrEqual(before);
    expect(Number(h['X-Timestamp'])).toBeLessThanOrEqual(after);
    expect(h['X-Nonce'].length).toBeGreaterThanOrEqual(16);
    expect(h['X-Nonce'].length).toBeLessThanOrEqual(32);
    expect(sign(creds, vectors.plain.body)['X-Nonce']).not.toBe(h['X-Nonce']);
  });

  it('does not put the secret in any header', () => {
    const h = sign(creds, vectors.plain.body, { timestamp: TS, nonce: NONCE });
    expect(JSON.stringify(h)).not.toContain(creds.secret);
  });
});

describe('verify', () => {
  it('accepts the OpenSSL vectors', () => {
    for (const v of Object.values(vectors)) {
      expect(verify(signedHeaders(v.hmac), v.body, creds)).toEqual({ ok: true });
    }
  });

  it('accepts lower-case header names as undici delivers them', () => {
    const headers = {
      'x-merchantid': 'M100001',
      'x-timestamp': TS,
      'x-nonce': NONCE,
      'x-sign': vectors.plain.hmac,
      'content-type': 'application/json',
    };
    expect(verify(headers, vectors.plain.body, creds)).toEqual({ ok: true });
  });

  for (const header of SIGNING_HEADERS) {
    it(`reports missing-header for ${header}`, () => {
      const headers = signedHeaders(vectors.plain.hmac, { [header]: undefined });
      expect(verify(headers, vectors.plain.body, creds)).toEqual({ ok: false, reason: 'missing-header', header });
    });
    it(`reports empty-header for ${header}`, () => {
      const headers = signedHeaders(vectors.plain.hmac, { [header]: '' });
      expect(verify(headers, vectors.plain.body, creds)).toEqual({ ok: false, reason: 'empty-header', header });
    });
  }

  it('reports merchant-mismatch when X-MerchantID is another merchant', () => {
    const headers = signedHeaders(vectors.plain.hmac, { 'X-MerchantID': 'M100002' });
    expect(verify(headers, vectors.plain.body, creds)).toEqual({
      ok: false,
      reason: 'merchant-mismatch',
      expected: 'M100001',
      seen: 'M100002',
    });
  });

  it('reports upper-case-hex for the right MAC in upper case', () => {
    const headers = signedHeaders(vectors.plain.hmac.toUpperCase());
    expect(verify(headers, vectors.plain.body, creds)).toEqual({ ok: false, reason: 'upper-case-hex' });
  });

  it('reports base64 for the right MAC in Base64', () => {
    expect(verify(signedHeaders(BASE64_PLAIN), vectors.plain.body, creds)).toEqual({ ok: false, reason: 'base64' });
  });

  it('reports not-lower-hex for a Base64 value that is not the right MAC', () => {
    const other = Buffer.from(HMAC_PLAIN_OTHER_SECRET, 'hex').toString('base64');
    expect(verify(signedHeaders(other), vectors.plain.body, creds)).toEqual({ ok: false, reason: 'not-lower-hex', seen: other });
  });

  it('reports not-lower-hex for an upper-case value that is not the right MAC', () => {
    const wrongUpper = HMAC_PLAIN_OTHER_SECRET.toUpperCase();
    expect(verify(signedHeaders(wrongUpper), vectors.plain.body, creds)).toMatchObject({ ok: false, reason: 'not-lower-hex' });
  });

  it('reports not-lower-hex for a too-short value and truncates a very long one', () => {
    expect(verify(signedHeaders(vectors.plain.hmac.slice(0, 63)), vectors.plain.body, creds)).toMatchObject({
      reason: 'not-lower-hex',
    });
    const long = 'a'.repeat(200);
    const r = verify(signedHeaders(long), vectors.plain.body, creds) as Extract<VerifyFailure, { reason: 'not-lower-hex' }>;
    expect(r.reason).toBe('not-lower-hex');
    expect(r.seen.length).toBeLessThanOrEqual(81);
  });

  it('reports mismatch when one byte of the body changed', () => {
    const changed = Buffer.from(vectors.plain.body);
    changed[5] = 0x32; // {"a":1} -> {"a":2}
    expect(changed.toString()).toBe('{"a":2}');
    expect(verify(signedHeaders(vectors.plain.hmac), changed, creds)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('reports mismatch when the JSON was re-serialised with different whitespace', () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(vectors.utf8.body.toString('utf8')), null, 2), 'utf8');
    expect(verify(signedHeaders(vectors.utf8.hmac), reserialised, creds)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verify(signedHeaders(vectors.plain.hmac), Buffer.from('{"a": 1}'), creds)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('reports mismatch when CR LF inside the body was normalised to LF', () => {
    const normalised = Buffer.from('{"d":"a\nb"}', 'utf8');
    expect(verify(signedHeaders(vectors.crlfRaw.hmac), normalised, creds)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('reports mismatch for a signature made with another secret', () => {
    expect(verify(signedHeaders(HMAC_PLAIN_OTHER_SECRET), vectors.plain.body, creds)).toEqual({ ok: false, reason: 'mismatch' });
  });

  it('reports mismatch when the timestamp or nonce differs from what was signed', () => {
    expect(verify(signedHeaders(vectors.plain.hmac, { 'X-Timestamp': '1700000001' }), vectors.plain.body, creds)).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verify(signedHeaders(vectors.plain.hmac, { 'X-Nonce': 'abcdefghijklmnoq' }), vectors.plain.body, creds)).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('refuses a repeated signing header even when one value is right', () => {
    const headers = { ...signedHeaders(vectors.plain.hmac), 'X-Sign': [vectors.plain.hmac, '00'] };
    expect(verify(headers, vectors.plain.body, creds)).toEqual({ ok: false, reason: 'duplicate-header', header: 'X-Sign' });
  });

  it('clips a huge X-MerchantID in a merchant-mismatch verdict', () => {
    const v = verify(signedHeaders(vectors.plain.hmac, { 'X-MerchantID': 'M'.repeat(10_000) }), vectors.plain.body, creds);
    expect(v.ok === false && v.reason === 'merchant-mismatch' && v.seen.length).toBeLessThanOrEqual(81);
  });

  it('never puts the secret in a verdict or its description', () => {
    const failures: VerifyFailure[] = [
      verify(signedHeaders(vectors.plain.hmac, { 'X-Sign': undefined }), vectors.plain.body, creds),
      verify(signedHeaders(vectors.plain.hmac, { 'X-Nonce': '' }), vectors.plain.body, creds),
      verify(signedHeaders(vectors.plain.hmac, { 'X-MerchantID': 'M9' }), vectors.plain.body, creds),
      verify(signedHeaders(vectors.plain.hmac.toUpperCase()), vectors.plain.body, creds),
      verify(signedHeaders(BASE64_PLAIN), vectors.plain.body, creds),
      verify(signedHeaders(HMAC_PLAIN_OTHER_SECRET), vectors.plain.body, creds),
    ].filter((r): r is VerifyFailure => !r.ok);
    expect(new Set(failures.map((f) => f.reason)).size).toBe(6);
    const secret = 'sk_live_do_not_leak_0123';
    for (const f of failures) {
      expect(describeVerifyFailure(f)).not.toContain(secret);
      expect(JSON.stringify(f)).not.toContain(secret);
    }
    const withSecret = { merchantId: 'M100001', secret };
    for (const r of [
      verify(signedHeaders(vectors.plain.hmac), vectors.plain.body, withSecret),
      verify(signedHeaders(BASE64_PLAIN), vectors.plain.body, withSecret),
    ]) {
      expect(JSON.stringify(r)).not.toContain(secret);
      if (!r.ok) expect(describeVerifyFailure(r)).not.toContain(secret);
    }
  });
});

describe('headerValue', () => {
  const headers = { 'X-Sign': 'abc', 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'], 'x-empty': '' };

  it('finds a header whatever the case of the name asked for or stored', () => {
    expect(headerValue(headers, 'x-sign')).toBe('abc');
    expect(headerValue(headers, 'X-SIGN')).toBe('abc');
    expect(headerValue(headers, 'X-Sign')).toBe('abc');
    expect(headerValue(headers, 'Content-Type')).toBe('application/json');
  });

  it('returns the first value of a repeated header, an empty value as empty, and undefined when absent', () => {
    expect(headerValue(headers, 'Set-Cookie')).toBe('a=1');
    expect(headerValue(headers, 'X-Empty')).toBe('');
    expect(headerValue(headers, 'X-Nonce')).toBeUndefined();
  });
});
