/**
 * What a sandbox may ask of a request beyond the document's fields (sandbox-data.ts `queryParams`, `maxLengths`,
 * `maxBodyBytes`): "Only `merchant_order_no`/`order_no` lookup inputs are shown, other query parameters: not shown." and
 * "Maximum lengths of string fields and maximum request body size: not shown." A query without a parameter the target
 * requires, or with another value, is refused 400 invalidRequest naming the field ("A field is missing or has the wrong
 * type or format"); a value longer than its limit, or a body larger than the target's, 422 validationFailed.
 */
import { E } from './errors.js';

/** A required query field's value: exactly this string, or the sending merchant's id. */
export type QueryParamValue = string | { readonly merchantId: true };
export type QueryParamsDescription = Readonly<Partial<Record<QueryKind, Readonly<Record<string, QueryParamValue>>>>>;
export type QueryKind = 'payments' | 'refunds' | 'payouts';
export type LengthField =
  | 'merchantOrderNo'
  | 'merchantRefundNo'
  | 'merchantPayoutNo'
  | 'goodsName'
  | 'description'
  | 'metadata'
  | 'reason'
  | 'payee'
  | 'email';
export type MaxLengthsDescription = Readonly<Partial<Record<LengthField, number>>>;

export interface RequestLimits {
  readonly queryParams?: QueryParamsDescription;
  readonly maxLengths?: MaxLengthsDescription;
  readonly maxBodyBytes?: number;
}

const QUERY_ROUTES: Readonly<Record<string, QueryKind>> = {
  '/api/v1/payments/query': 'payments',
  '/api/v1/refunds/query': 'refunds',
  '/api/v1/payouts/query': 'payouts',
};
const CREATE_ROUTES = new Set(['/api/v1/payments/checkout', '/api/v1/payments/card', '/api/v1/refunds/create', '/api/v1/payouts/create']);

/** The length field of a body key (the reference's own names, after a reading's renames). */
const FIELD_OF_KEY: Readonly<Record<string, LengthField>> = {
  merchant_order_no: 'merchantOrderNo',
  original_merchant_order_no: 'merchantOrderNo',
  merchant_refund_no: 'merchantRefundNo',
  merchant_payout_no: 'merchantPayoutNo',
  goods_name: 'goodsName',
  description: 'description',
  metadata: 'metadata',
  reason: 'reason',
  email: 'email',
};

/** Refuses a description the reference cannot be. */
export function checkLimitsDescription(d: RequestLimits): void {
  for (const [kind, fields] of Object.entries(d.queryParams ?? {})) {
    if (!(Object.values(QUERY_ROUTES) as string[]).includes(kind))
      throw new Error(`target queryParams: ${kind} is not payments, refunds or payouts`);
    for (const [k, v] of Object.entries(fields ?? {}))
      if (typeof v !== 'string' && !(v && typeof v === 'object' && v.merchantId === true))
        throw new Error(`target queryParams.${kind}.${k}: a string, or { merchantId: true }`);
  }
  for (const [k, n] of Object.entries(d.maxLengths ?? {}))
    if (!Number.isSafeInteger(n) || (n as number) < 1) throw new Error(`target maxLengths.${k}: a positive integer, got ${String(n)}`);
  if (d.maxBodyBytes !== undefined && (!Number.isSafeInteger(d.maxBodyBytes) || d.maxBodyBytes < 64))
    throw new Error(`target maxBodyBytes: an integer of at least 64, got ${String(d.maxBodyBytes)}`);
}

/**
 * A query's required parameters, checked on the body as received; the body without them, for the handler that reads the
 * document's fields (and refuses fields it does not know).
 */
export function takeQueryParams(
  limits: RequestLimits,
  route: string,
  body: Record<string, unknown>,
  merchantId: string,
): Record<string, unknown> {
  const kind = QUERY_ROUTES[route];
  const wanted = kind && limits.queryParams?.[kind];
  if (!wanted) return body;
  const rest = { ...body };
  for (const [field, value] of Object.entries(wanted)) {
    const expected = typeof value === 'string' ? value : merchantId;
    if (!(field in body)) throw E.invalidRequest(`Field ${field} is required`);
    if (body[field] !== expected) throw E.invalidRequest(`Field ${field} is not valid`);
    delete rest[field];
  }
  return rest;
}

/** The body's size and its strings' lengths, on a creation (a lookup of an over-long number is simply not found). */
export function checkLengths(limits: RequestLimits, route: string, raw: Buffer, body: Record<string, unknown>): void {
  if (limits.maxBodyBytes !== undefined && raw.length > limits.maxBodyBytes)
    throw E.validationFailed(`Request body is larger than ${limits.maxBodyBytes} bytes`);
  const max = limits.maxLengths;
  if (!max || !CREATE_ROUTES.has(route)) return;
  const walk = (node: unknown, path: string[], inPayee: boolean): void => {
    if (typeof node === 'string') {
      const key = path[path.length - 1] ?? '';
      for (const field of [FIELD_OF_KEY[key], inPayee ? 'payee' : undefined] as (LengthField | undefined)[]) {
        const n = field === undefined ? undefined : max[field];
        if (n !== undefined && node.length > n) throw E.validationFailed(`Field ${path.join('.')} is longer than ${n} characters`);
      }
      return;
    }
    if (node && typeof node === 'object' && !Array.isArray(node))
      for (const [k, v] of Object.entries(node)) walk(v, [...path, k], inPayee || (path.length === 0 && k === 'payee'));
  };
  walk(body, [], false);
}
