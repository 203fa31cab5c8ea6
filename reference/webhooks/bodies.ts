/**
 * Webhook bodies, built at the moment of each attempt from the live record: the interface says a
 * body shows the status at sending time, so a retried payment.updated of a payment refunded in
 * the meantime carries REFUNDED.
 */
import type { Behaviour } from '../behaviour.js';
import type { Payment, Payout, Refund } from '../store.js';

function amount(cents: bigint, currency: string, b: Behaviour): { currency: string; value: string } {
  return { currency, value: b.formatAmount(cents, 'webhook') };
}

/** No failure reason is included for a FAILED payment, as the interface requires. */
export function paymentWebhookBody(p: Payment, b: Behaviour): Record<string, unknown> {
  const out: Record<string, unknown> = {
    event: 'payment.updated',
    order_no: p.orderNo,
    merchant_order_no: p.merchantOrderNo,
    payment_method: p.method,
    trans_amount: amount(p.chargedCents, 'USD', b),
  };
  if (p.requestedCents !== undefined) out['requested_amount'] = amount(p.requestedCents, 'USD', b);
  out['trade_info'] = { ...p.tradeInfo };
  out['status'] = p.status;
  out['metadata'] = p.metadata;
  if (p.finishedAt !== undefined) out['finished_at'] = b.formatTime(p.finishedAt, 'webhook');
  out['created_at'] = b.formatTime(p.createdAt, 'webhook');
  return b.finishWebhookBody(out, { payment: p });
}

/**
 * A refund reuses the payment-shaped body: order numbers are the refund's, trade_info.goods_name
 * holds the reason, trans_amount is the amount refunded, and metadata is the payment's.
 */
export function refundWebhookBody(r: Refund, p: Payment, b: Behaviour): Record<string, unknown> {
  const out: Record<string, unknown> = {
    event: 'refund.updated',
    order_no: r.refundNo,
    merchant_order_no: r.merchantRefundNo,
    payment_method: p.method,
    trans_amount: amount(r.amountCents, 'USD', b),
    trade_info: { goods_name: r.reason },
    status: r.status,
    metadata: p.metadata,
    original_order_no: p.orderNo,
    original_merchant_order_no: p.merchantOrderNo,
    created_at: b.formatTime(r.createdAt, 'webhook'),
  };
  return b.finishWebhookBody(out, { payment: p, refund: r });
}

export function payoutWebhookBody(p: Payout, b: Behaviour): Record<string, unknown> {
  const out: Record<string, unknown> = {
    event: 'payout.updated',
    order_no: p.payoutNo,
    merchant_order_no: p.merchantPayoutNo,
    payment_method: p.method,
    trans_amount: amount(p.amountCents, p.currency, b),
    status: p.status,
    status_reason: p.statusReason ?? '',
    metadata: '',
  };
  if (p.finishedAt !== undefined) out['finished_at'] = b.formatTime(p.finishedAt, 'webhook');
  out['created_at'] = b.formatTime(p.createdAt, 'webhook');
  return b.finishWebhookBody(out, { payout: p });
}
