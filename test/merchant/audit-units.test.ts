/** The audit's rules on hand-made requests: what must not be diagnosed, and the cases the client faults do not reach. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClientAudit } from '../../harness/merchant/audit/audit.js';
import { classify, type Operation, sequenceMistakes, transientMistakes } from '../../harness/merchant/audit/sequence.js';
import { signatureMistakes } from '../../harness/merchant/audit/signature.js';
import { reserialisationText } from '../../harness/merchant/audit/families.js';
import type { MerchantKeys, SeenRequest } from '../../harness/merchant/audit/types.js';
import { merchantVerdict } from '../../harness/merchant/report.js';

const OPS = new Map<string, Operation>([
  ['/pay', 'payment-create'],
  ['/query', 'payment-query'],
]);
const KEYS: MerchantKeys[] = [
  { id: 'M1', test: 'sk_test_one_0000000000', production: 'sk_live_one_0000000000' },
  { id: 'M2', test: 'sk_test_two_0000000000' },
];

let clock = 1000;
function req(
  path: string,
  body: object,
  answer: { code: number; key?: string; http?: number },
  headers: Record<string, string> = {},
  conn = 1,
): SeenRequest {
  clock += 10;
  return {
    method: 'POST',
    path,
    headers: { 'x-merchantid': 'M1', 'content-type': 'application/json', ...headers },
    body: Buffer.from(JSON.stringify(body)),
    receivedAt: clock,
    answeredAt: clock + 2,
    http: answer.http ?? 200,
    code: answer.code,
    key: answer.key,
    connection: { id: conn, openedAt: 0, index: 1 },
  };
}

const names = (list: SeenRequest[]) => sequenceMistakes(classify(list, OPS)).map((d) => d.name);

describe('sequence rules', () => {
  it('a number refused before anything was recorded may be sent again', () => {
    expect(
      names([
        req('/pay', { merchant_order_no: 'A' }, { code: 400, key: 'invalidRequest' }),
        req('/pay', { merchant_order_no: 'A' }, { code: 0 }),
      ]),
    ).toEqual([]);
  });

  it('a create sent again after it was recorded: without a query in between, and after one', () => {
    expect(
      names([
        req('/pay', { merchant_order_no: 'B' }, { code: 0 }),
        req('/pay', { merchant_order_no: 'B' }, { code: 422, key: 'duplicateMerchantOrder' }),
      ]),
    ).toEqual(['retry-without-query']);
    expect(
      names([
        req('/pay', { merchant_order_no: 'C' }, { code: 422, key: 'systemBusy' }),
        req('/query', { merchant_order_no: 'C' }, { code: 2002, key: 'orderNotFound' }),
        req('/pay', { merchant_order_no: 'C' }, { code: 0 }),
      ]),
    ).toEqual(['create-repeated']);
  });

  it('requests refused by authentication reached no order and do not count', () => {
    expect(
      names([
        req('/pay', { merchant_order_no: 'D' }, { code: 403, key: 'forbidden', http: 403 }),
        req('/pay', { merchant_order_no: 'D' }, { code: 0 }),
      ]),
    ).toEqual([]);
  });
});

describe('after transient answers (--rough)', () => {
  const transient = (list: SeenRequest[]) => transientMistakes(list, classify(list, OPS), OPS).map((d) => [d.name, d.clause, d.requests]);
  const busy = () => req('/pay', { merchant_order_no: 'B1' }, { code: 422, key: 'systemBusy' });

  it('a new number after a busy create needs a query by the first number answered in between', () => {
    expect(transient([busy(), req('/pay', { merchant_order_no: 'B2' }, { code: 0 })])).toEqual([
      ['new-number-without-query', 'idem.create-once', [1, 2]],
    ]);
    expect(
      transient([
        busy(),
        req('/query', { merchant_order_no: 'B1' }, { code: 500, key: 'queryFailed' }),
        req('/pay', { merchant_order_no: 'B2' }, { code: 0 }),
      ]).map((d) => d[0]),
    ).toEqual(['new-number-without-query', 'query-not-retried']);
    expect(
      transient([
        busy(),
        req('/query', { merchant_order_no: 'B1' }, { code: 2002, key: 'orderNotFound' }),
        req('/pay', { merchant_order_no: 'B2' }, { code: 0 }),
      ]),
    ).toEqual([]);
  });

  it('a query answered queryFailed is sent again, by the same number', () => {
    expect(
      transient([req('/query', { order_no: 'P1' }, { code: 500, key: 'queryFailed' }), req('/query', { order_no: 'P1' }, { code: 0 })]),
    ).toEqual([]);
    expect(
      transient([req('/query', { order_no: 'P1' }, { code: 500, key: 'queryFailed' }), req('/query', { order_no: 'P2' }, { code: 0 })]),
    ).toEqual([['query-not-retried', 'client.query.retry', [1]]]);
  });
});

describe('signature diagnosis', () => {
  const body = Buffer.from('{"merchant_order_no":"X"}');
  const signed = (id: string, key: string, sep = '\n') =>
    createHmac('sha256', key)
      .update(Buffer.concat([Buffer.from(`${id}${sep}1700000000${sep}nonce-nonce-nonce-1${sep}`), body]))
      .digest('hex');
  const seen = (id: string, sign: string): SeenRequest => ({
    ...req(
      '/query',
      {},
      { code: 403, key: 'forbidden', http: 403 },
      { 'x-merchantid': id, 'x-timestamp': '1700000000', 'x-nonce': 'nonce-nonce-nonce-1', 'x-sign': sign },
    ),
    body,
  });

  it('names the key of another merchant, and a merchant id signed for another known merchant', () => {
    expect(signatureMistakes(seen('M1', signed('M1', KEYS[1]!.test)), KEYS).map((d) => d.name)).toEqual(['another-merchants-key']);
    const d = signatureMistakes(seen('shop-name', signed('M2', KEYS[1]!.test)), KEYS);
    expect(d.map((x) => [x.name, x.clause])).toEqual([['wrong-merchant-id', 'client.sign.merchant-id']]);
    expect(d[0]!.detail).toContain('merchant M2');
  });

  it('combines mistakes: production key and CR LF together', () => {
    expect(signatureMistakes(seen('M1', signed('M1', KEYS[0]!.production!, '\r\n')), KEYS).map((d) => d.name)).toEqual([
      'production-key',
      'crlf-string-to-sign',
    ]);
  });

  it('a right signature on a refused request is no signing mistake; nothing known reproduces garbage', () => {
    expect(signatureMistakes(seen('M1', signed('M1', KEYS[0]!.test)), KEYS)).toEqual([]);
    expect(signatureMistakes(seen('M1', '0'.repeat(64)), KEYS).map((d) => [d.name, d.clause])).toEqual([
      ['unexplained-signature', 'client.sign.verifies'],
    ]);
  });

  it('names an HMAC of the body alone, and a body whose keys were re-ordered after signing', () => {
    const bodyOnly = createHmac('sha256', KEYS[0]!.test).update(body).digest('hex');
    expect(signatureMistakes(seen('M1', bodyOnly), KEYS).map((d) => [d.name, d.clause])).toEqual([
      ['body-only-signature', 'client.sign.string'],
    ]);
    const signedText = '{"b":1,"c":{"y":2,"x":1},"a":"z","d":[1]}';
    const sentText = '{"a":"z","b":1,"c":{"y":2,"x":1},"d":[1]}';
    const sign = createHmac('sha256', KEYS[0]!.test).update(`M1\n1700000000\nnonce-nonce-nonce-1\n${signedText}`).digest('hex');
    const d = signatureMistakes({ ...seen('M1', sign), body: Buffer.from(sentText) }, KEYS);
    expect(d.map((x) => [x.name, x.clause])).toEqual([['re-serialised-body', 'client.sign.raw-body']]);
    expect(reserialisationText(d[0]!.reserialisation!)).toBe('top-level keys in another order (keys re-ordered after signing)');
  });

  it('names the family of a re-serialised body: Python json.dumps defaults, keys sorted at every depth', () => {
    const sent = '{"b":1,"c":{"y":"/é","x":[1,2]},"a":"z"}';
    const signedAs = (signedText: string) => {
      const sign = createHmac('sha256', KEYS[0]!.test).update(`M1\n1700000000\nnonce-nonce-nonce-1\n${signedText}`).digest('hex');
      const d = signatureMistakes({ ...seen('M1', sign), body: Buffer.from(sent) }, KEYS);
      expect(d.map((x) => x.name)).toEqual(['re-serialised-body']);
      return d[0]!.reserialisation!;
    };
    // json.dumps(payload) as Python writes it: ', ' and ': ', non-ASCII escaped.
    expect(signedAs('{"b": 1, "c": {"y": "/\\u00e9", "x": [1, 2]}, "a": "z"}')).toEqual({ layout: 'python', escaping: 'ascii' });
    expect(signedAs('{"b": 1, "c": {"y": "/é", "x": [1, 2]}, "a": "z"}')).toEqual({ layout: 'python' });
    expect(reserialisationText({ layout: 'python' })).toMatch(/^Python json\.dumps default separators/);
    // A canonicalising middleware: sorted at every depth, compact.
    expect(signedAs('{"a":"z","b":1,"c":{"x":[1,2],"y":"/é"}}')).toEqual({ order: 'sorted' });
    expect(reserialisationText({ order: 'sorted' })).toMatch(/^keys sorted at every depth/);
    // PHP json_encode: \/ and \u00e9.
    expect(signedAs('{"b":1,"c":{"y":"\\/\\u00e9","x":[1,2]},"a":"z"}')).toEqual({ escaping: 'php' });
  });
});

describe('the audit report words', () => {
  it('groups should-level warnings of one kind into one finding and counts them apart from mistakes', () => {
    const a = new ClientAudit(KEYS, OPS);
    for (let i = 0; i < 11; i++)
      a.record(
        req(
          '/query',
          { merchant_order_no: `N${i}` },
          { code: 2002, key: 'orderNotFound' },
          { 'x-nonce': 'short', 'x-timestamp': '1700000000' },
        ),
      );
    expect(a.summary()).toBe('11 requests, 0 must-level mistakes, should-level warnings: nonce-length on 11 requests');
    const nonce = a.results().find((r) => r.clauses[0] === 'auth.nonce.length')!;
    expect(nonce.findings).toHaveLength(1);
    expect(nonce.findings[0]!.message).toMatch(/^requests #1, #2, .*#11: nonce-length/);
  });

  it('a create refused at authentication is named as such, not as no create observed', () => {
    const a = new ClientAudit(KEYS, OPS);
    a.record(
      req(
        '/pay',
        { merchant_order_no: 'Z' },
        { code: 403, key: 'forbidden', http: 403 },
        { 'x-timestamp': '1700000000', 'x-nonce': 'nonce-nonce-nonce-1', 'x-sign': '0'.repeat(64) },
      ),
    );
    const once = a.results().find((r) => r.clauses[0] === 'idem.create-once')!;
    expect([once.status, once.reason]).toEqual([
      'skipped',
      expect.stringContaining('no create request passed authentication (1 was refused'),
    ]);
  });
});

describe('amount values, judged whatever the sandbox answered', () => {
  const amountOf = (value: unknown, answer: { code: number; key?: string } = { code: 400, key: 'invalidRequest' }) => {
    const a = new ClientAudit(KEYS, OPS);
    a.record(
      req('/pay', { merchant_order_no: 'AM1', trans_amount: { currency: 'USD', value } }, answer, {
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-nonce': 'nonce-nonce-nonce-1',
      }),
    );
    return a;
  };
  const named = (value: unknown) =>
    amountOf(value)
      .diagnoses()
      .map((d) => [d.name, d.clause]);

  it('"1,249.50" (PHP number_format) is not a decimal string: named under client.amount.string, a must-level mistake', () => {
    const a = amountOf('1,249.50');
    expect(a.diagnoses().map((d) => [d.name, d.clause, d.requests])).toEqual([['not-a-decimal-amount', 'client.amount.string', [1]]]);
    expect(a.diagnoses()[0]!.detail).toBe(
      'trans_amount.value "1,249.50" is not a decimal string: it has thousands separators (number_format, "%,.2f", toLocaleString); ' +
        'send digits with at most one point and two decimals ("1249.50")',
    );
    expect(a.summary()).toBe('1 request, 1 must-level mistake');
    const result = a.results().find((r) => r.clauses[0] === 'client.amount.string')!;
    expect([result.status, result.findings.map((f) => [f.code, f.level])]).toEqual(['failed', [['NOT_A_DECIMAL_AMOUNT', 'must']]]);
    expect(merchantVerdict(a.results()).exitCode).toBe(1);
  });

  it.each([
    ['1.2495e3', /an exponent; .*\("1249.50"\)/],
    ['+25.00', /a leading \+; .*\("25.00"\)/],
    ['25.00 ', /spaces; .*\("25.00"\)/],
    [' 25', /spaces/],
    ['25,00', /a comma, as decimal mark or as thousands separator .*\("25.00"\)/],
    ['1.249,50', /a comma as decimal mark \(a German or French locale\); .*\("1249.50"\)/],
    ['$25.00', /characters a decimal does not/],
    ['25.00 USD', /spaces/],
    ['', /it is empty/],
    ['1,249,000', /thousands separators/],
  ])('%j is named not-a-decimal-amount', (value, why) => {
    const d = amountOf(value).diagnoses();
    expect(d.map((x) => [x.name, x.clause])).toEqual([['not-a-decimal-amount', 'client.amount.string']]);
    expect(d[0]!.detail).toMatch(why);
  });

  it('a JSON number and three decimals keep their own names; a refund amount and an amount without currency are judged too', () => {
    expect(named(25)).toEqual([['json-number-amount', 'client.amount.string']]);
    expect(named('1.005')).toEqual([['three-decimal-amount', 'client.amount.two-decimals']]);
    const a = new ClientAudit(KEYS, OPS);
    a.record(req('/refund', { refund_amount: { value: '5,00' } }, { code: 0 }, { 'x-nonce': 'nonce-nonce-nonce-1' }));
    expect(a.diagnoses().map((d) => d.detail)).toEqual([expect.stringMatching(/^refund_amount\.value "5,00" is not a decimal string/)]);
  });

  it('what the document allows, or does not settle, is not named: "12.5", "12.50", "12", "0.5", "12.", ".5", "-5.00"', () => {
    for (const v of ['12.5', '12.50', '12', '0.5', '12.', '.5', '-5.00']) expect(named(v), v).toEqual([]);
  });
});

describe('tampered answers: the chance to act on them', () => {
  const created = (no: string, genuine: string, sent: string): SeenRequest => ({
    ...req('/pay', { merchant_order_no: no }, { code: 0 }, { 'x-nonce': 'nonce-nonce-nonce-1' }),
    tampered: [
      { field: 'order_no', genuine, sent },
      { field: 'status', genuine: 'SUCCESS', sent: 'FAILED' },
    ],
  });
  const verify = (a: ClientAudit) => a.results().find((r) => r.clauses[0] === 'auth.response.verify')!;

  it('counts an altered answer a later request concerned, by the merchant number or a service number', () => {
    const a = new ClientAudit(KEYS, OPS);
    a.record(created('T1', 'P-GENUINE-1', 'P-ALTERED-1'));
    a.record(created('T2', 'P-GENUINE-2', 'P-ALTERED-2'));
    a.record(created('T3', 'P-GENUINE-3', 'P-ALTERED-3'));
    a.record(req('/query', { merchant_order_no: 'T1' }, { code: 0 }, { 'x-nonce': 'nonce-nonce-nonce-1' }));
    a.record(req('/refund', { original_order_no: 'P-GENUINE-2' }, { code: 0 }, { 'x-nonce': 'nonce-nonce-nonce-1' }));
    expect(a.tampered).toEqual({ altered: 3, chance: 2 });
    expect(a.diagnoses()).toEqual([]);
    expect([verify(a).status, verify(a).evidence]).toEqual([
      'passed',
      [
        '3 tampered answers, 2 of them followed by a request about the same order (the chance to act on it), ' +
          'none of their altered numbers sent back',
      ],
    ]);
  });

  it('with no later request about an altered answer, the clause is skipped, not passed; one that sends its number fails', () => {
    const a = new ClientAudit(KEYS, OPS);
    a.record(created('T4', 'P-GENUINE-4', 'P-ALTERED-4'));
    a.record(req('/query', { merchant_order_no: 'OTHER' }, { code: 2002, key: 'orderNotFound' }, { 'x-nonce': 'nonce-nonce-nonce-1' }));
    expect([verify(a).status, verify(a).reason]).toEqual([
      'skipped',
      expect.stringMatching(/^precondition: 1 answer was tampered with, but no later request of the client concerned the order/),
    ]);
    a.record(req('/query', { order_no: 'P-ALTERED-4' }, { code: 2002, key: 'orderNotFound' }, { 'x-nonce': 'nonce-nonce-nonce-1' }));
    expect(verify(a).status).toBe('failed');
    expect(verify(a).evidence[0]).toBe('1 tampered answer, 1 of them followed by a request about the same order (the chance to act on it)');
  });
});
