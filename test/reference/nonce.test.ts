/**
 * The reference's response and webhook nonces (reference/signing.ts): random, unique, of the recommended length, and
 * drawn from the system's random source in batches, not once per answer.
 */
import { describe, expect, it, vi } from 'vitest';

const calls = { randomBytes: 0, randomFillSync: 0 };
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    randomBytes: ((...a: Parameters<typeof real.randomBytes>) => {
      calls.randomBytes += 1;
      return real.randomBytes(...a);
    }) as typeof real.randomBytes,
    randomFillSync: (<T extends NodeJS.ArrayBufferView>(buf: T, ...rest: [number?, number?]) => {
      calls.randomFillSync += 1;
      return real.randomFillSync(buf, ...rest);
    }) as typeof real.randomFillSync,
  };
});

const { freshNonce } = await import('../../reference/signing.js');

describe('reference nonces', () => {
  it('are 24 base64url characters, never repeated, and drawn in batches', () => {
    const n = 1_000;
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) {
      const nonce = freshNonce();
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{24}$/);
      seen.add(nonce);
    }
    expect(seen.size).toBe(n);
    // One draw per 256 nonces at most (plus the first); a draw per nonce was 1,000.
    expect(calls.randomBytes + calls.randomFillSync).toBeGreaterThan(0);
    expect(calls.randomBytes + calls.randomFillSync).toBeLessThanOrEqual(Math.ceil(n / 256) + 1);
  });
});
