/** Faults in the error catalogue of payments and payment queries: wrong codes, wrong keys, rules skipped. */
import { changeHolding, defineFault, PATHS, rewriteError, skipRule } from './fault.js';

export const orderNotFound404 = defineFault({
  name: 'order-not-found-404',
  clause: 'query.not-found',
  doc: 'A payment query for an unknown order is answered with code 404 instead of 2002 (key orderNotFound kept).',
  mapError: rewriteError({ path: PATHS.paymentQuery, key: 'orderNotFound', to: { code: 404 } }),
});

export const otherMerchantOrderReturned = defineFault({
  name: 'other-merchant-order-returned',
  clause: 'query.other-merchant',
  doc: "A payment query by order_no returns another merchant's order instead of refusing with 403 orderAccessDenied.",
  enforces: skipRule('query.owner'),
});

export const otherMerchantAsNotFound = defineFault({
  name: 'other-merchant-as-not-found',
  clause: 'query.other-merchant',
  doc: "A payment query for another merchant's order is answered 2002 orderNotFound instead of 403 orderAccessDenied.",
  mapError: rewriteError({
    path: PATHS.paymentQuery,
    key: 'orderAccessDenied',
    to: { code: 2002, key: 'orderNotFound', detail: 'Order not found' },
  }),
});

export const frozenMerchantPays = defineFault({
  name: 'frozen-merchant-pays',
  clause: 'err.pay.merchant-frozen',
  doc: 'A frozen (suspended) merchant can still create payments.',
  enforces: skipRule('payment.merchant-active'),
});

export const unknownMethodUnavailable = defineFault({
  name: 'unknown-method-unavailable',
  clause: 'payment.method.unknown',
  doc: 'An unknown payment_method is answered 3003 paymentMethodUnavailable instead of unsupportedPaymentMethod.',
  mapError: rewriteError({ key: 'unsupportedPaymentMethod', to: { key: 'paymentMethodUnavailable' } }),
});

export const methodUnavailableAsUnsupported = defineFault({
  name: 'method-unavailable-as-unsupported',
  clause: 'err.pay.method-unavailable',
  doc: 'A known method not enabled for the merchant is answered 3003 unsupportedPaymentMethod instead of paymentMethodUnavailable.',
  mapError: rewriteError({ key: 'paymentMethodUnavailable', to: { key: 'unsupportedPaymentMethod' } }),
});

export const riskDeclineAsPaymentFailed = defineFault({
  name: 'risk-decline-as-payment-failed',
  clause: 'err.pay.risk',
  doc: "A payment declined by the service's risk checks is answered 422 paymentFailed instead of validationFailed.",
  mapError: rewriteError({
    key: 'validationFailed',
    detail: /risk/,
    to: { key: 'paymentFailed', detail: 'The provider declined the payment' },
  }),
});

export const noChannelAsSystemBusy = defineFault({
  name: 'no-channel-as-system-busy',
  clause: 'err.pay.no-channel',
  doc: 'A payment for which no channel is available is answered 422 systemBusy instead of validationFailed.',
  mapError: rewriteError({
    key: 'validationFailed',
    detail: /No payment channel/,
    to: { key: 'systemBusy', detail: 'System busy, please try again later' },
  }),
});

export const declinedAsSystemBusy = defineFault({
  name: 'declined-as-system-busy',
  clause: 'err.pay.declined',
  doc: 'A payment the provider declined is answered 422 systemBusy instead of paymentFailed.',
  mapError: rewriteError({ key: 'paymentFailed', to: { key: 'systemBusy', detail: 'System busy, please try again later' } }),
});

export const declineOnlyFirstCard = defineFault({
  name: 'decline-only-first-card',
  clause: 'err.pay.declined',
  doc: "Only the first of the sandbox's published decline cards is declined; a payment with any other is charged.",
  declinesCard: (n, cards) => cards[0] === n,
});

export const invalidCardAccepted = defineFault({
  name: 'invalid-card-accepted',
  clause: 'err.pay.invalid-card',
  doc: 'Card data is not validated: an invalid number, CVC or expiry date is charged.',
  enforces: skipRule('payment.card-valid'),
});

export const invalidCardMessageDetail = defineFault({
  name: 'invalid-card-message-detail',
  clause: 'err.system-busy',
  doc: 'An invalid card is answered systemBusy with the message "Invalid card data" instead of "System busy, please try again later".',
  mapError: rewriteError({ path: PATHS.card, key: 'systemBusy', to: { detail: 'Invalid card data' } }),
});

export const pricePointNoRequestedAmount = defineFault({
  name: 'price-point-no-requested-amount',
  clause: 'payment.requested-amount.only-rounded',
  doc: 'API responses leave out requested_amount when an amount was rounded to a price point.',
  finishEnvelope: (envelope) =>
    envelope['data'] === undefined
      ? envelope
      : {
          ...envelope,
          data: changeHolding(envelope['data'], 'requested_amount', ({ requested_amount: _dropped, ...rest }) => rest),
        },
});

export const pricePointUnroundableAccepted = defineFault({
  name: 'price-point-unroundable-accepted',
  clause: 'payment.price-point.refuse',
  doc: 'An Apple Pay or Google Pay amount that cannot be rounded to a price point is charged as it is.',
  enforces: skipRule('payment.price-point'),
});

export const refundedStatusNotShown = defineFault({
  name: 'refunded-status-not-shown',
  clause: 'state.payment.refunded-status',
  doc: 'A payment refunded in full keeps showing SUCCESS instead of REFUNDED.',
  enforces: skipRule('payment.refunded-status'),
});

export const orderNotFoundKeyNotFound = defineFault({
  name: 'order-not-found-key-not-found',
  clause: 'err.pay.order-not-found',
  doc: 'A payment query for an unknown order is answered 2002 with key notFound (the payout key) instead of orderNotFound.',
  mapError: rewriteError({ path: PATHS.paymentQuery, key: 'orderNotFound', to: { key: 'notFound' } }),
});

export const accessDeniedWrongKey = defineFault({
  name: 'access-denied-wrong-key',
  clause: 'err.pay.access-denied',
  doc: "A payment query for another merchant's order is answered 403 with key accessDenied instead of orderAccessDenied.",
  mapError: rewriteError({ path: PATHS.paymentQuery, key: 'orderAccessDenied', to: { key: 'accessDenied' } }),
});

export const unknownMethodCode400 = defineFault({
  name: 'unknown-method-code-400',
  clause: 'err.req.unsupported-method',
  doc: 'An unknown payment_method is refused with code 400 instead of 3003 (key unsupportedPaymentMethod kept).',
  mapError: rewriteError({ key: 'unsupportedPaymentMethod', to: { code: 400 } }),
});

export const queryRecordNested = defineFault({
  name: 'query-record-nested',
  clause: 'query.returns-record',
  doc: 'A payment query answers data {payment: …} around the record, one level deeper than the target keeps it.',
  finishEnvelope: (envelope) => {
    const data = envelope['data'] as Record<string, unknown> | undefined;
    // The record itself, or under the keys a target nests it in (sandbox-data.ts paymentRecordPath): one key a level.
    let record = data;
    while (record !== undefined && Object.keys(record).length === 1) {
      const inner = Object.values(record)[0];
      record = inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
    }
    return record !== undefined &&
      'status' in record &&
      'order_no' in record &&
      !('checkout_url' in record) &&
      !('refund_no' in record) &&
      !('payout_no' in record)
      ? { ...envelope, data: { payment: data } }
      : envelope;
  },
});

export const checkoutAnswersSessionNo = defineFault({
  name: 'checkout-answers-session-no',
  clause: 'checkout.creates',
  doc: "A checkout answers the checkout session's number as order_no instead of the payment's, so no payment has that number.",
  finishEnvelope: (envelope) => {
    const data = envelope['data'] as Record<string, unknown> | undefined;
    return data !== undefined && 'checkout_url' in data && typeof data['order_no'] === 'string'
      ? { ...envelope, data: { ...data, order_no: `CS${data['order_no'].slice(1)}` } }
      : envelope;
  },
});

export const pricePointRoundDown = defineFault({
  name: 'price-point-round-down',
  clause: 'payment.price-point.round',
  doc:
    'An Apple Pay or Google Pay amount between price points is charged ' +
    'the price point below it instead of the one the rounding rule gives.',
  roundToTier: (cents, tiers) => [...tiers].reverse().find((t) => t <= cents),
});

export const pricePointNinetyNine = defineFault({
  name: 'price-point-ninety-nine',
  clause: 'limit.price-points',
  doc: 'An Apple Pay or Google Pay amount is rounded up to the next x.99 (3.50 → 3.99), which is not always a fixed tier.',
  roundToTier: (cents, tiers) => {
    const top = tiers[tiers.length - 1];
    const up = (cents / 100n) * 100n + 99n;
    return top === undefined || up > top ? undefined : up;
  },
});

export const pricePointAmountsSwapped = defineFault({
  name: 'price-point-amounts-swapped',
  clause: 'payment.trans-amount.usd-charged',
  doc:
    'For a payment rounded to a price point, API responses show the amount ' +
    'asked as trans_amount and the price point charged as requested_amount.',
  finishEnvelope: (envelope) =>
    envelope['data'] === undefined
      ? envelope
      : {
          ...envelope,
          data: changeHolding(envelope['data'], 'requested_amount', (r) => ({
            ...r,
            trans_amount: r['requested_amount'],
            requested_amount: r['trans_amount'],
          })),
        },
});

export const unroundableValidationFailed = defineFault({
  name: 'unroundable-validation-failed',
  clause: 'err.pay.price-point',
  doc: 'An Apple Pay or Google Pay amount that cannot be rounded to a price point is refused 422 validationFailed instead of notSupported.',
  mapError: rewriteError({ key: 'notSupported', detail: /price point/, to: { key: 'validationFailed' } }),
});
