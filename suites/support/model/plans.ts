/**
 * The three sequence mixes of the stateful suite: numbers (repeats and clashes of payment and
 * refund numbers), refunds (totals and statuses), payouts (lifecycle and balance). Each draws
 * from the commands the target's profile declares, with weights that make its bugs likely.
 */
import {
  paymentCreationCommand,
  paymentOutcomeCommand,
  paymentQueryCommand,
  payoutCancelCommand,
  payoutCreationCommand,
  payoutQueryCommand,
  payoutSettlementCommand,
  refundAmountSpecMostlyWithinRest,
  refundCreationCommand,
  refundQueryCommand,
  refundSettlementCommand,
} from '../../../fixtures/arbitraries/commands.js';
import { PreconditionSkip } from '../../../harness/check/failure.js';
import type { Target } from '../../../harness/target.js';
import { commandSpaceOf, modelCapsOf } from './caps.js';
import type { SequencePlan } from './sequences.js';

export type Focus = 'numbers' | 'refunds' | 'payouts';

/** Clauses the payment and refund commands compare against (any of them can be the one a sequence breaks). */
export const PAYMENT_REFUND_CLAUSES = [
  'idem.refused-stays-used',
  'idem.payment.shared-with-refunds',
  'idem.no-replay',
  'idem.payment.refused',
  'idem.refund.refused',
  'idem.original-unchanged',
  'err.pay.declined',
  'state.payment.declined-failed',
  'checkout.creates',
  'state.payment.values',
  'state.payment.refunded-status',
  'state.no-webhook.expiry-chargeback',
  'query.not-found',
  'query.returns-record',
  'payment.trans-amount.usd-charged',
  'refund.channel-support',
  'refund.ids',
  'refund.amount.positive-2-decimals',
  'state.refund.values',
  'state.refund.not-paid',
  'state.refund.charged-back',
  'err.ref.order-not-found',
  'err.ref.not-supported',
  'err.ref.full-only',
  'err.ref.amount-exceeded',
  'err.ref.failed',
  'err.ref.not-found',
] as const;

export const PAYOUT_CLAUSES = [
  'state.payout.not-cancelable',
  'err.po.insufficient-funds',
  'idem.payout.refused',
  'idem.no-replay',
  'payout.ids',
  'state.payout.values',
  'err.po.not-cancelable',
  'err.po.cancel-not-found',
  'err.po.cancel-unsupported',
  'err.po.query-not-found',
] as const;

export function planFor(t: Target, focus: Focus, suite: string): SequencePlan {
  const caps = modelCapsOf(t);
  if (focus === 'payouts') {
    const space = commandSpaceOf(t, 2);
    const create = payoutCreationCommand(space);
    if (!create)
      throw new PreconditionSkip('the profile declares no payouts (payouts, endpoints.payoutCreate)', {
        declare: ['payouts', 'endpoints.payoutCreate'],
      });
    return {
      suite,
      caps,
      commands: [
        { arbitrary: create, weight: 3 },
        { arbitrary: payoutCancelCommand(space), weight: 3 },
        { arbitrary: payoutSettlementCommand(space), weight: 3 },
        { arbitrary: payoutQueryCommand(space), weight: 1 },
      ],
    };
  }
  // Fewer names in the refunds mix: several refunds of the same payment.
  const space = { ...commandSpaceOf(t, 2), clashWeight: focus === 'numbers' ? 3 : 1 };
  // The refunds mix wants paid payments; the numbers mix wants declines too (their numbers stay used).
  const pay = paymentCreationCommand(
    space,
    focus === 'refunds' ? { checkout: 1, success: 4, decline: 1 } : { checkout: 1, success: 4, decline: 2 },
  );
  if (!pay)
    throw new PreconditionSkip('the profile declares no way to create a payment (methods.checkout or cardPayment)', {
      declare: ['methods.checkout or cardPayment'],
    });
  if (focus === 'refunds') {
    const refund = refundCreationCommand(space);
    if (!refund)
      throw new PreconditionSkip('the profile declares no refunds (refunds, endpoints.refundCreate)', {
        declare: ['refunds', 'endpoints.refundCreate'],
      });
    return {
      suite,
      caps,
      commands: [
        { arbitrary: pay, weight: 3 },
        { arbitrary: paymentOutcomeCommand(space), weight: 2 },
        { arbitrary: refund, weight: 5 },
        { arbitrary: refundSettlementCommand(space), weight: 2 },
        { arbitrary: paymentQueryCommand(space), weight: 2 },
        { arbitrary: refundQueryCommand(space), weight: 1 },
      ],
    };
  }
  // Refunds here are there to hold numbers: mostly amounts that are accepted.
  const refund = refundCreationCommand(space, refundAmountSpecMostlyWithinRest());
  return {
    suite,
    caps,
    commands: [
      { arbitrary: pay, weight: 5 },
      { arbitrary: paymentQueryCommand(space), weight: 1 },
      { arbitrary: refund, weight: 4 },
      { arbitrary: refundQueryCommand(space), weight: 1 },
      { arbitrary: paymentOutcomeCommand(space), weight: 1 },
    ],
  };
}
