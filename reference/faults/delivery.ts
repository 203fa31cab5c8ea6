/** Faults in webhook acknowledgement, retries, and which changes send a webhook. */
import { defaultBehaviour, RETRY_WAITS_MS } from '../behaviour.js';
import { defineFault } from './fault.js';

const SUCCESS = Buffer.from('success');
const SUCCESS_LF = Buffer.from('success\n');

export const webhookAckTrailingNewline = defineFault({
  name: 'webhook-ack-trailing-newline',
  clause: 'webhook.ack.exact-success',
  doc: 'A reply body of "success\\n" is taken as an acknowledgement.',
  isAck: (body) => body.equals(SUCCESS) || body.equals(SUCCESS_LF),
});

export const webhookAckCaseInsensitive = defineFault({
  name: 'webhook-ack-case-insensitive',
  clause: 'webhook.ack.exact-success',
  doc: 'A reply body of "SUCCESS" (any case) is taken as an acknowledgement.',
  isAck: (body) => body.toString('latin1').toLowerCase() === 'success',
});

export const webhookAckAny200 = defineFault({
  name: 'webhook-ack-any-200',
  clause: 'webhook.ack.body-only',
  doc: 'Any HTTP 200 reply is taken as an acknowledgement, whatever its body.',
  isAck: (body, status) => status === 200 || body.equals(SUCCESS),
});

export const webhookAckNeedsHttp200 = defineFault({
  name: 'webhook-ack-needs-http-200',
  clause: 'webhook.ack.body-only',
  doc: 'A "success" body counts only with HTTP 200: "success" with HTTP 500 is retried.',
  isAck: (body, status) => status === 200 && body.equals(SUCCESS),
});

export const webhookSlowAck = defineFault({
  name: 'webhook-slow-ack',
  clause: 'webhook.ack.within-5s',
  // Wall-clock 60 s whatever the time scale: a scaled limit would fall under the 1 s floor.
  doc: 'A "success" arriving up to 60 s (wall clock) after sending still counts as an acknowledgement.',
  ackLimitMs: 60_000,
  ackLimitScales: false,
});

export const webhookAckLimitShort = defineFault({
  name: 'webhook-ack-limit-short',
  clause: 'limit.ack-time',
  doc: 'A receiver gets a fifth of the acknowledgement time (1 s instead of 5 s): a "success" after that counts as no answer.',
  ackLimitShare: 0.2,
});

export const webhook3Attempts = defineFault({
  name: 'webhook-3-attempts',
  clause: 'webhook.retry.max-9',
  doc: 'An unacknowledged webhook is attempted 3 times in total instead of 9.',
  retryWaitsMs: [15_000, 60_000],
});

export const webhook10Attempts = defineFault({
  name: 'webhook-10-attempts',
  clause: 'webhook.retry.max-9',
  doc:
    'An unacknowledged webhook is attempted 10 times in total instead of 9, its waits ' +
    'still growing from 15 s to 40 min and the tenth still within 100 minutes of the first.',
  // 15 s, 1, 2, 4, 7, 10, 15, 20, 40 min: 99.25 min in all, so only the attempt count breaks the document.
  retryWaitsMs: [15_000, 60_000, 120_000, 240_000, 420_000, 600_000, 900_000, 1_200_000, 2_400_000],
});

export const webhookFlatWaits = defineFault({
  name: 'webhook-flat-waits',
  clause: 'webhook.retry.growing-waits',
  doc: 'Retries are 15 s apart throughout, so all 9 attempts are over in 2 minutes.',
  retryWaitsMs: new Array<number>(8).fill(15_000),
});

export const webhookFirstWait60s = defineFault({
  name: 'webhook-first-wait-60s',
  clause: 'webhook.retry.growing-waits',
  doc: 'The first retry comes after 60 s instead of about 15 s (the later waits are unchanged).',
  retryWaitsMs: [60_000, ...RETRY_WAITS_MS.slice(1)],
});

export const webhookWaitsShrink = defineFault({
  name: 'webhook-waits-shrink',
  clause: 'webhook.retry.growing-waits',
  doc:
    'The sixth wait is 1 minute, after a 10-minute fifth: the waits shrink midway, though the first is 15 s, the last ' +
    '40 min and the span 80 minutes.',
  // 15 s, 1, 3, 5, 10, 1, 20, 40 min: 80.25 min in all, so only the order of the waits breaks the document.
  retryWaitsMs: [15_000, 60_000, 180_000, 300_000, 600_000, 60_000, 1_200_000, 2_400_000],
});

export const webhookShortSpan = defineFault({
  name: 'webhook-short-span',
  clause: 'webhook.retry.total-span',
  doc: 'Every wait is halved, so the last attempt comes about 47 minutes after the first instead of 80 to 100.',
  retryWaitsMs: RETRY_WAITS_MS.map((w) => w / 2),
});

export const webhookReuseNonce = defineFault({
  name: 'webhook-reuse-nonce',
  clause: 'webhook.fresh-signature',
  doc: "Every retry reuses the first attempt's X-Timestamp and X-Nonce.",
  freshSignaturePerAttempt: false,
});

export const webhookNoRetryWithoutReply = defineFault({
  name: 'webhook-no-retry-without-reply',
  clause: 'webhook.retry.unacked',
  doc: 'An attempt that gets no reply at all (connection refused or closed) is not retried.',
  retryWithoutReply: false,
});

export const webhookResendAfterAck = defineFault({
  name: 'webhook-resend-after-ack',
  clause: 'webhook.retry.acked-not-resent',
  doc: 'An acknowledged webhook is sent once more after the first retry wait.',
  attemptsAfterAck: 1,
});

export const webhookPaymentUpdatedOnRefund = defineFault({
  name: 'webhook-payment-updated-on-refund',
  clause: 'state.refunded.refund-event',
  doc: 'A payment becoming REFUNDED also sends payment.updated.',
  sendsWebhookOn: (t) => t !== 'checkout-expired' && t !== 'chargeback',
});

export const webhookOnExpiry = defineFault({
  name: 'webhook-on-expiry',
  clause: 'event.none.expiry',
  doc: 'An expired checkout sends payment.updated (status EXPIRED).',
  sendsWebhookOn: (t) => t !== 'payment-refunded' && t !== 'chargeback',
});

export const webhookOnChargeback = defineFault({
  name: 'webhook-on-chargeback',
  clause: 'event.none.chargeback',
  doc: 'A recorded chargeback sends payment.updated with status CHARGEBACK.',
  sendsWebhookOn: (t) => t !== 'payment-refunded' && t !== 'checkout-expired',
  finishWebhookBody: (body, source) =>
    body['event'] === 'payment.updated' && source.payment?.chargedBack === true ? { ...body, status: 'CHARGEBACK' } : body,
});

export const webhookOnChargebackUnchanged = defineFault({
  name: 'webhook-on-chargeback-unchanged',
  clause: 'event.none.chargeback',
  doc:
    "A recorded chargeback sends payment.updated with the payment's " +
    'unchanged status SUCCESS, looking like a resend of the acknowledged one.',
  sendsWebhookOn: (t) => t !== 'payment-refunded' && t !== 'checkout-expired',
});

export const webhookOnRefundLooksResent = defineFault({
  name: 'webhook-on-refund-looks-resent',
  clause: 'state.refunded.refund-event',
  doc: 'A payment refunded in full sends payment.updated with status SUCCESS, looking like a resend of the acknowledged one.',
  sendsWebhookOn: (t) => t !== 'checkout-expired' && t !== 'chargeback',
  finishWebhookBody: (body, source) =>
    body['event'] === 'payment.updated' && source.payment?.status === 'REFUNDED' && source.refund === undefined
      ? { ...body, status: 'SUCCESS' }
      : body,
});

export const riskDeclineNoWebhook = defineFault({
  name: 'risk-decline-no-webhook',
  clause: 'state.payment.declined-failed',
  doc: "A payment declined by the service's risk checks ends FAILED but sends no payment.updated.",
  sendsWebhookOn: (t) => t !== 'risk-decline' && t !== 'payment-refunded' && t !== 'checkout-expired' && t !== 'chargeback',
});

export const webhookNoneOnFailedCheckout = defineFault({
  name: 'webhook-none-on-failed-checkout',
  clause: 'event.payment.updated',
  doc: 'A checkout that fails sends no payment.updated (only successes are notified).',
  sendsWebhookOn: (t) => t !== 'checkout-failed' && t !== 'payment-refunded' && t !== 'checkout-expired' && t !== 'chargeback',
});

export const webhookNoneOnRefundCreate = defineFault({
  name: 'webhook-none-on-refund-create',
  clause: 'event.refund.updated',
  doc: 'A new refund sends no refund.updated; only its settlement does.',
  sendsWebhookOn: (t) => t !== 'refund-created' && t !== 'payment-refunded' && t !== 'checkout-expired' && t !== 'chargeback',
});

export const webhookNoneOnRefundCreatedSettled = defineFault({
  name: 'webhook-none-on-refund-created-settled',
  clause: 'event.refund.updated',
  doc:
    'A refund created already SUCCESS (its channel settles at once) sends no refund.updated: only a PENDING one is ' +
    'notified at creation, as if SUCCESS were sent only on a later change.',
  sendsWebhookOn: (t) => t !== 'refund-created-settled' && t !== 'payment-refunded' && t !== 'checkout-expired' && t !== 'chargeback',
});

export const webhookNoneOnPayoutCancel = defineFault({
  name: 'webhook-none-on-payout-cancel',
  clause: 'event.payout.updated',
  doc: 'A payout canceled by the merchant sends no payout.updated.',
  sendsWebhookOn: (t) => t !== 'payout-canceled' && t !== 'payment-refunded' && t !== 'checkout-expired' && t !== 'chargeback',
});

export const webhook8AttemptsInSpan = defineFault({
  name: 'webhook-8-attempts-in-span',
  clause: 'limit.attempts',
  doc: 'Webhook delivery attempts: 8 in total (not 9), though over 89 minutes, within "about 80 to 100 minutes".',
  // 15 s, 1, 3, 10, 15, 20, 40 min: the waits still grow to 40 minutes; only the count of attempts breaks the row.
  retryWaitsMs: [15_000, 60_000, 180_000, 600_000, 900_000, 1_200_000, 2_400_000],
});

export const webhookOnExpiryAndChargeback = defineFault({
  name: 'webhook-on-expiry-and-chargeback',
  clause: 'state.no-webhook.expiry-chargeback',
  doc: '"An expired checkout link and a recorded chargeback send no webhook": both send payment.updated here.',
  sendsWebhookOn: (t) => t !== 'payment-refunded',
});

export const webhookPaymentUpdatedInsteadOfRefund = defineFault({
  name: 'webhook-payment-updated-instead-of-refund',
  clause: 'event.none.refunded-payment',
  doc: 'A payment refunded sends payment.updated (REFUNDED) and no refund.updated on the new refund.',
  sendsWebhookOn: (t) => t !== 'refund-created' && t !== 'checkout-expired' && t !== 'chargeback',
});

export const webhookOnlyOnOutsideChanges = defineFault({
  name: 'webhook-only-on-outside-changes',
  clause: 'event.sent-on-change',
  doc: 'Changes the merchant makes send no webhook: a new refund and a cancelled payout are not notified.',
  sendsWebhookOn: (t) =>
    t !== 'refund-created' && t !== 'refund-created-settled' && t !== 'payout-canceled' && defaultBehaviour.sendsWebhookOn(t),
});
