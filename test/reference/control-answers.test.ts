/**
 * The interface's rules judge only the interface's exchanges (ARCHITECTURE rule 6, harness/target.ts): a sandbox
 * control is the vendor's, outside the document, and its answer is judged only for what the profile says of it (the
 * control succeeded: code 0). The reference answering its controls as a vendor may (reference/sandbox-shape.ts
 * `answers: 'vendor'`: `data.armed.payments.create`, camelCase keys, an epoch time, a three-decimal amount) gives no
 * finding, in the checks or the doctor; the same keys in an interface answer (the fault `resp-camelcase-data`) still do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRecorder, withRecorder } from '../../harness/check/context.js';
import { runCheck } from '../../harness/check/run.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { armFailure, checkout } from '../../harness/ops.js';
import { loadProfile } from '../../harness/profile/load.js';
import { openSession, type Session } from '../../harness/run/session.js';
import { type RunningReference, startReference } from '../../reference/index.js';
import transientFailures from '../../suites/transient-failures.js';

const loaded = loadProfile('fixtures/profiles/reference.json');

describe("a sandbox whose controls answer in the vendor's own names", () => {
  let ref: RunningReference;
  let session: Session;
  beforeAll(async () => {
    ref = await startReference({ target: { sandbox: { answers: 'vendor' } } });
    session = openSession({ loaded, baseUrl: ref.url, rateShares: 1 });
  });
  afterAll(async () => {
    await session?.close();
    await ref?.close();
  });

  it('answers the arming with non-interface keys (data.armed["payments.create"], camelCase)', async () => {
    const rec = newRecorder(['err.pay.creation-failed']);
    const ex = await withRecorder(rec, () =>
      armFailure(session.target, 'orderCreationFailed', 'err.pay.creation-failed', { merchantOrderNo: session.target.newNo('order') }),
    );
    const data = (ex.response!.json as { data: Record<string, unknown> }).data;
    expect(data['armed']).toEqual({ 'payments.create': 1, 'refunds.create': 0 });
    expect(Object.keys(data)).toContain('acceptedAt');
    expect(rec.invariantFindings).toEqual([]);
    // Used up, so that the checks below meet their own.
    await withRecorder(rec, () => checkout(session.target, {}));
  });

  it("passes every transient-failure check with no finding on the controls' answers", async () => {
    for (const check of transientFailures.checks) {
      const r = await runCheck(check, session.target, { seed: 35, numRuns: 5, webhooks: 'off' });
      expect({ check: check.id, status: r.status, findings: r.findings.map((f) => `${f.clause} ${f.code}`) }).toEqual({
        check: check.id,
        status: 'passed',
        findings: [],
      });
    }
  }, 60_000);

  it('gives the doctor no doubt on them', async () => {
    const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
    expect(report.items.filter((i) => i.status === 'wrong' || i.status === 'doubt')).toEqual([]);
  }, 60_000);
});

describe('the same keys in an interface answer', () => {
  let ref: RunningReference;
  let session: Session;
  beforeAll(async () => {
    ref = await startReference({ faults: ['resp-camelcase-data'] });
    session = openSession({ loaded, baseUrl: ref.url, rateShares: 1 });
  });
  afterAll(async () => {
    await session?.close();
    await ref?.close();
  });

  it('still breaks conv.snake-case', async () => {
    const rec = newRecorder(['checkout.creates']);
    await withRecorder(rec, () => checkout(session.target, {}));
    expect(rec.invariantFindings.map((f) => f.clause)).toContain('conv.snake-case');
  });
});
