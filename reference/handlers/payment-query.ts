/** POST /api/v1/payments/query: the payment record by exactly one of the two order numbers. */
import type { Handler } from '../service.js';
import { Fields } from '../validate.js';
import { paymentView } from '../views.js';
import { failQueryIfArmed, paymentFacts, triggered } from './armed.js';
import { ApiError } from '../errors.js';
import { findPayment } from './lookup.js';

export const paymentQuery: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_order_no', 'order_no']);
  const p = findPayment(svc, call, f);
  failQueryIfArmed(svc, call.merchant.id, p.merchantOrderNo);
  if (triggered(svc, call, 'QUERY_FAILED', { ...paymentFacts(p), subject: p.orderNo }))
    throw new ApiError(500, 'queryFailed', 'Query failed, please try again');
  const view = paymentView(p, svc.behaviour, svc.behaviour.statusInQuery(p.status, p.ackedStatus), svc.target.cardPendingStatus);
  // A target that nests its record deeper (`paymentRecordPath`, e.g. data.payment.order.order_no).
  return svc.target.paymentRecordPath.reduceRight<Record<string, unknown>>((inner, key) => ({ [key]: inner }), view);
};
