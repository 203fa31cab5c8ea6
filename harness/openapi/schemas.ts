/**
 * JSON Schemas of the interface's fixed shapes (the envelope, the Amount object, the webhook body) and of a profile's
 * open ones: a request template becomes an object schema (a variable becomes the schema of what it stands for, a literal
 * a schema with that literal as its example), a dotted data path becomes nested properties.
 */
import type { Profile } from '../profile/types.js';

export type Schema = Record<string, unknown>;

export const AMOUNT: Schema = {
  type: 'object',
  description: 'Amount object. `value` is a decimal string with at most two decimals (responses show two); a JSON number is refused.',
  required: ['currency', 'value'],
  properties: {
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'Three-letter upper-case code; amounts are accepted in USD.' },
    value: { type: 'string', pattern: String.raw`^(0|[1-9]\d*)(\.\d{1,2})?$`, examples: ['12.50'] },
  },
};

export const CARD: Schema = {
  type: 'object',
  properties: {
    card_number: { type: 'string' },
    cardholder_name: { type: 'string' },
    exp_month: { type: 'integer' },
    exp_year: { type: 'integer' },
    cvc: { type: 'string' },
  },
};

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** What a template variable stands for, as a schema (harness/ops.ts fills them). */
export function variableSchema(name: string, methods: readonly string[]): Schema {
  switch (name) {
    case 'amount':
      return ref('Amount');
    case 'method':
      return { type: 'string', enum: [...methods], description: 'The payment method.' };
    case 'card':
      return ref('Card');
    case 'notifyUrl':
      return { type: 'string', format: 'uri', description: 'Webhook target.' };
    case 'merchantOrderNo':
      return { type: 'string', description: "The merchant's order number." };
    case 'orderNo':
      return { type: 'string', description: "The service's order number." };
    case 'refundNo':
      return { type: 'string', description: "The merchant's refund number (unique among the merchant's refunds)." };
    case 'payoutNo':
      return { type: 'string', description: "The merchant's payout number (unique among the merchant's payouts)." };
    case 'reason':
      return { type: 'string', description: 'The refund reason.' };
    case 'goodsName':
      return { type: 'string', description: 'What is sold.' };
    case 'metadata':
      return { type: 'string', description: 'Echoed back in webhooks.' };
    default:
      return { type: 'string' };
  }
}

const VARIABLE = /^\$\{(\w+)\}$/;

/** The schema of a request body written as a profile template: every key required, as the template always sends it. */
export function templateSchema(template: Record<string, unknown>, methods: readonly string[], payee?: Schema): Schema {
  const properties: Record<string, Schema> = {};
  for (const [k, v] of Object.entries(template)) properties[k] = valueSchema(v, methods, payee);
  return { type: 'object', required: Object.keys(template), properties };
}

function valueSchema(v: unknown, methods: readonly string[], payee?: Schema): Schema {
  if (typeof v === 'string') {
    const m = VARIABLE.exec(v);
    if (m) return m[1] === 'payee' && payee ? payee : variableSchema(m[1]!, methods);
    return { type: 'string', examples: [v] };
  }
  if (typeof v === 'number') return { type: Number.isInteger(v) ? 'integer' : 'number', examples: [v] };
  if (typeof v === 'boolean') return { type: 'boolean', examples: [v] };
  if (v && typeof v === 'object' && !Array.isArray(v)) return templateSchema(v as Record<string, unknown>, methods, payee);
  return { examples: [v] };
}

/** A record's fields, each at its dotted path, as nested object schemas. */
export function recordSchema(fields: Record<string, { path: string; schema: Schema }>): Schema {
  const root: Schema = { type: 'object', properties: {} };
  for (const { path, schema } of Object.values(fields)) {
    const keys = path.split('.');
    let cur = root;
    for (const k of keys.slice(0, -1)) {
      const props = cur['properties'] as Record<string, Schema>;
      props[k] ??= { type: 'object', properties: {} };
      cur = props[k]!;
    }
    (cur['properties'] as Record<string, Schema>)[keys[keys.length - 1]!] = schema;
  }
  return root;
}

/** The methods a profile names for payments (the enum of payment_method). */
export function paymentMethods(p: Profile): string[] {
  const all = [
    ...p.methods.checkout,
    ...(p.methods.card ? [p.methods.card] : []),
    ...(p.methods.pricePoint ?? []),
    ...(p.methods.notEnabled ? [p.methods.notEnabled] : []),
    ...(p.methods.noChannel ? [p.methods.noChannel] : []),
    ...Object.values(p.merchants).flatMap((m) =>
      m && typeof m === 'object' ? ((m as { paymentMethods?: string[] }).paymentMethods ?? []) : [],
    ),
  ];
  return [...new Set(all)];
}

/** The success envelope around a `data` schema, and the error envelope. */
export function envelope(data: Schema): Schema {
  return {
    oneOf: [
      {
        type: 'object',
        required: ['code', 'msg', 'data'],
        properties: { code: { const: 0 }, msg: { const: 'success' }, data },
      },
      ref('ErrorEnvelope'),
    ],
  };
}

export const ERROR_ENVELOPE: Schema = {
  type: 'object',
  description: 'An error: a non-zero code, msg = message + "|" + a stable key (the part after the last "|"), no data.',
  required: ['code', 'msg'],
  not: { required: ['data'] },
  properties: {
    code: { type: 'integer', not: { const: 0 } },
    msg: { type: 'string', pattern: String.raw`\|[A-Za-z]+$` },
  },
};
