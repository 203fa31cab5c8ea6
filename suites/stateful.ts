import { defineSuite } from '../harness/check/define.js';
import { PAYMENT_REFUND_CLAUSES, PAYOUT_CLAUSES, planFor } from './support/model/plans.js';
import { runSequences } from './support/model/sequences.js';

/**
 * Random command sequences against a model of one merchant's view: the bugs that live
 * between requests. Each check runs ctx.numRuns sequences in parallel lanes, each sequence with
 * its own model and numbers; a failure is shrunk to the shortest sequence that still fails.
 */
export default defineSuite('stateful', { area: 'stateful', resource: 'payment' }, [
  {
    title: 'refuses repeated and shared payment and refund numbers through random sequences',
    credit: 'recorded',
    clause: ['idem.payment.shared-with-refunds', ...PAYMENT_REFUND_CLAUSES.filter((c) => c !== 'idem.payment.shared-with-refunds')],
    run: (ctx) => runSequences(ctx, planFor(ctx.target, 'numbers', 'stateful')),
  },
  {
    title: 'keeps refunds within the amount paid and payment statuses in step through random sequences',
    credit: 'recorded',
    clause: ['err.ref.amount-exceeded', ...PAYMENT_REFUND_CLAUSES.filter((c) => c !== 'err.ref.amount-exceeded')],
    run: (ctx) => runSequences(ctx, planFor(ctx.target, 'refunds', 'stateful')),
  },
  {
    title: 'moves payouts only through allowed statuses and within the balance through random sequences',
    credit: 'recorded',
    clause: [...PAYOUT_CLAUSES],
    run: (ctx) => runSequences(ctx, planFor(ctx.target, 'payouts', 'stateful')),
  },
]);
