/** Final payout transitions, shared by merchant cancel and the sandbox settle control. */
import { emitPayoutUpdated, type Service } from '../service.js';
import { movePayoutBalance, type Payout, type PayoutStatus } from '../store.js';

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
  if (wasReserved && status !== 'SUCCESS')
    movePayoutBalance(svc.store.balancesOf(p.merchantId), balanceCurrency(svc, p.currency), p.reservedCents ?? p.amountCents);
  if (status !== 'CANCELED' || svc.behaviour.sendsWebhookOn('payout-canceled')) emitPayoutUpdated(svc, p);
}

/** The balance a payout in `currency` draws on: its own currency's (a fault draws every currency from USD). */
export function balanceCurrency(svc: Service, currency: string): string {
  return svc.behaviour.enforces('payout.balance-currency') ? currency : 'USD';
}

/**
 * Payouts the target ends by itself (target `payoutsSettleAfter`): every open payout whose delay has passed is finished
 * as the description says, at the moment it was due. Run before any payout is read or a balance is drawn on, so what a
 * request sees is what a clock-driven sandbox would show.
 */
export function settleDuePayouts(svc: Service, now: number): void {
  const due = svc.target.payoutsSettleAfter;
  if (due === undefined) return;
  for (const p of svc.store.payouts.values())
    if (p.status === 'PENDING' && now - p.createdAt >= due.afterMs) finishPayout(svc, p, due.status, p.createdAt + due.afterMs);
}
