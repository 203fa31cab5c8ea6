/**
 * Faults in behaviour that a version-2 profile describes: per-merchant methods, methods without a
 * channel, several channels per method, armed transient failures, pending cards, production keys.
 */
import { STATUS_REASONS } from '../handlers/payout-state.js';
import { signatureMatches, signingInput } from '../signing.js';
import { defineFault, PATHS, rewriteError, skipRule } from './fault.js';

export const sandboxAcceptsProductionKey = defineFault({
  name: 'sandbox-accepts-production-key',
  clause: 'auth.env-keys',
  doc: "The sandbox accepts a request signed with the merchant's production key as well as with its test key.",
  verifyRequest: (r) => {
    const keys = [r.secret, r.productionSecret].filter((k): k is string => k !== undefined);
    return keys.some((k) => signatureMatches(k, signingInput(r.merchantId, r.timestamp, r.nonce, r.rawBody), r.sign));
  },
});

export const queryFailedAsSystemBusy = defineFault({
  name: 'query-failed-as-system-busy',
  clause: 'err.pay.query-failed',
  doc: 'A transient payment-query failure is answered 422 systemBusy instead of 500 queryFailed.',
  mapError: rewriteError({
    path: PATHS.paymentQuery,
    key: 'queryFailed',
    to: { code: 422, key: 'systemBusy', detail: 'System busy, please try again later' },
  }),
});

export const queryFailurePersists = defineFault({
  name: 'query-failure-persists',
  clause: 'query.transient',
  doc: 'A payment-query failure is not transient: once it happened, every later query of the merchant fails with queryFailed too.',
  armedFailureOneShot: false,
});

export const creationFailedAsValidationFailed = defineFault({
  name: 'creation-failed-as-validation-failed',
  clause: 'err.pay.creation-failed',
  doc: 'A failed order creation is answered 422 validationFailed instead of 422 systemBusy.',
  // Both ways of creating a payment: a sandbox may fail a card payment by a magic card or e-mail.
  mapError: rewriteError({
    path: [PATHS.checkout, PATHS.card],
    key: 'systemBusy',
    detail: /Order creation failed/,
    to: { key: 'validationFailed' },
  }),
});

export const refundSystemBusyCode500 = defineFault({
  name: 'refund-system-busy-code-500',
  clause: 'err.ref.system-busy',
  doc: 'A failed refund creation is answered systemBusy with code 500 instead of the refund code 422.',
  mapError: rewriteError({ path: PATHS.refundCreate, key: 'systemBusy', detail: /Order creation failed/, to: { code: 500 } }),
});

export const noChannelMethodAccepted = defineFault({
  name: 'no-channel-method-accepted',
  clause: 'err.pay.no-channel',
  doc: 'A payment with a method whose every channel is down is accepted instead of refused with 422 validationFailed.',
  enforces: skipRule('payment.no-channel'),
});

export const merchantPaymentMethodsIgnored = defineFault({
  name: 'merchant-payment-methods-ignored',
  clause: 'err.pay.method-unavailable',
  doc:
    'A payment method the service has but has not enabled for this merchant ' +
    'is accepted instead of refused with 3003 paymentMethodUnavailable.',
  enforces: skipRule('payment.merchant-methods'),
});

export const merchantPayoutMethodsIgnored = defineFault({
  name: 'merchant-payout-methods-ignored',
  clause: 'err.po.unsupported-payout-method',
  doc: 'A payout method not enabled for this merchant is accepted instead of refused as not available for payouts (5007).',
  enforces: skipRule('payout.merchant-methods'),
});

export const channelGapAccepted = defineFault({
  name: 'channel-gap-accepted',
  clause: 'limit.amount.channel-range',
  doc: "Only a method's overall minimum and maximum are checked: an amount between two of its channels' ranges is accepted.",
  channelRanges: false,
});

export const cardCompletionNoWebhook = defineFault({
  name: 'card-completion-no-webhook',
  clause: 'event.payment.updated',
  doc: 'A card payment left pending (3-D Secure) sends no payment.updated when it is completed.',
  sendsWebhookOn: (trigger) =>
    trigger !== 'card-completed' && trigger !== 'payment-refunded' && trigger !== 'checkout-expired' && trigger !== 'chargeback',
});

export const payoutReasonCanned = defineFault({
  name: 'payout-reason-canned',
  clause: 'webhook.body.status-reason',
  doc: 'payout.updated carries a canned status_reason for the status instead of the reason the payout got that status.',
  finishWebhookBody: (body, source) =>
    source.payout !== undefined && source.payout.status !== 'PENDING'
      ? { ...body, status_reason: STATUS_REASONS[source.payout.status] }
      : body,
});
