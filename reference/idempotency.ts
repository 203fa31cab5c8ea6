/**
 * Merchant numbers as idempotency keys. Payment and refund numbers share one namespace per
 * merchant, payouts have their own; which namespace a kind uses is a behaviour hook so the
 * "separate namespaces" mutant is one line. A repeat is refused, never replayed.
 */
import type { IdempotencyKind } from './store.js';
import { ApiError } from './errors.js';
import type { Service } from './service.js';
import { checkoutView, paymentView, payoutView, refundView } from './views.js';

const DUPLICATE: Readonly<Record<IdempotencyKind, { key: string; text: string }>> = {
  payment: { key: 'duplicateMerchantOrder', text: 'Merchant order number already exists' },
  refund: { key: 'duplicateRefundOrder', text: 'Refund number already exists' },
  payout: { key: 'duplicatePayoutOrder', text: 'Merchant payout number already exists' },
};

/**
 * Refuses a number already held in the kind's namespace. Returns `data` to answer with only when
 * a fault makes repeats replay the original success.
 */
export function checkNumberFree(svc: Service, merchantId: string, kind: IdempotencyKind, no: string): Record<string, unknown> | undefined {
  const b = svc.behaviour;
  const holder = svc.store.holderOf(merchantId, b.idempotencyNamespace(kind), no);
  if (holder === undefined || !b.numberBlocks(kind, holder.kind)) return undefined;
  if (kind === 'payout' && !b.enforces('payout.unique-number')) return undefined;
  if (kind === 'payment' && !b.enforces('payment.unique-number')) return undefined;
  if (b.duplicatePolicy === 'replay' && holder.kind === kind) {
    const replay = replayData(svc, kind, holder.serviceNo);
    if (replay !== undefined) return replay;
  }
  if (b.repeatFailsOriginal && kind === 'payment' && holder.kind === 'payment') failOriginal(svc, holder.serviceNo);
  const d = DUPLICATE[kind];
  throw new ApiError(422, d.key, d.text);
}

export function claimNumber(svc: Service, merchantId: string, kind: IdempotencyKind, no: string, serviceNo: string): void {
  svc.store.claimNumber(merchantId, svc.behaviour.idempotencyNamespace(kind), no, { kind, serviceNo });
}

/** Called when a recorded request is refused (decline, risk check, failed refund). */
export function afterRecordedRefusal(svc: Service, merchantId: string, kind: IdempotencyKind, no: string): void {
  if (!svc.behaviour.recordedRefusalKeepsNumber) {
    svc.store.releaseNumber(merchantId, svc.behaviour.idempotencyNamespace(kind), no);
  }
}

function replayData(svc: Service, kind: IdempotencyKind, serviceNo: string): Record<string, unknown> | undefined {
  const { store, behaviour: b } = svc;
  if (kind === 'payment') {
    const p = store.payments.get(serviceNo);
    if (p === undefined) return undefined;
    return p.via === 'checkout' ? checkoutView(p, svc.baseUrl(), b) : paymentView(p, b, p.status, svc.target.cardPendingStatus);
  }
  if (kind === 'refund') {
    const r = store.refunds.get(serviceNo);
    const p = r === undefined ? undefined : store.payments.get(r.orderNo);
    return r === undefined || p === undefined ? undefined : refundView(r, p, b);
  }
  const po = store.payouts.get(serviceNo);
  return po === undefined ? undefined : payoutView(po, b);
}

/** Only a fault calls this: the refused repeat reaches into the order it collided with. */
function failOriginal(svc: Service, orderNo: string): void {
  const p = svc.store.payments.get(orderNo);
  if (p !== undefined && p.status === 'PENDING') p.status = 'FAILED';
}
