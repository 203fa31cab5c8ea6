/**
 * init --openapi on descriptions as vendors write them (harness/openapi/: shapes.ts, markdown.ts, prose.ts, controls.ts):
 * the gallery's three styles (fixtures/openapi-gallery/vendor.ts, no x-mpsi extension) of the reference and of generated
 * targets tell no fact otherwise than the target is, and most of those a description can say; and each construct a vendor
 * uses is read on a description of its own: enums and consts anywhere, minimum/maximum/multipleOf, allOf, oneOf with a
 * discriminator, path parameters of any name, servers with a path prefix, webhooks and callbacks, a sandbox tag, and
 * Markdown tables and lists in descriptions. Two readings that once went wrong are held: a balance query is not the
 * payout query, and a payee holding a card number is not the card.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { targetGenome } from '../../fixtures/arbitraries/genome.js';
import { GALLERY_STYLES, type GalleryStyle, galleryFile, vendorDescription } from '../../fixtures/openapi-gallery/vendor.js';
import { variable } from '../../harness/init/fields.js';
import { getAt, leavesOf, Vendor } from '../../harness/init/told.js';
import { type DescriptionFacts, factsOfDescription } from '../../harness/openapi/facts.js';
import { readOpenApi } from '../../harness/openapi/read.js';
import type { Profile } from '../../harness/profile/types.js';
import { ROOT } from '../cli/helpers.js';
import { trueProfile } from '../legal-targets/genome.js';
import { runSeed } from '../legal-targets/properties.js';

const dir = mkdtempSync(join(tmpdir(), 'mpsi-openapi-vendor-'));
const reference = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Profile;
let n = 0;

/** A description (an object, or a file's text) read as init --openapi reads it, for a target at `baseUrl`. */
async function read(doc: object | string, baseUrl?: string): Promise<DescriptionFacts & { vendor: Vendor; warnings: string[] }> {
  const file = join(dir, `d${n++}.${typeof doc === 'string' ? 'yaml' : 'json'}`);
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  const { doc: parsed, warnings } = await readOpenApi(file);
  const facts = factsOfDescription(parsed, file, baseUrl);
  return { ...facts, vendor: new Vendor(facts.told, facts), warnings };
}

/** Told leaves whose value the profile does not hold (a leaf it does not state at all is not judged here). */
function wrongAgainst(p: Profile, vendor: Vendor): string[] {
  return vendor.told
    .filter((t) => getAt(p, t.path) !== undefined && JSON.stringify(getAt(p, t.path)) !== JSON.stringify(t.value))
    .map((t) => `${t.path}: told ${JSON.stringify(t.value)}, true ${JSON.stringify(getAt(p, t.path))}`);
}

/** Leaves of the profile a vendor's description can say, and whether the reading told each. */
const SAYABLE = new RegExp(
  String.raw`^(endpoints|limits|fees|pricePoints\.(tiers|rounding|maxDistance|tie)|sandbox|refunds\.(support|fee|failingReason|queryBy)|` +
    String.raw`payouts\.(queryBy|cancelBy|notForPayouts|methods\.[^.]+\.(cancel|usdOnly))|` +
    String.raw`merchants\.(second|frozen|lowBalance)\.(id|payoutBalances|facts)|` +
    String.raw`cardPayment\.cards\.\w+\.card_number)(\.|$)`,
);
/**
 * The facts the gallery does not yet write, and why: a merchant's own method-level facts (merchants.<role>.facts: its
 * own limits, fees, payout currencies), for want of a vendor-style table of them that the reader also reads.
 */
const unwritten = (path: string) => /^merchants\.\w+\.facts\./.test(path);

function toldShare(p: Profile, vendor: Vendor): { told: number; of: number; missing: string[] } {
  const sayable = leavesOf(p)
    .map(([path]) => path)
    .filter((path) => SAYABLE.test(path));
  const missing = sayable.filter((path) => JSON.stringify(vendor.at(path)) !== JSON.stringify(getAt(p, path)));
  return { told: sayable.length - missing.length, of: sayable.length, missing };
}

const base = (paths: object, extra: object = {}) => ({
  openapi: '3.1.0',
  info: { title: 'Acme Pay', version: '1' },
  servers: [{ url: 'https://sandbox.acme.example' }],
  paths,
  ...extra,
});
const json = (schema: object) => ({ required: true, content: { 'application/json': { schema } } });
const ok = { '200': { description: 'OK' } };
/** A sandbox control to expire a checkout link, served by a server of its own. */
const expireUnder = (url: string) => ({
  servers: [{ url }],
  post: {
    summary: 'Expire a checkout link',
    tags: ['Sandbox'],
    requestBody: json({
      type: 'object',
      required: ['out_trade_no'],
      properties: { out_trade_no: { type: 'string', description: 'Your own order number.' } },
    }),
    responses: ok,
  },
});
const amount = {
  type: 'object',
  properties: { currency: { type: 'string' }, value: { type: 'string' } },
};

describe('the gallery: vendor descriptions of a target, in three styles', () => {
  it("the example files are the generator's descriptions of the reference (regenerate: npx tsx scripts/openapi-gallery.ts)", () => {
    for (const style of GALLERY_STYLES)
      expect(readFileSync(join(ROOT, 'fixtures', 'openapi-gallery', `${style}.yaml`), 'utf8'), style).toBe(galleryFile(reference, style));
  });

  it.each(GALLERY_STYLES)(
    '%s: the reference described so validates, carries no x-mpsi extension and tells nothing false',
    async (style) => {
      const text = readFileSync(join(ROOT, 'fixtures', 'openapi-gallery', `${style}.yaml`), 'utf8');
      expect(text).not.toMatch(/x-mpsi/);
      const r = await read(text);
      expect(r.warnings).toEqual([]);
      expect(r.contradictions).toEqual([]);
      expect(wrongAgainst(reference, r.vendor)).toEqual([]);
      const share = toldShare(reference, r.vendor);
      // Every fact a vendor's description can say is read, but those the gallery does not yet write.
      expect(share.missing.filter((path) => !unwritten(path))).toEqual([]);
      // Every interface operation the reference has, and each sandbox control.
      expect(Object.keys((r.vendor.at('endpoints') ?? {}) as object).sort()).toEqual(Object.keys(reference.endpoints).sort());
      const controls = Object.keys(reference.sandbox ?? {}).filter((k) => k !== 'triggers' && k !== 'autoSettle');
      const readControls = Object.keys((r.vendor.at('sandbox') ?? {}) as object).filter((k) => k !== 'triggers' && k !== 'autoSettle');
      expect(readControls.sort()).toEqual(controls.sort());
      expect(r.methods).toEqual(expect.arrayContaining(reference.methods.checkout));
    },
  );

  it.each(GALLERY_STYLES)(
    "%s: generated targets' descriptions tell nothing false and every fact they say",
    async (style: GalleryStyle) => {
      const seed = runSeed();
      for (const [i, g] of fc.sample(targetGenome(), { seed, numRuns: 12 }).entries()) {
        const truth = trueProfile(g);
        // The target's address ends with its base path, as init is given it; the description's servers carry it too.
        const basePath = (truth.embedded?.target as { basePath?: string } | undefined)?.basePath ?? '';
        const url = `http://127.0.0.1:1${basePath}`;
        const r = await read(vendorDescription(truth, style, url), url);
        const where = `seed ${seed} (replay: LEGAL_TARGETS_SEED=${seed}), genome ${i + 1}`;
        expect({ where, wrong: wrongAgainst(truth, r.vendor), contradictions: r.contradictions }).toEqual({
          where,
          wrong: [],
          contradictions: [],
        });
        const missing = toldShare(truth, r.vendor).missing.filter((path) => !unwritten(path));
        expect({ where, missing }).toEqual({ where, missing: [] });
      }
    },
    120_000,
  );
});

describe('constructs vendors write', () => {
  it('method names from enums and consts anywhere: inside allOf, and in each variant of a discriminated oneOf', async () => {
    const common = {
      type: 'object',
      required: ['merchant_order_no', 'trans_amount'],
      properties: { merchant_order_no: { type: 'string' }, trans_amount: amount, trade_info: { type: 'object' } },
    };
    const r = await read(
      base({
        '/api/v1/payments/checkout': {
          post: {
            summary: 'Create a checkout',
            requestBody: json({
              oneOf: [
                {
                  allOf: [
                    common,
                    {
                      properties: { payment_method: { const: 'BLIK' }, blik_code: { type: 'string', examples: ['777123'] } },
                      required: ['payment_method', 'blik_code'],
                    },
                  ],
                },
                {
                  allOf: [
                    common,
                    { properties: { payment_method: { type: 'string', enum: ['ACH_DEBIT'] } }, required: ['payment_method'] },
                  ],
                },
                { allOf: [common, { properties: { payment_method: { const: 'SEPA_DEBIT' } }, required: ['payment_method'] }] },
              ],
              discriminator: { propertyName: 'payment_method' },
            }),
            responses: ok,
          },
        },
      }),
    );
    expect(r.methods).toEqual(['BLIK', 'ACH_DEBIT', 'SEPA_DEBIT']);
    // A field only one method requires: that method's own, with its example.
    expect(r.vendor.at('checkout.extrasByMethod')).toEqual({ BLIK: { blik_code: '777123' } });
  });

  it("minimum, maximum and multipleOf on a method's amount: its limits, a channel per anyOf range", async () => {
    const variant = (method: string, value: object) => ({
      type: 'object',
      required: ['payment_method', 'merchant_order_no', 'trans_amount'],
      properties: {
        payment_method: { const: method },
        merchant_order_no: { type: 'string' },
        trans_amount: { allOf: [amount, { properties: { value } }] },
      },
    });
    const r = await read(
      base({
        '/api/v1/payments/checkout': {
          post: {
            summary: 'Create a checkout',
            requestBody: json({
              oneOf: [
                variant('CARD', { type: 'string', minimum: 0.5, maximum: 10000, multipleOf: 0.01 }),
                variant('CASH_APP', {
                  anyOf: [
                    { minimum: 1, maximum: 500 },
                    { minimum: 1000, maximum: 2500 },
                  ],
                }),
              ],
              discriminator: { propertyName: 'payment_method' },
            }),
            responses: ok,
          },
        },
      }),
    );
    expect(r.vendor.at('limits.payments')).toEqual({
      CARD: { min: '0.50', max: '10000.00' },
      CASH_APP: {
        min: '1.00',
        max: '2500.00',
        channels: [
          { min: '1.00', max: '500.00' },
          { min: '1000.00', max: '2500.00' },
        ],
      },
    });
  });

  it("allOf is merged: a refund request composed of parts is the refund's template, not {}", async () => {
    const r = await read(
      base(
        {
          '/v2/refunds': {
            post: {
              operationId: 'createRefund',
              summary: 'Refund a payment',
              requestBody: json({ allOf: [{ $ref: '#/components/schemas/RefundBase' }, { $ref: '#/components/schemas/RefundReason' }] }),
              responses: ok,
            },
          },
        },
        {
          components: {
            schemas: {
              RefundBase: {
                type: 'object',
                required: ['order_no', 'merchant_refund_no', 'refund_amount'],
                properties: {
                  order_no: { type: 'string', description: 'Order number assigned by the platform.' },
                  merchant_refund_no: { type: 'string' },
                  refund_amount: amount,
                },
              },
              RefundReason: { type: 'object', required: ['reason'], properties: { reason: { type: 'string' } } },
            },
          },
        },
      ),
    );
    expect(r.vendor.at('refunds.template')).toEqual({
      order_no: variable('orderNo'),
      merchant_refund_no: variable('refundNo'),
      refund_amount: variable('amount'),
      reason: variable('reason'),
    });
  });

  it('oneOf per payout method under a discriminator: the field that differs is the payee, each method its own fields', async () => {
    const payoutBase = {
      type: 'object',
      required: ['payout_method', 'merchant_payout_no', 'amount', 'beneficiary'],
      properties: { payout_method: { type: 'string' }, merchant_payout_no: { type: 'string' }, amount },
    };
    const variant = (method: string, payee: Record<string, string>) => ({
      allOf: [
        payoutBase,
        {
          properties: {
            payout_method: { const: method },
            beneficiary: {
              type: 'object',
              required: Object.keys(payee),
              properties: Object.fromEntries(Object.entries(payee).map(([k, v]) => [k, { type: 'string', examples: [v] }])),
            },
          },
        },
      ],
    });
    const r = await read(
      base({
        '/v2/payouts': {
          post: {
            summary: 'Send a payout',
            requestBody: json({
              oneOf: [variant('BANK_TRANSFER', { name: 'Grace Hopper', iban: 'DE00' }), variant('PAYPAL', { email: 'g@example.com' })],
              discriminator: { propertyName: 'payout_method' },
            }),
            responses: ok,
          },
        },
      }),
    );
    expect(r.vendor.at('payouts.template')).toEqual({
      payout_method: variable('method'),
      merchant_payout_no: variable('payoutNo'),
      amount: variable('amount'),
      beneficiary: variable('payee'),
    });
    expect(r.vendor.at('payouts.methods')).toEqual({
      BANK_TRANSFER: { payee: { name: 'Grace Hopper', iban: 'DE00' } },
      PAYPAL: { payee: { email: 'g@example.com' } },
    });
    expect(r.payoutMethods).toEqual(['BANK_TRANSFER', 'PAYPAL']);
  });

  it("path parameters of any name, read back to the interface's numbers; one nothing places is not told", async () => {
    const param = (name: string, description?: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });
    const r = await read(
      base({
        '/v2/payouts/{payoutId}/cancel': {
          post: { summary: 'Cancel a payout', parameters: [param('payoutId', 'The platform-assigned `payout_no`.')], responses: ok },
        },
        '/v2/payouts/{merchantPayoutNo}': {
          post: { summary: 'Retrieve a payout', parameters: [param('merchantPayoutNo')], responses: ok },
        },
        '/v2/refunds/{ref}': { post: { summary: 'Retrieve a refund', parameters: [param('ref', 'The reference.')], responses: ok } },
      }),
    );
    expect(r.vendor.at('endpoints')).toEqual({
      payoutCancel: '/v2/payouts/{payout_no}/cancel',
      payoutQuery: '/v2/payouts/{merchant_payout_no}',
    });
    expect(r.doubts.join('\n')).toMatch(/refundQuery: POST \/v2\/refunds\/\{ref\}: the path parameter\(s\) ref name no number/);
  });

  it("a server's path prefix goes before every path; a path item's own server (the sandbox's) replaces it", async () => {
    const r = await read({
      ...base({
        '/refunds/query': { post: { summary: 'Retrieve a refund', responses: ok } },
        '/sandbox/checkout/expire': expireUnder('https://sandbox.acme.example'),
      }),
      servers: [
        { url: 'https://{env}.acme.example/api/{version}', variables: { env: { default: 'sandbox' }, version: { default: 'v1' } } },
      ],
    });
    expect(r.vendor.at('endpoints')).toEqual({ refundQuery: '/api/v1/refunds/query' });
    expect(r.vendor.at('sandbox')).toEqual({
      expireCheckout: { path: '/sandbox/checkout/expire', template: { out_trade_no: variable('merchantOrderNo') } },
    });
  });

  it("a server under the target's own base path: paths are relative to the base URL, for the API and the sandbox alike", async () => {
    const doc = {
      ...base({
        '/refunds/query': { post: { summary: 'Retrieve a refund', responses: ok } },
        '/sandbox/checkout/expire': expireUnder('https://sandbox.acme.example/gw'),
      }),
      servers: [{ url: 'https://sandbox.acme.example/gw/api/v1' }],
    };
    const expire = { path: '/sandbox/checkout/expire', template: { out_trade_no: variable('merchantOrderNo') } };
    const under = await read(doc, 'http://127.0.0.1:8080/gw/');
    expect(under.vendor.at('endpoints')).toEqual({ refundQuery: '/api/v1/refunds/query' });
    expect(under.vendor.at('sandbox')).toEqual({ expireCheckout: expire });
    // A base URL the servers do not start with (a whole segment) leaves their paths whole.
    for (const baseUrl of ['http://127.0.0.1:8080/g', 'http://127.0.0.1:8080/', undefined]) {
      const other = await read(doc, baseUrl);
      expect(other.vendor.at('endpoints'), String(baseUrl)).toEqual({ refundQuery: '/gw/api/v1/refunds/query' });
      expect(other.vendor.at('sandbox'), String(baseUrl)).toEqual({ expireCheckout: { ...expire, path: '/gw/sandbox/checkout/expire' } });
    }
  });

  it('webhooks and callbacks are read for what they contradict, and never taken for an operation of the interface', async () => {
    const body = json({ type: 'object', properties: { orderNo: { type: 'string' }, status: { type: 'string' } } });
    const r = await read(
      base(
        {
          '/api/v1/payments/checkout': {
            post: {
              summary: 'Create a checkout',
              responses: ok,
              callbacks: { paymentUpdated: { '{$request.body#/notify_url}': { post: { requestBody: body, responses: ok } } } },
            },
          },
        },
        { webhooks: { refundUpdated: { post: { summary: 'Refund status changed', requestBody: body, responses: ok } } } },
      ),
    );
    expect(r.contradictions.join('\n')).toMatch(/webhook refundUpdated: the field orderNo .* is camelCase/);
    expect(r.contradictions.join('\n')).toMatch(/callback paymentUpdated: the field orderNo .* is camelCase/);
    expect(Object.keys((r.vendor.at('endpoints') ?? {}) as object)).toEqual(['checkout']);
  });

  it('operations under a sandbox tag are controls, never the interface: outcomes from oneOf consts, failures from a table', async () => {
    const r = await read(
      base({
        '/api/v1/refunds/query': { post: { summary: 'Retrieve a refund', tags: ['Refunds'], responses: ok } },
        '/simulator/refunds/complete': {
          post: {
            summary: 'Settle a pending refund',
            tags: ['Sandbox'],
            requestBody: json({
              type: 'object',
              required: ['refund_id', 'action'],
              properties: {
                refund_id: { type: 'string', description: 'Refund number assigned by the platform.' },
                action: {
                  oneOf: [
                    { const: 'PAID', description: 'It succeeds.' },
                    { const: 'REJECTED', description: 'It fails.' },
                  ],
                },
              },
            }),
            responses: ok,
          },
        },
        '/simulator/faults': {
          post: {
            summary: 'Simulate a one-time failure',
            tags: ['sandbox'],
            description: [
              '| Failure | `scenario` |',
              '|---|---|',
              '| The next payment query fails | `query_failed` |',
              '| The next order creation fails | `create_failed` |',
              '| The next refund creation is busy | `refund_busy` |',
              '| The next refund fails | `refund_failed` |',
              '',
              'One arming fails the next 2 matching requests.',
            ].join('\n'),
            requestBody: json({
              type: 'object',
              required: ['scenario', 'merchant_order_no'],
              properties: {
                scenario: { type: 'string', description: 'Which failure to arm.' },
                merchant_order_no: { type: 'string', description: 'Your own order number.' },
              },
            }),
            responses: ok,
          },
        },
      }),
    );
    expect(r.vendor.at('endpoints')).toEqual({ refundQuery: '/api/v1/refunds/query' });
    expect(r.vendor.at('sandbox.settleRefund')).toEqual({
      path: '/simulator/refunds/complete',
      template: { refund_id: variable('refundNo'), action: variable('outcome') },
      outcomes: { success: 'PAID', failed: 'REJECTED' },
    });
    expect(r.vendor.at('sandbox.armFailure')).toEqual({
      path: '/simulator/faults',
      template: { scenario: variable('failure'), merchant_order_no: variable('merchantOrderNo') },
      failures: {
        queryFailed: 'query_failed',
        orderCreationFailed: 'create_failed',
        refundSystemBusy: 'refund_busy',
        refundFailed: 'refund_failed',
      },
      count: 2,
    });
  });

  it('Markdown tables, lists: limits per method, channel, currency, fees, price points, merchants, cards, refunds, payouts', async () => {
    const md = [
      '### Payout limits',
      '',
      '| Method | Channel | Currency | Minimum | Maximum |',
      '|---|---|---|---|---|',
      '| `BANK_TRANSFER` | 1 | USD | 1.00 | 50,000.00 |',
      '| `BANK_TRANSFER` | 1 | EUR | 1.00 | 40,000.00 |',
      '',
      '### Payment limits',
      '',
      '| Method | Channel | Minimum | Maximum |',
      '|---|---|---|---|',
      '| `CASH_APP` | 1 | 1.00 | 500.00 |',
      '| `CASH_APP` | 2 | 1000.00 | 2500.00 |',
      '',
      '### Payment fees',
      '',
      '| Method | Percent | Fixed | Rounding | Fee floor | Fee cap |',
      '|---|---|---|---|---|---|',
      '| `CARD` | 2.9 % | 0.30 USD | halfUp | 0.50 USD | — |',
      '| All other methods | — | 1.00 EUR | — | — | 5.00 EUR |',
      '',
      '### Payout fees',
      '',
      '- `BANK_TRANSFER`: percent 0.5 %; fixed 0.25 USD; rounding up; floor 1.00 USD; cap 10 USD',
      '',
      '### Price points',
      '',
      '| Method | Price points (USD) | Rounding | Max distance | Tie |',
      '|---|---|---|---|---|',
      '| `APPLE_PAY` | 0.99, 1.99, 4.99 | nearest | 0.25 | down |',
      '| `GOOGLE_PAY` | 0.99, 1.99, 4.99 | up | any | — |',
      '',
      '### Test merchants',
      '',
      '| Merchant ID | Purpose | Payment methods | Payout balance | Refund balance |',
      '|---|---|---|---|---|',
      '| `M2` | A second active merchant | `CARD`, `ACH_DEBIT` | 2,500.00 USD | — |',
      '| `M9` | A disabled (frozen) merchant | — | — | — |',
      '| `M3` | A merchant with a low balance | — | 5.00 USD, 3.00 EUR | 1.00 USD |',
      '',
      '### Test cards',
      '',
      '- `4242424242424242`: Payment succeeds',
      '- `4000000000000002`: Declined by the issuer',
      '- `4000000000000069`: Declined by the issuer',
      '- `4000000000003220`: 3-D Secure: stays `REQUIRES_ACTION` until completed',
      '',
      '| Method | Refunds | Initial status |',
      '|---|---|---|',
      '| `CARD` | Full and partial | `PENDING` |',
      '| `CASH_APP` | Full only | — |',
      '',
      '| Method | Currencies | Cancelable |',
      '|---|---|---|',
      '| `BANK_TRANSFER` | USD, others | Yes |',
      '| `PAYPAL` | USD only | No |',
      '',
      'A refund fee of `0.30` USD is checked against your balance with every refund.',
    ].join('\n');
    const r = await read(base({}, { info: { title: 'Acme', version: '1', description: md } }));
    const at = (p: string) => r.vendor.at(p);
    expect(at('limits.payouts.BANK_TRANSFER')).toEqual({
      min: '1.00',
      max: '50000.00',
      byCurrency: { EUR: { min: '1.00', max: '40000.00' } },
    });
    expect(at('limits.payments.CASH_APP')).toEqual({
      min: '1.00',
      max: '2500.00',
      channels: [
        { min: '1.00', max: '500.00' },
        { min: '1000.00', max: '2500.00' },
      ],
    });
    expect(at('fees')).toEqual({
      payments: {
        CARD: { percent: '2.9', fixed: '0.30', rounding: 'halfUp', min: '0.50' },
        '*': { fixed: '1.00', currency: 'EUR', max: '5.00' },
      },
      payouts: { BANK_TRANSFER: { percent: '0.5', fixed: '0.25', rounding: 'up', min: '1.00', max: '10' } },
    });
    expect(at('methods.pricePoint')).toEqual(['APPLE_PAY', 'GOOGLE_PAY']);
    expect(at('pricePoints')).toEqual({
      tiers: ['0.99', '1.99', '4.99'],
      rounding: 'nearest',
      maxDistance: '0.25',
      tie: 'down',
      ruleByMethod: { GOOGLE_PAY: { rounding: 'up' } },
    });
    expect(at('merchants')).toEqual({
      second: { id: 'M2', paymentMethods: ['CARD', 'ACH_DEBIT'], payoutBalances: { USD: '2500.00' } },
      frozen: { id: 'M9' },
      lowBalance: { id: 'M3', payoutBalance: '5.00', payoutBalances: { EUR: '3.00' }, refundBalance: '1.00' },
    });
    expect((at('cardPayment.cards') as Record<string, { card_number: string }>)['success']?.card_number).toBe('4242424242424242');
    expect((at('cardPayment.declines') as { card_number: string }[]).map((c) => c.card_number)).toEqual(['4000000000000069']);
    expect(at('cardPayment.pendingStatus')).toBe('REQUIRES_ACTION');
    expect(at('refunds')).toEqual({ support: { CARD: 'partial', CASH_APP: 'full' }, createdStatus: { CARD: 'PENDING' }, fee: '0.30' });
    expect(at('payouts.methods')).toEqual({ BANK_TRANSFER: { cancel: true, usdOnly: false }, PAYPAL: { cancel: false, usdOnly: true } });
  });

  it('a table a row of which does not read whole tells nothing (never a guess)', async () => {
    const md = [
      '### Payment limits',
      '',
      '| Method | Minimum | Maximum |',
      '|---|---|---|',
      '| `CARD` | 0.50 | 10,000.00 |',
      '| `PAYPAL` | 1 USD-ish | ask us |',
      '',
      '### Payment fees',
      '',
      '| Method | Percent | Fixed | Fee cap |',
      '|---|---|---|---|',
      '| `CARD` | 2.9 % | 0.30 USD | 5.00 USD |',
      // A cap in another currency than the fee's is no bound of that fee.
      '| `PAYPAL` | 3.4 % | 0.35 USD | 4.00 EUR |',
    ];
    const r = await read(base({}, { info: { title: 'Acme', version: '1', description: md.join('\n') } }));
    expect(r.vendor.at('limits')).toBeUndefined();
    expect(r.vendor.at('fees')).toBeUndefined();
  });

  it('a failure-trigger table: each way per failure, in order; a table with a row that does not read tells nothing', async () => {
    const rows = [
      '| Failure | Trigger | Value | Where | Requests |',
      '|---|---|---|---|---|',
      '| `queryFailed` | `numberPrefix` | `QF-` | `merchantOrderNo` | first 1 |',
      '| `refundSystemBusy` | `header` | `BUSY` | `X-Mock-Response` | every |',
      '| `refundSystemBusy` | `amountEnding` | `.91` | — | every |',
      '| `orderCreationFailed` | `control` | — | — | — |',
    ];
    const at = async (md: string[]) =>
      (await read(base({}, { info: { title: 'Acme', version: '1', description: md.join('\n') } }))).vendor.at('sandbox.triggers');
    expect(await at(rows)).toEqual({
      queryFailed: [{ way: 'numberPrefix', number: 'merchantOrderNo', value: 'QF-', count: 1 }],
      refundSystemBusy: [
        { way: 'header', name: 'X-Mock-Response', value: 'BUSY' },
        { way: 'amountEnding', value: '.91' },
      ],
      orderCreationFailed: [{ way: 'control' }],
    });
    // A failure the interface does not name, or a prefix of a number nobody chooses, is no guess's to fill in.
    expect(await at([...rows, '| `paymentLost` | `amount` | `5.02` | — | every |'])).toBeUndefined();
    expect(await at([...rows, '| `queryFailed` | `numberPrefix` | `X-` | `order_no` | every |'])).toBeUndefined();
  });

  it("required fields per method, said in a table of the payee and in a field's description", async () => {
    const r = await read(
      base({
        '/api/v1/payments/checkout': {
          post: {
            summary: 'Create a checkout',
            requestBody: json({
              type: 'object',
              required: ['payment_method', 'merchant_order_no', 'trans_amount'],
              properties: {
                payment_method: { type: 'string', enum: ['CARD', 'KLARNA'] },
                merchant_order_no: { type: 'string' },
                trans_amount: amount,
                return_url: { type: 'string', examples: ['https://shop.example/back'], description: 'Required for `KLARNA` payments.' },
              },
            }),
            responses: ok,
          },
        },
        '/api/v1/payouts/create': {
          post: {
            summary: 'Send a payout',
            requestBody: json({
              type: 'object',
              required: ['payment_method', 'merchant_payout_no', 'trans_amount', 'payee'],
              properties: {
                payment_method: { type: 'string', enum: ['BANK_TRANSFER', 'PAYPAL'] },
                merchant_payout_no: { type: 'string' },
                trans_amount: amount,
                payee: {
                  type: 'object',
                  properties: { name: { type: 'string', examples: ['Ada'] }, email: { type: 'string', examples: ['a@example.com'] } },
                  description: [
                    '| Payout method | Required fields |',
                    '|---|---|',
                    '| `BANK_TRANSFER` | `name`, `email` |',
                    '| `PAYPAL` | `email` |',
                  ].join('\n'),
                },
              },
            }),
            responses: ok,
          },
        },
      }),
    );
    expect(r.vendor.at('checkout.extrasByMethod')).toEqual({ KLARNA: { return_url: 'https://shop.example/back' } });
    expect(r.vendor.at('payouts.methods')).toEqual({
      BANK_TRANSFER: { payee: { name: 'Ada', email: 'a@example.com' } },
      PAYPAL: { payee: { email: 'a@example.com' } },
    });
  });
});

describe('readings that once went wrong', () => {
  it('a payout balance query is not the payout query, and the payout query is kept', async () => {
    const r = await read(
      base({
        '/api/v1/balance/query': {
          post: { operationId: 'queryPayoutBalance', summary: 'Query the payout balance', tags: ['Payouts'], responses: ok },
        },
        '/api/v1/payouts/query': {
          post: {
            operationId: 'queryPayout',
            summary: 'Query a payout',
            tags: ['Payouts'],
            requestBody: json({ type: 'object', properties: { payout_no: { type: 'string' }, merchant_payout_no: { type: 'string' } } }),
            responses: ok,
          },
        },
      }),
    );
    expect(r.vendor.at('endpoints')).toEqual({ payoutQuery: '/api/v1/payouts/query' });
    expect(r.vendor.at('payouts.queryBy')).toEqual({ serviceNo: 'payout_no', merchantNo: 'merchant_payout_no' });
  });

  it('a beneficiary holding a card number is the payee, never the card variable', async () => {
    const r = await read(
      base({
        '/api/v1/payouts/create': {
          post: {
            summary: 'Create a payout',
            requestBody: json({
              type: 'object',
              required: ['payment_method', 'merchant_payout_no', 'trans_amount', 'beneficiary'],
              properties: {
                payment_method: { type: 'string', enum: ['CARD_PAYOUT'] },
                merchant_payout_no: { type: 'string' },
                trans_amount: amount,
                beneficiary: {
                  type: 'object',
                  properties: { card_number: { type: 'string', examples: ['4242424242424242'] }, cardholder_name: { type: 'string' } },
                },
              },
            }),
            responses: ok,
          },
        },
      }),
    );
    expect(r.vendor.at('payouts.template')).toEqual({
      payment_method: variable('method'),
      merchant_payout_no: variable('payoutNo'),
      trans_amount: variable('amount'),
      beneficiary: variable('payee'),
    });
    expect(r.doubts.join('\n')).toMatch(/the payee beneficiary .* does not say which fields each payout method takes/);
  });
});
