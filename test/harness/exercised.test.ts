import type { ClauseId } from '../../harness/clauses/registry.js';
import { describe, expect, it } from 'vitest';
import { defineSuite } from '../../harness/check/define.js';
import { recordExchange } from '../../harness/check/context.js';
import { expectError, expectOneOf, expectSuccess } from '../../harness/check/expect.js';
import { responseInvariants } from '../../harness/check/invariants.js';
import { runCheck } from '../../harness/check/run.js';
import type { Exchange } from '../../harness/http/exchange.js';
import type { Target } from '../../harness/target.js';

/** The evidence a check is credited with: what its assertions evaluated and found kept, never what it names. */
function answer(json: unknown, id = 'x-000001'): Exchange {
  const body = Buffer.from(JSON.stringify(json));
  return {
    id,
    label: 'a request',
    request: { method: 'POST', url: 'http://t/x', headers: {}, body: Buffer.from('{}') },
    response: { status: 200, headers: {}, body, truncated: false, json },
    timings: { startedAt: new Date().toISOString(), totalMs: 1 },
  };
}

const settings = { seed: 1, numRuns: 1, webhooks: 'off' as const };
const target = {} as Target;
const refusal = answer({ code: 422, msg: 'Refund request failed|refundFailed' });

describe('exercised clauses', () => {
  it('credits what an assertion evaluated, and the own clause of a passed check, not the other clauses it names', async () => {
    const [check] = defineSuite('x', { area: 'refunds', resource: 'refund' }, [
      {
        title: 'names three, exercises two',
        clause: ['err.ref.amount-exceeded', 'err.ref.failed', 'err.ref.codes'],
        async run() {
          recordExchange(refusal);
          expectError(refusal, { code: 422, key: 'refundFailed' }, 'err.ref.codes');
        },
      },
    ]).checks;
    const r = await runCheck(check!, target, settings);
    expect(r.status).toBe('passed');
    expect(r.exercised).toEqual(['err.ref.amount-exceeded', 'err.ref.codes']);
  });

  it(`credits only recorded evidence for a check that opts out of \
own-clause credit (a clause catalogue, like the stateful suite)`, async () => {
    const [check] = defineSuite('x', { area: 'stateful', resource: 'payment' }, [
      {
        title: 'random sequences',
        clause: ['err.ref.amount-exceeded', 'err.ref.failed'],
        credit: 'recorded',
        async run() {
          recordExchange(refusal);
          // The outcome that was hit names its own clause: that one is exercised, not the check's first.
          expectOneOf(
            refusal,
            [
              { code: 422, key: 'refundFailed', clause: 'err.ref.failed' },
              { code: 422, key: 'amountExceeded', clause: 'err.ref.amount-exceeded' },
            ],
            'err.ref.amount-exceeded',
            { topic: 'stateful.refused-refund-queried' },
          );
        },
      },
    ]).checks;
    const r = await runCheck(check!, target, settings);
    expect(r.exercised).toEqual(['err.ref.failed']);
  });

  it('never credits a clause a finding was charged to, and nothing for a skipped check', async () => {
    const { checks } = defineSuite('x', { area: 'refunds', resource: 'refund' }, [
      {
        title: 'passes one then fails it',
        clause: ['err.ref.failed'],
        async run() {
          recordExchange(refusal);
          expectError(refusal, { code: 422, key: 'refundFailed' }, 'err.ref.failed');
          expectSuccess(refusal, 'err.ref.failed');
        },
      },
      {
        title: 'skips',
        clause: ['err.ref.failed'],
        async run() {
          const { PreconditionSkip } = await import('../../harness/check/failure.js');
          throw new PreconditionSkip('no failing reason');
        },
      },
    ]);
    const failed = await runCheck(checks[0]!, target, settings);
    expect(failed.status).toBe('failed');
    expect(failed.exercised).not.toContain('err.ref.failed');
    expect((await runCheck(checks[1]!, target, settings)).exercised).toEqual([]);
  });

  it('credits only the invariant rules an exchange gave something to judge', () => {
    const examined = new Set<ClauseId>();
    responseInvariants(refusal, { verifySignature: false, examined });
    expect([...examined].sort()).toEqual([
      'env.body.object',
      'env.code.integer',
      'env.data.omitted-on-error',
      'env.msg.message-key',
      'ep.http-200-signed',
    ]);
    const success = new Set<ClauseId>();
    responseInvariants(answer({ code: 0, msg: 'success', data: { order_no: 'P1', trans_amount: { currency: 'USD', value: '1.00' } } }), {
      verifySignature: false,
      examined: success,
    });
    expect(success.has('amount.value.two-decimals-out')).toBe(true);
    expect(success.has('conv.time.rfc3339-offset')).toBe(false);
    expect(success.has('env.data.omitted-on-error')).toBe(false);
  });
});
