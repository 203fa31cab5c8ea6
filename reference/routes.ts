/** Path to handler. Exact paths only: no trailing-slash or case variants. */
import { card } from './handlers/card.js';
import { checkout } from './handlers/checkout.js';
import { paymentQuery } from './handlers/payment-query.js';
import { payoutCancel } from './handlers/payout-cancel.js';
import { payoutCreate } from './handlers/payout-create.js';
import { payoutQuery } from './handlers/payout-query.js';
import { refundCreate } from './handlers/refund-create.js';
import { refundQuery } from './handlers/refund-query.js';
import { armFailure, chargeback, completeCard, completeCheckout, expireCheckout, settlePayout, settleRefund } from './handlers/sandbox.js';
import type { Handler } from './service.js';

export const ROUTES: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ['/api/v1/payments/query', paymentQuery],
  ['/api/v1/payments/checkout', checkout],
  ['/api/v1/payments/card', card],
  ['/api/v1/refunds/create', refundCreate],
  ['/api/v1/refunds/query', refundQuery],
  ['/api/v1/payouts/create', payoutCreate],
  ['/api/v1/payouts/query', payoutQuery],
  ['/api/v1/payouts/cancel', payoutCancel],
  ['/sandbox/v1/checkout/complete', completeCheckout],
  ['/sandbox/v1/checkout/expire', expireCheckout],
  ['/sandbox/v1/payments/chargeback', chargeback],
  ['/sandbox/v1/refunds/settle', settleRefund],
  ['/sandbox/v1/payouts/settle', settlePayout],
  ['/sandbox/v1/payments/complete-card', completeCard],
  ['/sandbox/v1/failures/arm', armFailure],
]);
