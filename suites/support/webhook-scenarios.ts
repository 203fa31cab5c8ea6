import { factsOf } from '../../harness/facts/index.js';
import { fitLength } from '../../harness/profile/lengths.js';
import type { ClauseId } from '../../harness/clauses/registry.js';
/**
 * Ways to make a target send one webhook, each with its own merchant number scripted on the
 * receiver before the request goes out (the script routes by the number in the body). Built on
 * harness/ops.ts and the profile's sandbox controls; anything the profile does not declare skips.
 */
import type { Target } from '../../harness/target.js';
import type { Delivery, ReplyKind } from '../../harness/webhooks/types.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import { expectError, expectSuccess, expectString, failCheck, pick } from '../../harness/check/expect.js';
import { note, recordMachineBusy, recordReading } from '../../harness/check/context.js';
import { processLag } from '../../harness/check/lag.js';
import { wireReply } from '../../harness/webhooks/receiver.js';
import { arrivalLate, type WebhookTiming } from '../../harness/webhooks/schedule.js';
import { awaitDeliveries } from '../../harness/webhooks/expect.js';
import {
  cardFixture,
  cardPayment,
  checkoutMethodsOf,
  completeCheckout,
  createCheckout,
  createPayout,
  createRefund,
  defaultAmount,
  payoutMethod,
  usd,
  type Amount,
  payoutsOf,
} from '../../harness/ops.js';
import type { Exchange } from '../../harness/http/exchange.js';
import { amountInside } from '../../harness/facts/limits.js';
import { centsOf, valueOfCents } from '../../harness/facts/money.js';

export interface Payment {
  merchantOrderNo: string;
  /** Undefined when the request was refused (a declined card) and no data came back. */
  orderNo?: string;
  method: string;
  amount: Amount;
  exchange: Exchange;
}

/** A new merchant number with its reply script set on the receiver. */
export function scriptedNo(t: Target, kind: 'order' | 'refund' | 'payout', replies: ReplyKind[] = ['success']): string {
  const no = t.newNo(kind);
  t.receiver().script(no, replies);
  return no;
}

/** The card method of the profile, or a skip. */
function cardMethod(t: Target): string {
  if (!t.profile.cardPayment)
    throw new PreconditionSkip('the profile declares no card payment (cardPayment)', { declare: ['cardPayment'] });
  return t.profile.methods.card ?? 'CARD';
}

/** A card payment that succeeds at once: payment.updated SUCCESS follows. */
export async function paidCardPayment(
  t: Target,
  clause: ClauseId,
  opts: { replies?: ReplyKind[]; metadata?: string; amount?: Amount } = {},
): Promise<Payment> {
  const method = cardMethod(t);
  const merchantOrderNo = scriptedNo(t, 'order', opts.replies);
  const amount = opts.amount ?? usd(defaultAmount(t, method));
  const ex = await cardPayment(t, { merchantOrderNo, amount, ...(opts.metadata !== undefined ? { metadata: opts.metadata } : {}) });
  const data = expectSuccess(ex, clause, { what: 'creating a card payment' });
  const orderNo = expectString(data, t.profile.cardPayment!.data.orderNo, clause, ex);
  return { merchantOrderNo, orderNo, method, amount, exchange: ex };
}

/** How the document answers each refused test card, and the clause that answer is. */
const CARD_REFUSALS = {
  decline: { want: { code: 422, key: 'paymentFailed' }, clause: 'err.pay.declined', what: 'a card payment the provider declines' },
  risk: { want: { code: 422, key: 'validationFailed' }, clause: 'err.pay.risk', what: 'a card payment the risk checks decline' },
} as const;

async function refusedCardPayment(t: Target, kind: keyof typeof CARD_REFUSALS, replies?: ReplyKind[]): Promise<Payment> {
  const method = cardMethod(t);
  const card = cardFixture(t, kind);
  const merchantOrderNo = scriptedNo(t, 'order', replies);
  const amount = usd(defaultAmount(t, method));
  const ex = await cardPayment(t, { merchantOrderNo, amount, card });
  const r = CARD_REFUSALS[kind];
  expectError(ex, r.want, r.clause, { what: r.what });
  return { merchantOrderNo, method, amount, exchange: ex };
}

/** A card payment the provider declines: 422 paymentFailed, then payment.updated FAILED. */
export function declinedCardPayment(t: Target, opts: { replies?: ReplyKind[] } = {}): Promise<Payment> {
  return refusedCardPayment(t, 'decline', opts.replies);
}

/** A card payment the service's risk checks refuse (422 validationFailed); the caller decides what follows. */
export function riskDeclinedCardPayment(t: Target, opts: { replies?: ReplyKind[] } = {}): Promise<Payment> {
  return refusedCardPayment(t, 'risk', opts.replies);
}

export interface CheckoutOpts {
  replies?: ReplyKind[];
  method?: string;
  amount?: Amount;
  metadata?: string;
  description?: string;
  goodsName?: string;
}

/** A checkout (not yet paid); its payment.updated comes when the sandbox completes it. */
export async function scriptedCheckout(t: Target, clause: ClauseId, opts: CheckoutOpts = {}): Promise<Payment> {
  const method = opts.method ?? t.profile.methods.checkout[0]!;
  const merchantOrderNo = scriptedNo(t, 'order', opts.replies);
  const amount = opts.amount ?? usd(defaultAmount(t, method));
  const order = await createCheckout(t, clause, {
    merchantOrderNo,
    method,
    amount,
    ...(opts.metadata !== undefined ? { metadata: opts.metadata } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
    ...(opts.goodsName !== undefined ? { goodsName: opts.goodsName } : {}),
  });
  return { merchantOrderNo, orderNo: order.orderNo, method, amount, exchange: order.exchange };
}

/** A checkout completed through the sandbox control. */
export async function completedCheckout(
  t: Target,
  clause: ClauseId,
  outcome: 'success' | 'failed',
  opts: CheckoutOpts = {},
): Promise<Payment> {
  if (!t.profile.sandbox?.completeCheckout)
    throw new PreconditionSkip('the profile declares no sandbox control to complete a checkout (sandbox.completeCheckout)', {
      declare: ['sandbox.completeCheckout'],
    });
  const p = await scriptedCheckout(t, clause, opts);
  await completeCheckout(t, { orderNo: p.orderNo!, merchantOrderNo: p.merchantOrderNo }, outcome, clause);
  return p;
}

/**
 * Whichever way the profile declares to get a payment paid at once: a card payment, else a completed checkout. With
 * `refundable`, a payment of a method the profile says takes refunds: a target whose card takes none is still asked
 * about refunds through a checkout method that does (found by bench/legal-targets.ts --kill: such targets hid
 * refund-webhook faults).
 */
export async function anyPaidPayment(
  t: Target,
  clause: ClauseId,
  opts: { replies?: ReplyKind[]; refundable?: boolean } = {},
): Promise<Payment> {
  const { refundable, ...rest } = opts;
  const takesRefunds = (m: string) => (t.profile.refunds?.support[m] ?? 'none') !== 'none';
  if (t.profile.cardPayment && !(refundable && !takesRefunds(cardMethod(t)))) return paidCardPayment(t, clause, rest);
  const method = refundable ? checkoutMethodsOf(t).find(takesRefunds) : undefined;
  if (refundable && method === undefined)
    throw new PreconditionSkip('the profile declares no payable method that takes refunds (refunds.support)', {
      declare: ['refunds.support'],
    });
  return completedCheckout(t, clause, 'success', { ...rest, ...(method ? { method } : {}) });
}

export interface Refund {
  merchantRefundNo: string;
  refundNo: string;
  amount: Amount;
  reason: string;
  /** Status in the creation response, per the profile's refunds.data.status. */
  status: unknown;
  exchange: Exchange;
}

/** How a paid payment of this method may be refunded, per the profile; skips when it may not. */
export function refundSupport(t: Target, method: string): 'full' | 'partial' {
  const r = t.profile.refunds;
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)', { declare: ['refunds'] });
  t.require('refundCreate');
  const s = r.support[method];
  if (s === undefined || s === 'none')
    throw new PreconditionSkip(`the profile declares no refunds for ${method} (refunds.support.${method})`, {
      declare: [`refunds.support.${method}`],
    });
  return s;
}

/** A refund of `amount` (default: the whole payment) that must be accepted. */
export async function acceptedRefund(
  t: Target,
  clause: ClauseId,
  payment: Payment,
  opts: { amount?: Amount; reason?: string; replies?: ReplyKind[] } = {},
): Promise<Refund> {
  refundSupport(t, payment.method);
  const merchantRefundNo = scriptedNo(t, 'refund', opts.replies);
  const amount = opts.amount ?? payment.amount;
  // The kit's own reason within the said length (lengths.maxLength.reason); the webhook is compared with what was sent.
  const reason = opts.reason ?? fitLength(t.profile, 'reason', 'Customer returned the item');
  const ex = await createRefund(t, {
    refundNo: merchantRefundNo,
    order: { orderNo: payment.orderNo!, merchantOrderNo: payment.merchantOrderNo },
    amount,
    reason,
  });
  const data = expectSuccess(ex, clause, { what: 'creating a refund' });
  const shape = t.profile.refunds!.data;
  const refundNo = expectString(data, shape.refundNo, clause, ex);
  return { merchantRefundNo, refundNo, amount, reason, status: pick(data, shape.status), exchange: ex };
}

/** A part of the payment's amount when the method allows partial refunds, else the whole. */
export function partOf(t: Target, payment: Payment): Amount {
  if (refundSupport(t, payment.method) !== 'partial') return payment.amount;
  const cents = centsOf(payment.amount.value);
  if (cents < 2n) return payment.amount;
  return usd(valueOfCents(cents / 4n > 0n ? cents / 4n + 1n : 1n));
}

export interface Payout {
  merchantPayoutNo: string;
  payoutNo: string;
  method: string;
  amount: Amount;
  exchange: Exchange;
}

/** A payout that must be accepted (PENDING until settled or canceled). */
export async function acceptedPayout(t: Target, clause: ClauseId, opts: { cancel?: boolean; replies?: ReplyKind[] } = {}): Promise<Payout> {
  const p = payoutsOf(t);
  const method = payoutMethod(t, opts.cancel === undefined ? {} : { cancel: opts.cancel });
  const lim = factsOf(t).payoutLimits(method);
  const amount = usd(lim ? amountInside(lim) : '10.00');
  const merchantPayoutNo = scriptedNo(t, 'payout', opts.replies);
  const ex = await createPayout(t, { payoutNo: merchantPayoutNo, method, amount });
  const data = expectSuccess(ex, clause, { what: 'creating a payout' });
  const payoutNo = expectString(data, p.data.payoutNo, clause, ex);
  return { merchantPayoutNo, payoutNo, method, amount, exchange: ex };
}

export interface TrialFinding {
  code: string;
  clause: ClauseId;
  message: string;
  expected: string;
  seen: string;
  /**
   * The delivery whose acknowledgement was not honoured, and the target's limit: when our reply to it
   * left too late because our own process lost time, the resend is not charged without a retry.
   */
  acknowledged?: {
    delivery: Pick<Delivery, 'receivedAt' | 'repliedAt' | 'reply'> & Partial<Pick<Delivery, 'headers'>>;
    ackTimeoutMs: number;
    jitterMs: number;
  };
}

/**
 * Whether our own machine could explain a resend after our acknowledgement: our reply left (repliedAt)
 * later than the limit allows, counting the stall our process had just before it noted the arrival
 * (the delivery may have waited for us), or, where the sandbox is ours, how long after its write we noted
 * it (arrivalLate). A detail when it could; a reply of ours that left in time leaves the resend to the target.
 */
export function lagExplains(f: TrialFinding): string | undefined {
  if (!f.acknowledged) return undefined;
  const { delivery: d, ackTimeoutMs, jitterMs } = f.acknowledged;
  const noticedLate = Math.max(processLag().longestStallDuring(d.receivedAt - ackTimeoutMs, d.receivedAt), arrivalLate(d));
  // No reply written: the target hung up before our reply was due (a late timer of ours runs before the hang-up is read).
  const left = d.repliedAt ?? d.receivedAt + (wireReply(d.reply, ackTimeoutMs).delayMs ?? 0);
  const replyAfter = left - d.receivedAt + noticedLate;
  if (replyAfter < ackTimeoutMs - jitterMs) return undefined;
  return (
    `our acknowledgement left ${Math.round(replyAfter)} ms after the webhook ` +
    `could have reached us (limit ${ackTimeoutMs} ms): our process was late`
  );
}

/**
 * For checks that watch for a delivery that must not come after an acknowledged one. A target can
 * legitimately resend when our `success` reached it after its ack limit (a loaded machine at a small
 * time scale), so one such delivery is confirmed by a second trial with new numbers before the
 * check fails; a target that breaks the rule breaks it again.
 */
export async function confirmedByRetrial(trial: (attempt: number) => Promise<TrialFinding | undefined>): Promise<void> {
  const first = await trial(1);
  if (!first) return;
  note(
    `trial 1 saw: ${first.seen}. Repeated with new numbers, as a resend can ` +
      `follow an acknowledgement that reached the target after its ack limit.`,
  );
  const second = await trial(2);
  if (!second) {
    recordReading('webhook.unconfirmed-resend', `seen once, not repeated: ${first.code}`);
    return;
  }
  // Seen twice, the second time while our machine lost the time the target's limit left us: not yet evidence.
  const busy = lagExplains(second);
  if (busy) recordMachineBusy(busy);
  failCheck(second.clause, {
    code: second.code,
    title: `${second.message} (seen in two trials with different numbers)`,
    expected: second.expected,
    seen: `trial 1: ${first.seen}; trial 2: ${second.seen}`,
  });
}

/** A paid payment whose payment.updated never came: the finding is charged to the event, not to the check's clause. */
export function paymentUpdatedNotSent(): never {
  return failCheck('event.payment.updated', {
    code: 'WEBHOOK_NOT_SENT',
    title: 'the paid payment sent no payment.updated',
    expected: 'payment.updated',
    seen: 'no delivery',
  });
}

/** The payment's first payment.updated within the profile's delivery wait (at least one delivery), else WEBHOOK_NOT_SENT. */
export async function firstPaymentUpdated(t: Target, merchantNo: string, timing: WebhookTiming): Promise<Delivery[]> {
  const ds = await awaitDeliveries(t, { merchantNo, event: 'payment.updated' }, (x) => x.length >= 1, timing.deliveryWaitMs);
  if (ds.length === 0) paymentUpdatedNotSent();
  return ds;
}
