/**
 * The test clients' serialisers write what their libraries write (Python's checked against bytes
 * python3 itself wrote), and the audit's re-serialiser reproduces, from the compact bytes a client
 * sent, what each library would have signed: the families cover every idiom, within the bound.
 */
import { describe, expect, it } from 'vitest';
import { amountMistake } from '../../harness/merchant/audit/body.js';
import {
  MAX_SEARCH_BYTES,
  type Reserialisation,
  reserialisationText,
  type SearchExtent,
  signedCandidates,
} from '../../harness/merchant/audit/families.js';
import {
  Float,
  gson,
  goJson,
  jackson,
  javaDouble,
  javaStringFormat,
  jsStringify,
  newtonsoft,
  phpJsonEncode,
  phpNumberFormat,
  pythonDumps,
  rubyJson,
  systemTextJson,
  type Value,
} from './serialisers.js';

const SAMPLE: Value = {
  payment_method: 'CARD',
  trans_amount: { value: new Float(25), currency: 'USD' },
  trade_info: { goods_name: "Zoë's café T-shirt <XL> & more", description: 'a/b\n\t\u007f😀' },
  metadata: 'ref=42+gift/2026',
  card: { exp_month: 12, cvc: '123' },
  tags: [],
  extra: {},
  list: [1, { b: 2, a: [new Float(3.5), new Float(1e-7), new Float(1e16)] }],
};

// Written by python3 from the same value (json.dumps(v, ...) as named; 25.0, 3.5, 1e-07 and 1e16 as floats).
const PYTHON: Record<string, string> = {
  default:
    '{"payment_method": "CARD", "trans_amount": {"value": 25.0, "currency": "USD"}, "trade_info": {"goods_name": "Zo\\u00eb\'s ' +
    'caf\\u00e9 T-shirt <XL> & more", "description": "a/b\\n\\t\\u007f\\ud83d\\ude00"}, "metadata": "ref=42+gift/2026", ' +
    '"card": {"exp_month": 12, "cvc": "123"}, "tags": [], "extra": {}, "list": [1, {"b": 2, "a": [3.5, 1e-07, 1e+16]}]}',
  compact:
    '{"payment_method":"CARD","trans_amount":{"value":25.0,"currency":"USD"},"trade_info":{"goods_name":"Zo\\u00eb\'s ' +
    'caf\\u00e9 T-shirt <XL> & more","description":"a/b\\n\\t\\u007f\\ud83d\\ude00"},"metadata":"ref=42+gi' +
    'ft/2026","card":{"exp_month":12,"cvc":"123"},"tags":[],"extra":{},"list":[1,{"b":2,"a":[3.5,1e-07,1e+16]}]}',
  sortKeys:
    '{"card": {"cvc": "123", "exp_month": 12}, "extra": {}, "list": [1, {"a": [3.5, 1e-07, 1e+16], "b": 2}], "metadata": ' +
    '"ref=42+gift/2026", "payment_method": "CARD", "tags": [], "trade_info": {"description": "a/b\\n\\t\\u007f\\ud83d\\ude00", ' +
    '"goods_name": "Zo\\u00eb\'s caf\\u00e9 T-shirt <XL> & more"}, "trans_amount": {"currency": "USD", "value": 25.0}}',
  indent4:
    '{\n    "payment_method": "CARD",\n    "trans_amount": {\n        "value": 25.0,\n        "currency": "USD"\n    },\n   ' +
    ' "trade_info": {\n        "goods_name": "Zo\\u00eb\'s caf\\u00e9 T-shirt <XL> & more",\n        "description": ' +
    '"a/b\\n\\t\\u007f\\ud83d\\ude00"\n    },\n    "metadata": "ref=42+gift/2026",\n    "card": {\n        "exp_month": 12,\n        ' +
    '"cvc": "123"\n    },\n    "tags": [],\n    "extra": {},\n    "list": [\n        1,\n        {\n            "b": 2,\n    ' +
    '        "a": [\n                3.5,\n                1e-07,\n                1e+16\n            ]\n        }\n    ]\n}',
  indent2SortAsciiOff:
    '{\n  "card": {\n    "cvc": "123",\n    "exp_month": 12\n  },\n  "extra": {},\n  "list": [\n    1,\n    {\n      "a": [\n  ' +
    '      3.5,\n        1e-07,\n        1e+16\n      ],\n      "b": 2\n    }\n  ],\n  "metadata": "ref=42+gift/2026",\n  ' +
    '"payment_method": "CARD",\n  "tags": [],\n  "trade_info": {\n    "description": "a/b\\n\\t\u007f\ud83d\ude00",\n    "goods_name": ' +
    '"Zo\u00eb\'s caf\u00e9 T-shirt <XL> & more"\n  },\n  "trans_amount": {\n    "currency": "USD",\n    "value": 25.0\n  }\n}',
  tab:
    '{\n\t"payment_method": "CARD",\n\t"trans_amount": {\n\t\t"value": 25.0,\n\t\t"currency": "USD"\n\t},\n\t"trade_info": ' +
    '{\n\t\t"goods_name": "Zo\\u00eb\'s caf\\u00e9 T-shirt <XL> & ' +
    'more",\n\t\t"description": "a/b\\n\\t\\u007f\\ud83d\\ude00"\n\t},\n\t"metadata": ' +
    '"ref=42+gift/2026",\n\t"card": {\n\t\t"exp_month": 12,\n\t\t"cvc": "123"\n\t},\n\t"tags": [],\n\t"extra": ' +
    '{},\n\t"list": [\n\t\t1,\n\t\t{\n\t\t\t"b": 2,\n\t\t\t"a": [\n\t\t\t\t3.5,\n\t\t\t\t1e-07,\n\t\t\t\t1e+16\n\t\t\t]\n\t\t}\n\t]\n}',
};

describe('the test clients serialise as their libraries do', () => {
  it.each([
    ['default', {}],
    ['compact', { separators: [',', ':'] as [string, string] }],
    ['sortKeys', { sortKeys: true }],
    ['indent4', { indent: 4 }],
    ['indent2SortAsciiOff', { indent: 2, sortKeys: true, ensureAscii: false }],
    ['tab', { indent: '\t' }],
  ] as const)('Python json.dumps %s writes what python3 wrote', (name, options) => {
    expect(pythonDumps(SAMPLE, options)).toBe(PYTHON[name]);
  });
});

/** A payment body as integrations build it, with the characters escapings differ on. */
const PAYMENT: Value = {
  payment_method: 'CARD',
  merchant_order_no: 'ORD-1',
  trans_amount: { currency: 'USD', value: '25.00' },
  notify_url: 'https://merchant.invalid/webhooks',
  trade_info: { goods_name: "Zoë's café T-shirt <XL> & more" },
  metadata: 'ref=42+gift/2026',
  card: { card_number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
  items: [{ sku: 'A', qty: 1 }, []],
};

const reproduced = (sent: string, signed: string): boolean => {
  const extent: SearchExtent = { tried: 0, of: 0, cut: false };
  for (const c of signedCandidates(Buffer.from(sent), extent)) if (c.bytes.toString() === signed) return true;
  return false;
};

describe('the audit reproduces what each library signed from the compact bytes sent', () => {
  const sent = jsStringify(PAYMENT);
  it.each([
    ['Python json.dumps', pythonDumps(PAYMENT)],
    ['Python json.dumps(sort_keys=True)', pythonDumps(PAYMENT, { sortKeys: true })],
    ['Python json.dumps(indent=2, ensure_ascii=False)', pythonDumps(PAYMENT, { indent: 2, ensureAscii: false })],
    ['Jackson pretty printer', jackson(PAYMENT, { pretty: true })],
    ['Gson', gson(PAYMENT)],
    ['Gson pretty printing', gson(PAYMENT, { pretty: true, disableHtmlEscaping: true })],
    ['Go json.Marshal of a map', goJson(PAYMENT, { map: true })],
    ['Go json.Encoder', goJson(PAYMENT, { encoder: true })],
    ['Go json.MarshalIndent with a tab', goJson(PAYMENT, { indent: '\t', escapeHTML: false })],
    ['PHP json_encode', phpJsonEncode(PAYMENT)],
    ['PHP JSON_PRETTY_PRINT', phpJsonEncode(PAYMENT, { prettyPrint: true, unescapedUnicode: true })],
    ['Ruby JSON.pretty_generate', rubyJson(PAYMENT, { pretty: true })],
    ['Rails to_json', rubyJson(PAYMENT, { rails: true })],
    ['System.Text.Json', systemTextJson(PAYMENT)],
    ['System.Text.Json indented', systemTextJson(PAYMENT, { indented: true })],
    ['Newtonsoft indented', newtonsoft(PAYMENT, { indented: true })],
    ['JSON.stringify with 4 spaces', jsStringify(PAYMENT, 4)],
  ])('%s', (_name, signed) => {
    expect(signed).not.toBe(sent);
    expect(reproduced(sent, signed)).toBe(true);
  });

  it('and the other way round: the compact form signed, a library’s form sent', () => {
    for (const other of [pythonDumps(PAYMENT), phpJsonEncode(PAYMENT), systemTextJson(PAYMENT), jackson(PAYMENT, { pretty: true })])
      expect(reproduced(other, sent)).toBe(true);
  });

  it('is bounded by work, not time: a large body is tried in part and says so; one over the limit is not re-serialised', () => {
    const big = jsStringify({ items: Array.from({ length: 3000 }, (_, i) => ({ id: i, name: `item ${i}`, price: '1.00' })) });
    const extent: SearchExtent = { tried: 0, of: 0, cut: false };
    let n = 0;
    for (const _ of signedCandidates(Buffer.from(big), extent)) n++;
    expect(extent.cut).toBe(true);
    expect(extent.tried).toBeLessThan(extent.of);
    expect(n).toBeGreaterThan(0);
    const huge = Buffer.alloc(MAX_SEARCH_BYTES + 1, ' ');
    expect([...signedCandidates(huge, { tried: 0, of: 0, cut: false })]).toEqual([]);
  });
});

/** The family the audit names for bytes signed one way and sent another: the first candidate that reproduces them. */
const familyOf = (sent: string, signed: string): Reserialisation | undefined => {
  for (const c of signedCandidates(Buffer.from(sent), { tried: 0, of: 0, cut: false })) if (c.bytes.toString() === signed) return c.differs;
  return undefined;
};

describe('a Go or Java merchant: each idiom named by its family', () => {
  const sent = jsStringify(PAYMENT);

  it('Go json.Marshal of a struct escapes <, > and & as \\u003c \\u003e \\u0026: named by that escaping alone', () => {
    const signed = goJson(PAYMENT);
    expect(signed).toContain('T-shirt \\u003cXL\\u003e \\u0026 more');
    const family = familyOf(sent, signed);
    expect(family).toEqual({ escaping: 'go-html' });
    expect(reserialisationText(family!)).toMatch(/^<, > and & escaped as \\u003c \\u003e \\u0026 \(Go encoding\/json/);
    // Signed by json.Marshal, sent by an Encoder with SetEscapeHTML(false): its newline too.
    expect(familyOf(goJson(PAYMENT, { escapeHTML: false, encoder: true }), signed)).toEqual({ escaping: 'go-html', newline: false });
  });

  it("Jackson's property order: SORT_PROPERTIES_ALPHABETICALLY signed, declaration order sent, named as sorted at every depth", () => {
    const signed = jackson(PAYMENT, { sortProperties: true });
    expect(signed.startsWith('{"card":{"card_number":"4242424242424242","cvc":"123","exp_month":12')).toBe(true);
    const family = familyOf(jackson(PAYMENT), signed);
    expect(family).toEqual({ order: 'sorted' });
    expect(reserialisationText(family!)).toMatch(/SORT_PROPERTIES_ALPHABETICALLY/);
  });

  it("Jackson's property order: a DTO declared in the document's field order signed, a map in another order sent", () => {
    const declared = {
      '': ['payment_method', 'merchant_order_no', 'trans_amount', 'notify_url', 'trade_info', 'metadata', 'card'],
      trans_amount: ['currency', 'value'],
      card: ['card_number', 'cardholder_name', 'exp_month', 'exp_year', 'cvc'],
    };
    const asMap = jsStringify(JSON.parse(jackson(PAYMENT, { sortProperties: true })) as Value);
    const signed = jackson(JSON.parse(asMap) as Value, { declared });
    expect(signed.startsWith('{"payment_method":"CARD","merchant_order_no":"ORD-1","trans_amount":{"currency":"USD"')).toBe(true);
    const family = familyOf(asMap, signed);
    expect(family).toEqual({ order: 'document' });
    expect(reserialisationText(family!)).toMatch(/declared in the tables' order/);
  });

  it("Jackson writes a double as Java's Double.toString does: 25.0, 0.001, 1.0E-4, 1.0E7", () => {
    expect([25, 0.001, 1249.5, 1e-4, 1.5e-7, 1e7, 12345678.9, -2.5e-5].map(javaDouble)).toEqual([
      '25.0',
      '0.001',
      '1249.5',
      '1.0E-4',
      '1.5E-7',
      '1.0E7',
      '1.23456789E7',
      '-2.5E-5',
    ]);
    const body: Value = { list: [new Float(1e-4), new Float(2.5), 3] };
    expect(familyOf(jsStringify({ list: [1e-4, 2.5, 3] }), jackson(body))).toEqual({ numbers: 'java' });
  });

  it("Java's String.format of a double writes the locale's marks: the audit names each by the amount rule", () => {
    expect(javaStringFormat('%.2f', 1249.5)).toBe('1249.50');
    expect(amountMistake(javaStringFormat('%.2f', 1249.5), 'v')).toBeUndefined();
    for (const [text, format, locale] of [
      ['1,249.50', '%,.2f', 'en_US'],
      ['1249,50', '%.2f', 'de_DE'],
      ['1.249,50', '%,.2f', 'de_DE'],
    ] as const) {
      expect(javaStringFormat(format, 1249.5, locale)).toBe(text);
      const d = amountMistake(text, 'trans_amount.value');
      expect([d?.name, d?.clause], text).toEqual(['not-a-decimal-amount', 'client.amount.string']);
      expect(d!.detail, text).toMatch(/\("1249\.50"\)$/);
    }
    expect(phpNumberFormat(1249.5, 2)).toBe('1,249.50');
    expect(phpNumberFormat(1249.5, 2, ',', '.')).toBe('1.249,50');
  });
});
