/**
 * Records as the API shows them in `data`. Optional fields are left out rather than set to null,
 * so "present only when..." in the interface holds literally.
 */
import type { Behaviour } from './behaviour.js';
import type { Payment, Payout, Refund } from './store.js';

export function amountView(cents: bigint, currency: string, b: Behaviour): { currency: string; value: string } {
  return { currency, value: b.formatAmount(cents, 'response') };
}

/**
 * `status` replaces the record's own (a query shows the status the behaviour chooses). `cardPending`: the name a card
 * payment awaiting completion shows instead of PENDING, where the target gives it one (reference/sandbox-data.ts).
 */
export function paymentView(p: Payment, b: Behaviour, status: string = p.status, cardPending?: string): Record<string, unknown> {
  if (cardPending !== undefined && p.via === 'card' && status === 'PENDING') status = cardPending;
  const out: Record<string, unknown> = {
    order_no: p.orderNo,
    merchant_order_no: p.merchantOrderNo,
    payment_method: p.method,
    trans_amount: amountView(p.chargedCents, 'USD', b),
  };
  if (p.requestedCents !== undefined) out['requested_amount'] = amountView(p.requestedCents, 'USD', b);
  out['trade_info'] = { ...p.tradeInfo };
  out['status'] = status;
  out['metadata'] = p.metadata;
  out['created_at'] = b.formatTime(p.createdAt, 'response');
  if (p.finishedAt !== undefined) out['finished_at'] = b.formatTime(p.finishedAt, 'response');
  return b.finishView('payment', out);
}

/** What a checkout creation answers: the new PENDING payment and where to send the customer. */
export function checkoutView(p: Payment, baseUrl: string, b: Behaviour): Record<string, unknown> {
  const out: Record<string, unknown> = {
    order_no: p.orderNo,
    merchant_order_no: p.merchantOrderNo,
    payment_method: p.method,
    trans_amount: amountView(p.chargedCents, 'USD', b),
  };
  if (p.requestedCents !== undefined) out['requested_amount'] = amountView(p.requestedCents, 'USD', b);
  out['status'] = p.status;
  out['checkout_url'] = `${baseUrl}/checkout/${p.orderNo}`;
  out['created_at'] = b.formatTime(p.createdAt, 'response');
  return b.finishView('checkout', out);
}

export function refundView(r: Refund, payment: Payment, b: Behaviour, status: string = r.status): Record<string, unknown> {
  const out: Record<string, unknown> = {
    refund_no: r.refundNo,
    merchant_refund_no: r.merchantRefundNo,
    original_order_no: payment.orderNo,
    original_merchant_order_no: payment.merchantOrderNo,
    refund_amount: amountView(r.amountCents, 'USD', b),
    reason: r.reason,
    status,
    created_at: b.formatTime(r.createdAt, 'response'),
  };
  if (r.finishedAt !== undefined) out['finished_at'] = b.formatTime(r.finishedAt, 'response');
  return b.finishView('refund', out);
}

export function payoutView(p: Payout, b: Behaviour): Record<string, unknown> {
  const out: Record<string, unknown> = {
    payout_no: p.payoutNo,
    merchant_payout_no: p.merchantPayoutNo,
    payment_method: p.method,
    trans_amount: amountView(p.amountCents, p.currency, b),
    payee: { ...p.payee },
    status: p.status,
  };
  if (p.statusReason !== undefined) out['status_reason'] = p.statusReason;
  out['created_at'] = b.formatTime(p.createdAt, 'response');
  if (p.finishedAt !== undefined) out['finished_at'] = b.formatTime(p.finishedAt, 'response');
  return b.finishView('payout', out);
}
