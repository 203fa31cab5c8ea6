/** The webhooks the kit plays the service with are what the Events section describes: the kit's own schema says so. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validate } from '../../harness/http/envelope.js';
import { type Kind, LAYOUTS, STATUSES, bodyArb, bytesOf } from '../../harness/merchant/receiver/webhooks.js';

describe('generated webhook bodies', () => {
  for (const kind of ['payment', 'refund', 'payout'] as Kind[]) {
    for (const offsets of ['utc', 'non-utc'] as const) {
      it(`${kind} bodies (${offsets} times) pass the webhook schema in every layout`, () => {
        fc.assert(
          fc.property(bodyArb(kind, offsets), fc.constantFrom(...LAYOUTS), (body, layout) => {
            const parsed = JSON.parse(bytesOf(body, layout).toString()) as Record<string, unknown>;
            expect(validate('webhook', parsed)).toEqual([]);
            expect(parsed).toEqual(body);
            expect(STATUSES[kind]).toContain(parsed['status']);
            const times = [parsed['created_at'], parsed['finished_at']].filter((t) => t !== undefined).map(String);
            for (const t of times)
              expect(offsets === 'utc' ? /(Z|\+00:00)$/.test(t) : /[+-]\d\d:\d\d$/.test(t) && !t.endsWith('+00:00')).toBe(true);
          }),
          { seed: 11, numRuns: 60 },
        );
      });
    }
  }

  it('covers requested_amount present and absent, metadata empty and not', () => {
    const sample = fc.sample(bodyArb('payment'), { seed: 3, numRuns: 200 });
    expect(sample.some((b) => 'requested_amount' in b)).toBe(true);
    expect(sample.some((b) => !('requested_amount' in b))).toBe(true);
    expect(sample.some((b) => b['metadata'] === '')).toBe(true);
    expect(sample.some((b) => b['metadata'] !== '')).toBe(true);
  });
});
