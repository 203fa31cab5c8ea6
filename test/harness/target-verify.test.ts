/**
 * A response is verified with the merchant's own secret from the profile, not with whatever secret
 * the request was signed with: a target that wrongly accepts a bad signature still signs its answer
 * with the real secret, and that answer's signature is not the target's fault.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRecorder, withRecorder } from '../../harness/check/context.js';
import { loadProfile } from '../../harness/profile/load.js';
import { openSession, type Session } from '../../harness/run/session.js';
import { type RunningReference, startReference } from '../../reference/index.js';

let ref: RunningReference;
let session: Session;

beforeAll(async () => {
  ref = await startReference({ port: 0, faults: ['auth-accept-bad-sign'] });
  session = openSession({ loaded: loadProfile('fixtures/profiles/reference.json'), baseUrl: ref.url });
});

afterAll(async () => {
  await session.close();
  await ref.close();
});

describe('response verification', () => {
  it("verifies an answer to a request signed with a wrong secret against the merchant's own secret", async () => {
    const t = session.target;
    const me = t.merchant('primary');
    const rec = newRecorder();
    const ex = await withRecorder(rec, () =>
      t.post(t.path('paymentQuery'), { merchant_order_no: t.newNo('order') }, { as: { ...me, secret: 'not-the-secret' } }),
    );
    expect(ex.response?.status).toBe(200);
    expect(ex.signature?.ok).toBe(true);
    expect(rec.invariantFindings.filter((f) => f.clause === 'auth.response.signed')).toEqual([]);
  });
});
