import { describe, expect, it } from 'vitest';
import { emptyTally } from '../../harness/check/context.js';
import type { CheckResult } from '../../harness/check/run.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { compareCheck, type Difference, type Side } from '../../harness/parity/compare.js';
import { parseDeclared, applyDeclared } from '../../harness/parity/declared.js';
import { normaliseSide, type SideContext } from '../../harness/parity/normalise.js';

const ctxA: SideContext = {
  baseUrl: 'http://127.0.0.1:4001',
  receiverUrl: 'http://127.0.0.1:5001/hook',
  runPrefix: 'KAAA111',
  merchantIds: { M1: 'primary' },
  endpoints: { '/api/v1/payments/query': 'paymentQuery' },
};
const ctxB: SideContext = {
  baseUrl: 'https://sandbox.example',
  receiverUrl: 'http://127.0.0.1:5002/hook',
  runPrefix: 'KBBB222',
  merchantIds: { PROD9: 'primary' },
  endpoints: { '/v1/query': 'paymentQuery' },
};

let seq = 0;
function exchange(
  ctx: SideContext,
  path: string,
  req: unknown,
  status: number,
  res: unknown,
  opts: { signed?: boolean; merchant?: string; nonce?: string } = {},
): Exchange {
  const sign: Record<string, string> =
    opts.signed === false
      ? {}
      : {
          'x-merchantid': opts.merchant ?? 'M1',
          'x-timestamp': String(1_700_000_000 + seq),
          'x-nonce': opts.nonce ?? `n${seq}`,
          'x-sign': `${seq}`.padStart(64, 'a'),
        };
  seq += 1;
  const body = Buffer.from(JSON.stringify(res));
  return {
    id: `x-${seq}`,
    label: 'query a payment',
    request: {
      method: 'POST',
      url: ctx.baseUrl + path,
      headers: { 'X-MerchantID': opts.merchant ?? 'M1', 'X-Nonce': opts.nonce ?? `n${seq}` },
      body: Buffer.from(JSON.stringify(req)),
    },
    response: { status, headers: sign, body, truncated: false, json: res },
    timings: { startedAt: new Date().toISOString(), totalMs: 1 },
    ...(opts.signed === false ? {} : { signature: { ok: true as const } }),
  };
}

function result(over: Partial<CheckResult> = {}): CheckResult {
  return {
    checkId: 'payment-query/x',
    title: 'x',
    clauses: ['query.returns-record'],
    level: 'must',
    status: 'passed',
    findings: [],
    exchanges: [],
    readings: {},
    notes: [],
    exercised: [],
    seed: 1,
    durationMs: 1,
    sent: emptyTally(),
    ...over,
  };
}

function side(ctx: SideContext, exchanges: Exchange[], over: Partial<CheckResult> = {}): Side {
  const r = result(over);
  return { result: r, ...normaliseSide(exchanges, r.readings, ctx) };
}

const record = (orderNo: string, merchantNo: string, at: string, value = '10.00') => ({
  code: 0,
  msg: 'success',
  data: {
    order_no: orderNo,
    merchant_order_no: merchantNo,
    status: 'SUCCESS',
    trans_amount: { currency: 'USD', value },
    created_at: at,
    checkout_url: `${orderNo.startsWith('P') ? 'http://127.0.0.1:4001' : 'https://sandbox.example'}/checkout/${orderNo}`,
  },
});

describe('parity: normalise and compare', () => {
  it('finds two answers equal that differ only in numbers, times, nonces, merchant ids, base URL and endpoint path', () => {
    const a = side(ctxA, [
      exchange(
        ctxA,
        '/api/v1/payments/query',
        { merchant_order_no: 'KAAA111O000003' },
        200,
        record('P0001', 'KAAA111O000003', '2026-01-01T10:00:00+01:00'),
        { nonce: 'abc' },
      ),
    ]);
    const b = side(ctxB, [
      exchange(ctxB, '/v1/query', { merchant_order_no: 'KBBB222O000117' }, 200, record('ZX-99', 'KBBB222O000117', '2027-05-05T23:59:59Z'), {
        merchant: 'PROD9',
        nonce: 'zzz',
      }),
    ]);
    const c = compareCheck(a, b);
    expect(c.differences).toEqual([]);
    expect(c.verdict).toBe('equal');
  });

  it('keeps identity: an answer naming another merchant number than the one asked for differs', () => {
    const a = side(ctxA, [
      exchange(
        ctxA,
        '/api/v1/payments/query',
        { merchant_order_no: 'KAAA111O000003' },
        200,
        record('P1', 'KAAA111O000003', '2026-01-01T10:00:00Z'),
      ),
    ]);
    const b = side(ctxB, [
      exchange(ctxB, '/v1/query', { merchant_order_no: 'KBBB222O000004' }, 200, record('P2', 'KBBB222O000009', '2026-01-01T10:00:00Z')),
    ]);
    const c = compareCheck(a, b);
    expect(c.verdict).toBe('different');
    expect(c.differences.map((d) => d.aspect)).toContain('data');
  });

  it('reports a different HTTP status, code and key, charged to the check’s main clause when no check judged it', () => {
    const err = (code: number, key: string) => ({ code, msg: `Order not found|${key}` });
    const a = side(ctxA, [exchange(ctxA, '/api/v1/payments/query', { order_no: 'X1' }, 200, err(2002, 'orderNotFound'))]);
    const b = side(ctxB, [exchange(ctxB, '/v1/query', { order_no: 'X1' }, 404, err(404, 'notFound'))]);
    const c = compareCheck(a, b);
    expect(c.differences.map((d) => d.aspect).sort()).toEqual(['code', 'http-status', 'key']);
    expect(c.differences.every((d) => d.clause === 'query.returns-record' && d.chargedBy === 'main clause')).toBe(true);
  });

  it('detects a data shape difference: a JSON number for a string, a missing field, two decimals lost', () => {
    const a = side(ctxA, [
      exchange(ctxA, '/api/v1/payments/query', {}, 200, { code: 0, msg: 'success', data: { a: '1', b: { value: '12.50' }, c: true } }),
    ]);
    const b = side(ctxB, [exchange(ctxB, '/v1/query', {}, 200, { code: 0, msg: 'success', data: { a: 1, b: { value: '12.5' } } })]);
    const [d] = compareCheck(a, b).differences;
    expect(d?.aspect).toBe('data');
    expect(d?.detail).toContain('data.a: string 1 vs number 1');
    expect(d?.detail).toContain('data.b.value: 12.50 vs 12.5');
    expect(d?.detail).toContain('data.c: present vs absent');
  });

  it('tells a code sent as a string from an integer, and a success msg other than "success"', () => {
    const a = side(ctxA, [exchange(ctxA, '/api/v1/payments/query', {}, 200, { code: 0, msg: 'success', data: {} })]);
    const b = side(ctxB, [exchange(ctxB, '/v1/query', {}, 200, { code: '0', msg: 'OK', data: {} })]);
    expect(
      compareCheck(a, b)
        .differences.map((d) => d.aspect)
        .sort(),
    ).toEqual(['code', 'key']);
  });

  it('compares response signing: signed and verifying vs unsigned', () => {
    const a = side(ctxA, [exchange(ctxA, '/api/v1/payments/query', {}, 200, { code: 2002, msg: 'x|orderNotFound' })]);
    const b = side(ctxB, [exchange(ctxB, '/v1/query', {}, 200, { code: 2002, msg: 'x|orderNotFound' }, { signed: false })]);
    expect(compareCheck(a, b).differences.map((d) => d.aspect)).toEqual(['signature', 'signature']);
  });

  it('charges a finding one side only has to the finding’s clause, and the check’s other differences with it', () => {
    const a = side(ctxA, [exchange(ctxA, '/api/v1/payments/query', {}, 200, { code: 400, msg: 'x|mutuallyRequiredFieldsMissing' })]);
    const b = side(ctxB, [exchange(ctxB, '/v1/query', {}, 200, { code: 2002, msg: 'x|orderNotFound' })], {
      status: 'failed',
      findings: [{ code: 'WRONG_ERROR', clause: 'query.neither', level: 'must', title: 'm', message: 'm' }],
    });
    const c = compareCheck(a, b);
    expect(new Set(c.differences.map((d) => d.clause))).toEqual(new Set(['query.neither']));
    expect(c.differences.map((d) => d.aspect)).toEqual(expect.arrayContaining(['findings', 'status', 'code', 'key']));
  });

  it('tells one side skipped from both skipped, and compares nothing then', () => {
    const skipped = side(ctxA, [], { status: 'skipped', reason: 'precondition: no refunds' });
    expect(compareCheck(skipped, side(ctxB, [])).verdict).toBe('one side skipped');
    expect(compareCheck(skipped, side(ctxB, [], { status: 'skipped' })).verdict).toBe('both skipped');
  });

  it('does not count measured durations in readings as a difference', () => {
    const a = side(ctxA, [], { readings: { 'webhook.first-wait': '76 ms' } });
    const b = side(ctxB, [], { readings: { 'webhook.first-wait': '81 ms' } });
    expect(compareCheck(a, b).verdict).toBe('equal');
  });

  it('validates a declared-differences file with clear reasons, and applies it by clause and aspect', () => {
    const known = {
      isClause: (id: string) => id === 'query.neither' || id === 'query.',
      isCheck: (id: string) => id === 'payment-query/x',
    };
    expect(() => parseDeclared('{', 'd.json', known)).toThrow(/d\.json: not valid JSON/);
    expect(() => parseDeclared('{}', 'd.json', known)).toThrow(/must be a JSON list/);
    expect(() => parseDeclared('[{"what":["code"],"reason":"r"}]', 'd.json', known)).toThrow(
      /entry 1: give exactly one of "clause" and "check"/,
    );
    expect(() => parseDeclared('[{"clause":"no.such","what":["code"],"reason":"r"}]', 'd.json', known)).toThrow(
      /clause "no.such" is neither/,
    );
    expect(() => parseDeclared('[{"check":"x/y","what":["code"],"reason":"r"}]', 'd.json', known)).toThrow(
      /check "x\/y" is not a check id/,
    );
    expect(() => parseDeclared('[{"clause":"query.neither","what":["colour"],"reason":"r"}]', 'd.json', known)).toThrow(
      /"what" must be a non-empty list/,
    );
    expect(() => parseDeclared('[{"clause":"query.neither","what":["code"]}]', 'd.json', known)).toThrow(/"reason" must say why/);
    expect(() => parseDeclared('[{"clause":"query.neither","what":["code"],"reason":"r","note":1}]', 'd.json', known)).toThrow(
      /unknown field "note"/,
    );
    const entries = parseDeclared('[{"clause":"query.","what":["code","key"],"reason":"production answers 404"}]', 'd.json', known);
    const diffs: Difference[] = [
      { checkId: 'c', clause: 'query.neither', aspect: 'code', detail: '', chargedBy: 'finding' },
      { checkId: 'c', clause: 'query.neither', aspect: 'http-status', detail: '', chargedBy: 'finding' },
    ];
    applyDeclared(diffs, entries);
    expect(diffs.map((d) => d.declared)).toEqual(['production answers 404', undefined]);
  });
});
