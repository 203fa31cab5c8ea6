import type { ClauseId } from '../../harness/clauses/registry.js';
/**
 * Requests whose error the document names exactly (code, key, HTTP status), for the envelope and
 * language suites: each creates nothing and is answered the same way by every conformant target.
 */
import { fitLength } from '../../harness/profile/lengths.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { answerOwedTo } from '../../harness/check/expect.js';
import { checkout, queryPayment } from '../../harness/ops.js';
import type { PostOptions, Target } from '../../harness/target.js';
import { unknownOrderLookup } from './auth-outcomes.js';

export interface ErrorScenario {
  name: string;
  http: number;
  code: number;
  key: string;
  /** Request field names (JSON and, where the profile declares them, internal) the request concerns. */
  fields: (t: Target) => string[];
  /** The clause that names this outcome. */
  clause: ClauseId;
  /** True for the unsigned authentication errors. */
  auth: boolean;
  send(t: Target, opts?: PostOptions): Promise<Exchange>;
}

/**
 * Each scenario's request is owed its own row's answer: one that never comes is charged to that row (`clause`), whatever
 * check sent it to judge an answer's contents (the envelope, `Accept-Language`).
 */
function owing(list: ErrorScenario[]): ErrorScenario[] {
  return list.map((s) => ({ ...s, send: async (t, o) => answerOwedTo(await s.send(t, o), s.clause) }));
}

function internal(t: Target, jsonPath: string): string[] {
  const name = t.profile.internalFieldNames?.[jsonPath];
  return name ? [name] : [];
}

const LOOKUP_FIELDS = (t: Target): string[] => [
  'merchant_order_no',
  'order_no',
  ...internal(t, 'merchant_order_no'),
  ...internal(t, 'order_no'),
];

export const BUSINESS_ERRORS: readonly ErrorScenario[] = owing([
  {
    name: 'a query with neither number',
    http: 200,
    code: 400,
    key: 'mutuallyRequiredFieldsMissing',
    clause: 'query.neither',
    fields: LOOKUP_FIELDS,
    auth: false,
    send: (t, o) => queryPayment(t, {}, { label: 'query with neither number', ...o }),
  },
  {
    name: 'a query of an unknown order',
    http: 200,
    code: 2002,
    key: 'orderNotFound',
    clause: 'query.not-found',
    fields: LOOKUP_FIELDS,
    auth: false,
    send: (t, o) => queryPayment(t, unknownOrderLookup(t), { label: 'query an unknown order', ...o }),
  },
  {
    name: 'a checkout without trade_info.goods_name',
    http: 200,
    code: 400,
    key: 'invalidRequest',
    clause: 'checkout.goods-name-missing',
    // The document's own example of the internal name, whatever the profile says.
    fields: (t) => [
      'goods_name',
      'trade_info',
      'GoodsName',
      'TradeInfo',
      ...internal(t, 'trade_info.goods_name'),
      ...internal(t, 'trade_info'),
    ],
    auth: false,
    send: (t, o) =>
      checkout(
        t,
        { extra: { trade_info: { description: fitLength(t.profile, 'description', 'Conformance test item without a name') } } },
        { label: 'checkout without trade_info.goods_name', ...o },
      ),
  },
  {
    name: 'a checkout with an unknown payment method',
    http: 200,
    code: 3003,
    key: 'unsupportedPaymentMethod',
    clause: 'err.req.unsupported-method',
    fields: (t) => ['payment_method', ...internal(t, 'payment_method')],
    auth: false,
    send: (t, o) => checkout(t, { method: t.profile.methods.unknown }, { label: 'checkout with an unknown payment method', ...o }),
  },
]);

export const AUTH_ERRORS: readonly ErrorScenario[] = owing([
  {
    name: 'a request without X-Nonce',
    http: 401,
    code: 401,
    key: 'unauthorized',
    clause: 'auth.missing-header',
    fields: () => [],
    auth: true,
    send: (t, o) =>
      queryPayment(t, unknownOrderLookup(t), { headers: { 'X-Nonce': null }, noVerify: true, label: 'query without X-Nonce', ...o }),
  },
  {
    name: 'a request from an unknown merchant id',
    http: 401,
    code: 401,
    key: 'merchantNotFound',
    clause: 'auth.unknown-merchant',
    fields: () => [],
    auth: true,
    send: (t, o) =>
      queryPayment(t, unknownOrderLookup(t), {
        as: { id: t.merchants.unknownId, secret: 'x' },
        noVerify: true,
        label: 'query as an unknown merchant id',
        ...o,
      }),
  },
  {
    name: 'a request with a wrong signature',
    http: 403,
    code: 403,
    key: 'forbidden',
    clause: 'auth.bad-signature',
    fields: () => [],
    auth: true,
    // Last hex digit changed: still lower-case hex of the right length, but not the HMAC.
    send: (t, o) =>
      queryPayment(t, unknownOrderLookup(t), {
        signTransform: (hex) => hex.slice(0, -1) + (hex.endsWith('0') ? '1' : '0'),
        noVerify: true,
        label: 'query with a wrong X-Sign',
        ...o,
      }),
  },
  {
    name: 'a request whose body cannot be read',
    http: 500,
    code: 500,
    key: 'internalServerError',
    clause: 'err.auth.unreadable-body',
    fields: () => [],
    auth: true,
    send: (t, o) => {
      const body = Buffer.from(JSON.stringify(unknownOrderLookup(t)), 'utf8');
      return t.post(t.path('paymentQuery'), body, {
        declaredContentLength: body.length + 64,
        noVerify: true,
        label: 'query with a body shorter than its Content-Length',
        ...o,
      });
    },
  },
]);
