import type { ClauseId } from '../../../harness/clauses/registry.js';
import type { ReadingTopic } from '../../../harness/clauses/topics.js';
/**
 * What the interface (and, where it says "not shown", the profile) lets a target answer to the
 * next request, given the model. A prediction lists every refusal the document allows; where it
 * leaves the outcome open the prediction says "may" and the answer is recorded as a reading.
 */
import type { CommandSpec, RefundAmountSpec } from '../../../fixtures/arbitraries/commands.js';
import {
  allPayments,
  checkoutMayHaveExpired,
  mayHaveEnded,
  type Model,
  type PaymentRec,
  payoutSlotOf,
  payoutTotals,
  refundTotals,
} from './state.js';
import { valueOfCents } from '../../../harness/facts/money.js';

export interface Refusal {
  code: number;
  key: string;
  /** The clause that requires this refusal. */
  clause: ClauseId;
  /** Why, in words of the sequence ("order#1 is held by a declined payment"). */
  why: string;
}

export interface Prediction {
  /** must: the request must succeed; may: success or one of the refusals; never: one of the refusals. */
  success: 'must' | 'may' | 'never';
  /** The clause a refused request breaks when it had to succeed. */
  successClause: ClauseId;
  /** Refusals the document allows; when success is `never`, the first one's clause is the one broken. */
  refusals: Refusal[];
  /** The document says "refused" without a key: any non-zero code is acceptable. */
  anyRefusal?: { clause: ClauseId; why: string };
  /** Reading topic under which an open outcome is recorded. */
  topic: ReadingTopic;
}

type PaySpec = Extract<CommandSpec, { op: 'pay' }>;
type RefundSpec = Extract<CommandSpec, { op: 'refund' }>;
type PayoutSpec = Extract<CommandSpec, { op: 'payout' }>;
type CancelSpec = Extract<CommandSpec, { op: 'cancel-payout' }>;

function decide(must: Refusal[], may: Refusal[], also: Refusal[], successClause: ClauseId, topic: ReadingTopic): Prediction {
  return {
    success: must.length > 0 ? 'never' : may.length > 0 ? 'may' : 'must',
    successClause,
    refusals: [...must, ...may, ...also],
    topic,
  };
}

/** Creating a payment under `as`: a repeat, a clash with a refund number, a decline, or a success. */
export function predictPayment(m: Readonly<Model>, s: PaySpec): Prediction {
  const slot = m.numbers.get(s.as);
  const must: Refusal[] = [];
  const may: Refusal[] = [];
  const dup = (clause: ClauseId, why: string): Refusal => ({ code: 422, key: 'duplicateMerchantOrder', clause, why });
  if (slot?.payment) {
    const p = slot.payment;
    must.push(
      p.declined
        ? dup('idem.refused-stays-used', `${s.as} was used by a payment that was recorded and declined; the number stays used`)
        : dup('idem.payment.refused', `${s.as} is the number of an earlier payment`),
    );
  } else if (slot?.refund) {
    must.push(
      slot.refund.failedAtCreation
        ? dup(
            'idem.refused-stays-used',
            `${s.as} was used by a refund that was recorded and refused; the number stays used, shared with payments`,
          )
        : dup('idem.payment.shared-with-refunds', `${s.as} is the number of a refund; payment numbers are shared with refund numbers`),
    );
  } else if (slot?.maybeRefund) {
    may.push(dup('idem.payment.shared-with-refunds', `a refund under ${s.as} was refused and may have been recorded`));
  }
  // A decline is recorded (a FAILED webhook follows), so a held number must be refused before it.
  if (s.via === 'card-decline' && must.length === 0)
    must.push({ code: 422, key: 'paymentFailed', clause: 'err.pay.declined', why: "the profile's decline card" });
  const successClause = s.via === 'checkout' ? 'checkout.creates' : 'state.payment.values';
  return decide(must, may, [], successClause, 'stateful.payment-under-refused-refund-number');
}

/** The amount a refund command asks for, or undefined when it would not be positive. */
export function refundCents(m: Readonly<Model>, s: { order: RefundSpec['order']; amount: RefundAmountSpec }): number | undefined {
  const p = m.numbers.get(s.order)?.payment;
  const rest = p ? p.cents - refundTotals(p).committed : 0;
  const cents = s.amount.mode === 'fixed' ? s.amount.cents : s.amount.mode === 'rest' ? rest : rest + s.amount.cents;
  return cents > 0 ? cents : undefined;
}

/** Creating a refund of `order` under `as` for `cents`. */
export function predictRefund(m: Readonly<Model>, s: RefundSpec, cents: number, hasFailingReason: boolean): Prediction {
  const must: Refusal[] = [];
  const may: Refusal[] = [];
  const also: Refusal[] = [];
  const r = (code: number, key: string, clause: ClauseId, why: string): Refusal => ({ code, key, clause, why });
  const slot = m.numbers.get(s.as);
  if (slot?.refund) {
    must.push(
      slot.refund.failedAtCreation
        ? r(
            422,
            'duplicateRefundOrder',
            'idem.refused-stays-used',
            `${s.as} was used by a refund that was recorded and refused; the number stays used`,
          )
        : r(422, 'duplicateRefundOrder', 'idem.refund.refused', `${s.as} is the number of an earlier refund`),
    );
  } else if (slot?.payment) {
    // The document scopes refund numbers to refunds but shares payment numbers with them; a refund
    // under a payment's number may be accepted or refused.
    const why = `${s.as} is the number of a payment`;
    may.push(
      r(422, 'duplicateRefundOrder', 'idem.payment.shared-with-refunds', why),
      r(422, 'duplicateMerchantOrder', 'idem.payment.shared-with-refunds', why),
    );
  } else if (slot?.maybeRefund) {
    may.push(r(422, 'duplicateRefundOrder', 'idem.refund.refused', `a refund under ${s.as} was refused and may have been recorded`));
  }
  const p = m.numbers.get(s.order)?.payment;
  if (!p) {
    must.push(r(422, 'orderNotFound', 'err.ref.order-not-found', `${s.order} is not a payment`));
  } else {
    // Every refusal that holds is listed: where several hold at once (an unpaid order on a method without refunds), the
    // document orders none of them, so each one passes.
    const { committed, failed } = refundTotals(p, m);
    if (p.base !== 'SUCCESS')
      must.push(r(422, 'refundOrderNotPaid', 'state.refund.not-paid', `${s.order} was not paid successfully (${p.base})`));
    else if (p.chargedBack) must.push(r(422, 'validationFailed', 'state.refund.charged-back', `${s.order} was charged back`));
    const support = m.caps.refundSupport[p.method];
    const notSupported = (clause: ClauseId, why: string) => r(422, 'notSupported', clause, why);
    if (support === 'none') must.push(notSupported('err.ref.not-supported', `the profile says ${p.method} does not support refunds`));
    else if (support === undefined)
      may.push(notSupported('err.ref.not-supported', `the profile does not say whether ${p.method} supports refunds`));
    else if (support === 'full' && (cents !== p.cents || committed > 0)) {
      must.push(notSupported('err.ref.full-only', `the profile says ${p.method} supports full refunds only`));
    }
    const exceeded = r(
      422,
      'refundAmountExceeded',
      'err.ref.amount-exceeded',
      `${valueOfCents(cents)} is more than the ${valueOfCents(p.cents - committed)}` +
        ` of ${s.order} (paid ${valueOfCents(p.cents)}) not yet refunded`,
    );
    if (cents > p.cents - committed) must.push(exceeded);
    // Whether a failed refund still counts against the amount is not shown.
    else if (cents > p.cents - committed - failed)
      may.push({ ...exceeded, why: `${valueOfCents(cents)} is within the amount left only if failed refunds do not count` });
    // A payment refunded in full may be taken as no longer "paid successfully".
    if (p.base === 'SUCCESS' && committed >= p.cents)
      also.push(r(422, 'refundOrderNotPaid', 'state.refund.not-paid', `${s.order} is refunded in full`));
  }
  // A refund with the failing reason is recorded as failed, so a refund number already held must be refused before it.
  if (s.failing && hasFailingReason && !slot?.refund) {
    must.push(r(422, 'refundFailed', 'err.ref.failed', "the profile's failing reason makes the refund be recorded as failed"));
  }
  return decide(must, may, also, 'refund.channel-support', 'stateful.refund-open-outcome');
}

/** Creating a payout under `as` as `merchant`. */
export function predictPayout(m: Readonly<Model>, s: PayoutSpec): Prediction {
  const slot = payoutSlotOf(m, s.merchant, s.as);
  const must: Refusal[] = [];
  const may: Refusal[] = [];
  const balance = m.caps.balances[s.merchant];
  const { holding, refunds } = payoutTotals(m, s.merchant);
  const withRefunds =
    refunds > 0 ? ` (${valueOfCents(refunds)} of it by refunds: the profile says refunds and payouts share one balance)` : '';
  const funds: Refusal = {
    code: 5004,
    key: 'insufficientFunds',
    clause: 'err.po.insufficient-funds',
    why:
      balance === undefined
        ? 'the profile declares no payout balance for this merchant'
        : `this sequence holds ${valueOfCents(holding)}${withRefunds} of the ${valueOfCents(balance)}` +
          ` declared balance, and the balance is shared with every other check`,
  };
  // Other checks draw on the same balance, so only "above the balance" is certain.
  if (balance !== undefined && holding + s.cents > balance) must.push(funds);
  else may.push(funds);
  const p = decide(must, may, [], 'payout.ids', 'stateful.payout-create-open-outcome');
  if (slot?.payout) {
    return { ...p, success: 'never', anyRefusal: { clause: 'idem.payout.refused', why: `${s.as} is the number of an earlier payout` } };
  }
  if (slot?.maybe) {
    return {
      ...p,
      success: p.success === 'never' ? 'never' : 'may',
      anyRefusal: { clause: 'idem.payout.refused', why: `a payout under ${s.as} was refused and may have been recorded` },
    };
  }
  return p;
}

/**
 * How far ahead a prediction looks for a payout that may end by itself: the request may reach the target that much later
 * than it is predicted (our queue, the network, a loaded machine).
 */
export const TRAVEL_MARGIN_MS = 2_000;

/** Cancelling the payout under `payout`; `now`, when the cancel may reach the target at the latest. */
export function predictPayoutCancel(m: Readonly<Model>, s: CancelSpec, now = Date.now() + TRAVEL_MARGIN_MS): Prediction {
  const slot = payoutSlotOf(m, s.merchant, s.payout);
  const po = slot?.payout;
  const must: Refusal[] = [];
  const may: Refusal[] = [];
  if (!po) {
    const notFound: Refusal = { code: 422, key: 'notFound', clause: 'err.po.cancel-not-found', why: `${s.payout} is not a payout` };
    if (slot?.maybe)
      return {
        success: 'never',
        successClause: 'state.payout.values',
        refusals: [notFound],
        anyRefusal: { clause: 'err.po.cancel-not-found', why: `the payout under ${s.payout} was refused` },
        topic: 'stateful.cancel-of-refused-payout',
      };
    must.push(notFound);
  } else {
    // Time the vendor keeps: an open payout whose delay may have passed may have ended by itself, and then is not cancelable.
    const ended = mayHaveEnded(m, po, now);
    if (ended !== undefined)
      may.push({
        code: 5003,
        key: 'payoutNotCancelable',
        clause: ended === 'SUCCESS' ? 'state.payout.not-cancelable' : 'err.po.not-cancelable',
        why: `${s.payout} may have ended ${ended} by itself (sandbox.autoSettle.payouts)`,
      });
    if (po.status !== 'open') {
      must.push({
        code: 5003,
        key: 'payoutNotCancelable',
        clause: po.status === 'SUCCESS' ? 'state.payout.not-cancelable' : 'err.po.not-cancelable',
        why: `${s.payout} is ${po.status}`,
      });
    }
    if (m.caps.payoutCancel[po.method] === false) {
      must.push({
        code: 422,
        key: 'notSupported',
        clause: 'err.po.cancel-unsupported',
        why: `the profile says ${po.method} payouts cannot be cancelled`,
      });
    }
  }
  return decide(must, may, [], 'state.payout.values', 'stateful.payout-cancel');
}

/** The status a payment query must show, or a reading topic when the interface and profile leave it open. */
export function expectedPaymentStatus(
  m: Readonly<Model>,
  p: PaymentRec,
): { values: string[]; clause: ClauseId; topic?: ReadingTopic } | { values?: undefined; topic: ReadingTopic } {
  switch (p.base) {
    case 'pending': {
      // A checkout that may have expired by itself (sandbox.autoSettle.checkouts) shows a status the document does not name.
      if (checkoutMayHaveExpired(m, p)) return { topic: 'stateful.expired-payment-status' };
      const declared = p.via === 'card' ? (m.caps.cardPendingStatus ?? m.caps.pendingStatus) : m.caps.pendingStatus;
      const name = declared ?? p.pendingSeen;
      return name ? { values: [name], clause: 'query.returns-record' } : { topic: 'stateful.pending-payment-status' };
    }
    case 'expired':
      return { topic: 'stateful.expired-payment-status' };
    case 'FAILED':
      return { values: ['FAILED'], clause: p.declined ? 'state.payment.declined-failed' : 'state.payment.values' };
    case 'SUCCESS': {
      const { committed, settled } = refundTotals(p);
      if (settled >= p.cents) return { values: ['REFUNDED'], clause: 'state.payment.refunded-status' };
      if (committed > 0)
        return {
          values: ['SUCCESS', 'REFUNDED'],
          clause: 'state.payment.refunded-status',
          topic: 'stateful.partly-refunded-payment-status',
        };
      // A chargeback is visible only in the merchant portal: the queried status does not change.
      return { values: ['SUCCESS'], clause: p.chargedBack ? 'query.returns-record' : 'state.payment.values' };
    }
  }
}

export interface Breach {
  code: string;
  clause: ClauseId;
  message: string;
  expected: string;
  seen: string;
}

/** Money invariants that must hold after every command: refunds within the amount paid, payouts within the balance. */
export function moneyBreaches(m: Readonly<Model>): Breach[] {
  const out: Breach[] = [];
  for (const p of allPayments(m)) {
    const { committed } = refundTotals(p, m);
    if (committed > p.cents) {
      out.push({
        code: 'REFUNDS_ABOVE_AMOUNT_PAID',
        clause: 'err.ref.amount-exceeded',
        message: `the target accepted refunds of ${p.name} adding up to more than was paid`,
        expected: `refunds (not failed) at most ${valueOfCents(p.cents)}`,
        seen: `${valueOfCents(committed)} in ${p.refunds.filter((r) => r.status !== 'FAILED').length} refunds`,
      });
    }
  }
  for (const merchant of ['primary', 'lowBalance'] as const) {
    const balance = m.caps.balances[merchant];
    if (balance === undefined) continue;
    const { holding, refunds } = payoutTotals(m, merchant);
    if (holding > balance) {
      const what = refunds > 0 ? 'open and paid payouts and refunds (one shared balance, payouts.sharedBalance)' : 'open and paid payouts';
      out.push({
        code: 'PAYOUTS_ABOVE_BALANCE',
        clause: 'err.po.insufficient-funds',
        message: `the target accepted ${what} of the ${merchant} merchant adding up to more than its declared payout balance`,
        expected: `at most ${valueOfCents(balance)}`,
        seen: valueOfCents(holding),
      });
    }
  }
  return out;
}
