/**
 * Finding a record by exactly one of (merchant's number, service's number). Service numbers are
 * global, so another merchant's service number is recognised and refused as such; merchant
 * numbers are per merchant, so another merchant's is simply not found.
 */
import { settleDuePayouts } from './payout-state.js';
import { ApiError } from '../errors.js';
import type { Call, Service } from '../service.js';
import type { Payment, Payout, Refund } from '../store.js';
import type { Fields } from '../validate.js';

export function findPayment(svc: Service, call: Call, f: Fields): Payment {
  const ref = f.exactlyOne('merchant_order_no', 'order_no', svc.behaviour.bothLookupsSent);
  const notFound = new ApiError(2002, 'orderNotFound', 'Order not found');
  if (ref.key === 'order_no') {
    const p = svc.store.payments.get(ref.value);
    if (p === undefined) throw notFound;
    if (p.merchantId !== call.merchant.id && svc.behaviour.enforces('query.owner'))
      throw new ApiError(403, 'orderAccessDenied', 'Order belongs to another merchant');
    return p;
  }
  const p = svc.store.paymentByMerchantNo(call.merchant.id, ref.value);
  if (
    p === undefined &&
    svc.behaviour.foreignMerchantOrderNo === 'access-denied' &&
    svc.target.merchants.some((m) => m.id !== call.merchant.id && svc.store.paymentByMerchantNo(m.id, ref.value) !== undefined)
  ) {
    throw new ApiError(403, 'orderAccessDenied', 'Order belongs to another merchant');
  }
  if (p === undefined) throw notFound;
  return p;
}

/**
 * How a lookup is made: a sandbox control's (`control`) is the vendor's test tooling, not the interface's query, so a
 * fault of the query's lookup (`lookupAs`, e.g. refund-query-merchant-no-as-refund-no) does not reach it: a control
 * that takes the merchant's number (a drawn sandbox shape) still finds the record.
 */
export interface LookupOptions {
  control?: boolean;
}

function keyOf(svc: Service, key: string, opts: LookupOptions): string {
  return opts.control ? key : svc.behaviour.lookupAs(key);
}

/** Another merchant's refund is reported exactly like a missing one. */
export function findRefund(svc: Service, call: Call, f: Fields, opts: LookupOptions = {}): Refund {
  const ref = f.exactlyOne('merchant_refund_no', 'refund_no', svc.behaviour.bothLookupsSent);
  const r =
    keyOf(svc, ref.key, opts) === 'refund_no'
      ? svc.store.refunds.get(ref.value)
      : svc.store.refundByMerchantNo(call.merchant.id, ref.value);
  if (r === undefined || r.merchantId !== call.merchant.id) throw new ApiError(2002, 'refundNotFound', 'Refund order not found');
  return r;
}

/** `notFoundCode` differs by operation: 5002 for a query, 422 for a cancel. */
export function findPayout(svc: Service, call: Call, f: Fields, notFoundCode: number, opts: LookupOptions = {}): Payout {
  // A payout that ended by itself is seen ended (target payoutsSettleAfter).
  settleDuePayouts(svc, call.now);
  const ref = f.exactlyOne('merchant_payout_no', 'payout_no', svc.behaviour.bothLookupsSent);
  const p =
    keyOf(svc, ref.key, opts) === 'payout_no'
      ? svc.store.payouts.get(ref.value)
      : svc.store.payoutByMerchantNo(call.merchant.id, ref.value);
  if (p === undefined || p.merchantId !== call.merchant.id) throw new ApiError(notFoundCode, 'notFound', 'Payout not found');
  return p;
}
