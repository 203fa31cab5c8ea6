/** Faults in webhook delivery and bodies. */
import { formatCents } from '../money.js';
import { rfc3339 } from '../clock.js';
import { defineFault } from './fault.js';

const SUCCESS = Buffer.from('success');
const SUCCESS_LF = Buffer.from('success\n');

export const webhookAckTrailingNewline = defineFault({
  name: 'webhook-ack-trailing-newline',
  clause: 'webhook.ack.exact-body',
  doc: 'A reply body of "success\\n" is taken as an acknowledgement.',
  isAck: (body) => body.equals(SUCCESS) || body.equals(SUCCESS_LF),
});

export const webhookAckAny200 = defineFault({
  name: 'webhook-ack-any-200',
  clause: 'webhook.ack.body-not-status',
  doc: 'Any HTTP 200 reply is taken as an acknowledgement, whatever its body.',
  isAck: (body, status) => status === 200 || body.equals(SUCCESS),
});

export const webhook3Attempts = defineFault({
  name: 'webhook-3-attempts',
  clause: 'webhook.retry.nine-attempts',
  doc: 'An unacknowledged webhook is attempted 3 times in total instead of 9.',
  retryWaitsMs: [15_000, 60_000],
});

export const webhookReuseNonce = defineFault({
  name: 'webhook-reuse-nonce',
  clause: 'webhook.sign.fresh-per-attempt',
  doc: 'Every retry reuses the first attempt\'s X-Timestamp and X-Nonce.',
  freshSignaturePerAttempt: false,
});

export const webhookFlatWaits = defineFault({
  name: 'webhook-flat-waits',
  clause: 'webhook.retry.growing-waits',
  doc: 'Retries are 15 s apart throughout, so all 9 attempts are over in 2 minutes.',
  retryWaitsMs: new Array<number>(8).fill(15_000),
});

export const webhookSlowAck = defineFault({
  name: 'webhook-slow-ack',
  clause: 'webhook.ack.five-second-limit',
  doc: 'A "success" arriving up to 60 s after sending still counts as an acknowledgement.',
  ackLimitMs: 60_000,
});

export const webhookPaymentUpdatedOnRefund = defineFault({
  name: 'webhook-payment-updated-on-refund',
  clause: 'webhook.events.refund-sends-refund-updated-only',
  doc: 'A payment becoming REFUNDED also sends payment.updated.',
  paymentWebhookOnRefunded: true,
});

export const webhookOnExpiry = defineFault({
  name: 'webhook-on-expiry',
  clause: 'webhook.events.none-on-expiry',
  doc: 'An expired checkout sends payment.updated (status EXPIRED).',
  paymentWebhookOnExpiry: true,
});

export const webhookMetadataNull = defineFault({
  name: 'webhook-metadata-null',
  clause: 'webhook.body.metadata-empty-string',
  doc: 'metadata is null in webhooks when none was sent, instead of "".',
  finishWebhookBody: (body) => (body['metadata'] === '' ? { ...body, metadata: null } : body),
});

export const webhookAmountNoDecimals = defineFault({
  name: 'webhook-amount-no-decimals',
  clause: 'webhook.body.amount-two-decimals',
  doc: 'Webhook amounts drop trailing zero decimals ("12.00" is sent as "12", "12.50" as "12.5").',
  formatAmount: (cents, channel) => (channel === 'webhook' ? formatCents(cents).replace(/\.?0+$/, '') : formatCents(cents)),
});

export const webhookTimeNoOffset = defineFault({
  name: 'webhook-time-no-offset',
  clause: 'webhook.body.time-with-offset',
  doc: 'Webhook times have no offset ("2026-11-22T05:01:02").',
  formatTime: (ms, channel) => (channel === 'webhook' ? rfc3339(ms).slice(0, 19) : rfc3339(ms)),
});
