/** Readings where the document names two answers for one case, or only says "refused". */
import { ApiError } from '../errors.js';
import { defineReading } from './reading.js';
import { routeOf } from './requests.js';

export const unroundableAmountOutOfRange = defineReading({
  name: 'unroundable-amount-out-of-range',
  doc:
    'An amount no price point takes is refused 2006 amountOutOfRange: "2006 | `amountOutOfRange` | No available ' +
    'channel accepts the amount, or it cannot be rounded to a price point." (the table also gives 422 `notSupported`).',
  mapError: (err, path) =>
    routeOf(path).startsWith('/api/v1/payments/') && err.key === 'notSupported' && /price point/.test(err.detail)
      ? new ApiError(2006, 'amountOutOfRange', err.detail)
      : err,
});

export const payoutCurrencyNotSupported = defineReading({
  name: 'payout-currency-not-supported',
  doc:
    'A non-USD payout is refused 5008 notSupported: "5008 | `notSupported` | Payout currency not ' +
    'supported." (the row above gives 5008 `amountOutOfRange` "for example a non-USD payout").',
  mapError: (err, path) =>
    routeOf(path) === '/api/v1/payouts/create' && err.key === 'amountOutOfRange' && /^Currency /.test(err.detail)
      ? new ApiError(5008, 'notSupported', err.detail)
      : err,
});

export const unknownPayoutMethod3003 = defineReading({
  name: 'unknown-payout-method-3003',
  doc:
    'An unknown method in a payout is refused 3003 unsupportedPaymentMethod: "3003 | `unsupportedPaymentMethod` ' +
    '| Unknown payment method." under "Request errors (all endpoints)" (the payout table gives 5007).',
  mapError: (err, path) =>
    routeOf(path) === '/api/v1/payouts/create' && err.key === 'unsupportedPaymentMethod' ? new ApiError(3003, err.key, err.detail) : err,
});

export const payoutDuplicateSharedKey = defineReading({
  name: 'payout-duplicate-shared-key',
  doc:
    'A repeated merchant_payout_no is refused 422 duplicateMerchantOrder: "Create a payout ' +
    '| `merchant_payout_no` | The merchant\'s payouts | Refused." (no code or key is given).',
  mapError: (err, path) =>
    routeOf(path) === '/api/v1/payouts/create' && err.key === 'duplicatePayoutOrder'
      ? new ApiError(422, 'duplicateMerchantOrder', 'Merchant payout number already exists')
      : err,
});

export const refundNumberFreeOfPayments = defineReading({
  name: 'refund-number-free-of-payments',
  doc:
    "A refund numbered like one of the merchant's payments is accepted (payments still check refund " +
    'numbers): "`merchant_refund_no` (merchant\'s number, unique among the merchant\'s refunds)", "A refund ' +
    'number equal to one of the merchant\'s payment order numbers can block that payment number later".',
  numberBlocks: (kind, holder) => !(kind === 'refund' && holder === 'payment'),
});

export const payoutCancelStatusFirst = defineReading({
  name: 'payout-cancel-status-first',
  doc:
    'Cancelling a finished payout of a channel without cancel support is refused 5003 ' +
    'payoutNotCancelable, not 422 notSupported: "| 5003 | `payoutNotCancelable` | Payout not cancelable in ' +
    'its current status. |", "| 422 | `notSupported` | Payout channel does not support cancel. |"',
  payoutCancelStatusFirst: true,
});
