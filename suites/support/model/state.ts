/**
 * The model of one merchant's view of the interface, for stateful sequences: payments and their
 * refunds, payouts and balances, and the merchant numbers each one holds. It is updated only
 * from what the target answered, so it never claims more than the target showed.
 */
import type { NumberName, PayoutMerchant, PayoutName } from '../../../fixtures/arbitraries/commands.js';

export type RefundSupport = 'none' | 'full' | 'partial';

/** What the profile says that predictions need (the interface leaves these open). */
export interface ModelCaps {
  /** Status name of a checkout not yet paid (checkout.pendingStatus). */
  pendingStatus?: string;
  /** Status name of a card payment left pending, e.g. 3-D Secure (cardPayment.pendingStatus; absent: pendingStatus). */
  cardPendingStatus?: string;
  /** Refund support per payment method (refunds.support); a method missing here is not predicted. */
  refundSupport: Record<string, RefundSupport>;
  /** Whether each payout method supports cancel (payouts.methods). */
  payoutCancel: Record<string, boolean>;
  /** Declared payout balance per merchant, in cents (payouts.balances.primary, merchants.lowBalance.payoutBalance). */
  balances: Partial<Record<PayoutMerchant, number>>;
  /** Channel limits in cents (limits.payments / limits.payouts): each channel's range; an amount must fall inside one. */
  paymentLimits: Record<string, { min: number; max: number }[]>;
  payoutLimits: Record<string, { min: number; max: number }[]>;
  /** A merchant's own USD payout ranges, where its facts give them (harness/facts/); else `payoutLimits`. */
  payoutLimitsBy?: Partial<Record<PayoutMerchant, Record<string, { min: number; max: number }[]>>>;
  /**
   * Refunds and payouts draw on one balance (payouts.sharedBalance): the primary merchant's refunds
   * (not failed, each with the refund fee in cents) then hold part of its payout balance too.
   */
  sharedBalance?: { refundFeeCents: number };
  /**
   * Payout methods each merchant may use in USD, the model's currency (its facts: merchants.X.payoutMethods, a method's
   * currencies for it; default every payouts.methods key).
   */
  payoutMethods: Partial<Record<PayoutMerchant, string[]>>;
  /** The refund template sends the service's order number, which a declined payment's answer does not show. */
  refundNeedsOrderNo: boolean;
  /**
   * Payouts that end by themselves (profile sandbox.autoSettle.payouts, version 5): an open payout may show `status` once
   * `afterMs` have passed since its creation was sent; the model never takes it as waiting for a control after that.
   */
  payoutAutoSettle?: { afterMs: number; status: 'SUCCESS' | 'FAILED' };
  /** Refunds that end by themselves (sandbox.autoSettle.refunds): a PENDING refund may show `status` once `afterMs` have passed. */
  refundAutoSettle?: { afterMs: number; status: 'SUCCESS' | 'FAILED' };
  /** Checkouts that expire by themselves (sandbox.autoSettle.checkouts): an unpaid one may have expired once `afterMs` have passed. */
  checkoutAutoExpire?: { afterMs: number };
  /** Which number each lookup's path carries (profile version 4 templates): a lookup by another one cannot be sent. */
  lookupPaths?: Record<'payoutCancel' | 'payoutQuery' | 'refundQuery', LookupPath>;
  /** Amounts a declared failure trigger fails (sandbox.triggers): a payment or refund of one is never sent. */
  magicCents?: (cents: number) => boolean;
}

/** The numbers a lookup endpoint's path carries: none (either lookup goes in the body), the service's, the merchant's. */
export interface LookupPath {
  service: boolean;
  merchant: boolean;
}

/**
 * The lookup to send for a record wanted by one of its numbers: that one where the path carries none, else what the path
 * carries; undefined when the path needs a number the model does not know (the command then does not apply).
 */
export function lookupVia<T>(
  path: LookupPath = { service: false, merchant: false },
  want: 'service' | 'merchant',
  record: { service: T | undefined; merchant: T },
): { serviceNo?: T; merchantNo?: T } | undefined {
  if (!path.service && !path.merchant) return want === 'merchant' ? { merchantNo: record.merchant } : { serviceNo: record.service };
  if (path.service && record.service === undefined) return undefined;
  return { ...(path.service ? { serviceNo: record.service } : {}), ...(path.merchant ? { merchantNo: record.merchant } : {}) };
}

/** Where a payment stands, before refunds: refunds and chargebacks are kept beside it. */
export type PaymentBase = 'pending' | 'SUCCESS' | 'FAILED' | 'expired';

export interface PaymentRec {
  name: NumberName;
  merchantOrderNo: string;
  /** The service's number; unknown for a declined payment until a query shows it. */
  orderNo?: string;
  method: string;
  via: 'checkout' | 'card';
  cents: number;
  base: PaymentBase;
  /** The status the target showed for a payment not yet paid. */
  pendingSeen?: string;
  /** Recorded and then refused (declined card): its number stays used. */
  declined: boolean;
  chargedBack: boolean;
  refunds: RefundRec[];
  /** Repeats of its number that were refused. */
  refusedRepeats: number;
  /** When its creation request was sent, epoch ms (a checkout's expiry by itself runs from no earlier). */
  sentAt?: number;
}

export type RefundStatus = 'PENDING' | 'SUCCESS' | 'FAILED';

export interface RefundRec {
  name: NumberName;
  merchantRefundNo: string;
  refundNo?: string;
  payment: PaymentRec;
  cents: number;
  status: RefundStatus;
  /** Recorded and then refused (refundFailed): its number stays used. */
  failedAtCreation: boolean;
  /** When its creation request was sent, epoch ms (its settling by itself runs from no earlier). */
  sentAt?: number;
}

export type PayoutStatus = 'open' | 'SUCCESS' | 'FAILED' | 'CANCELED';

export interface PayoutRec {
  name: PayoutName;
  merchant: PayoutMerchant;
  merchantPayoutNo: string;
  payoutNo: string;
  method: string;
  cents: number;
  /** `open` is any status before the three final ones the interface names. */
  status: PayoutStatus;
  /** The status name the target showed while open. */
  openSeen?: string;
  /** When its creation request was sent, epoch ms (time the vendor keeps runs from no earlier). */
  sentAt?: number;
}

/**
 * The status an open payout may have ended in by itself by `now` (caps.payoutAutoSettle), else undefined: it surely
 * still waits, or it is not open.
 */
export function mayHaveEnded(m: Readonly<Model>, po: PayoutRec, now = Date.now()): 'SUCCESS' | 'FAILED' | undefined {
  const auto = m.caps.payoutAutoSettle;
  if (auto === undefined || po.status !== 'open') return undefined;
  return po.sentAt === undefined || now - po.sentAt >= auto.afterMs ? auto.status : undefined;
}

/** Whether an open payout will surely still wait `marginMs` from now (a control sent now reaches it while it waits). */
export function surelyWaits(m: Readonly<Model>, po: PayoutRec, marginMs: number, now = Date.now()): boolean {
  return po.status === 'open' && mayHaveEnded(m, po, now + marginMs) === undefined;
}

/** How long before a record may end by itself a control is no longer sent to it: it must reach the record while it waits. */
export const CONTROL_MARGIN_MS = 2_000;

/**
 * The status a PENDING refund may have ended in by itself by `now` (caps.refundAutoSettle), else undefined: it surely
 * still waits, or it is not pending.
 */
export function refundMayHaveEnded(m: Readonly<Model>, r: RefundRec, now = Date.now()): 'SUCCESS' | 'FAILED' | undefined {
  const auto = m.caps.refundAutoSettle;
  if (auto === undefined || r.status !== 'PENDING') return undefined;
  return r.sentAt === undefined || now - r.sentAt >= auto.afterMs ? auto.status : undefined;
}

/** Whether an unpaid checkout may have expired by itself by `now` (caps.checkoutAutoExpire). */
export function checkoutMayHaveExpired(m: Readonly<Model>, p: PaymentRec, now = Date.now()): boolean {
  const auto = m.caps.checkoutAutoExpire;
  if (auto === undefined || p.via !== 'checkout' || p.base !== 'pending') return false;
  return p.sentAt === undefined || now - p.sentAt >= auto.afterMs;
}

/** One merchant number of the payment/refund space and what holds it. */
export interface NumberSlot {
  name: NumberName;
  no: string;
  payment?: PaymentRec;
  refund?: RefundRec;
  /** A refund under this number was refused for another reason: it may or may not have been recorded. */
  maybeRefund?: boolean;
}

export interface PayoutSlot {
  name: PayoutName;
  merchant: PayoutMerchant;
  no: string;
  payout?: PayoutRec;
  /** A payout under this number was refused: it may or may not have been recorded. */
  maybe?: boolean;
}

export interface Model {
  caps: ModelCaps;
  /** Commands run so far in this sequence. */
  ran: number;
  numbers: Map<NumberName, NumberSlot>;
  /** Keyed by `merchant:name`: payout numbers are unique per merchant. */
  payoutNumbers: Map<string, PayoutSlot>;
}

export function newModel(caps: ModelCaps): Model {
  return { caps, ran: 0, numbers: new Map(), payoutNumbers: new Map() };
}

export function payoutKey(merchant: PayoutMerchant, name: PayoutName): string {
  return `${merchant}:${name}`;
}

export function payoutSlotOf(m: Readonly<Model>, merchant: PayoutMerchant, name: PayoutName): PayoutSlot | undefined {
  return m.payoutNumbers.get(payoutKey(merchant, name));
}

export function paymentOf(m: Readonly<Model>, name: NumberName): PaymentRec | undefined {
  return m.numbers.get(name)?.payment;
}

export function refundOf(m: Readonly<Model>, name: NumberName): RefundRec | undefined {
  return m.numbers.get(name)?.refund;
}

/** Refund sums of a payment: not failed (counts against the amount), settled, failed. */
export function refundTotals(p: PaymentRec, m?: Readonly<Model>): { committed: number; settled: number; failed: number } {
  let committed = 0;
  let settled = 0;
  let failed = 0;
  for (const r of p.refunds) {
    // A PENDING refund that may have ended FAILED by itself (caps.refundAutoSettle) counts as one that may have failed.
    if (r.status === 'FAILED' || (m !== undefined && refundMayHaveEnded(m, r, Date.now() + 2_000) === 'FAILED')) failed += r.cents;
    else committed += r.cents;
    if (r.status === 'SUCCESS') settled += r.cents;
  }
  return { committed, settled, failed };
}

/**
 * Payouts of a merchant: holding funds (open or paid) and every one ever accepted. With a shared
 * balance, the primary merchant's refunds that did not fail (plus their fee) hold funds too (`refunds`).
 */
export function payoutTotals(m: Readonly<Model>, merchant: PayoutMerchant): { holding: number; accepted: number; refunds: number } {
  let holding = 0;
  let accepted = 0;
  for (const slot of m.payoutNumbers.values()) {
    const p = slot.payout;
    if (!p || p.merchant !== merchant) continue;
    accepted += p.cents;
    // An open payout that may have failed by itself may have given its amount back: only what surely holds is counted.
    if ((p.status === 'open' && mayHaveEnded(m, p) !== 'FAILED') || p.status === 'SUCCESS') holding += p.cents;
  }
  let refunds = 0;
  const shared = m.caps.sharedBalance;
  if (shared && merchant === 'primary') {
    for (const p of allPayments(m)) {
      for (const r of p.refunds) if (r.status !== 'FAILED') refunds += r.cents + shared.refundFeeCents;
    }
  }
  return { holding: holding + refunds, accepted, refunds };
}

export function allPayments(m: Readonly<Model>): PaymentRec[] {
  const out: PaymentRec[] = [];
  for (const s of m.numbers.values()) if (s.payment) out.push(s.payment);
  return out;
}
