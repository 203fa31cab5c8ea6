/**
 * HMAC signing for requests, responses and webhooks. Deliberately independent of the harness:
 * a bug shared by both would make them agree with each other and hide it. The kit's own signing is
 * harness/http/signing.ts.
 */
import { createHmac, randomFillSync, timingSafeEqual } from 'node:crypto';

const LF = Buffer.from([0x0a]);

/** merchantID LF timestamp LF nonce LF rawBody, with the body as the exact bytes on the wire. */
export function signingInput(merchantId: string, timestamp: string, nonce: string, rawBody: Buffer): Buffer {
  return Buffer.concat([Buffer.from(merchantId, 'utf8'), LF, Buffer.from(timestamp, 'utf8'), LF, Buffer.from(nonce, 'utf8'), LF, rawBody]);
}

export function hmacDigest(secret: string, input: Buffer): Buffer {
  return createHmac('sha256', secret).update(input).digest();
}

const LOWER_HEX_64 = /^[0-9a-f]{64}$/;

/**
 * Constant-time check of a caller's X-Sign. Only lower-case hex can match: upper-case hex of the
 * right digest is a mismatch, as the interface requires.
 */
export function signatureMatches(secret: string, input: Buffer, presented: string): boolean {
  if (!LOWER_HEX_64.test(presented)) return false;
  return timingSafeEqual(Buffer.from(presented, 'hex'), hmacDigest(secret, input));
}

const NONCE_BYTES = 18;
// Filled 256 nonces at a time: a call into the system's random source per response cost about 10 µs, a slice of
// this 1.4 µs (~2,000 signed answers and webhooks a quick run). Each nonce's bytes are used once.
const noncePool = Buffer.alloc(NONCE_BYTES * 256);
let nonceAt = noncePool.length;

/** 24 characters, inside the recommended 16..32. */
export function freshNonce(): string {
  if (nonceAt + NONCE_BYTES > noncePool.length) {
    randomFillSync(noncePool);
    nonceAt = 0;
  }
  const nonce = noncePool.toString('base64url', nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return nonce;
}
