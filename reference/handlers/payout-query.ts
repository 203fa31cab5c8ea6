/** POST /api/v1/payouts/query: not found (or another merchant's) is 5002 notFound. */
import type { Handler } from '../service.js';
import { Fields } from '../validate.js';
import { payoutView } from '../views.js';
import { findPayout } from './lookup.js';

export const payoutQuery: Handler = (svc, call) => {
  const f = Fields.of(call.body, ['merchant_payout_no', 'payout_no']);
  return payoutView(findPayout(svc, call, f, 5002), svc.behaviour);
};
