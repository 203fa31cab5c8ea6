/**
 * A small correct merchant client (card payment, query, partial refund, refund query) and its named
 * faults: each one hook replaced the way real integrations get it wrong, each named by the
 * diagnosis the client audit must give it and the clause it breaks. Its own signing, not harness/'s.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Float,
  gson,
  goJson,
  jackson,
  javaStringFormat,
  jsStringify,
  newtonsoft,
  phpJsonEncode,
  phpNumberFormat,
  plain,
  pythonDumps,
  rubyJson,
  systemTextJson,
  type Value,
} from './serialisers.js';

export interface ClientBehaviour {
  merchantId(own: string): string;
  key(test: string, production: string): string;
  sep: string;
  /** The string to sign, from its parts. */
  signingInput(id: string, ts: string, nonce: string, sep: string, body: string): Buffer;
  /** The bytes sent, given the bytes signed and the body object. */
  sent(signed: string, body: Record<string, unknown>): string;
  timestamp(): string;
  nonce(): string;
  encode(key: string, input: Buffer): string;
  contentType: string;
  /** The JSON text of a body object (the bytes signed). */
  serialise(body: Record<string, unknown>): string;
  amount(value: string): unknown;
  /** The payment's and the refund's amounts, as decimal strings (before \`amount\` writes them). */
  prices: { payment: string; refund: string };
  /** The goods name and metadata: plain ASCII, or text with the characters serialisers escape differently. */
  text: 'plain' | 'rich';
  refundNo(paymentNo: string, fresh: string): string;
  /** How a payment create is sent: once; twice at once; or again after an answer, without a query. */
  create: 'once' | 'parallel' | 'retry';
  /** Whether a response whose signature does not verify is used all the same. */
  trustUnverified: boolean;
  /** After a create answered systemBusy: query by its own number first; or straight away the same number, or a new one. */
  onBusy: 'query' | 'same-number' | 'new-number';
  /** After a query answered queryFailed: try again, or give up. */
  onQueryFailed: 'retry' | 'give-up';
  /** The integration's webhook receiver: its acknowledgement, and what it answers a webhook it has processed already. */
  ackBody: string;
  duplicate: 'acknowledge' | 'refuse';
}

const hmacHex = (k: string, i: Buffer) => createHmac('sha256', k).update(i).digest('hex');

export const correctClient: ClientBehaviour = {
  merchantId: (own) => own,
  key: (test) => test,
  sep: '\n',
  signingInput: (id, ts, nonce, sep, body) => Buffer.concat([Buffer.from([id, ts, nonce].join(sep) + sep), Buffer.from(body)]),
  sent: (s) => s,
  timestamp: () => String(Math.floor(Date.now() / 1000)),
  nonce: () => randomBytes(18).toString('base64url'),
  encode: hmacHex,
  contentType: 'application/json',
  serialise: (b) => JSON.stringify(b),
  amount: (value) => value,
  prices: { payment: '25.00', refund: '5.00' },
  text: 'plain',
  refundNo: (_p, fresh) => fresh,
  create: 'once',
  trustUnverified: false,
  onBusy: 'query',
  onQueryFailed: 'retry',
  ackBody: 'success',
  duplicate: 'acknowledge',
};

export interface ClientFault {
  /** The fault's name: the audit's diagnosis name for this mistake, unless `diagnosis` gives another. */
  name: string;
  diagnosis?: string;
  /** A re-serialised body: the words that must name its family in the finding. */
  family?: RegExp;
  clause: string;
  doc: string;
  hooks: Partial<ClientBehaviour>;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const camelKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(camelKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [camel(k), camelKeys(x)]))
      : v;
const sortKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(sortKeys)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
        )
      : v;
const f = (name: string, clause: string, doc: string, hooks: Partial<ClientBehaviour>, diagnosis?: string): ClientFault => ({
  name,
  clause,
  doc,
  hooks,
  diagnosis,
});

/** Goods name and metadata with what serialisers escape differently: non-ASCII, "/", HTML characters, "=", "'", "+". */
const RICH_GOODS = "Zoë's café T-shirt <XL> & more";
const RICH_METADATA = 'ref=42+gift/2026';

/**
 * One idiom of a language: the body signed as one library writes it, sent as another (or the same
 * library otherwise configured) writes it, as integrations do when signing and sending are two
 * steps. Diagnosed `re-serialised-body`, named by the family of the signed bytes.
 */
const idiom = (
  name: string,
  doc: string,
  family: RegExp,
  sign: (b: Value) => string,
  send: (b: Value) => string,
  hooks: Partial<ClientBehaviour> = {},
): ClientFault => ({
  name,
  clause: 'client.sign.raw-body',
  doc,
  diagnosis: 're-serialised-body',
  family,
  hooks: { serialise: (b) => sign(b as Value), sent: (_s, b) => send(b as Value), ...hooks },
});

/** Every language idiom the signature diagnosis names: the kill matrix runs each. */
export const languageIdioms: readonly ClientFault[] = [
  idiom(
    'python-default-separators',
    "Signs json.dumps(payload) (separators ', ' and ': '), sends json.dumps(payload, separators=(',', ':')).",
    /^Python json\.dumps default separators/,
    (b) => pythonDumps(b),
    (b) => pythonDumps(b, { separators: [',', ':'] }),
  ),
  idiom(
    'python-sort-keys',
    'Signs json.dumps(payload, sort_keys=True), sends the compact form in insertion order.',
    /^Python json\.dumps default separators .*, keys sorted at every depth/,
    (b) => pythonDumps(b, { sortKeys: true }),
    (b) => pythonDumps(b, { separators: [',', ':'] }),
  ),
  idiom(
    'python-canonicalising-middleware',
    "A middleware signs the canonical form (json.dumps(payload, sort_keys=True, separators=(',', ':'))); the body goes unsorted.",
    /^keys sorted at every depth/,
    (b) => pythonDumps(b, { sortKeys: true, separators: [',', ':'] }),
    (b) => pythonDumps(b, { separators: [',', ':'] }),
  ),
  idiom(
    'python-ensure-ascii',
    'Signs json.dumps(payload, separators=(",", ":")) (non-ASCII as \\u00e9), sends it with ensure_ascii=False (UTF-8).',
    /^non-ASCII escaped as \\u00e9 \(Python/,
    (b) => pythonDumps(b, { separators: [',', ':'] }),
    (b) => pythonDumps(b, { separators: [',', ':'], ensureAscii: false }),
    { text: 'rich' },
  ),
  idiom(
    'python-indent',
    'Signs json.dumps(payload, indent=4) (a log-friendly copy), sends the compact form.',
    /^4-space indentation/,
    (b) => pythonDumps(b, { indent: 4 }),
    (b) => pythonDumps(b, { separators: [',', ':'] }),
  ),
  idiom(
    'python-float-amounts',
    'Holds amounts as Python floats and signs json.dumps(..., separators=(",", ' +
      '":")) (25.0); a JavaScript proxy re-sends JSON.stringify (25).',
    /whole numbers written as floats/,
    (b) => pythonDumps(b, { separators: [',', ':'] }),
    (b) => jsStringify(plain(b)),
    { amount: (v) => new Float(Number(v)) },
  ),
  idiom(
    'java-jackson-pretty-printer',
    'Signs writerWithDefaultPrettyPrinter().writeValueAsString(payload), sends writeValueAsString(payload).',
    /^Jackson's default pretty printer/,
    (b) => jackson(b, { pretty: true }),
    (b) => jackson(b),
  ),
  idiom(
    'java-jackson-sorted-properties',
    'Signs with a "canonical" ObjectMapper (MapperFeature.SORT_PROPERTIES_ALPHABETICALLY), sends through the HTTP ' +
      "client's default mapper (declaration order).",
    /^keys sorted at every depth .*SORT_PROPERTIES_ALPHABETICALLY/,
    (b) => jackson(b, { sortProperties: true }),
    (b) => jackson(b),
  ),
  idiom(
    'java-gson-html-escaping',
    'Signs new Gson().toJson(payload) (HTML-safe escapes), sends it with disableHtmlEscaping().',
    /Gson default/,
    (b) => gson(b),
    (b) => gson(b, { disableHtmlEscaping: true }),
    { text: 'rich' },
  ),
  idiom(
    'go-marshal-map',
    'Signs json.Marshal of a map (keys sorted, HTML escapes), sends the struct through an Encoder with SetEscapeHTML(false).',
    /keys sorted at every depth .*Go encoding\/json.*without the trailing newline sent/,
    (b) => goJson(b, { map: true }),
    (b) => goJson(b, { escapeHTML: false, encoder: true }),
    { text: 'rich' },
  ),
  idiom(
    'go-marshal-struct-html',
    'Signs json.Marshal(payload) of a struct (<, > and & as \\u003c \\u003e \\u0026), sends it through an Encoder ' +
      'with SetEscapeHTML(false) (and its newline).',
    /^<, > and & escaped as \\u003c \\u003e \\u0026 \(Go encoding\/json/,
    (b) => goJson(b),
    (b) => goJson(b, { escapeHTML: false, encoder: true }),
    { text: 'rich' },
  ),
  idiom(
    'go-marshal-indent-tab',
    'Signs json.MarshalIndent(payload, "", "\\t"), sends json.Marshal(payload).',
    /^tab indentation/,
    (b) => goJson(b, { indent: '\t' }),
    (b) => goJson(b),
  ),
  idiom(
    'php-json-encode-default',
    'Signs json_encode($payload) (\\/ and \\u00e9), sends json_encode($payload, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE).',
    /PHP json_encode default/,
    (b) => phpJsonEncode(b),
    (b) => phpJsonEncode(b, { unescapedSlashes: true, unescapedUnicode: true }),
    { text: 'rich' },
  ),
  idiom(
    'php-pretty-print',
    'Signs json_encode($payload, JSON_PRETTY_PRINT), sends json_encode($payload, JSON_UNESCAPED_SLASHES).',
    /^4-space indentation .*slashes escaped as \\\//,
    (b) => phpJsonEncode(b, { prettyPrint: true }),
    (b) => phpJsonEncode(b, { unescapedSlashes: true }),
  ),
  idiom(
    'ruby-pretty-generate',
    'Signs JSON.pretty_generate(payload), sends payload.to_json.',
    /^2-space indentation/,
    (b) => rubyJson(b, { pretty: true }),
    (b) => rubyJson(b),
  ),
  idiom(
    'ruby-rails-to-json',
    'Signs payload.to_json under Rails (ActiveSupport escapes <, > and &), sends JSON.generate(payload).',
    /Rails to_json/,
    (b) => rubyJson(b, { rails: true }),
    (b) => rubyJson(b),
    { text: 'rich' },
  ),
  idiom(
    'csharp-system-text-json',
    'Signs JsonSerializer.Serialize(payload) (default encoder), sends JsonConvert.SerializeObject(payload) (Newtonsoft).',
    /System\.Text\.Json default escaping/,
    (b) => systemTextJson(b),
    (b) => newtonsoft(b),
    { text: 'rich' },
  ),
  idiom(
    'csharp-newtonsoft-indented',
    'Signs JsonConvert.SerializeObject(payload, Formatting.Indented), sends it unindented.',
    /^2-space indentation/,
    (b) => newtonsoft(b, { indented: true }),
    (b) => newtonsoft(b),
  ),
  idiom(
    'javascript-stringify-tab',
    "Signs JSON.stringify(body, null, '\\t'), sends JSON.stringify(body).",
    /^tab indentation/,
    (b) => jsStringify(b, '\t'),
    (b) => jsStringify(b),
  ),
];

export const clientFaults: readonly ClientFault[] = [
  f('wrong-merchant-id', 'client.sign.merchant-id', 'Sends the shop name as X-MerchantID instead of the id the service assigned.', {
    merchantId: () => 'acme-shop',
  }),
  f('production-key', 'client.sign.secret-key', 'Signs sandbox requests with the production secret key.', { key: (_t, p) => p }),
  f('crlf-string-to-sign', 'client.sign.string', 'Joins the string to sign with CR LF.', { sep: '\r\n' }),
  {
    ...f(
      're-serialised-body',
      'client.sign.raw-body',
      'Signs compact JSON, then sends it pretty-printed (the HTTP library re-serialises).',
      {
        sent: (s) => JSON.stringify(JSON.parse(s), null, 2),
      },
    ),
    family: /^compact separators/,
  },
  {
    ...f(
      're-ordered-body',
      'client.sign.raw-body',
      'Signs the JSON, then a middleware sends it with its keys sorted (the signature covers the original order).',
      { sent: (s) => JSON.stringify(sortKeys(JSON.parse(s))) },
      're-serialised-body',
    ),
    family: /^keys in the document's field order|^top-level keys in another order/,
  },
  ...languageIdioms,
  f('body-only-signature', 'client.sign.string', 'Signs the body alone, without merchant id, timestamp and nonce.', {
    signingInput: (_i, _t, _n, _s, body) => Buffer.from(body),
  }),
  f(
    'unexplained-signature',
    'client.sign.verifies',
    'Signs with the portal login password instead of the API secret key (no known mistake reproduces it).',
    { key: () => 'hunter2-portal-password' },
  ),
  f('trimmed-body', 'client.sign.raw-body', 'Signs the body, then sends it with a trailing newline the signature does not cover.', {
    sent: (s) => `${s}\n`,
  }),
  f('milliseconds-timestamp', 'client.sign.timestamp-seconds', 'Sends Date.now() (milliseconds) as X-Timestamp.', {
    timestamp: () => String(Date.now()),
  }),
  f('formatted-timestamp', 'client.sign.timestamp-seconds', 'Sends an ISO date as X-Timestamp.', {
    timestamp: () => new Date().toISOString(),
  }),
  f('empty-nonce', 'client.sign.headers', 'Sends an empty X-Nonce (an unset variable).', { nonce: () => '' }),
  f('upper-case-hex', 'client.sign.lower-hex', 'Sends the HMAC as upper-case hex.', { encode: (k, i) => hmacHex(k, i).toUpperCase() }),
  f('base64-signature', 'client.sign.lower-hex', 'Sends the HMAC in Base64.', {
    encode: (k, i) => createHmac('sha256', k).update(i).digest('base64'),
  }),
  f('md5-signature', 'client.sign.lower-hex', 'Signs with HMAC-MD5.', { encode: (k, i) => createHmac('md5', k).update(i).digest('hex') }),
  f('wrong-content-type', 'client.content-type', 'Sends Content-Type text/plain.', { contentType: 'text/plain' }),
  f('camel-case-fields', 'client.fields.snake-case', 'Sends camelCase field names (merchantOrderNo, transAmount).', {
    serialise: (b) => JSON.stringify(camelKeys(b)),
  }),
  f('json-number-amount', 'client.amount.string', 'Sends amount values as JSON numbers.', { amount: (v) => Number(v) }),
  f(
    'thousands-separator-amount',
    'client.amount.string',
    'Writes amounts with PHP number_format($total, 2): a total of 1249.50 goes as "1,249.50".',
    { prices: { payment: '1249.50', refund: '249.50' }, amount: (v) => phpNumberFormat(Number(v), 2) },
    'not-a-decimal-amount',
  ),
  f(
    'java-locale-amount',
    'client.amount.string',
    'Writes amounts with Java String.format("%.2f", total) on a JVM whose default locale is de_DE: 25.00 goes as "25,00".',
    { amount: (v) => javaStringFormat('%.2f', Number(v), 'de_DE') },
    'not-a-decimal-amount',
  ),
  f('three-decimal-amount', 'client.amount.two-decimals', 'Sends amount values with three decimals.', { amount: (v) => `${v}0` }),
  f('number-shared-by-payment-and-refund', 'client.numbers.distinct', 'Uses the payment number as the refund number.', {
    refundNo: (p) => p,
  }),
  f('parallel-creates', 'idem.create-once', 'Sends the payment create twice at once with one number (a double click).', {
    create: 'parallel',
  }),
  f('retry-without-query', 'idem.create-once', 'Sends the payment create again with the same number without a query in between.', {
    create: 'retry',
  }),
  f(
    'trusted-unverified-response',
    'auth.response.verify',
    'Uses the order_no of a response whose signature does not verify (never checks response signatures).',
    { trustUnverified: true },
  ),
  f(
    'busy-create-same-number',
    'idem.create-once',
    'After a create answered systemBusy, sends it again with the same number, no query in between.',
    { onBusy: 'same-number' },
    'retry-without-query',
  ),
  f(
    'new-number-without-query',
    'idem.create-once',
    'After a create answered systemBusy, creates with a new number without querying the first (the first may have created an order).',
    { onBusy: 'new-number' },
  ),
  f('query-not-retried', 'client.query.retry', 'Gives up on a query answered 500 queryFailed (should: try again).', {
    onQueryFailed: 'give-up',
  }),
  f('webhook-not-acknowledged', 'merchant.ack.success-body', 'The integration\'s receiver acknowledges webhooks with "OK".', {
    ackBody: 'OK',
  }),
  f(
    'duplicate-not-acknowledged',
    'webhook.dup.may-repeat',
    'The integration\'s receiver answers "duplicate" to a webhook it has processed already.',
    { duplicate: 'refuse' },
  ),
  f('nonce-length', 'auth.nonce.length', 'Sends 8-character nonces (should: 16 to 32).', { nonce: () => randomBytes(4).toString('hex') }),
];

export interface ClientOptions {
  baseUrl: string;
  merchantId: string;
  testKey: string;
  productionKey: string;
  faults?: string[];
  /** Distinguishes the numbers of one run from another's. */
  seed: number;
  /** The integration's webhook receiver (startClientReceiver); default a placeholder that never resolves. */
  notifyUrl?: string;
}

function behaviourOf(faults: readonly string[] = []): ClientBehaviour {
  const b: ClientBehaviour = { ...correctClient };
  for (const name of faults) {
    const fault = clientFaults.find((x) => x.name === name);
    if (!fault) throw new Error(`unknown client fault ${name}`);
    Object.assign(b, fault.hooks);
  }
  return b;
}

/**
 * The integration's webhook receiver: verifies the signature over the raw body and its own merchant
 * id, processes each (event, order_no, status) once and acknowledges every genuine copy with success.
 */
export async function startClientReceiver(o: {
  merchantId: string;
  secret: string;
  faults?: string[];
}): Promise<{ url: string; processed: string[]; close(): Promise<void> }> {
  const b = behaviourOf(o.faults);
  const processed: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const h = (n: string) => String(req.headers[n.toLowerCase()] ?? '');
      const expected = hmacHex(o.secret, Buffer.concat([Buffer.from(`${h('X-MerchantID')}\n${h('X-Timestamp')}\n${h('X-Nonce')}\n`), raw]));
      if (h('X-MerchantID') !== o.merchantId || h('X-Sign') !== expected) {
        res.writeHead(401).end('invalid signature');
        return;
      }
      let key = '';
      try {
        const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
        key = `${String(body['event'])} ${String(body['order_no'])} ${String(body['status'])}`;
      } catch {
        res.writeHead(400).end('bad body');
        return;
      }
      if (processed.includes(key)) {
        res.writeHead(200).end(b.duplicate === 'acknowledge' ? b.ackBody : 'duplicate');
        return;
      }
      processed.push(key);
      res.writeHead(200).end(b.ackBody);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks`, processed, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** One payment, its query, a refund and its query: what a merchant's integration test would do. */
export async function runClient(o: ClientOptions): Promise<void> {
  const b = behaviourOf(o.faults);
  /** The answer's error key, and its `data` when its signature verifies (or the client trusts it all the same). */
  const send = async (path: string, body: Record<string, unknown>): Promise<Answer> => {
    const signedText = b.serialise(body);
    const id = b.merchantId(o.merchantId);
    const ts = b.timestamp();
    const nonce = b.nonce();
    const input = b.signingInput(id, ts, nonce, b.sep, signedText);
    const res = await fetch(`${o.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': b.contentType,
        'X-MerchantID': id,
        'X-Timestamp': ts,
        'X-Nonce': nonce,
        'X-Sign': b.encode(b.key(o.testKey, o.productionKey), input),
      },
      body: b.sent(signedText, body),
    });
    const raw = Buffer.from(await res.arrayBuffer());
    const h = (n: string) => res.headers.get(n) ?? '';
    const expected = hmacHex(o.testKey, Buffer.concat([Buffer.from(`${h('X-MerchantID')}\n${h('X-Timestamp')}\n${h('X-Nonce')}\n`), raw]));
    try {
      const env = JSON.parse(raw.toString('utf8')) as { code?: unknown; msg?: unknown; data?: unknown };
      const key = env.code !== 0 && typeof env.msg === 'string' ? env.msg.slice(env.msg.lastIndexOf('|') + 1) : undefined;
      const trusted = h('X-Sign') === expected || b.trustUnverified;
      return { key, data: trusted && env.data && typeof env.data === 'object' ? (env.data as Record<string, unknown>) : undefined };
    } catch {
      return {};
    }
  };
  const query = async (path: string, body: Record<string, unknown>): Promise<Answer> => {
    let a = await send(path, body);
    for (let i = 0; i < 4 && a.key === 'queryFailed' && b.onQueryFailed === 'retry'; i++) a = await send(path, body);
    return a;
  };
  const tag = `${o.seed.toString(36)}${createHash('sha1').update(randomBytes(8)).digest('hex').slice(0, 8)}`.toUpperCase();
  let orderNo = `ORD-${tag}`;
  const payment = (merchantOrderNo: string) => ({
    payment_method: 'CARD',
    merchant_order_no: merchantOrderNo,
    trans_amount: { currency: 'USD', value: b.amount(b.prices.payment) },
    notify_url: o.notifyUrl ?? 'https://merchant.invalid/webhooks',
    return_url: 'https://merchant.invalid/return',
    trade_info: { goods_name: b.text === 'rich' ? RICH_GOODS : 'Audit T-shirt' },
    metadata: b.text === 'rich' ? RICH_METADATA : '',
    card: { card_number: '4242424242424242', cardholder_name: 'Ada Lovelace', exp_month: 12, exp_year: 2099, cvc: '123' },
    billing_address: {
      country: 'US',
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@merchant.invalid',
      phone: '+15550100',
      state: 'CA',
      city: 'San Francisco',
      address: 'Market St',
      street_number: '1',
      postal_code: '94105',
    },
    device_ip: '203.0.113.7',
  });
  const CARD = '/api/v1/payments/card';
  const QUERY = '/api/v1/payments/query';
  let created: Answer;
  if (b.create === 'parallel') [created] = await Promise.all([send(CARD, payment(orderNo)), send(CARD, payment(orderNo))]);
  else {
    created = await send(CARD, payment(orderNo));
    if (b.create === 'retry') await send(CARD, payment(orderNo));
  }
  if (created.key === 'systemBusy') {
    // The first request may have created an order: ask by our own number before anything else.
    const known = b.onBusy === 'query' ? await query(QUERY, { merchant_order_no: orderNo }) : undefined;
    if (known?.data) created = known;
    else if (b.onBusy === 'same-number') created = await send(CARD, payment(orderNo));
    else {
      orderNo = `${orderNo}-2`;
      created = await send(CARD, payment(orderNo));
    }
  }
  // The service's number only from an answer that verifies; otherwise the merchant's own number.
  const serviceNo = (a: Answer) => (typeof a.data?.['order_no'] === 'string' ? a.data['order_no'] : undefined);
  const createdNo = serviceNo(created);
  const found = await query(QUERY, createdNo ? { order_no: createdNo } : { merchant_order_no: orderNo });
  const foundNo = serviceNo(found);
  const refundNo = b.refundNo(orderNo, `REF-${tag}`);
  const original = foundNo ? { original_order_no: foundNo } : { original_merchant_order_no: orderNo };
  await send('/api/v1/refunds/create', {
    merchant_refund_no: refundNo,
    ...original,
    refund_amount: { currency: 'USD', value: b.amount(b.prices.refund) },
    reason: 'customer request',
  });
  await query('/api/v1/refunds/query', { merchant_refund_no: refundNo });
}

interface Answer {
  key?: string;
  data?: Record<string, unknown>;
}
