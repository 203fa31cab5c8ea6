import { describe, expect, it } from 'vitest';
import { defineSuite } from '../../harness/check/define.js';
import { expectError, expectSuccess, failCheck, held } from '../../harness/check/expect.js';
import { runCheck } from '../../harness/check/run.js';
import type { Exchange } from '../../harness/http/exchange.js';
import type { Target } from '../../harness/target.js';

/**
 * An assertion that names no clause enforces the running check's main (first) clause: its finding is charged there,
 * its evidence credited there. Outside a check there is no such clause, and the assertion says so rather than guess.
 */
function answer(json: unknown): Exchange {
  const body = Buffer.from(JSON.stringify(json));
  return {
    id: 'x-000001',
    label: 'a request',
    request: { method: 'POST', url: 'http://t/x', headers: {}, body: Buffer.from('{}') },
    response: { status: 200, headers: {}, body, truncated: false, json },
    timings: { startedAt: new Date().toISOString(), totalMs: 1 },
  };
}

const settings = { seed: 1, numRuns: 1, webhooks: 'off' as const };
const target = {} as Target;
const accepted = answer({ code: 0, msg: 'success', data: { order_no: 'P1' } });

describe('the check’s own clause as the default', () => {
  it('charges a finding of an assertion that names no clause to the check’s first clause', async () => {
    const [check] = defineSuite('x', { area: 'refunds', resource: 'refund' }, [
      {
        title: 'refuses',
        clause: ['err.ref.amount-exceeded', 'err.ref.codes'],
        async run() {
          expectError(accepted, { code: 422, key: 'amountExceeded' }, { what: 'a refund above the payment' });
        },
      },
    ]).checks;
    const r = await runCheck(check!, target, settings);
    expect(r.status).toBe('failed');
    expect(r.findings.map((f) => [f.code, f.clause, f.title])).toEqual([
      [
        'ACCEPTED_BUT_SHOULD_REFUSE',
        'err.ref.amount-exceeded',
        'a refund above the payment should be refused with code 422 `amountExceeded`',
      ],
    ]);
  });

  it('charges failCheck with options only to the first clause, and a named clause to that one', async () => {
    const run = async (named: boolean) => {
      const [check] = defineSuite('x', { area: 'payments', resource: 'payment' }, [
        {
          title: 'fails',
          clause: ['query.returns-record', 'env.body.object'],
          async run() {
            const opts = { code: 'X', title: 't', expected: 'e', seen: 's' };
            if (named) failCheck('env.body.object', opts);
            failCheck(opts);
          },
        },
      ]).checks;
      return (await runCheck(check!, target, settings)).findings.map((f) => f.clause);
    };
    expect(await run(false)).toEqual(['query.returns-record']);
    expect(await run(true)).toEqual(['env.body.object']);
  });

  it('credits the first clause for held() and an expectSuccess without a clause', async () => {
    const [check] = defineSuite('x', { area: 'stateful', resource: 'payment' }, [
      {
        title: 'catalogue',
        clause: ['query.returns-record', 'env.body.object'],
        credit: 'recorded',
        async run() {
          expectSuccess(accepted, { what: 'a query' });
          held();
        },
      },
    ]).checks;
    const r = await runCheck(check!, target, settings);
    expect(r.status).toBe('passed');
    expect(r.exercised).toEqual(['query.returns-record']);
  });

  it('refuses an assertion without a clause outside a check', () => {
    expect(() => expectSuccess(accepted)).toThrow(/outside a check: pass the clause/);
    expect(() => held()).toThrow(/outside a check/);
  });
});
