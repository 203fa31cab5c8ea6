/** POST /api/v1/refunds/query: the refund record by exactly one of refund_no / merchant_refund_no. */
import type { Handler } from '../service.js';
import { Fields } from '../validate.js';
import { refundView } from '../views.js';
import { ApiError } from '../errors.js';
import { findRefund } from './lookup.js';

export const refundQuery: Handler = (svc, call) => {
  const r = findRefund(svc, call, Fields.of(call.body, ['merchant_refund_no', 'refund_no']));
  const p = svc.store.payments.get(r.orderNo);
  if (p === undefined) throw new ApiError(2002, 'refundNotFound', 'Refund order not found');
  return refundView(r, p, svc.behaviour, svc.behaviour.statusInQuery(r.status, r.ackedStatus));
};
