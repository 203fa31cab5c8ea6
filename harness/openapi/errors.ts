/**
 * The error catalogue of INTERFACE.md (Errors) as data: which operations answer each code and key, on what condition,
 * and the clause that states it. `describe --openapi` writes it beside each operation; nothing here is a target's choice.
 */
import type { ClauseId } from '../clauses/registry.js';
import type { EndpointKey } from '../profile/endpoint-path.js';

/** The operations of the interface, named as the profile's endpoints are. */
export type Operation = EndpointKey;

export interface CatalogueRow {
  code: number;
  key: string;
  condition: string;
  clause: ClauseId;
  /** The operations that answer it. */
  on: readonly Operation[];
}

const PAY_CREATE: readonly Operation[] = ['checkout', 'cardPayment'];
/** Every operation of the interface a profile can place, in the document's order. */
export const OPERATIONS: readonly Operation[] = [
  'checkout',
  'paymentQuery',
  'cardPayment',
  'refundCreate',
  'refundQuery',
  'payoutCreate',
  'payoutQuery',
  'payoutCancel',
];

export const CATALOGUE: readonly CatalogueRow[] = [
  {
    code: 400,
    key: 'invalidRequest',
    condition: "A field is missing or has the wrong type or format; the text names it by the server's internal name.",
    clause: 'err.req.invalid-request',
    on: OPERATIONS,
  },
  {
    code: 3003,
    key: 'unsupportedPaymentMethod',
    condition: 'Unknown payment method.',
    clause: 'err.req.unsupported-method',
    on: PAY_CREATE,
  },
  {
    code: 400,
    key: 'mutuallyRequiredFieldsMissing',
    condition: 'merchant_order_no and order_no both empty.',
    clause: 'err.req.mutually-required',
    on: ['paymentQuery'],
  },
  {
    code: 400,
    key: 'mutuallyExclusiveFieldsConflict',
    condition: 'merchant_order_no and order_no both provided.',
    clause: 'err.req.mutually-exclusive',
    on: ['paymentQuery'],
  },
  {
    code: 1001,
    key: 'merchantFrozen',
    condition: 'Merchant account is disabled (suspended).',
    clause: 'err.pay.merchant-frozen',
    on: PAY_CREATE,
  },
  {
    code: 2006,
    key: 'amountOutOfRange',
    condition: 'No available channel accepts the amount, or it cannot be rounded to a price point.',
    clause: 'err.pay.amount-out-of-range',
    on: PAY_CREATE,
  },
  {
    code: 3003,
    key: 'paymentMethodUnavailable',
    condition: 'Method not available, or not enabled for the merchant.',
    clause: 'err.pay.method-unavailable',
    on: PAY_CREATE,
  },
  {
    code: 422,
    key: 'duplicateMerchantOrder',
    condition: 'Merchant order number already exists.',
    clause: 'err.pay.duplicate-order',
    on: PAY_CREATE,
  },
  { code: 422, key: 'invalidAmount', condition: 'Amount must be a positive number.', clause: 'err.pay.invalid-amount', on: PAY_CREATE },
  {
    code: 422,
    key: 'validationFailed',
    condition: 'Amount has more than 2 decimal places; declined by risk checks; no payment channel available.',
    clause: 'err.pay.decimals',
    on: PAY_CREATE,
  },
  {
    code: 422,
    key: 'notSupported',
    condition: 'Currency not supported; a price-point amount that cannot be rounded to a tier.',
    clause: 'err.pay.currency',
    on: PAY_CREATE,
  },
  {
    code: 422,
    key: 'paymentFailed',
    condition: 'The provider declined the payment; a FAILED webhook follows.',
    clause: 'err.pay.declined',
    on: PAY_CREATE,
  },
  {
    code: 422,
    key: 'systemBusy',
    condition: 'Order creation failed, or any other failure (an invalid card number, CVC or expiry date).',
    clause: 'err.pay.creation-failed',
    on: PAY_CREATE,
  },
  { code: 2002, key: 'orderNotFound', condition: 'Query: no such order.', clause: 'err.pay.order-not-found', on: ['paymentQuery'] },
  {
    code: 403,
    key: 'orderAccessDenied',
    condition: 'Query: the order belongs to another merchant.',
    clause: 'err.pay.access-denied',
    on: ['paymentQuery'],
  },
  { code: 500, key: 'queryFailed', condition: 'Query failed; retry.', clause: 'err.pay.query-failed', on: ['paymentQuery'] },
  {
    code: 422,
    key: 'invalidRefundAmount',
    condition: 'Refund amount not positive.',
    clause: 'err.ref.invalid-amount',
    on: ['refundCreate'],
  },
  {
    code: 422,
    key: 'validationFailed',
    condition:
      'Refund amount has more than 2 decimal places; the order was charged back; the balance does not cover the refund and its fee.',
    clause: 'err.ref.decimals',
    on: ['refundCreate'],
  },
  { code: 422, key: 'orderNotFound', condition: 'Original order not found.', clause: 'err.ref.order-not-found', on: ['refundCreate'] },
  {
    code: 422,
    key: 'refundOrderNotPaid',
    condition: 'Original order was not paid successfully.',
    clause: 'err.ref.not-paid',
    on: ['refundCreate'],
  },
  {
    code: 422,
    key: 'refundAmountExceeded',
    condition: 'Refund amount exceeds the original order amount.',
    clause: 'err.ref.amount-exceeded',
    on: ['refundCreate'],
  },
  { code: 422, key: 'duplicateRefundOrder', condition: 'Refund number already exists.', clause: 'err.ref.duplicate', on: ['refundCreate'] },
  {
    code: 422,
    key: 'notSupported',
    condition: 'Channel does not support refunds, or supports full refunds only.',
    clause: 'err.ref.not-supported',
    on: ['refundCreate'],
  },
  { code: 422, key: 'refundFailed', condition: 'Refund request failed.', clause: 'err.ref.failed', on: ['refundCreate'] },
  {
    code: 422,
    key: 'systemBusy',
    condition: 'Order creation failed, or any other failure.',
    clause: 'err.ref.system-busy',
    on: ['refundCreate'],
  },
  {
    code: 2002,
    key: 'refundNotFound',
    condition: 'Refund query: refund order not found.',
    clause: 'err.ref.not-found',
    on: ['refundQuery'],
  },
  {
    code: 5007,
    key: 'unsupportedPayoutMethod',
    condition: 'The payment method is not available for payouts.',
    clause: 'err.po.unsupported-payout-method',
    on: ['payoutCreate'],
  },
  {
    code: 5007,
    key: 'unsupportedPaymentMethod',
    condition: 'Unknown payment method.',
    clause: 'err.po.unknown-method',
    on: ['payoutCreate'],
  },
  { code: 1001, key: 'merchantFrozen', condition: 'Merchant account disabled.', clause: 'err.po.merchant-frozen', on: ['payoutCreate'] },
  {
    code: 5008,
    key: 'amountOutOfRange',
    condition: 'Amount or currency not accepted by the method.',
    clause: 'err.po.amount-out-of-range',
    on: ['payoutCreate'],
  },
  { code: 5008, key: 'notSupported', condition: 'Payout currency not supported.', clause: 'err.po.currency', on: ['payoutCreate'] },
  {
    code: 5004,
    key: 'insufficientFunds',
    condition: 'Insufficient merchant payout balance.',
    clause: 'err.po.insufficient-funds',
    on: ['payoutCreate'],
  },
  { code: 5002, key: 'notFound', condition: 'Payout query: payout not found.', clause: 'err.po.query-not-found', on: ['payoutQuery'] },
  { code: 422, key: 'notFound', condition: 'Payout cancel: payout not found.', clause: 'err.po.cancel-not-found', on: ['payoutCancel'] },
  {
    code: 5003,
    key: 'payoutNotCancelable',
    condition: 'Payout not cancelable in its current status (named in the message).',
    clause: 'err.po.not-cancelable',
    on: ['payoutCancel'],
  },
  {
    code: 422,
    key: 'notSupported',
    condition: 'Payout channel does not support cancel.',
    clause: 'err.po.cancel-unsupported',
    on: ['payoutCancel'],
  },
];

/** The unsigned authentication answers (Errors › Authentication errors): HTTP status = code. */
export const AUTH_ERRORS: readonly { http: number; key: string; message: string; condition: string }[] = [
  {
    http: 401,
    key: 'unauthorized',
    message: 'Missing authentication headers',
    condition: 'One of the four signing headers is missing or empty.',
  },
  { http: 401, key: 'merchantNotFound', message: 'Merchant ID not found or invalid', condition: 'Merchant id not recognised.' },
  { http: 403, key: 'forbidden', message: 'Invalid signature', condition: 'Signature does not match.' },
  { http: 500, key: 'internalServerError', message: 'Internal server error', condition: 'Request body could not be read.' },
];
