/** Faults in how requests are read: field naming, required fields, the exactly-one lookup pair. */
import { defineFault, PATHS, rewriteError, skipRule } from './fault.js';

export const acceptCamelcase = defineFault({
  name: 'accept-camelcase',
  clause: 'conv.snake-case',
  doc: 'camelCase request keys are silently rewritten to snake_case instead of being refused.',
  normaliseRequest: (body) => snakeKeys(body, 0) as Record<string, unknown>,
});

export const mutualBothAccepted = defineFault({
  name: 'mutual-both-accepted',
  clause: 'query.both',
  doc: 'When both numbers of an exactly-one pair are sent, the first is used instead of refusing.',
  bothLookupsSent: 'use-first',
});

export const queryNeitherNotFound = defineFault({
  name: 'query-neither-not-found',
  clause: 'query.neither',
  doc: 'A payment query with neither number is answered 2002 orderNotFound instead of 400 mutuallyRequiredFieldsMissing.',
  mapError: rewriteError({ path: PATHS.paymentQuery, key: 'mutuallyRequiredFieldsMissing', to: { code: 2002, key: 'orderNotFound', detail: 'Order not found' } }),
});

export const goodsNameOptional = defineFault({
  name: 'goods-name-optional',
  clause: 'payment.goods-name.required',
  doc: 'A payment without trade_info.goods_name is accepted (an empty goods name is recorded).',
  enforces: skipRule('payment.goods-name'),
});

export const fieldErrorJsonPath = defineFault({
  name: 'field-error-json-path',
  clause: 'err.req.internal-field-name',
  doc: 'invalidRequest messages name a field by its JSON path (trade_info.goods_name) instead of the internal name (TradeInfo.GoodsName).',
  mapError: rewriteError({ key: 'invalidRequest', detail: /^Field \S+/, to: { detail: (d) => d.replace(/^Field (\S+)/, (_m, name: string) => `Field ${jsonPath(name)}`) } }),
});

export const methodMissingUnsupported = defineFault({
  name: 'method-missing-unsupported',
  clause: 'err.req.method-missing',
  doc: 'A request without payment_method is answered 3003 unsupportedPaymentMethod instead of 400 invalidRequest.',
  mapError: rewriteError({ key: 'invalidRequest', detail: /^Field PaymentMethod is required/, to: { code: 3003, key: 'unsupportedPaymentMethod', detail: 'Payment method "" is not supported' } }),
});

/** Depth-bounded: the fault must not make the server crash on deeply nested bodies. */
function snakeKeys(v: unknown, depth: number): unknown {
  if (depth > 8 || typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = snakeKeys(val, depth + 1);
  return out;
}

/** TradeInfo.GoodsName → trade_info.goods_name; NotifyURL → notify_url. */
function jsonPath(internal: string): string {
  return internal
    .split('.')
    .map((part) => part.replace(/(URL|IP|CVC)$/, (m) => m.charAt(0) + m.slice(1).toLowerCase()).replace(/[A-Z]/g, (c, i: number) => `${i === 0 ? '' : '_'}${c.toLowerCase()}`))
    .join('.');
}
