/**
 * A target's interface as its profile describes it, as an OpenAPI 3.1 document (`describe --openapi`): every operation the
 * profile has a path for (templated paths with their path parameters), its request schema (the document's fields, the
 * profile's templates and extras), its answer (the envelope around the record the profile's data paths describe), the
 * four signing headers, the error catalogue (harness/openapi/errors.ts) and the webhook events as `webhooks`. Facts of
 * the profile an OpenAPI schema has no keyword for (channel limits, price points, fees) are said twice: in the description's
 * words, for a reader, and in an `x-mpsi-*` extension, for a program (init --openapi reads both). A sandbox's published
 * test facts go in extensions only: its test cards, its accounts (`x-mpsi-sandbox-accounts`: ids, names, logins, methods
 * and balances, never a key), how its balances move (`x-mpsi-balances`) and the magic values or headers that cause its
 * failures (`x-mpsi-sandbox-triggers`), the records that end by themselves (`x-mpsi-sandbox-auto-settle`).
 */
import { factsOf, MERCHANT_ROLES } from '../facts/index.js';
import type { FeeKind } from '../facts/fees.js';
import type { FeeModel, MerchantRef, Profile } from '../profile/types.js';
import { variable } from '../init/fields.js';
import { endpointPaths } from '../target.js';
import { AUTH_ERRORS, CATALOGUE, type Operation } from './errors.js';
import {
  AMOUNT,
  CARD,
  envelope,
  ERROR_ENVELOPE,
  paymentMethods,
  recordSchema,
  type Schema,
  templateSchema,
  variableSchema,
} from './schemas.js';

/** Each operation's summary: the words init --openapi matches a vendor's operations by (harness/openapi/match.ts). */
export const SUMMARIES: Record<Operation, string> = {
  checkout: 'Create a payment and a checkout',
  paymentQuery: 'Look up one payment',
  cardPayment: 'Create a payment with card data',
  refundCreate: 'Create a refund',
  refundQuery: 'Look up one refund',
  payoutCreate: 'Create a payout',
  payoutQuery: 'Look up one payout',
  payoutCancel: 'Cancel a payout',
};

const TAGS: Record<Operation, string> = {
  checkout: 'payments',
  paymentQuery: 'payments',
  cardPayment: 'payments',
  refundCreate: 'refunds',
  refundQuery: 'refunds',
  payoutCreate: 'payouts',
  payoutQuery: 'payouts',
  payoutCancel: 'payouts',
};

const SIGNING = [
  ['MerchantId', 'X-MerchantID', 'Merchant identifier assigned by the service.'],
  ['Timestamp', 'X-Timestamp', 'Unix time in seconds, as a decimal string.'],
  ['Nonce', 'X-Nonce', 'Random non-empty string; 16 to 32 characters recommended.'],
  [
    'Sign',
    'X-Sign',
    'Lower-case hexadecimal HMAC-SHA256, keyed with the merchant secret key, of merchantID LF timestamp LF nonce LF the raw body bytes.',
  ],
] as const;

type Obj = Record<string, unknown>;

/** The limits of each method, in words: "CARD 0.50–10000.00; CASH_APP 1.00–500.00 and 1000.00–2500.00". */
export function limitsText(limits: NonNullable<Profile['limits']>['payments'] | undefined): string {
  return Object.entries(limits ?? {})
    .map(([m, l]) => `${m} ${(l.channels ?? [l]).map((c) => `${c.min}–${c.max}`).join(' and ')}`)
    .join('; ');
}

function requestSchema(op: Operation, p: Profile): Schema | undefined {
  const methods = paymentMethods(p);
  const payees = Object.entries(p.payouts?.methods ?? {}).filter(([, m]) => m.payee);
  const payee: Schema | undefined = payees.length
    ? { oneOf: payees.map(([name, m]) => ({ title: `${name} payee`, ...templateSchema(m.payee!, methods), examples: [m.payee] })) }
    : undefined;
  switch (op) {
    case 'checkout': {
      const base: Obj = {
        payment_method: variable('method'),
        merchant_order_no: variable('merchantOrderNo'),
        trans_amount: variable('amount'),
        trade_info: { goods_name: variable('goodsName') },
        ...(p.checkout?.extras ?? {}),
      };
      const s = templateSchema(base, methods);
      const byMethod = Object.entries(p.checkout?.extrasByMethod ?? {});
      if (byMethod.length) s['x-mpsi-extras-by-method'] = Object.fromEntries(byMethod);
      const props = s['properties'] as Record<string, Schema>;
      (props['trade_info']!['properties'] as Record<string, Schema>)['description'] = { type: 'string' };
      // The metadata a check sends, unless the profile's extras give a value of their own (a method that requires it).
      props['metadata'] ??= variableSchema('metadata', methods);
      props['return_url'] ??= { type: 'string', format: 'uri', description: 'Where the customer returns after checkout.' };
      // A field only some methods need is in the schema, not in `required` (x-mpsi-extras-by-method says which).
      for (const [, extras] of byMethod) {
        const own = templateSchema(extras, methods)['properties'] as Record<string, Schema>;
        for (const [k, v] of Object.entries(own)) props[k] ??= v;
      }
      return s;
    }
    case 'paymentQuery':
      return {
        type: 'object',
        description: 'Exactly one of merchant_order_no and order_no.',
        properties: { merchant_order_no: { type: 'string' }, order_no: { type: 'string' } },
        oneOf: [{ required: ['merchant_order_no'] }, { required: ['order_no'] }],
      };
    case 'cardPayment':
      return p.cardPayment ? templateSchema(p.cardPayment.template, methods) : undefined;
    case 'refundCreate':
      return p.refunds ? templateSchema(p.refunds.template, methods) : undefined;
    case 'payoutCreate':
      return p.payouts ? templateSchema(p.payouts.template, Object.keys(p.payouts.methods), payee) : undefined;
    case 'refundQuery':
      return p.refunds ? lookup(p.refunds.queryBy) : undefined;
    case 'payoutQuery':
      return p.payouts ? lookup(p.payouts.queryBy) : undefined;
    case 'payoutCancel':
      return p.payouts ? lookup(p.payouts.cancelBy) : undefined;
  }
}

function lookup(by: { serviceNo: string; merchantNo: string }): Schema {
  return {
    type: 'object',
    description: `Exactly one of ${by.serviceNo} (the service's number) and ${by.merchantNo} (the merchant's).`,
    properties: { [by.serviceNo]: { type: 'string' }, [by.merchantNo]: { type: 'string' } },
    oneOf: [{ required: [by.serviceNo] }, { required: [by.merchantNo] }],
    'x-mpsi-lookup': { serviceNo: by.serviceNo, merchantNo: by.merchantNo },
  };
}

const str = (description: string): Schema => ({ type: 'string', description });
const amountRef: Schema = { $ref: '#/components/schemas/Amount' };

function dataSchema(op: Operation, p: Profile): Schema {
  const fields = (o: Record<string, { path?: string; schema: Schema }>) =>
    recordSchema(Object.fromEntries(Object.entries(o).flatMap(([k, v]) => (v.path ? [[k, { path: v.path, schema: v.schema }]] : []))));
  switch (op) {
    case 'checkout':
      return fields({
        orderNo: { path: p.checkout?.data.orderNo, schema: str("The service's order number.") },
        status: { path: p.checkout?.data.status, schema: str(`The status; a new checkout is ${p.checkout?.pendingStatus ?? 'pending'}.`) },
      });
    case 'cardPayment':
      return fields({
        orderNo: { path: p.cardPayment?.data.orderNo, schema: str("The service's order number.") },
        status: { path: p.cardPayment?.data.status, schema: str('The status.') },
      });
    case 'paymentQuery': {
      const r = p.paymentRecord;
      return fields({
        orderNo: { path: r?.orderNo, schema: str("The service's order number.") },
        merchantOrderNo: { path: r?.merchantOrderNo, schema: str("The merchant's order number.") },
        status: { path: r?.status, schema: str('SUCCESS, FAILED, REFUNDED, or a pending status.') },
        transAmount: { path: r?.transAmount, schema: { ...amountRef, description: 'The amount charged.' } },
        requestedAmount: {
          path: r?.requestedAmount,
          schema: { ...amountRef, description: 'The amount asked, present only when it was rounded to a price point.' },
        },
      });
    }
    case 'refundCreate':
    case 'refundQuery':
      return fields({
        refundNo: { path: p.refunds?.data.refundNo, schema: str("The service's refund number.") },
        status: { path: p.refunds?.data.status, schema: str('PENDING, SUCCESS or FAILED.') },
        amount: { path: p.refunds?.data.amount, schema: { ...amountRef, description: 'The amount refunded.' } },
      });
    case 'payoutCreate':
    case 'payoutQuery':
    case 'payoutCancel':
      return fields({
        payoutNo: { path: p.payouts?.data.payoutNo, schema: str("The service's payout number.") },
        status: { path: p.payouts?.data.status, schema: str('The status: SUCCESS, FAILED, CANCELED or a pending one.') },
      });
  }
}

/** The kind of fee an operation charges: a payment's on its creations, a refund's and a payout's on theirs. */
export function feeKindOf(op: Operation): FeeKind | undefined {
  if (op === 'checkout' || op === 'cardPayment') return 'payments';
  if (op === 'refundCreate') return 'refunds';
  return op === 'payoutCreate' ? 'payouts' : undefined;
}

/** The fees an operation charges, per method. */
function feesOf(op: Operation, p: Profile): Record<string, FeeModel> | undefined {
  const kind = feeKindOf(op);
  const fees = kind ? p.fees?.[kind] : undefined;
  return fees && Object.keys(fees).length ? fees : undefined;
}

/** "CARD 2.9 % + 0.30 USD (rounded halfUp); *: 1.00 USD". */
function feesText(fees: Record<string, FeeModel>): string {
  return Object.entries(fees)
    .map(([m, f]) => {
      const parts = [f.percent ? `${f.percent} %` : '', f.fixed ? `${f.fixed} ${f.currency ?? 'USD'}` : ''].filter(Boolean);
      const bounds = [f.min ? `at least ${f.min}` : '', f.max ? `at most ${f.max}` : ''].filter(Boolean).join(', ');
      return `${m} ${parts.join(' + ') || 'none'}${bounds ? `, ${bounds}` : ''}${f.rounding ? ` (rounded ${f.rounding})` : ''}`;
    })
    .join('; ');
}

/**
 * The sandbox's accounts as the vendor publishes them for testing: each merchant's id, name, login, methods and
 * balances, never a key (a merchant's secret and production key stay with whoever runs the kit).
 */
function sandboxAccounts(p: Profile): Obj | undefined {
  const out: Obj = {};
  for (const [role, m] of Object.entries(p.merchants)) {
    if (typeof m !== 'object' || m === null) continue;
    const { secret: _s, secretEnv: _e, productionSecret: _p, productionSecretEnv: _pe, ...shown } = m as MerchantRef & Obj;
    out[role] = shown;
  }
  return Object.keys(out).length ? out : undefined;
}

function operationDescription(op: Operation, p: Profile): string {
  const lines: string[] = [];
  if (op === 'checkout' || op === 'cardPayment') {
    lines.push(`Payment methods: ${(op === 'checkout' ? p.methods.checkout : [p.methods.card ?? '']).filter(Boolean).join(', ')}.`);
    const limits = limitsText(p.limits?.payments);
    if (limits) lines.push(`Amount limits per method (USD, inclusive): ${limits}.`);
    if (p.pricePoints && op === 'checkout')
      lines.push(
        `Price points (${(p.methods.pricePoint ?? []).join(', ')}): ${p.pricePoints.tiers.join(', ')}; rounding ${p.pricePoints.rounding}` +
          `${p.pricePoints.maxDistance ? ` within ${p.pricePoints.maxDistance}` : ''}.`,
      );
  }
  if (op === 'payoutCreate' && p.payouts) {
    const limits = limitsText(p.limits?.payouts);
    // Each method with the currencies it takes (harness/facts/: a set, or usdOnly's USD), where the profile says them.
    const facts = factsOf(p);
    const named = Object.keys(p.payouts.methods).map((m) => {
      const set = facts.payoutCurrencies(m);
      return set ? `${m} (${set.join(', ')})` : m;
    });
    lines.push(`Payout methods: ${named.join(', ')}.`);
    for (const role of MERCHANT_ROLES) {
      const own = (p.merchants[role] as MerchantRef | undefined)?.facts;
      if (own) lines.push(`The ${role} merchant's own facts, laid over these for it: ${JSON.stringify(own)}.`);
    }
    if (limits) lines.push(`Amount limits per method (USD, inclusive): ${limits}.`);
  }
  const fees = feesOf(op, p);
  if (fees) lines.push(`Fees per method ("*": every other method): ${feesText(fees)}.`);
  const errors = CATALOGUE.filter((r) => r.on.includes(op));
  lines.push(...(lines.length ? [''] : []), 'Errors (code, key: condition):', ...errors.map((r) => `- ${r.code} ${r.key}: ${r.condition}`));
  return lines.join('\n');
}

function operationOf(op: Operation, path: string, p: Profile): Obj {
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: `The ${m[1]!.replace(/_/g, ' ')} of the resource, URL-encoded.`,
  }));
  const request = requestSchema(op, p) ?? { type: 'object' };
  const out: Obj = {
    operationId: op,
    summary: SUMMARIES[op],
    description: operationDescription(op, p),
    tags: [TAGS[op]],
    ...(params.length ? { parameters: params } : {}),
    requestBody: { required: true, content: { 'application/json': { schema: request } } },
    responses: {
      '200': {
        description: 'A signed answer: success (code 0) or an error of the catalogue (code and key), always HTTP 200.',
        headers: Object.fromEntries(SIGNING.map(([name, header]) => [header, { $ref: `#/components/headers/${name}` }])),
        content: { 'application/json': { schema: envelope(dataSchema(op, p)) } },
      },
      ...Object.fromEntries(
        [401, 403, 500].map((http) => [
          String(http),
          {
            description: `Unsigned: ${AUTH_ERRORS.filter((a) => a.http === http)
              .map((a) => `${a.key} (${a.condition})`)
              .join('; ')}`,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
          },
        ]),
      ),
    },
    'x-mpsi-errors': CATALOGUE.filter((r) => r.on.includes(op)).map((r) => ({
      code: r.code,
      key: r.key,
      condition: r.condition,
      clause: r.clause,
    })),
  };
  if (op === 'checkout' || op === 'cardPayment') {
    if (p.limits?.payments) out['x-mpsi-limits'] = p.limits.payments;
    if (p.pricePoints && op === 'checkout') out['x-mpsi-price-points'] = { methods: p.methods.pricePoint ?? [], ...p.pricePoints };
  }
  if (op === 'payoutCreate' && p.limits?.payouts) out['x-mpsi-limits'] = p.limits.payouts;
  const fees = feesOf(op, p);
  if (fees) out['x-mpsi-fees'] = fees;
  if (op === 'payoutCreate' && p.payouts?.balances) out['x-mpsi-payout-balances'] = p.payouts.balances;
  // The sandbox's published test cards and the refund rules per method: facts a vendor's documentation states.
  if (op === 'cardPayment' && p.cardPayment)
    out['x-mpsi-test-cards'] = {
      cards: p.cardPayment.cards,
      ...(p.cardPayment.declines ? { declines: p.cardPayment.declines } : {}),
      ...(p.cardPayment.pendingStatus ? { pendingStatus: p.cardPayment.pendingStatus } : {}),
    };
  if (op === 'refundCreate' && p.refunds) {
    const { support, supportByMerchant, createdStatus, failingReason, fee } = p.refunds;
    out['x-mpsi-refunds'] = {
      support,
      ...(supportByMerchant ? { supportByMerchant } : {}),
      ...(createdStatus ? { createdStatus } : {}),
      ...(failingReason ? { failingReason } : {}),
      ...(fee ? { fee } : {}),
    };
  }
  return out;
}

const CONTROL_SUMMARIES: Record<string, string> = {
  completeCheckout: "Sandbox: complete a checkout as the customer would (the outcome's value names it)",
  expireCheckout: 'Sandbox: expire a checkout link',
  chargeback: 'Sandbox: record a chargeback on a payment',
  settleRefund: 'Sandbox: settle a pending refund',
  settlePayout: 'Sandbox: settle a pending payout',
  completeCard: 'Sandbox: complete a pending (3-D Secure) card payment',
  armFailure: "Sandbox: arm a one-shot failure of the merchant's next request of a kind",
};

/** The sandbox's controls as operations (several controls may share one path): x-mpsi-sandbox-controls carries each whole. */
function sandboxPaths(p: Profile): Obj {
  const byPath = new Map<string, [string, Obj][]>();
  for (const [name, control] of Object.entries(p.sandbox ?? {}) as [string, Obj & { path: string; template: Obj }][]) {
    // sandbox.triggers is no control: a list of ways per failure, sent in the API's own requests.
    if (!control || typeof control !== 'object' || typeof control.path !== 'string') continue;
    byPath.set(control.path, [...(byPath.get(control.path) ?? []), [name, control]]);
  }
  const out: Obj = {};
  for (const [path, controls] of byPath) {
    const [first] = controls[0]!;
    out[path] = {
      post: {
        operationId: controls.map(([n]) => `sandbox-${n}`).join('-'),
        summary: controls.map(([n]) => CONTROL_SUMMARIES[n] ?? `Sandbox: ${n}`).join('; '),
        tags: ['sandbox'],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: templateSchema(controls[0]![1]['template'] as Obj, []) } },
        },
        responses: {
          '200': {
            description: `The ${first} control's answer, in the envelope.`,
            content: { 'application/json': { schema: envelope({ type: 'object' }) } },
          },
        },
        'x-mpsi-sandbox-controls': controls.map(([name, control]) => ({ name, control })),
      },
    };
  }
  return out;
}

const WEBHOOK_EVENTS = [
  ['payment.updated', 'A payment becomes SUCCESS or FAILED.'],
  ['refund.updated', 'A refund is created (PENDING or SUCCESS), and when it becomes SUCCESS or FAILED.'],
  ['payout.updated', 'A payout becomes SUCCESS, FAILED or CANCELED.'],
] as const;

function webhookBody(event: string): Schema {
  const common: Record<string, Schema> = {
    event: { const: event },
    order_no: str("The service's number (order_no, refund_no or payout_no)."),
    merchant_order_no: str("The merchant's number."),
    payment_method: str('The payment method.'),
    trans_amount: amountRef,
    status: str('Status at the moment of sending.'),
    metadata: str('The metadata sent, or an empty string.'),
    created_at: { type: 'string', format: 'date-time' },
  };
  const required = ['event', 'order_no', 'merchant_order_no', 'payment_method', 'trans_amount', 'status', 'metadata', 'created_at'];
  if (event === 'payment.updated')
    return {
      type: 'object',
      required: [...required, 'trade_info', 'finished_at'],
      properties: {
        ...common,
        status: { enum: ['SUCCESS', 'FAILED', 'REFUNDED'] },
        requested_amount: amountRef,
        trade_info: { type: 'object' },
        finished_at: { type: 'string', format: 'date-time' },
      },
    };
  if (event === 'refund.updated')
    return {
      type: 'object',
      required: [...required, 'trade_info', 'original_order_no', 'original_merchant_order_no'],
      properties: {
        ...common,
        status: { enum: ['PENDING', 'SUCCESS', 'FAILED'] },
        trade_info: { type: 'object', required: ['goods_name'], properties: { goods_name: str('The refund reason.') } },
        original_order_no: { type: 'string' },
        original_merchant_order_no: { type: 'string' },
      },
    };
  return {
    type: 'object',
    required: [...required, 'status_reason', 'finished_at'],
    properties: {
      ...common,
      status: { enum: ['SUCCESS', 'FAILED', 'CANCELED'] },
      status_reason: str('Reason for the payout status.'),
      finished_at: { type: 'string', format: 'date-time' },
    },
  };
}

function webhooks(p: Profile): Obj {
  const ack = p.webhooks
    ? ` This target's acknowledgement limit: ${p.webhooks.ackTimeoutMs} ms (its clock ratio ${p.webhooks.timeScale}).`
    : '';
  return Object.fromEntries(
    WEBHOOK_EVENTS.map(([event, when]) => [
      event,
      {
        post: {
          operationId: `webhook:${event}`,
          summary: `${event}: ${when}`,
          description:
            "Sent to the notify_url, signed as requests are (the four headers, the merchant's key). Deduplicate on event, " +
            `order_no and status. Up to 9 attempts over about 80 to 100 minutes.${ack}`,
          parameters: SIGNING.map(([name]) => ({ $ref: `#/components/parameters/${name}` })),
          requestBody: { required: true, content: { 'application/json': { schema: webhookBody(event) } } },
          responses: {
            '200': {
              description: 'Acknowledged: the body is exactly `success` (seven lower-case letters), within 5 seconds.',
              content: { 'text/plain': { schema: { const: 'success' } } },
            },
          },
        },
      },
    ]),
  );
}

/** The OpenAPI 3.1 document of the target a profile describes. `serverUrl` replaces an "embedded" baseUrl. */
export function describeOpenApi(p: Profile, serverUrl?: string): Obj {
  const paths: Obj = {};
  for (const [op, path] of Object.entries(endpointPaths(p)) as [Operation, string][]) {
    if (!(op in SUMMARIES)) continue;
    paths[path] = { post: operationOf(op, path, p) };
  }
  for (const [path, item] of Object.entries(sandboxPaths(p))) if (!(path in paths)) paths[path] = item;
  const base = serverUrl ?? (p.baseUrl === 'embedded' ? 'http://127.0.0.1' : p.baseUrl);
  const accounts = p.environment === 'sandbox' ? sandboxAccounts(p) : undefined;
  return {
    openapi: '3.1.0',
    info: {
      title: `${p.name}: Merchant Payment Service Interface`,
      version: '1',
      description:
        `${p.description ?? p.name}\n\nEvery request is a signed POST with a JSON body; every answer is the envelope ` +
        '{code, msg, data}: code 0 and msg "success" with data, or a non-zero code and msg "message|key". Signed answers, ' +
        'errors included, have HTTP status 200; only authentication failures and an unreadable body use another status. ' +
        'JSON field names are snake_case; amounts are Amount objects whose value is a decimal string.',
    },
    servers: [{ url: base }],
    security: [Object.fromEntries(SIGNING.map(([name]) => [name, []]))],
    tags: [
      { name: 'payments' },
      { name: 'refunds' },
      { name: 'payouts' },
      { name: 'sandbox', description: 'Sandbox controls: no production service has them.' },
    ],
    paths,
    webhooks: webhooks(p),
    components: {
      securitySchemes: Object.fromEntries(
        SIGNING.map(([name, header, description]) => [name, { type: 'apiKey', in: 'header', name: header, description }]),
      ),
      parameters: Object.fromEntries(
        SIGNING.map(([name, header, description]) => [
          name,
          { name: header, in: 'header', required: true, description, schema: { type: 'string' } },
        ]),
      ),
      headers: Object.fromEntries(
        SIGNING.map(([name, , description]) => [name, { required: true, description, schema: { type: 'string' } }]),
      ),
      schemas: { Amount: AMOUNT, Card: CARD, ErrorEnvelope: ERROR_ENVELOPE },
    },
    ...(accounts ? { 'x-mpsi-sandbox-accounts': accounts } : {}),
    ...(p.balances ? { 'x-mpsi-balances': p.balances } : {}),
    // The ways the sandbox causes its failures by magic values or headers (a published test fact, like its cards).
    ...(p.sandbox?.triggers ? { 'x-mpsi-sandbox-triggers': p.sandbox.triggers } : {}),
    ...(p.sandbox?.autoSettle ? { 'x-mpsi-sandbox-auto-settle': p.sandbox.autoSettle } : {}),
    'x-mpsi-error-catalogue': [
      ...AUTH_ERRORS.map((a) => ({ http: a.http, code: a.http, key: a.key, message: a.message, condition: a.condition, signed: false })),
      ...CATALOGUE.map((r) => ({ code: r.code, key: r.key, condition: r.condition, clause: r.clause, operations: r.on })),
    ],
  };
}
