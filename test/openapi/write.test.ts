/**
 * describe --openapi and the reading of a description (harness/openapi/): the output validates as OpenAPI 3.1 with a
 * maintained parser (@readme/openapi-parser); it says the signing headers, the envelope, the error catalogue and the
 * webhooks; and the round trip — describe, then read the description as init --openapi does — tells the same facts,
 * every one of the described sections, for the reference profile, a profile with templated paths, and generated
 * targets' true profiles (seed printed; LEGAL_TARGETS_SEED replays). A description against the interface (camelCase,
 * a JSON number amount, a GET) is reported and its part not told.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { targetGenome } from '../../fixtures/arbitraries/genome.js';
import { variable } from '../../harness/init/fields.js';
import { getAt, leavesOf, Vendor } from '../../harness/init/told.js';
import { describeOpenApi } from '../../harness/openapi/write.js';
import { CATALOGUE } from '../../harness/openapi/errors.js';
import { factsOfDescription, parseLimits } from '../../harness/openapi/facts.js';
import { readOpenApi } from '../../harness/openapi/read.js';
import type { Profile } from '../../harness/profile/types.js';
import { callMain, ROOT } from '../cli/helpers.js';
import { trueProfile } from '../legal-targets/genome.js';
import { runSeed } from '../legal-targets/properties.js';

const dir = mkdtempSync(join(tmpdir(), 'mpsi-openapi-'));
const reference = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Profile;

/**
 * The profile's sections a description carries: the kit's own settings and the merchants' keys are not in one, nor the
 * primary merchant's id (init has it from --merchant).
 */
const DESCRIBED = new RegExp(
  String.raw`^(endpoints|checkout|paymentRecord|cardPayment\.(template|data|cards|declines)|refunds|` +
    String.raw`payouts\.(template|queryBy|cancelBy|data|methods\.[^.]+\.payee|balances)|limits|pricePoints|sandbox|fees|balances|` +
    String.raw`merchants\.(?!primary\.id$)[^.]+\.` +
    String.raw`(id|name|login|payoutBalance|payoutBalances|refundBalance|paymentMethods|payoutMethods))(\.|$)`,
);

async function roundTrip(
  profile: Profile,
  name: string,
): Promise<{ wrong: string[]; untold: string[]; told: number; contradictions: string[] }> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(describeOpenApi(profile), { aliasDuplicateObjects: false }));
  const { doc, warnings } = await readOpenApi(file);
  expect(warnings).toEqual([]);
  const facts = factsOfDescription(doc, file);
  const vendor = new Vendor(facts.told, facts);
  const wrong = vendor.told
    .filter((t) => JSON.stringify(getAt(profile, t.path)) !== JSON.stringify(t.value))
    .map((t) => `${t.path}: told ${JSON.stringify(t.value)}, true ${JSON.stringify(getAt(profile, t.path))}`);
  const untold = leavesOf(profile)
    .map(([p]) => p)
    .filter((p) => DESCRIBED.test(p) && !vendor.told.some((t) => t.path === p || p.startsWith(`${t.path}.`)));
  return { wrong, untold, told: vendor.told.length, contradictions: facts.contradictions };
}

describe('describe --openapi', () => {
  it('writes a valid OpenAPI 3.1 document with the signing headers, the envelope, the catalogue and the webhooks', async () => {
    const out = join(dir, 'reference.yaml');
    const cli = await callMain(['describe', '--profile', join(ROOT, 'fixtures', 'profiles', 'reference.json'), '--openapi', out]);
    expect(cli.code).toBe(0);
    const checked = await validate(out);
    expect(checked).toMatchObject({ valid: true, specification: 'OpenAPI' });
    const doc = parse(readFileSync(out, 'utf8')) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
    expect(doc['openapi']).toBe('3.1.0');
    expect(Object.values(doc['components']!['securitySchemes']!).map((s) => s['name'])).toEqual([
      'X-MerchantID',
      'X-Timestamp',
      'X-Nonce',
      'X-Sign',
    ]);
    expect(Object.keys(doc['webhooks']!)).toEqual(['payment.updated', 'refund.updated', 'payout.updated']);
    const refund = doc['paths']!['/api/v1/refunds/create']!['post'] as Record<string, unknown>;
    const keys = (refund['x-mpsi-errors'] as { key: string }[]).map((e) => e.key);
    expect(keys).toEqual(expect.arrayContaining(['refundOrderNotPaid', 'refundAmountExceeded', 'duplicateRefundOrder']));
    expect(String(refund['description'])).toContain('422 refundAmountExceeded');
    // Every row of the catalogue is written, with the clause it enforces.
    expect((doc['x-mpsi-error-catalogue'] as unknown as unknown[]).length).toBe(CATALOGUE.length + 4);
    // No secret of the profile is in it.
    const text = readFileSync(out, 'utf8');
    for (const [, m] of Object.entries(reference.merchants))
      if (m && typeof m === 'object' && 'secret' in m) expect(text).not.toContain(String((m as { secret: string }).secret));
  });

  it('writes a templated path with its path parameter, and a JSON file when asked', async () => {
    const templated = structuredClone(reference);
    templated.endpoints.payoutCancel = '/api/v1/payouts/{payout_no}/cancel';
    templated.endpoints.refundCreate = '/api/v1/payments/{order_no}/refunds';
    const file = join(dir, 'templated.json');
    writeFileSync(file, JSON.stringify(describeOpenApi(templated)));
    expect(await validate(file)).toMatchObject({ valid: true });
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    expect(doc.paths['/api/v1/payouts/{payout_no}/cancel'].post.parameters[0]).toMatchObject({
      name: 'payout_no',
      in: 'path',
      required: true,
    });
    const r = await roundTrip(templated, 'templated');
    expect(r.wrong).toEqual([]);
    expect(r.untold).toEqual([]);
  });
});

describe('the round trip: describe, then read the description as init --openapi does', () => {
  it('tells every described fact of the reference profile, each as the profile says it', async () => {
    const r = await roundTrip(reference, 'reference-rt');
    expect(r.contradictions).toEqual([]);
    expect(r.wrong).toEqual([]);
    expect(r.untold).toEqual([]);
    expect(r.told).toBeGreaterThan(100);
  });

  it("carries the sandbox's accounts without a key of any of them", () => {
    const text = stringify(describeOpenApi(reference), { aliasDuplicateObjects: false });
    const keys = Object.values(reference.merchants).flatMap((m) =>
      typeof m === 'object' ? [m.secret, m.productionSecret].filter((k): k is string => k !== undefined) : [],
    );
    expect(keys.length).toBeGreaterThan(3);
    for (const k of keys) expect(text).not.toContain(k);
    expect(text).toContain('x-mpsi-sandbox-accounts');
  });

  it("tells every described fact of generated targets' true profiles", async () => {
    const seed = runSeed();
    const genomes = fc.sample(targetGenome(), { seed, numRuns: 8 });
    for (const [i, g] of genomes.entries()) {
      const r = await roundTrip(trueProfile(g), `genome-${i}`);
      expect({ seed, i, wrong: r.wrong, untold: r.untold }).toEqual({ seed, i, wrong: [], untold: [] });
    }
  }, 60_000);
});

describe("reading a vendor's own description", () => {
  const vendorDoc = {
    openapi: '3.0.3',
    info: { title: 'Acme Pay', version: '2' },
    paths: {
      '/v2/charges/card-present': {
        post: {
          operationId: 'createCardCharge',
          summary: 'Charge a card',
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['payment_method', 'merchant_order_no', 'trans_amount', 'card'],
                  properties: {
                    payment_method: { type: 'string', enum: ['CARD', 'SEPA_DEBIT'] },
                    merchant_order_no: { type: 'string' },
                    trans_amount: { $ref: '#/components/schemas/Amount' },
                    card: { type: 'object', properties: { card_number: { type: 'string' } } },
                  },
                },
              },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/v2/payouts/{payout_no}/cancel': {
        post: {
          summary: 'Cancel a payout',
          parameters: [{ name: 'payout_no', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'ok' } },
        },
      },
      '/v2/refunds': {
        post: {
          summary: 'Create a refund',
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { merchantRefundNo: { type: 'string' }, refund_amount: { type: 'number' } },
                },
              },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
      '/v2/payments/{order_no}': { get: { summary: 'Retrieve a payment', responses: { '200': { description: 'ok' } } } },
    },
    components: {
      schemas: { Amount: { type: 'object', properties: { currency: { type: 'string' }, value: { type: 'string' } } } },
    },
  };

  it('matches operations by summary and fields, keeps templated paths, and reports what contradicts the interface', async () => {
    const file = join(dir, 'acme.json');
    writeFileSync(file, JSON.stringify(vendorDoc));
    const { doc } = await readOpenApi(file);
    const facts = factsOfDescription(doc, 'acme.json');
    const told = Object.fromEntries(facts.told.map((t) => [t.path, t.value]));
    expect(told['endpoints.cardPayment']).toBe('/v2/charges/card-present');
    expect(told['endpoints.payoutCancel']).toBe('/v2/payouts/{payout_no}/cancel');
    expect(told['cardPayment.template']).toEqual({
      payment_method: variable('method'),
      merchant_order_no: variable('merchantOrderNo'),
      trans_amount: variable('amount'),
      card: variable('card'),
    });
    expect(facts.methods).toEqual(['CARD', 'SEPA_DEBIT']);
    // The refund's camelCase field and number amount: reported, and its template not told.
    expect(told['refunds.template']).toBeUndefined();
    expect(facts.contradictions.join('\n')).toMatch(/merchantRefundNo .* camelCase/);
    expect(facts.contradictions.join('\n')).toMatch(/refund_amount .* JSON number/);
    // A GET is not the interface's: its path is not told.
    expect(told['endpoints.paymentQuery']).toBeUndefined();
    expect(facts.contradictions.join('\n')).toMatch(/GET \/v2\/payments\/\{order_no\}/);
    expect(facts.told.find((t) => t.path === 'endpoints.cardPayment')?.source).toBe('acme.json#/paths/~1v2~1charges~1card-present/post');
  });

  it('reads limits stated in words', () => {
    expect(parseLimits('CARD 0.50–10000.00; CASH_APP 1.00–500.00 and 1000.00–2500.00.')).toEqual({
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

  it('refuses what is not OpenAPI 3.0 or 3.1', async () => {
    const file = join(dir, 'swagger.json');
    writeFileSync(file, JSON.stringify({ swagger: '2.0', info: { title: 'x', version: '1' }, paths: {} }));
    await expect(readOpenApi(file)).rejects.toThrow(/not an OpenAPI 3\.0 or 3\.1 document|is not read/);
  });
});
