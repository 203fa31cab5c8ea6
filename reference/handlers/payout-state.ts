/** Final payout transitions, shared by merchant cancel and the sandbox settle control. */
import { emitPayoutUpdated, type Service } from '../service.js';
import type { Payout, PayoutStatus } from '../store.js';

export const STATUS_REASONS: Readonly<Record<Exclude<PayoutStatus, 'PENDING'>, string>> = {
  SUCCESS: 'Paid',
  FAILED: 'Beneficiary account closed',
  CANCELED: 'Canceled by merchant',
};

export function finishPayout(svc: Service, p: Payout, status: Exclude<PayoutStatus, 'PENDING'>, now: number, reason?: string): void {
  const wasReserved = p.status === 'PENDING';
  p.status = status;
  p.statusReason = reason ?? STATUS_REASONS[status];
  p.finishedAt = now;
  // Money reserved at creation goes back unless it was actually paid out.
  if (wasReserved && status !== 'SUCCESS') svc.store.balancesOf(p.merchantId).payoutCents += p.amountCents;
  if (status !== 'CANCELED' || svc.behaviour.sendsWebhookOn('payout-canceled')) emitPayoutUpdated(svc, p);
}
