/** Faults in refund and payout rules. */
import { ApiError } from '../errors.js';
import { defineFault, PATHS, rewriteError, skipRule } from './fault.js';

export const refundExceedAllowed = defineFault({
  name: 'refund-exceed-allowed',
  clause: 'err.ref.amount-exceeded',
  doc: 'Refunds above the amount charged (alone or with earlier refunds) are accepted.',
  refundCeilingCents: () => 10n ** 18n,
});

export const refundFullAsExceeded = defineFault({
  name: 'refund-full-as-exceeded',
  clause: 'refund.channel-support',
  doc: 'A refund of all that is left of a payment (a full refund) is refused with refundAmountExceeded, as if it exceeded the amount.',
  refundCeilingCents: (charged, earlier) => charged - earlier - 1n,
});

export const refundUnpaidAccepted = defineFault({
  name: 'refund-unpaid-accepted',
  clause: 'state.refund.not-paid',
  doc: 'A refund of a payment that was not paid successfully (pending, failed, expired) is accepted.',
  enforces: skipRule('refund.paid'),
});

export const refundChargedBackAccepted = defineFault({
  name: 'refund-charged-back-accepted',
  clause: 'state.refund.charged-back',
  doc: 'A refund of a payment that has been charged back is accepted.',
  enforces: skipRule('refund.not-charged-back'),
});

export const refundNotFoundAsOrderNotFound = defineFault({
  name: 'refund-not-found-as-order-not-found',
  clause: 'err.ref.not-found',
  doc: 'A refund query for an unknown refund is answered 2002 orderNotFound instead of refundNotFound.',
  mapError: rewriteError({ path: PATHS.refundQuery, key: 'refundNotFound', to: { key: 'orderNotFound', detail: 'Order not found' } }),
});

export const refundFullOnlyPartialAccepted = defineFault({
  name: 'refund-full-only-partial-accepted',
  clause: 'err.ref.full-only',
  doc: 'A partial refund is accepted on a channel that supports full refunds only.',
  enforces: skipRule('refund.full-only'),
});

export const refundUnsupportedChannelAccepted = defineFault({
  name: 'refund-unsupported-channel-accepted',
  clause: 'err.ref.not-supported',
  doc: 'A refund is accepted on a channel that does not support refunds.',
  enforces: skipRule('refund.channel-support'),
});

export const refundInvalidAmountKey = defineFault({
  name: 'refund-invalid-amount-key',
  clause: 'err.ref.invalid-amount',
  doc: 'A refund amount that is not positive is refused with the payment key invalidAmount instead of invalidRefundAmount.',
  mapError: rewriteError({
    path: PATHS.refundCreate,
    key: 'invalidRefundAmount',
    to: { key: 'invalidAmount', detail: 'Amount must be a positive number' },
  }),
});

export const refundErrorsCode400 = defineFault({
  name: 'refund-errors-code-400',
  clause: 'err.ref.codes',
  doc: 'Refund creation errors use code 400 instead of 422 (keys kept).',
  mapError: (err, path) => (path === PATHS.refundCreate && err.code === 422 ? new ApiError(400, err.key, err.detail) : err),
});

export const refundBalanceIgnored = defineFault({
  name: 'refund-balance-ignored',
  clause: 'err.ref.balance',
  doc: 'A refund is accepted even when the merchant balance does not cover it and its fee.',
  enforces: skipRule('refund.balance'),
});

export const payoutCancelSuccess = defineFault({
  name: 'payout-cancel-success',
  clause: 'state.payout.not-cancelable',
  doc: 'A payout in status SUCCESS can be canceled.',
  payoutCancelable: (status) => status === 'PENDING' || status === 'SUCCESS',
});

export const payoutCancelCanceledAccepted = defineFault({
  name: 'payout-cancel-canceled-accepted',
  clause: 'state.payout.not-cancelable',
  doc: 'Canceling a payout that is already CANCELED succeeds again instead of being refused.',
  payoutCancelable: (status) => status === 'PENDING' || status === 'CANCELED',
});

export const payoutNotCancelableNoStatus = defineFault({
  name: 'payout-not-cancelable-no-status',
  clause: 'state.payout.not-cancelable',
  doc: 'The payoutNotCancelable message does not name the current status.',
  mapError: rewriteError({ path: PATHS.payoutCancel, key: 'payoutNotCancelable', to: { detail: 'Payout cannot be canceled' } }),
});

export const payoutNotCancelableCode422 = defineFault({
  name: 'payout-not-cancelable-code-422',
  clause: 'err.po.not-cancelable',
  doc: 'payoutNotCancelable is answered with code 422 instead of the payout catalogue code 5003.',
  mapError: rewriteError({ path: PATHS.payoutCancel, key: 'payoutNotCancelable', to: { code: 422 } }),
});

export const payoutInsufficientFundsIgnored = defineFault({
  name: 'payout-insufficient-funds-ignored',
  clause: 'err.po.insufficient-funds',
  doc: 'A payout above the merchant payout balance is accepted.',
  enforces: skipRule('payout.balance'),
});

export const payoutBalanceUsdOnly = defineFault({
  name: 'payout-balance-usd-only',
  clause: 'err.po.insufficient-funds',
  doc: 'Payout balances in other currencies are ignored: a payout in any currency is checked against (and drawn from) the USD balance.',
  enforces: skipRule('payout.balance-currency'),
});

export const payoutFundsOfFirstMerchant = defineFault({
  name: 'payout-funds-of-first-merchant',
  clause: 'err.po.insufficient-funds',
  doc:
    "A payout is checked against the payout balance of the service's first merchant account (the primary), " +
    'whichever merchant sends it: one above its own balance is accepted while the primary holds enough.',
  payoutFundsOf: (_merchantId, firstMerchantId) => firstMerchantId,
});

export const payoutFeeNotCharged = defineFault({
  name: 'payout-fee-not-charged',
  clause: 'err.po.insufficient-funds',
  doc:
    "Insufficient merchant payout balance: a payout's funds are checked against its amount alone, without the method's payout fee, " +
    'so one whose amount fits the balance and whose fee does not is accepted.',
  enforces: skipRule('payout.fee'),
});

export const payoutFeeMinimumIgnored = defineFault({
  name: 'payout-fee-minimum-ignored',
  clause: 'err.po.insufficient-funds',
  doc:
    "Insufficient merchant payout balance: a payout's fee is taken without its minimum, so one whose amount fits the balance " +
    'with the percentage fee but not with the minimum fee is accepted.',
  enforces: skipRule('fee.minimum'),
});

export const payoutFeeCapIgnored = defineFault({
  name: 'payout-fee-cap-ignored',
  clause: 'err.po.insufficient-funds',
  doc:
    "Insufficient merchant payout balance: a payout's fee in another currency than USD is taken without its cap (kept for USD " +
    'alone), so a EUR payout whose amount and capped fee fit its balance is refused.',
  enforces: skipRule('fee.maximum-any-currency'),
});

export const merchantPayoutFeeIgnored = defineFault({
  name: 'merchant-payout-fee-ignored',
  clause: 'err.po.insufficient-funds',
  doc:
    "Insufficient merchant payout balance: a merchant's own payout fee is ignored and every merchant's is charged, so its " +
    'balance is judged against another fee than its own.',
  enforces: skipRule('fee.merchant'),
});

export const pendingProceedsPaidOutEarly = defineFault({
  name: 'pending-proceeds-paid-out-early',
  clause: 'err.po.insufficient-funds',
  doc:
    'Insufficient merchant payout balance: the proceeds of a successful payment, which this sandbox keeps pending for a ' +
    'delay or until released, are credited at once, so a payout drawn against them is accepted.',
  enforces: skipRule('proceeds.pending'),
});

export const merchantPayoutRangeOfPrimary = defineFault({
  name: 'merchant-payout-range-of-primary',
  clause: 'err.po.amount-out-of-range',
  doc:
    "Amount or currency not accepted by the method: the primary merchant's payout channel (its currencies and ranges) is " +
    'applied to every merchant, whose own channel of that method takes other amounts.',
  enforces: skipRule('payout.merchant-channels'),
});

export const merchantPaymentRangeOfPrimary = defineFault({
  name: 'merchant-payment-range-of-primary',
  clause: 'limit.amount.channel-range',
  doc:
    "Must fall inside the minimum and maximum of at least one enabled channel: the primary merchant's channel ranges of a " +
    'payment method are applied to every merchant, whose own channel of that method takes other amounts.',
  enforces: skipRule('payment.merchant-channels'),
});

export const payoutRangeIgnoresCurrency = defineFault({
  name: 'payout-range-ignores-currency',
  clause: 'err.po.amount-out-of-range',
  doc:
    'Amount or currency not accepted by the method: a payout in another currency is checked against the USD range, ' +
    "not the method's own range in that currency.",
  enforces: skipRule('payout.currency-range'),
});

export const payoutQueryNotFound422 = defineFault({
  name: 'payout-query-not-found-422',
  clause: 'err.po.query-not-found',
  doc: 'A payout query for an unknown payout is answered with code 422 instead of 5002 (key notFound kept).',
  mapError: rewriteError({ path: PATHS.payoutQuery, key: 'notFound', to: { code: 422 } }),
});

export const payoutCancelNotFound5002 = defineFault({
  name: 'payout-cancel-not-found-5002',
  clause: 'err.po.cancel-not-found',
  doc: 'A cancel of an unknown payout is answered with code 5002 instead of 422 (key notFound kept).',
  mapError: rewriteError({ path: PATHS.payoutCancel, key: 'notFound', to: { code: 5002 } }),
});

export const payoutCashAppAccepted = defineFault({
  name: 'payout-cash-app-accepted',
  clause: 'err.po.unsupported-payout-method',
  doc: 'A payout with a method not available for payouts (CASH_APP) is accepted.',
  enforces: skipRule('payout.method'),
});

export const payoutCancelUnsupportedAccepted = defineFault({
  name: 'payout-cancel-unsupported-accepted',
  clause: 'err.po.cancel-unsupported',
  doc: 'A payout on a channel without cancel support can be canceled.',
  enforces: skipRule('payout.cancel-support'),
});

export const payoutEurAccepted = defineFault({
  name: 'payout-eur-accepted',
  clause: 'payout.usd-only-methods',
  doc: 'A non-USD payout is accepted on a USD-only payout method.',
  enforces: skipRule('payout.currency'),
});

export const payoutUsdOnlyTakesEur = defineFault({
  name: 'payout-usd-only-takes-eur',
  clause: 'payout.usd-only-methods',
  doc:
    '"Some payout methods accept only USD" (5008: "a non-USD payout where only USD is accepted"), broken for EUR alone: ' +
    'a USD-only method takes EUR and still refuses every other currency.',
  payoutCurrencies: (_method, currencies) => (currencies.length === 1 && currencies[0] === 'USD' ? ['USD', 'EUR'] : currencies),
});

export const payoutFrozenAllowed = defineFault({
  name: 'payout-frozen-allowed',
  clause: 'err.po.merchant-frozen',
  doc: 'A frozen (suspended) merchant can still create payouts.',
  enforces: skipRule('payout.merchant-active'),
});

export const refundDecimalsInvalidAmountKey = defineFault({
  name: 'refund-decimals-invalid-amount-key',
  clause: 'err.ref.decimals',
  doc: 'A refund amount with three or more decimals is refused with invalidRefundAmount instead of validationFailed.',
  mapError: rewriteError({
    path: PATHS.refundCreate,
    key: 'validationFailed',
    detail: /decimal/,
    to: { key: 'invalidRefundAmount', detail: 'Refund amount must be a positive number' },
  }),
});

export const refundThreeDecimalsAccepted = defineFault({
  name: 'refund-3-decimals-accepted',
  clause: 'refund.amount.positive-2-decimals',
  doc: 'A refund amount with three or more decimals is rounded to cents and accepted (payment amounts are still refused).',
  maxRefundAmountDecimals: 20,
});

export const refundOrderNotFoundAsRefundNotFound = defineFault({
  name: 'refund-order-not-found-as-refund-not-found',
  clause: 'err.ref.order-not-found',
  doc: 'A refund of an order that does not exist is refused with refundNotFound instead of orderNotFound.',
  mapError: rewriteError({
    path: PATHS.refundCreate,
    key: 'orderNotFound',
    to: { key: 'refundNotFound', detail: 'Refund order not found' },
  }),
});

export const refundNotPaidValidationFailed = defineFault({
  name: 'refund-not-paid-validation-failed',
  clause: 'err.ref.not-paid',
  doc: 'A refund of a payment that was not paid successfully is refused with validationFailed instead of refundOrderNotPaid.',
  mapError: rewriteError({ path: PATHS.refundCreate, key: 'refundOrderNotPaid', to: { key: 'validationFailed' } }),
});

export const refundChargedBackNotPaidKey = defineFault({
  name: 'refund-charged-back-not-paid-key',
  clause: 'err.ref.charged-back',
  doc: 'A refund of a charged-back payment is refused with refundOrderNotPaid instead of validationFailed.',
  mapError: rewriteError({ path: PATHS.refundCreate, key: 'validationFailed', detail: /charged back/, to: { key: 'refundOrderNotPaid' } }),
});

export const refundDuplicateMerchantOrderKey = defineFault({
  name: 'refund-duplicate-merchant-order-key',
  clause: 'err.ref.duplicate',
  doc: 'A repeated merchant_refund_no is refused with the payment key duplicateMerchantOrder instead of duplicateRefundOrder.',
  mapError: rewriteError({
    path: PATHS.refundCreate,
    key: 'duplicateRefundOrder',
    to: { key: 'duplicateMerchantOrder', detail: 'Merchant order number already exists' },
  }),
});

export const refundFailedValidationFailed = defineFault({
  name: 'refund-failed-validation-failed',
  clause: 'err.ref.failed',
  doc: 'A refund the provider fails is refused with validationFailed instead of refundFailed.',
  mapError: rewriteError({ path: PATHS.refundCreate, key: 'refundFailed', to: { key: 'validationFailed' } }),
});

export const refundPartialRefused = defineFault({
  name: 'refund-partial-refused',
  clause: 'refund.channel-support',
  doc: 'Channels that support partial refunds are treated as full-only: every partial refund is refused with notSupported.',
  refundSupport: (_method, support) => (support === 'partial' ? 'full-only' : support),
});

export const refundQueryMerchantNoAsRefundNo = defineFault({
  name: 'refund-query-merchant-no-as-refund-no',
  clause: 'refund.ids',
  doc: 'A refund looked up by merchant_refund_no is searched among refund_no values, so it is never found.',
  lookupAs: (field) => (field === 'merchant_refund_no' ? 'refund_no' : field),
});

export const payoutQueryMerchantNoAsPayoutNo = defineFault({
  name: 'payout-query-merchant-no-as-payout-no',
  clause: 'payout.ids',
  doc: 'A payout looked up by merchant_payout_no is searched among payout_no values, so it is never found.',
  lookupAs: (field) => (field === 'merchant_payout_no' ? 'payout_no' : field),
});

export const payoutUnknownMethodAsPayoutMethod = defineFault({
  name: 'payout-unknown-method-as-payout-method',
  clause: 'err.po.unknown-method',
  doc: 'A payout with an unknown payment method is refused with unsupportedPayoutMethod instead of unsupportedPaymentMethod.',
  mapError: rewriteError({ path: PATHS.payoutCreate, key: 'unsupportedPaymentMethod', to: { code: 5007, key: 'unsupportedPayoutMethod' } }),
});

export const payoutRangeCode2006 = defineFault({
  name: 'payout-range-code-2006',
  clause: 'err.po.amount-out-of-range',
  doc: 'A payout outside the method limits is refused with the payment code 2006 instead of 5008 (key amountOutOfRange kept).',
  mapError: rewriteError({ path: PATHS.payoutCreate, key: 'amountOutOfRange', detail: /outside/, to: { code: 2006 } }),
});

export const payoutCurrencyNotSupported422 = defineFault({
  name: 'payout-currency-not-supported-422',
  clause: 'err.po.currency',
  doc: 'A non-USD payout is refused with the payment row 422 notSupported instead of a 5008 answer.',
  mapError: rewriteError({
    path: PATHS.payoutCreate,
    key: 'amountOutOfRange',
    detail: /^Currency/,
    to: { code: 422, key: 'notSupported', detail: (d) => d.replace('is not accepted by', 'is not supported for') },
  }),
});

const FINAL_PAYOUT = new Set(['SUCCESS', 'FAILED', 'CANCELED']);

export const payoutFinalRecordNoStatus = defineFault({
  name: 'payout-final-record-no-status',
  clause: 'payout.fields',
  doc: 'A payout "has `status`" only while pending: once SUCCESS, FAILED or CANCELED its record leaves the status out.',
  finishView: (kind, view) => {
    if (kind !== 'payout' || !FINAL_PAYOUT.has(String(view['status']))) return view;
    const { status: _status, ...rest } = view;
    return rest;
  },
});
