import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { rawExchange } from './helpers/client.js';

/**
 * The reference behind `serve --latency` (field conditions) must still answer as the reference does: the
 * request's language is the request's, whenever the service gets to it. A half-closed body shorter than its
 * Content-Length is reported from the server's 'clientError', which can come before the delayed service sees the
 * request; the answer was `Internal server error|internalServerError` with Accept-Language: en (a false failure of
 * ep.accept-language-en in a quick run behind --latency 50).
 */
let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ readTimeoutMs: 300, latencyMs: 100 });
});
afterAll(async () => {
  await ref.close();
});

describe('the reference behind a gateway latency', () => {
  it('answers an unreadable body in plain English when the request asked for it', async () => {
    const head =
      'POST /api/v1/payments/query HTTP/1.1\r\nHost: x\r\nContent-Type: ' +
      'application/json\r\nAccept-Language: en\r\nContent-Length: 100\r\n\r\n{"a":1';
    const answer = await rawExchange(ref.url, head, true);
    expect(answer.startsWith('HTTP/1.1 500')).toBe(true);
    expect(answer).toContain('"msg":"Internal server error"');
    expect(answer).not.toContain('internalServerError');
  });
});
