/**
 * POST /api/v1/payouts/cancel. A channel without cancel support is refused whatever the status;
 * otherwise only a PENDING payout can be canceled, and the refusal names the current status.
 */
import { ApiError } from '../errors.js';
import type { Handler } from '../service.js';
import { Fields } from '../validate.js';
import { payoutView } from '../views.js';
import { findPayout } from './lookup.js';
import { finishPayout } from './payout-state.js';

export const payoutCancel: Handler = (svc, call) => {
  const p = findPayout(svc, call, Fields.of(call.body, ['merchant_payout_no', 'payout_no']), 422);
  const status = (): void => {
    if (!svc.behaviour.payoutCancelable(p.status))
      throw new ApiError(5003, 'payoutNotCancelable', `Payout cannot be canceled in status ${p.status}`);
  };
  // Both rows can apply to a finished payout of a channel without cancel: which is answered is a reading.
  if (svc.behaviour.payoutCancelStatusFirst) status();
  // The channel of the payout's merchant: its own where it has one.
  const channel = call.merchant.payoutChannels?.get(p.method) ?? svc.target.payoutChannels.get(p.method);
  if (channel?.cancelable !== true && svc.behaviour.enforces('payout.cancel-support')) {
    throw new ApiError(422, 'notSupported', `${p.method} payouts cannot be canceled`);
  }
  status();
  finishPayout(svc, p, 'CANCELED', call.now);
  return payoutView(p, svc.behaviour);
};
