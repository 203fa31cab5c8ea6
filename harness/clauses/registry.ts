/**
 * The registry of INTERFACE.md's statements. Ids are stable: never renumber or reuse one;
 * retire an id by marking it, not by deleting it. `party` says who the statement binds:
 * `service` clauses are certified against a target; `client` clauses bind the merchant and are
 * certified by `receiver` (its webhook endpoint) and `serve --audit` (its client), harness/merchant. `unspecified` entries are the "not
 * shown"
 * items: the coverage matrix lists them as what cannot be certified.
 */
export type Level = 'must' | 'should' | 'unspecified';
export type Party = 'service' | 'client';

export interface Clause<I extends string = string> {
  id: I;
  /** Heading path in INTERFACE.md. */
  section: string;
  level: Level;
  party: Party;
  /** Short paraphrase; the document is the authority. */
  text: string;
}

const S = 'service' as const;
const C = 'client' as const;

// Generic in the id so that `ClauseId` below is the union of the literal ids: a misspelt id is a compile error.
function must<const I extends string>(id: I, section: string, text: string, party: Party = S): Clause<I> {
  return { id, section, level: 'must', party, text };
}
function should<const I extends string>(id: I, section: string, text: string, party: Party = S): Clause<I> {
  return { id, section, level: 'should', party, text };
}
function open<const I extends string>(id: I, section: string, text: string): Clause<I> {
  return { id, section, level: 'unspecified', party: S, text };
}

const CONV = 'Resources and their fields › Conventions';
const ENV = 'Resources and their fields › Response envelope';
const AMT = 'Resources and their fields › Amount object';
const PAY = 'Resources and their fields › Payment';
const REF = 'Resources and their fields › Refund';
const PO = 'Resources and their fields › Payout';
const ST = 'States and transitions';
const EP = 'Endpoints';
const QRY = 'Endpoints › POST {base_url}/api/v1/payments/query';
const CHK = 'Endpoints › POST {base_url}/api/v1/payments/checkout';
const OTHER = 'Endpoints › Other operations';
const AUTH = 'Authentication';
const EV = 'Events';
const DEL = 'Events › Delivery';
const BODY = 'Events › Body fields';
const ACK = 'Events › Acknowledgement and retries';
const DUP = 'Events › Duplicates and order';
const EFMT = 'Errors › Format';
const EAUTH = 'Errors › Authentication errors (unsigned)';
const EREQ = 'Errors › Request errors (all endpoints)';
const EPAY = 'Errors › Payment errors';
const EREF = 'Errors › Refund errors';
const EPO = 'Errors › Payout errors';
const IDEM = 'Errors › Idempotency';
const LIM = 'Limits';
const VER = 'Versioning';

const registry = [
  // Conventions
  must('conv.snake-case', CONV, 'JSON field names are snake_case; camelCase names are not accepted.'),
  must('conv.utf8', CONV, 'Text is UTF-8.'),
  must('conv.time.rfc3339-offset', CONV, 'Times are RFC 3339 strings with an offset.'),
  must('conv.time.read-offset', CONV, 'Clients read the offset and do not assume UTC.', C),
  must('conv.currency.code', CONV, 'Currency is a three-letter upper-case code.'),

  // Envelope
  must('env.body.object', ENV, 'Every response body is a JSON object.'),
  must('env.code.integer', ENV, '`code` is an integer: 0 on success, any other value is an error.'),
  must('env.code.body-not-status', ENV, '`code` is a body field, not an HTTP status, even when it looks like one (400, 422).'),
  must('env.msg.success', ENV, '`msg` is `success` on success.'),
  must('env.msg.message-key', ENV, 'On error `msg` is a message, then `|`, then a stable key.'),
  must('env.data.on-success', ENV, '`data` is an object, present on success.'),
  must('env.data.omitted-on-error', ENV, '`data` is omitted on error.'),

  // Amount object
  must('amount.currency.usd-only', AMT, 'Amounts are accepted in USD; other currencies (e.g. EUR) are refused (conversion unavailable).'),
  must('amount.value.string', AMT, '`value` is a decimal string; a JSON number is refused.'),
  must('amount.value.max-2-decimals', AMT, 'At most two decimal places: "12.5" and "12.50" are accepted; "12.500", "10.100" are refused.'),
  must('amount.value.two-decimals-out', AMT, 'Responses and webhooks always show two decimals.'),
  must('amount.value.positive', AMT, '`value` must be a positive number.'),

  // Payment
  must('payment.method.required', PAY, '`payment_method` is required.'),
  must('payment.method.unknown', PAY, 'An unknown `payment_method` gives an unsupported-method error.'),
  must('payment.merchant-order-no.required', PAY, '`merchant_order_no` is required.'),
  must('payment.trans-amount.required', PAY, '`trans_amount` is required.'),
  must('payment.goods-name.required', PAY, '`trade_info.goods_name` is required; the checkout request is refused without it.'),
  must('payment.metadata.echo', PAY, '`metadata` is echoed back in webhooks; an empty string when none was sent.'),
  must(
    'payment.webhook.fields',
    PAY,
    'A payment in webhooks has order_no, merchant_order_no, payment_method, ' +
      'trans_amount, trade_info, status, metadata, finished_at, created_at.',
  ),
  must('payment.trans-amount.usd-charged', PAY, '`trans_amount` is the USD amount charged.'),
  must('payment.requested-amount.only-rounded', PAY, '`requested_amount` is present only when the amount was rounded to a price point.'),
  must(
    'payment.price-point.round',
    PAY,
    'Apple Pay and Google Pay accept only price points; an amount is rounded to a price point where possible.',
  ),
  must('payment.price-point.refuse', PAY, 'Apple Pay and Google Pay: an amount that cannot be rounded to a price point is refused.'),
  open('payment.method.list', PAY, 'Complete list of allowed `payment_method` values: not shown.'),
  open('payment.fields.required-per-method', PAY, 'Which optional fields are required for each payment method: not shown.'),
  open('payment.query.record-fields', PAY, 'Fields of the payment record returned by a payment query: not shown.'),

  // Refund
  must('refund.ids', REF, "A refund is identified by `refund_no` and `merchant_refund_no` (unique among the merchant's refunds)."),
  must('refund.original-refs', REF, 'A refund refers to its payment by `original_order_no` and `original_merchant_order_no`.'),
  must('refund.amount.positive-2-decimals', REF, 'The refund amount is positive with at most two decimals.'),
  must('refund.webhook.goods-name-reason', REF, 'In a refund webhook `trade_info.goods_name` holds the refund reason.'),
  must('refund.webhook.trans-amount', REF, 'In a refund webhook `trans_amount` is the USD amount refunded.'),
  must(
    'refund.channel-support',
    'Resources and their fields › What the service does',
    'A successful payment can be refunded in full or in part where the payment channel supports it.',
  ),
  open('refund.create.shape', REF, 'Refund creation request fields and refund query record fields: not shown.'),

  // Payout
  must('payout.ids', PO, "A payout is identified by `payout_no` and `merchant_payout_no` (unique among the merchant's payouts)."),
  must('payout.fields', PO, 'A payout has `status` and, in webhooks, `status_reason` and `finished_at`; its amount is an Amount object.'),
  must('payout.usd-only-methods', PO, 'Some payout methods accept only USD.'),
  open('payout.shape', PO, 'Payout creation request fields and payout query record fields: not shown.'),

  // States
  must('state.payment.values', ST, 'Payment statuses named: SUCCESS, FAILED, REFUNDED.'),
  must('state.refund.values', ST, 'Refund statuses named: PENDING, SUCCESS, FAILED.'),
  must('state.payout.values', ST, 'Payout statuses named: SUCCESS, FAILED, CANCELED.'),
  must('state.refund.not-paid', ST, 'A refund is refused when the original payment was not paid successfully (`refundOrderNotPaid`).'),
  must('state.refund.charged-back', ST, 'A refund is refused when the original payment has been charged back.'),
  must(
    'state.payout.not-cancelable',
    ST,
    'A payout cannot be cancelled in a status such as SUCCESS (`payoutNotCancelable`, status named in the message).',
  ),
  must('state.payment.declined-failed', ST, 'A declined payment ends as FAILED and a `payment.updated` webhook follows.'),
  must('state.no-webhook.expiry-chargeback', ST, 'An expired checkout link and a recorded chargeback send no webhook.'),
  must('state.refunded.refund-event', ST, 'A payment refunded sends `refund.updated`, not `payment.updated`.'),
  must('state.payment.refunded-status', ST, 'A payment refunded in full shows REFUNDED.'),
  open('state.transitions', ST, 'Transitions between states (from-state, trigger, condition): not shown.'),

  // Endpoints: common
  must('ep.post-json', EP, 'Method is POST, Content-Type application/json, body a JSON object, the four signing headers present.'),
  must('ep.http-200-signed', EP, 'Signed responses, including errors, have HTTP status 200.'),
  must('ep.other-status-only-auth', EP, 'Only authentication failures and an unreadable body use another HTTP status.'),
  must(
    'ep.accept-language-en',
    EP,
    'With `Accept-Language: en`, `msg` is a plain English sentence without the key and without field details.',
  ),
  must('ep.versioned-path', VER, 'The version is part of the path: `/api/v1/` precedes the resource path.'),

  // Payment query
  must('query.exactly-one', QRY, 'Exactly one of `merchant_order_no` and `order_no` must be sent.'),
  must('query.neither', QRY, 'Neither sent: code 400, key `mutuallyRequiredFieldsMissing`.'),
  must('query.both', QRY, 'Both sent: code 400, key `mutuallyExclusiveFieldsConflict`.'),
  must('query.not-found', QRY, 'No such order: code 2002 `orderNotFound`.'),
  must('query.other-merchant', QRY, 'Order of another merchant: code 403 `orderAccessDenied`.'),
  must('query.transient', QRY, 'Transient failure: code 500 `queryFailed` (try again).'),
  must('query.returns-record', QRY, 'Response `data` is the payment record.'),
  open('query.other-inputs', OTHER, 'Query inputs other than `merchant_order_no`/`order_no`: not shown.'),
  open('query.data-shape', OTHER, 'Shape of `data` in query responses: not shown.'),

  // Checkout
  must('checkout.creates', CHK, 'Checkout creates a payment and a checkout.'),
  must('checkout.goods-name-missing', CHK, '`trade_info.goods_name` missing: code 400 `invalidRequest` naming the field.'),
  must('checkout.description-optional', CHK, '`trade_info.description` is optional in the shape: a checkout without it is accepted.'),
  open('checkout.data-shape', CHK, 'Response `data` fields of the checkout: not shown.'),
  open('card.path', OTHER, 'Payment creation with card data: the path is not shown.'),
  open('refund.endpoints', OTHER, 'Refund creation endpoint and refund query shapes: not shown.'),
  open('payout.endpoints', OTHER, 'Payout creation, query and cancel endpoints: not shown.'),

  // Authentication
  must(
    'auth.headers.required',
    AUTH,
    'Every request carries X-MerchantID, X-Timestamp, X-Nonce, X-Sign; missing or empty ones are refused.',
  ),
  must('auth.merchant-id', AUTH, '`X-MerchantID` is the merchant identifier assigned by the service.'),
  must('auth.timestamp.seconds', AUTH, '`X-Timestamp` is Unix time in seconds as a decimal string, not milliseconds or a date.'),
  should('auth.nonce.length', AUTH, '`X-Nonce` is a random non-empty string; 16 to 32 characters recommended.', C),
  must('auth.sign.lower-hex', AUTH, '`X-Sign` is lower-case hex HMAC-SHA256; upper-case hex, Base64, MD5 and RSA are wrong.'),
  must('auth.sign.secret-key', AUTH, "The HMAC is keyed with the merchant's API secret key."),
  must('auth.sign.string', AUTH, 'String to sign: merchantID LF timestamp LF nonce LF rawBody, LF a single line feed (not CR LF).'),
  must(
    'auth.sign.raw-body',
    AUTH,
    'The body takes part as raw bytes: re-serialising, pretty-printing, trimming or reordering after signing changes the signature.',
  ),
  must(
    'auth.sign.whitespace-variants',
    AUTH,
    'JSON texts equal in meaning but differing in whitespace have different signatures (each valid over its own bytes).',
  ),
  must('auth.env-keys', AUTH, 'Test and production environments have different secret keys.'),
  must('auth.response.signed', AUTH, 'Responses carry the four headers, signed with the same rule over the raw response body.'),
  must('auth.response.verify', AUTH, 'A client treats a response whose signature does not verify as untrustworthy.', C),
  must('auth.errors.unsigned', AUTH, 'Authentication errors (HTTP 401, 403) and the unreadable-body error (HTTP 500) are not signed.'),
  must('auth.missing-header', AUTH, 'A missing or empty header gives HTTP 401 `unauthorized`.'),
  must('auth.unknown-merchant', AUTH, 'An unknown merchant ID gives HTTP 401 `merchantNotFound`.'),
  must('auth.bad-signature', AUTH, 'A signature mismatch gives HTTP 403 `forbidden`.'),
  must('auth.amount-errors-unrelated', AUTH, 'Amount-range errors (2006, 5008) are unrelated to signing.'),
  open('auth.timestamp.tolerance', AUTH, 'Allowed difference between X-Timestamp and the server clock: not shown.'),
  open('auth.nonce.reuse', AUTH, 'Whether a nonce may be reused: not shown.'),

  // Events
  must('event.sent-on-change', EV, "A webhook is sent to the payment's `notify_url` when a payment, refund or payout changes status."),
  must('event.payment.updated', EV, '`payment.updated` is sent when a payment becomes SUCCESS or FAILED.'),
  must(
    'event.refund.updated',
    EV,
    '`refund.updated` is sent when a refund is created (PENDING or SUCCESS) and when it becomes SUCCESS or FAILED.',
  ),
  must('event.payout.updated', EV, '`payout.updated` is sent when a payout becomes SUCCESS, FAILED or CANCELED.'),
  must('event.none.refunded-payment', EV, 'No webhook is sent when a payment is refunded (the refund event is sent instead).'),
  must('event.none.expiry', EV, 'No webhook is sent when a checkout link expires.'),
  must('event.none.chargeback', EV, 'No webhook is sent when a chargeback is recorded.'),
  must('webhook.post-json', DEL, 'A webhook is a POST with `Content-Type: application/json`.'),
  must(
    'webhook.signed',
    DEL,
    "A webhook carries the four headers, signed as for requests over the raw body with the merchant's secret key.",
  ),
  must('webhook.fresh-signature', DEL, 'Every attempt is signed again with a new timestamp and nonce.'),
  must(
    'webhook.receiver-verifies',
    DEL,
    'A receiver verifies the signature over the raw body and its own X-MerchantID before acting; a mismatch gets a non-success reply.',
    C,
  ),
  must('webhook.body.event', BODY, '`event` is payment.updated, refund.updated or payout.updated.'),
  must('webhook.body.order-no', BODY, '`order_no` is the service number (payment order_no, refund_no or payout_no).'),
  must(
    'webhook.body.merchant-order-no',
    BODY,
    '`merchant_order_no` is the merchant number (merchant_order_no, merchant_refund_no or merchant_payout_no).',
  ),
  must('webhook.body.payment-method', BODY, '`payment_method` is present on all events.'),
  must('webhook.body.trans-amount', BODY, '`trans_amount` is an Amount object on all events.'),
  must(
    'webhook.body.requested-amount',
    BODY,
    '`requested_amount` (payments) is present only when the amount was rounded to a price point.',
  ),
  must('webhook.body.trade-info', BODY, '`trade_info` on payments is the trade_info sent; on refunds `goods_name` holds the reason.'),
  must('webhook.body.status', BODY, '`status` is the status at the moment of sending.'),
  must('webhook.body.status-reason', BODY, '`status_reason` is present on payouts.'),
  must('webhook.body.metadata', BODY, '`metadata` is the metadata sent, or an empty string.'),
  must('webhook.body.original-refs', BODY, '`original_order_no` and `original_merchant_order_no` are present on refunds.'),
  must('webhook.body.finished-at', BODY, '`finished_at` (payments, payouts) is an RFC 3339 completion time.'),
  must('webhook.body.created-at', BODY, '`created_at` (all) is an RFC 3339 creation time.'),
  must('webhook.body.no-failure-reason', BODY, 'A webhook for a failed payment does not state the reason for the failure.'),
  must(
    'webhook.ack.exact-success',
    ACK,
    'Only a reply body of exactly `success` (7 lower-case letters, no quotes, no ' +
      'JSON, no newline) acknowledges; any other body is a failure even with HTTP 200.',
  ),
  must('webhook.ack.body-only', ACK, 'Only the body of the reply is examined.'),
  must('webhook.ack.within-5s', ACK, 'The receiver replies within 5 seconds.'),
  must('webhook.retry.unacked', ACK, 'An unacknowledged webhook is sent again.'),
  must('webhook.retry.acked-not-resent', ACK, 'An acknowledged webhook is not sent again by the retry schedule.'),
  must('webhook.retry.max-9', ACK, 'Up to 9 attempts in total; after that no more attempts are made.'),
  must('webhook.retry.growing-waits', ACK, 'Waits between attempts grow from about 15 seconds to about 40 minutes.'),
  must('webhook.retry.total-span', ACK, 'The last attempt is about 80 to 100 minutes after the first.'),
  must('webhook.recover-by-query', ACK, 'Payment and refund queries recover missed changes.'),
  must('webhook.dup.may-repeat', DUP, 'The same webhook can arrive more than once; receivers tolerate it.', C),
  must('webhook.dup.out-of-order', DUP, 'Webhooks can arrive out of order; receivers tolerate it.', C),
  must('webhook.dup.key', DUP, 'Webhooks carry no event id; the receiver deduplicates on event, order_no and status.', C),
  // Should, not must: the document states the facts (out of order; the status at sending time) and that the receiver
  // "queries the order when in doubt", leaving the doubt to the receiver; that a status older than one acted on is such a
  // doubt, and must not become the order's status unqueried, is what those sentences imply, not what one of them states.
  should(
    'webhook.dup.stale-status',
    DUP,
    'A status arriving after a newer one of the same order (out of order; the body shows the status at sending time) does not ' +
      "become the order's status unless the receiver queried the order (it queries the order when in doubt).",
    C,
  ),

  // Errors: format
  must('err.format.key-after-last-pipe', EFMT, 'The key is the part after the last `|`; keys are stable.'),
  must('err.format.http-200', EFMT, 'Signed responses, errors included, have HTTP status 200, except the authentication errors.'),
  must(
    'err.system-busy',
    EFMT,
    'Failures that are not known errors are reported as `systemBusy` with message `System busy, please try again later`.',
  ),

  // Errors: authentication
  must(
    'err.auth.unauthorized',
    EAUTH,
    'HTTP 401, code 401, `unauthorized`, "Missing authentication headers": a signing header is missing or empty.',
  ),
  must('err.auth.merchant-not-found', EAUTH, 'HTTP 401, code 401, `merchantNotFound`: merchant id not recognised.'),
  must('err.auth.forbidden', EAUTH, 'HTTP 403, code 403, `forbidden`: signature does not match.'),
  must('err.auth.unreadable-body', EAUTH, 'HTTP 500, code 500, `internalServerError`: the request body could not be read.'),

  // Errors: request
  must('err.req.invalid-request', EREQ, 'Code 400 `invalidRequest`: a field is missing or has the wrong type or format.'),
  must(
    'err.req.internal-field-name',
    EREQ,
    "The `invalidRequest` text names the field by the server's internal name (e.g. TradeInfo.GoodsName).",
  ),
  must('err.req.method-missing', EREQ, 'Code 400 `invalidRequest`: `payment_method` is missing.'),
  must('err.req.unsupported-method', EREQ, 'Code 3003 `unsupportedPaymentMethod`: unknown payment method.'),
  must('err.req.mutually-required', EREQ, 'Code 400 `mutuallyRequiredFieldsMissing`: `merchant_order_no` and `order_no` both empty.'),
  must('err.req.mutually-exclusive', EREQ, 'Code 400 `mutuallyExclusiveFieldsConflict`: both provided.'),

  // Errors: payment
  must('err.pay.merchant-frozen', EPAY, 'Code 1001 `merchantFrozen`: merchant account disabled.'),
  must(
    'err.pay.amount-out-of-range',
    EPAY,
    'Code 2006 `amountOutOfRange`: no available channel accepts the amount, or it cannot be rounded to a price point.',
  ),
  must('err.pay.method-unavailable', EPAY, 'Code 3003 `paymentMethodUnavailable`: method not available or not enabled for the merchant.'),
  must('err.pay.duplicate-order', EPAY, 'Code 422 `duplicateMerchantOrder`: merchant order number already exists.'),
  must('err.pay.invalid-amount', EPAY, 'Code 422 `invalidAmount`: amount must be a positive number.'),
  must('err.pay.decimals', EPAY, 'Code 422 `validationFailed`: amount has more than 2 decimal places (also "10.100").'),
  must('err.pay.currency', EPAY, 'Code 422 `notSupported`: currency not supported.'),
  must('err.pay.price-point', EPAY, 'Code 422 `notSupported`: Apple Pay or Google Pay amount that cannot be rounded to a tier.'),
  must('err.pay.declined', EPAY, 'Code 422 `paymentFailed`: the provider declined the payment; a FAILED webhook follows.'),
  must('err.pay.risk', EPAY, "Code 422 `validationFailed`: payment declined by the service's risk checks."),
  must('err.pay.no-channel', EPAY, 'Code 422 `validationFailed`: no payment channel available.'),
  must('err.pay.creation-failed', EPAY, 'Code 422 `systemBusy`: order creation failed.'),
  must('err.pay.invalid-card', EPAY, 'Code 422 `systemBusy`: any other failure, including an invalid card number, CVC or expiry date.'),
  must('err.pay.order-not-found', EPAY, 'Code 2002 `orderNotFound`: query, no such order.'),
  must('err.pay.access-denied', EPAY, 'Code 403 `orderAccessDenied`: query, the order belongs to another merchant.'),
  must('err.pay.query-failed', EPAY, 'Code 500 `queryFailed`: query failed; retry.'),

  // Errors: refund
  must('err.ref.codes', EREF, 'Refund creation errors use code 422; refund query errors use code 2002.'),
  must('err.ref.invalid-amount', EREF, '`invalidRefundAmount`: refund amount not positive.'),
  must('err.ref.decimals', EREF, '`validationFailed`: refund amount has more than 2 decimal places.'),
  must('err.ref.order-not-found', EREF, '`orderNotFound`: original order not found.'),
  must('err.ref.not-paid', EREF, '`refundOrderNotPaid`: original order was not paid successfully.'),
  must('err.ref.charged-back', EREF, '`validationFailed`: original order was charged back.'),
  must('err.ref.amount-exceeded', EREF, '`refundAmountExceeded`: refund amount exceeds the original order amount.'),
  must('err.ref.duplicate', EREF, '`duplicateRefundOrder`: refund number already exists.'),
  must('err.ref.balance', EREF, '`validationFailed`: merchant balance does not cover the refund and its fee.'),
  must('err.ref.not-supported', EREF, '`notSupported`: channel does not support refunds.'),
  must('err.ref.full-only', EREF, '`notSupported`: channel supports full refunds only.'),
  must('err.ref.failed', EREF, '`refundFailed`: refund request failed.'),
  must('err.ref.system-busy', EREF, '`systemBusy`: order creation failed, or any other failure.'),
  must('err.ref.not-found', EREF, '`refundNotFound` (code 2002): refund query, refund order not found.'),

  // Errors: payout
  must(
    'err.po.unsupported-payout-method',
    EPO,
    'Code 5007 `unsupportedPayoutMethod`: the payment method is not available for payouts (e.g. CASH_APP).',
  ),
  must('err.po.unknown-method', EPO, 'Code 5007 `unsupportedPaymentMethod`: unknown payment method.'),
  must('err.po.merchant-frozen', EPO, 'Code 1001 `merchantFrozen`: merchant account disabled.'),
  must('err.po.amount-out-of-range', EPO, 'Code 5008 `amountOutOfRange`: amount or currency not accepted by the method.'),
  must('err.po.currency', EPO, 'Code 5008 `notSupported`: payout currency not supported.'),
  must('err.po.insufficient-funds', EPO, 'Code 5004 `insufficientFunds`: insufficient merchant payout balance.'),
  must('err.po.query-not-found', EPO, 'Code 5002 `notFound`: payout query, payout not found.'),
  must('err.po.cancel-not-found', EPO, 'Code 422 `notFound`: payout cancel, payout not found.'),
  must('err.po.not-cancelable', EPO, 'Code 5003 `payoutNotCancelable`: payout not cancelable in its current status.'),
  must('err.po.cancel-unsupported', EPO, 'Code 422 `notSupported`: payout channel does not support cancel.'),

  // Idempotency
  must('idem.payment.refused', IDEM, 'A repeated `merchant_order_no` is refused with 422 `duplicateMerchantOrder`.'),
  must('idem.payment.shared-with-refunds', IDEM, "`merchant_order_no` is unique in the merchant's account, shared with refund numbers."),
  must('idem.refund.refused', IDEM, 'A repeated `merchant_refund_no` is refused with 422 `duplicateRefundOrder`.'),
  must('idem.payout.refused', IDEM, 'A repeated `merchant_payout_no` is refused.'),
  must('idem.no-replay', IDEM, 'A repeated request is refused, not replayed; the original response is not returned.'),
  must(
    'idem.refused-stays-used',
    IDEM,
    'A number used by a request that was recorded and then refused (declined card, refused refund) stays used.',
  ),
  must('idem.refund-blocks-payment', IDEM, 'A refund number equal to a payment order number can block that payment number later.'),
  must('idem.original-unchanged', IDEM, 'A refused repeat leaves the original order unchanged.'),
  must(
    'idem.create-once',
    IDEM,
    'Create requests are sent once and not in parallel; after a timeout the merchant queries before a new number.',
    C,
  ),

  // Limits
  must(
    'limit.amount.channel-range',
    LIM,
    'An amount must fall inside the minimum and maximum of at least one enabled channel (payments 2006, payouts 5008).',
  ),
  must('limit.ack-time', LIM, 'Webhook acknowledgement time: 5 seconds.'),
  must('limit.attempts', LIM, 'Webhook delivery attempts: 9 in total, over about 80 to 100 minutes.'),
  must('limit.price-points', LIM, 'Apple Pay and Google Pay amounts: fixed tiers only.'),
  open('limit.rate', LIM, 'Rate limits: not shown.'),
  open('limit.channel-amounts', LIM, 'Numeric channel minimum and maximum amounts: not shown.'),
  open('limit.string-lengths', LIM, 'Maximum lengths of string fields and maximum request body size: not shown.'),
  open('version.policy', VER, 'Policy for new versions, deprecation and change notices: not shown.'),
  must('version.no-camelcase', VER, 'Older camelCase field names are not accepted; only snake_case names are valid.'),

  // What the document puts on the merchant (party client): certified by `receiver` (its webhook
  // endpoint) and `serve --audit` (its client), proved by test/merchant, never counted as service gaps.
  must(
    'merchant.ack.success-body',
    ACK,
    'The receiver replies with a body of exactly `success` (seven lower-case letters, no ' +
      'quotes, no JSON, no trailing newline); any other body is a failure, even with HTTP 200.',
    C,
  ),
  must('merchant.ack.within-5s', ACK, 'The receiver replies within 5 seconds.', C),
  must(
    'merchant.verify.raw-body',
    AUTH,
    'The receiver verifies over the raw body bytes: JSON equal in meaning but differing in ' +
      'whitespace or key order has its own signature (re-serialising before verifying is wrong).',
    C,
  ),
  must(
    'merchant.verify.string-to-sign',
    DEL,
    'The receiver verifies the string to sign merchant id LF timestamp LF ' +
      'nonce LF raw body (LF, not CR LF; its own merchant id, not another).',
    C,
  ),
  must(
    'merchant.verify.merchant-id',
    DEL,
    'The receiver checks that `X-MerchantID` is its own; a mismatch is answered with a non-success reply.',
    C,
  ),
  must(
    'merchant.verify.headers-required',
    AUTH,
    'A webhook missing one of the four signing headers, or with an empty one, ' +
      'is not acknowledged (signed with the same rule and the same four headers).',
    C,
  ),
  should('merchant.verify.lower-hex', AUTH, '`X-Sign` is lower-case hex; an upper-case copy of a valid signature is wrong.', C),
  must(
    'client.sign.merchant-id',
    AUTH,
    'The client sends in `X-MerchantID` the identifier assigned by the service (not a name, login or internal id).',
    C,
  ),
  must(
    'client.sign.secret-key',
    AUTH,
    'The client signs with its API secret key of the environment it calls: test and production keys differ.',
    C,
  ),
  must(
    'client.sign.verifies',
    AUTH,
    "The client's `X-Sign` verifies: HMAC-SHA256 of the string to sign, keyed with its secret key (a mismatch gives HTTP 403 `forbidden`).",
    C,
  ),
  must('client.sign.string', AUTH, 'The client signs merchantID LF timestamp LF nonce LF rawBody, LF a single line feed (not CR LF).', C),
  must(
    'client.sign.raw-body',
    AUTH,
    'The client signs exactly the bytes it sends: no re-serialising, pretty-printing, trimming or reordering after signing.',
    C,
  ),
  must(
    'client.sign.timestamp-seconds',
    AUTH,
    'The client sends `X-Timestamp` as Unix time in seconds, not milliseconds and not a formatted date.',
    C,
  ),
  must('client.sign.headers', AUTH, 'The client sends the four signing headers, none empty (a random non-empty nonce).', C),
  must(
    'client.sign.lower-hex',
    AUTH,
    'The client sends `X-Sign` as lower-case hex HMAC-SHA256: not upper-case hex, Base64, MD5 or RSA.',
    C,
  ),
  must('client.content-type', EP, 'The client sends `Content-Type: application/json`.', C),
  must('client.fields.snake-case', CONV, 'The client sends snake_case field names; camelCase names are not accepted.', C),
  must(
    'client.amount.string',
    AMT,
    'The client sends an amount `value` as a decimal string (digits and one point: no thousands separator, exponent, leading +, ' +
      'space or decimal comma), not a JSON number.',
    C,
  ),
  must('client.amount.two-decimals', AMT, 'The client sends amount values with at most two decimal places.', C),
  should(
    'client.query.retry',
    QRY,
    'After a transient `500 queryFailed` the client tries the query again ("Transient failure: code 500 `queryFailed` (try again)").',
    C,
  ),
  must(
    'client.numbers.distinct',
    IDEM,
    'Payments and refunds need different numbers: the client does not reuse a number across a payment and a refund.',
    C,
  ),
] as const;

/** Every clause id of the registry, as a type: what `expect*`, `failCheck`, `held` and check definitions take. */
export type ClauseId = (typeof registry)[number]['id'];
export const clauses: readonly Clause<ClauseId>[] = registry;

/**
 * Statements the document makes twice, in different sections (a Limits row and the rule it sums
 * up, a general sentence and its per-resource forms): the clause on the left says nothing the
 * clauses on the right do not. Coverage counts it proved when every one of them is proved.
 */
export const restatements: Readonly<Record<string, readonly string[]>> = {
  'limit.attempts': ['webhook.retry.max-9', 'webhook.retry.total-span'],
  'state.no-webhook.expiry-chargeback': ['event.none.expiry', 'event.none.chargeback'],
  'event.none.refunded-payment': ['state.refunded.refund-event'],
  'event.sent-on-change': ['event.payment.updated', 'event.refund.updated', 'event.payout.updated'],
  'version.no-camelcase': ['conv.snake-case'],
  // Idempotency rule 3 tells the merchant what the table's scope of payment numbers ("the merchant's account, shared with
  // refund numbers"; a repeat "refused with 422 duplicateMerchantOrder") already binds the service to; its other half is
  // the merchant's (client.numbers.distinct). A payment accepted under a refund's number breaks the table first.
  'idem.refund-blocks-payment': ['idem.payment.shared-with-refunds'],
};

const byId = new Map<string, Clause<ClauseId>>(clauses.map((c) => [c.id, c]));
for (const [id, same] of Object.entries(restatements)) {
  for (const x of [id, ...same]) if (!byId.has(x)) throw new Error(`restatements: unknown clause id ${x}`);
}

export function clause(id: string): Clause<ClauseId> {
  const c = byId.get(id);
  if (!c) throw new Error(`unknown clause id ${JSON.stringify(id)}: add it to harness/clauses/registry.ts first`);
  return c;
}

export function hasClause(id: string): id is ClauseId {
  return byId.has(id);
}
