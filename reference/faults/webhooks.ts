/** Faults in webhook bodies and signing. */
import { rfc3339 } from '../clock.js';
import { formatCents } from '../money.js';
import { defineFault } from './fault.js';

type Body = Record<string, unknown>;

function without(body: Body, ...keys: string[]): Body {
  const out = { ...body };
  for (const k of keys) delete out[k];
  return out;
}

export const queryShowsAcknowledgedStatus = defineFault({
  name: 'query-shows-acknowledged-status',
  clause: 'webhook.recover-by-query',
  doc: 'Payment and refund queries show the status of the last acknowledged webhook (PENDING before any), so a missed change stays hidden.',
  statusInQuery: (_status, acked) => acked ?? 'PENDING',
});

export const webhookMetadataNull = defineFault({
  name: 'webhook-metadata-null',
  clause: 'webhook.body.metadata',
  doc: 'metadata is null in webhooks when none was sent, instead of "".',
  finishWebhookBody: (body) => (body['metadata'] === '' ? { ...body, metadata: null } : body),
});

export const webhookAmountNoDecimals = defineFault({
  name: 'webhook-amount-no-decimals',
  clause: 'amount.value.two-decimals-out',
  doc: 'Webhook amounts drop trailing zero decimals ("12.00" is sent as "12", "12.50" as "12.5").',
  formatAmount: (cents, channel) => (channel === 'webhook' ? formatCents(cents).replace(/\.?0+$/, '') : formatCents(cents)),
});

export const webhookTimeNoOffset = defineFault({
  name: 'webhook-time-no-offset',
  clause: 'conv.time.rfc3339-offset',
  doc: 'Webhook times have no offset ("2026-11-22T05:01:02").',
  formatTime: (ms, channel) => (channel === 'webhook' ? rfc3339(ms).slice(0, 19) : rfc3339(ms)),
});

export const webhookPayoutNoStatusReason = defineFault({
  name: 'webhook-payout-no-status-reason',
  clause: 'webhook.body.status-reason',
  doc: 'payout.updated bodies leave out status_reason.',
  finishWebhookBody: (body) => (body['event'] === 'payout.updated' ? without(body, 'status_reason') : body),
});

export const webhookRefundNoOriginalOrderNo = defineFault({
  name: 'webhook-refund-no-original-order-no',
  clause: 'webhook.body.original-refs',
  doc: 'refund.updated bodies leave out original_order_no (original_merchant_order_no is kept).',
  finishWebhookBody: (body) => (body['event'] === 'refund.updated' ? without(body, 'original_order_no') : body),
});

export const webhookRefundGoodsNameNotReason = defineFault({
  name: 'webhook-refund-goods-name-not-reason',
  clause: 'refund.webhook.goods-name-reason',
  doc: "refund.updated carries the payment's trade_info instead of the refund reason as trade_info.goods_name.",
  finishWebhookBody: (body, source) =>
    body['event'] === 'refund.updated' && source.payment !== undefined ? { ...body, trade_info: { ...source.payment.tradeInfo } } : body,
});

export const webhookFailureReason = defineFault({
  name: 'webhook-failure-reason',
  clause: 'webhook.body.no-failure-reason',
  doc: 'payment.updated for a FAILED payment states the reason ("failure_reason": "Card declined by issuer").',
  finishWebhookBody: (body) =>
    body['event'] === 'payment.updated' && body['status'] === 'FAILED' ? { ...body, failure_reason: 'Card declined by issuer' } : body,
});

export const webhookRequestedAmountAlways = defineFault({
  name: 'webhook-requested-amount-always',
  clause: 'webhook.body.requested-amount',
  doc: 'payment.updated always carries requested_amount (equal to trans_amount when nothing was rounded).',
  finishWebhookBody: (body) =>
    body['event'] === 'payment.updated' && !('requested_amount' in body) ? { ...body, requested_amount: body['trans_amount'] } : body,
});

export const webhookRefundAmountOfPayment = defineFault({
  name: 'webhook-refund-amount-of-payment',
  clause: 'refund.webhook.trans-amount',
  doc: "refund.updated shows the payment's amount as trans_amount instead of the amount refunded.",
  finishWebhookBody: (body, source) =>
    body['event'] === 'refund.updated' && source.payment !== undefined
      ? { ...body, trans_amount: { currency: 'USD', value: formatCents(source.payment.chargedCents) } }
      : body,
});

export const webhookRefundOrderNoOfPayment = defineFault({
  name: 'webhook-refund-order-no-of-payment',
  clause: 'webhook.body.order-no',
  doc: "refund.updated carries the payment's order_no as order_no instead of the refund_no.",
  finishWebhookBody: (body) => (body['event'] === 'refund.updated' ? { ...body, order_no: body['original_order_no'] } : body),
});

export const webhookSignedAsPrimary = defineFault({
  name: 'webhook-signed-as-primary',
  clause: 'webhook.signed',
  doc: 'Every webhook is signed as the first configured merchant (its X-MerchantID and secret), whoever owns the order.',
  signAs: (merchantId, channel, first) => (channel === 'webhook' ? first : merchantId),
});

export const webhookContentTypeText = defineFault({
  name: 'webhook-content-type-text',
  clause: 'webhook.post-json',
  doc: 'Webhooks are sent with Content-Type: text/plain.',
  finishWebhookHeaders: (headers) => ({ ...headers, 'Content-Type': 'text/plain; charset=utf-8' }),
});

export const webhookBodyAtChange = defineFault({
  name: 'webhook-body-at-change',
  clause: 'webhook.body.status',
  doc: 'A webhook body is built once when the change happens, so a retry shows the status of that moment, not of sending.',
  webhookBodyAtSending: false,
});

export const webhookEventUnderscore = defineFault({
  name: 'webhook-event-underscore',
  clause: 'webhook.body.event',
  doc: 'event names are written with an underscore ("payment_updated", "refund_updated", "payout_updated").',
  finishWebhookBody: (body) => (typeof body['event'] === 'string' ? { ...body, event: body['event'].replace('.', '_') } : body),
});

export const webhookRefundMerchantNoOfPayment = defineFault({
  name: 'webhook-refund-merchant-no-of-payment',
  clause: 'webhook.body.merchant-order-no',
  doc: "refund.updated carries the payment's merchant_order_no as merchant_order_no instead of the merchant_refund_no.",
  finishWebhookBody: (body) =>
    body['event'] === 'refund.updated' ? { ...body, merchant_order_no: body['original_merchant_order_no'] } : body,
});

export const webhookRefundPaymentMethodRefund = defineFault({
  name: 'webhook-refund-payment-method-refund',
  clause: 'webhook.body.payment-method',
  doc: 'refund.updated names the kind of order, "REFUND", as payment_method instead of the method of the refunded payment.',
  finishWebhookBody: (body) => (body['event'] === 'refund.updated' ? { ...body, payment_method: 'REFUND' } : body),
});

export const webhookPaymentMethodLowercase = defineFault({
  name: 'webhook-payment-method-lowercase',
  clause: 'webhook.body.payment-method',
  doc: 'payment.updated writes payment_method in lower case ("paypal" for PAYPAL).',
  finishWebhookBody: (body) =>
    body['event'] === 'payment.updated' && typeof body['payment_method'] === 'string'
      ? { ...body, payment_method: body['payment_method'].toLowerCase() }
      : body,
});

export const webhookPayoutAmountString = defineFault({
  name: 'webhook-payout-amount-string',
  clause: 'webhook.body.trans-amount',
  doc: 'payout.updated carries trans_amount as a bare decimal string ("25.00") instead of an Amount object.',
  finishWebhookBody: (body) => {
    const amount = body['trans_amount'] as { value?: unknown } | undefined;
    return body['event'] === 'payout.updated' && amount !== undefined ? { ...body, trans_amount: amount.value } : body;
  },
});

export const webhookTradeInfoGoodsNameOnly = defineFault({
  name: 'webhook-trade-info-goods-name-only',
  clause: 'webhook.body.trade-info',
  doc: 'payment.updated carries only trade_info.goods_name, dropping the description that was sent.',
  finishWebhookBody: (body) => {
    const trade = body['trade_info'] as Record<string, unknown> | undefined;
    return body['event'] === 'payment.updated' && trade !== undefined ? { ...body, trade_info: { goods_name: trade['goods_name'] } } : body;
  },
});

export const webhookPayoutNoFinishedAt = defineFault({
  name: 'webhook-payout-no-finished-at',
  clause: 'webhook.body.finished-at',
  doc: 'payout.updated bodies leave out finished_at.',
  finishWebhookBody: (body) => (body['event'] === 'payout.updated' ? without(body, 'finished_at') : body),
});

export const webhookPaymentNoCreatedAt = defineFault({
  name: 'webhook-payment-no-created-at',
  clause: 'webhook.body.created-at',
  doc: 'payment.updated bodies leave out created_at.',
  finishWebhookBody: (body) => (body['event'] === 'payment.updated' ? without(body, 'created_at') : body),
});

export const webhookMetadataNotEchoed = defineFault({
  name: 'webhook-metadata-not-echoed',
  clause: 'payment.metadata.echo',
  doc: 'payment.updated always carries metadata "" instead of the metadata sent with the payment.',
  finishWebhookBody: (body) => (body['event'] === 'payment.updated' ? { ...body, metadata: '' } : body),
});

export const webhookPaymentNoTradeInfo = defineFault({
  name: 'webhook-payment-no-trade-info',
  clause: 'payment.webhook.fields',
  doc: 'payment.updated bodies leave out trade_info.',
  finishWebhookBody: (body) => (body['event'] === 'payment.updated' ? without(body, 'trade_info') : body),
});

export const webhookRefundOriginalRefsSwapped = defineFault({
  name: 'webhook-refund-original-refs-swapped',
  clause: 'refund.original-refs',
  doc:
    "refund.updated swaps the payment's numbers: original_order_no holds " +
    'its merchant_order_no and original_merchant_order_no its order_no.',
  finishWebhookBody: (body) =>
    body['event'] === 'refund.updated'
      ? { ...body, original_order_no: body['original_merchant_order_no'], original_merchant_order_no: body['original_order_no'] }
      : body,
});

export const webhookPaymentStatusPaid = defineFault({
  name: 'webhook-payment-status-paid',
  clause: 'state.payment.values',
  doc: 'payment.updated calls a paid payment PAID instead of SUCCESS.',
  finishWebhookBody: (body) => (body['event'] === 'payment.updated' && body['status'] === 'SUCCESS' ? { ...body, status: 'PAID' } : body),
});

export const webhookRefundStatusProcessing = defineFault({
  name: 'webhook-refund-status-processing',
  clause: 'state.refund.values',
  doc: 'refund.updated calls a pending refund PROCESSING instead of PENDING.',
  finishWebhookBody: (body) =>
    body['event'] === 'refund.updated' && body['status'] === 'PENDING' ? { ...body, status: 'PROCESSING' } : body,
});

export const webhookPayoutStatusCancelled = defineFault({
  name: 'webhook-payout-status-cancelled',
  clause: 'state.payout.values',
  doc: 'payout.updated spells a canceled payout CANCELLED instead of CANCELED.',
  finishWebhookBody: (body) =>
    body['event'] === 'payout.updated' && body['status'] === 'CANCELED' ? { ...body, status: 'CANCELLED' } : body,
});
