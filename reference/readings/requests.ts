/** Readings of requests the document does not show: endpoint paths, request field names, languages. */
import { ApiError } from '../errors.js';
import { defineReading, renameKeys } from './reading.js';

/** Our paths for the endpoints whose paths are "not shown", and the ones served in their place. */
const ALT_PATHS: Readonly<Record<string, string>> = {
  '/api/v1/payments/create': '/api/v1/payments/card',
  '/api/v1/refunds/apply': '/api/v1/refunds/create',
  '/api/v1/payouts/submit': '/api/v1/payouts/create',
  '/api/v1/payouts/detail': '/api/v1/payouts/query',
  '/api/v1/payouts/revoke': '/api/v1/payouts/cancel',
};
/** The internal route of a request path under this reading (for hooks that see the request path). */
export function routeOf(path: string): string {
  return ALT_PATHS[path] ?? path;
}
const REPLACED: ReadonlySet<string> = new Set(Object.values(ALT_PATHS));

export const otherEndpointPaths = defineReading({
  name: 'other-endpoint-paths',
  doc:
    'Card payments, refund creation and payouts are served at payments/create, refunds/apply, payouts/submit, payouts/detail, ' +
    'payouts/revoke: "Payment creation with card data (...): the path is not shown.", "Refund creation endpoint (method, path, payload, ' +
    'response): not shown.", "Payout creation, payout query and payout cancel endpoints (paths, payloads, responses): not shown."',
  // The default paths of those endpoints are not served: a path nobody routes answers as unknown.
  routePath: (path) => ALT_PATHS[path] ?? (REPLACED.has(path) ? '/unknown' : path),
});

/** Our request field names on refund and payout routes (and their sandbox controls), to the internal ones. */
const REFUND_FIELDS = { refund_order_no: 'refund_no', amount: 'refund_amount', refund_reason: 'reason' };
const PAYOUT_FIELDS = { payout_order_no: 'payout_no', beneficiary: 'payee', payout_method: 'payment_method', amount: 'trans_amount' };

export const otherRequestFieldNames = defineReading({
  name: 'other-request-field-names',
  doc:
    'Refund requests take amount and refund_reason and look refunds up by refund_order_no; payout requests ' +
    'take payout_method, amount, beneficiary and payout_order_no: "Refund creation request fields and ' +
    'refund query record fields: not shown beyond the names above.", "A payout amount is an Amount object.", ' +
    '"Payout creation request fields and payout query record fields: not shown beyond the names above."',
  normaliseRequest: (body, route) => {
    if (route.startsWith('/api/v1/refunds/') || route.startsWith('/sandbox/v1/refunds/')) return renameKeys(body, REFUND_FIELDS);
    if (route.startsWith('/api/v1/payouts/') || route.startsWith('/sandbox/v1/payouts/')) return renameKeys(body, PAYOUT_FIELDS);
    return body;
  },
});

export const plainEnglishAnywhereInList = defineReading({
  name: 'plain-english-anywhere-in-list',
  doc:
    'Plain English messages are written when en (or en-*) appears anywhere in Accept-Language, not only first: "If ' +
    '`Accept-Language: en` is sent, `msg` is a plain English sentence without the key and without field details."',
  plainEnglish: (header) => {
    const value = Array.isArray(header) ? header.join(',') : header;
    if (value === undefined) return false;
    return value.split(',').some((part) => {
      const tag = (part.split(';')[0] ?? '').trim().toLowerCase();
      return tag === 'en' || tag.startsWith('en-');
    });
  },
});

/** Our internal names, where the document gives only the one for trade_info.goods_name. */
const INTERNAL_NAMES: Readonly<Record<string, string>> = {
  PaymentMethod: 'PayMethod',
  MerchantOrderNo: 'MchOrderNo',
  TransAmount: 'OrderAmount',
  NotifyURL: 'NotifyUrl',
  ReturnURL: 'ReturnUrl',
};
const INTERNAL_NAME_RE = new RegExp(`\\b(${Object.keys(INTERNAL_NAMES).join('|')})\\b`, 'g');

export const otherInternalFieldNames = defineReading({
  name: 'other-internal-field-names',
  doc:
    'invalidRequest messages name fields PayMethod, MchOrderNo, OrderAmount, NotifyUrl, ReturnUrl: "The text names the field ' +
    'by the server\'s internal name (for example the internal name for `trade_info.goods_name` is `TradeInfo.GoodsName`)."',
  mapError: (err) =>
    err.key === 'invalidRequest'
      ? new ApiError(
          err.code,
          err.key,
          err.detail.replace(INTERNAL_NAME_RE, (n) => INTERNAL_NAMES[n] ?? n),
        )
      : err,
});

export const emptyLookupCountsAsSent = defineReading({
  name: 'empty-lookup-counts-as-sent',
  doc:
    'A number beside an empty string in an exactly-one pair is refused 400 mutuallyExclusiveFieldsConflict (both ' +
    'keys were provided): "| 400 | `mutuallyRequiredFieldsMissing` | `merchant_order_no` and `order_no` both ' +
    'empty. |", "| 400 | `mutuallyExclusiveFieldsConflict` | `merchant_order_no` and `order_no` both provided. |"',
  bothLookupsSent: 'refuse-present',
});

export const invalidJsonUnreadable = defineReading({
  name: 'invalid-json-unreadable',
  doc:
    'A signed body that is not JSON is answered as unreadable, HTTP 500 internalServerError, unsigned: ' +
    '"| 500 | 500 | `internalServerError` | Internal server error | Request body could not be read. |"',
  invalidJsonUnreadable: true,
});

export const contentTypeUnauthorized = defineReading({
  name: 'content-type-unauthorized',
  doc:
    'A request sent with another Content-Type than application/json is refused HTTP 401 unauthorized, unsigned: ' +
    '"Troubleshooting order for 401 and 403: merchant id, secret key and environment, exact string to sign, snake_case field names, ' +
    'unaltered raw body, seconds timestamp, non-empty nonce, lower-case hex output, `Content-Type: application/json`."',
  contentTypeRefusal: 'unauthorized',
});

export const payoutAmountField = defineReading({
  name: 'payout-amount-field',
  doc:
    'A payout request carries its amount in payout_amount; trans_amount is not read there, and ' +
    'the missing amount is named PayoutAmount: "A payout amount is an Amount object.", "Payout ' +
    'creation request fields and payout query record fields: not shown beyond the names above."',
  normaliseRequest: (body, route) => {
    if (route !== '/api/v1/payouts/create') return body;
    const { trans_amount: _ignored, payout_amount: amount, ...rest } = body;
    return amount === undefined ? rest : { ...rest, trans_amount: amount };
  },
  mapError: (err, path) =>
    err.key === 'invalidRequest' && path.startsWith('/api/v1/payouts/')
      ? new ApiError(err.code, err.key, err.detail.replace(/\bTransAmount\b/g, 'PayoutAmount'))
      : err,
});
