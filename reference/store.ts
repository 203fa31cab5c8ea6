/**
 * In-memory state of one sandbox instance. Every operation is synchronous on purpose: a handler
 * that checks a merchant number and records it without an `await` in between cannot be raced by
 * a parallel request with the same number.
 */
import { type MerchantFixture, MERCHANTS } from './fixtures.js';

/** The kinds of record a merchant order number identifies (each in its own namespace unless a reading joins them). */
export type IdempotencyKind = 'payment' | 'refund' | 'payout';

export type PaymentStatus = 'PENDING' | 'SUCCESS' | 'FAILED' | 'EXPIRED' | 'REFUNDED';
export type RefundStatus = 'PENDING' | 'SUCCESS' | 'FAILED';
export type PayoutStatus = 'PENDING' | 'SUCCESS' | 'FAILED' | 'CANCELED';

export interface TradeInfo {
  goods_name: string;
  description?: string;
}

export interface Payment {
  readonly orderNo: string;
  readonly merchantId: string;
  readonly merchantOrderNo: string;
  readonly method: string;
  readonly chargedCents: bigint;
  /** Set only when a price-point channel rounded the amount asked for. */
  readonly requestedCents?: bigint;
  readonly tradeInfo: TradeInfo;
  readonly metadata: string;
  readonly notifyUrl?: string;
  /** Which endpoint created it; a replayed answer (fault) must look like that endpoint's. */
  readonly via: 'checkout' | 'card';
  status: PaymentStatus;
  readonly createdAt: number;
  finishedAt?: number;
  /** A chargeback is visible only in the merchant portal; it never changes `status`. */
  chargedBack: boolean;
  /** Status carried by the last payment.updated a receiver acknowledged. */
  ackedStatus?: string;
  /** The card it was made with, and the e-mails its creation carried where a trigger looks (reference/magic-triggers.ts). */
  readonly cardNumber?: string;
  readonly emails?: readonly string[];
}

export interface Refund {
  readonly refundNo: string;
  readonly merchantId: string;
  readonly merchantRefundNo: string;
  readonly orderNo: string;
  readonly amountCents: bigint;
  /** Amount taken from the refund-cover balance (refund plus fee), given back if the refund fails. */
  readonly coverCents: bigint;
  readonly reason: string;
  status: RefundStatus;
  readonly createdAt: number;
  finishedAt?: number;
  /** Status carried by the last refund.updated a receiver acknowledged. */
  ackedStatus?: string;
}

/** Payee fields as the payout method requires them (BANK_TRANSFER: name and account; PAYPAL: email). */
export interface Payee {
  name?: string;
  account?: string;
  email?: string;
}

/** Who an armed failure is for when a switch fails the next request of its kind from any merchant. */
export const ANY_MERCHANT = '*';

/** One-shot failures the sandbox can arm for a merchant's next request of that kind. */
export const ARMABLE_FAILURES = ['QUERY_FAILED', 'ORDER_CREATION_FAILED', 'REFUND_SYSTEM_BUSY', 'REFUND_FAILED'] as const;
export type ArmedFailure = (typeof ARMABLE_FAILURES)[number];

export interface Payout {
  readonly payoutNo: string;
  readonly merchantId: string;
  readonly merchantPayoutNo: string;
  readonly method: string;
  readonly amountCents: bigint;
  /** What creation took from the payout balance: the amount and its fee (given back if the payout fails or is canceled). */
  readonly reservedCents?: bigint;
  readonly currency: string;
  readonly payee: Payee;
  readonly notifyUrl: string;
  status: PayoutStatus;
  statusReason?: string;
  readonly createdAt: number;
  finishedAt?: number;
}

/** Who holds a merchant number inside an idempotency namespace. */
export interface NumberHolder {
  readonly kind: IdempotencyKind;
  readonly serviceNo: string;
}

export interface Balances {
  /** The USD payout balance. */
  payoutCents: bigint;
  /** Payout balances in other currencies; a currency absent is held at 0. */
  otherPayoutCents: Map<string, bigint>;
  refundCoverCents: bigint;
}

/** The merchant's payout balance in one currency: a payout draws only on its own currency's balance. */
export function payoutBalance(b: Balances, currency: string): bigint {
  return currency === 'USD' ? b.payoutCents : (b.otherPayoutCents.get(currency) ?? 0n);
}

/** Moves the payout balance of one currency by `delta` cents (negative to reserve, positive to give back). */
export function movePayoutBalance(b: Balances, currency: string, delta: bigint): void {
  if (currency === 'USD') b.payoutCents += delta;
  else b.otherPayoutCents.set(currency, payoutBalance(b, currency) + delta);
}

/** Proceeds of a successful payment not yet available (target `proceedsAfter`): no payout or refund draws on them. */
export interface PendingProceeds {
  readonly merchantId: string;
  readonly orderNo: string;
  readonly payoutCents: bigint;
  readonly refundCents: bigint;
  /** When they become available (ms); absent: only the release control makes them so. */
  readonly dueAt?: number;
}

export class Store {
  readonly payments = new Map<string, Payment>();
  /** Proceeds waiting to become available, oldest first. */
  pendingProceeds: PendingProceeds[] = [];
  readonly refunds = new Map<string, Refund>();
  readonly payouts = new Map<string, Payout>();
  private readonly byMerchantNo = new Map<string, string>();
  private readonly numbers = new Map<string, NumberHolder>();
  private readonly refundsOfOrder = new Map<string, string[]>();
  private readonly balances = new Map<string, Balances>();
  /** How many requests each counted magic-value trigger has failed, per payment or refund (reference/magic-triggers.ts). */
  readonly triggerUses = new Map<string, number>();
  private sequence = Math.floor(Math.random() * 500_000);
  /**
   * Armed failures per merchant (`ANY_MERCHANT`: for any merchant's request): `failure` alone, or `failure` + LF + the
   * merchant order number it is scoped to, and how many requests it still fails.
   */
  private readonly armed = new Map<string, Map<string, number>>();

  /** How a service number is written (a reading may give it another shape). */
  private readonly formatNo: (prefix: 'P' | 'R' | 'T', stamp: string, sequence: string) => string;

  constructor(
    formatNo: (prefix: 'P' | 'R' | 'T', stamp: string, sequence: string) => string = (p, st, sq) => `${p}${st}${sq}`,
    merchants: readonly MerchantFixture[] = MERCHANTS,
  ) {
    this.formatNo = formatNo;
    for (const m of merchants) {
      this.balances.set(m.id, {
        payoutCents: m.payoutBalanceCents,
        otherPayoutCents: new Map(Object.entries(m.otherPayoutBalancesCents ?? {})),
        refundCoverCents: m.refundCoverCents,
      });
    }
  }

  /** Service numbers: a letter, twelve digits of UTC time, six of sequence; unique per instance. */
  nextServiceNo(prefix: 'P' | 'R' | 'T', now: number): string {
    this.sequence = (this.sequence + 1) % 1_000_000;
    const stamp = new Date(now)
      .toISOString()
      .replace(/[^0-9]/g, '')
      .slice(2, 14);
    const candidate = this.formatNo(prefix, stamp, String(this.sequence).padStart(6, '0'));
    // A million creations inside one second would wrap the sequence; never hand out a number twice.
    if (this.payments.has(candidate) || this.refunds.has(candidate) || this.payouts.has(candidate)) {
      return this.nextServiceNo(prefix, now + 1000);
    }
    return candidate;
  }

  holderOf(merchantId: string, namespace: string, no: string): NumberHolder | undefined {
    return this.numbers.get(numberKey(merchantId, namespace, no));
  }

  claimNumber(merchantId: string, namespace: string, no: string, holder: NumberHolder): void {
    this.numbers.set(numberKey(merchantId, namespace, no), holder);
  }

  releaseNumber(merchantId: string, namespace: string, no: string): void {
    this.numbers.delete(numberKey(merchantId, namespace, no));
  }

  addPayment(p: Payment): void {
    this.payments.set(p.orderNo, p);
    this.byMerchantNo.set(lookupKey(p.merchantId, 'payment', p.merchantOrderNo), p.orderNo);
  }

  addRefund(r: Refund): void {
    this.refunds.set(r.refundNo, r);
    this.byMerchantNo.set(lookupKey(r.merchantId, 'refund', r.merchantRefundNo), r.refundNo);
    const list = this.refundsOfOrder.get(r.orderNo) ?? [];
    list.push(r.refundNo);
    this.refundsOfOrder.set(r.orderNo, list);
  }

  addPayout(p: Payout): void {
    this.payouts.set(p.payoutNo, p);
    this.byMerchantNo.set(lookupKey(p.merchantId, 'payout', p.merchantPayoutNo), p.payoutNo);
  }

  paymentByMerchantNo(merchantId: string, no: string): Payment | undefined {
    const orderNo = this.byMerchantNo.get(lookupKey(merchantId, 'payment', no));
    return orderNo === undefined ? undefined : this.payments.get(orderNo);
  }

  refundByMerchantNo(merchantId: string, no: string): Refund | undefined {
    const refundNo = this.byMerchantNo.get(lookupKey(merchantId, 'refund', no));
    return refundNo === undefined ? undefined : this.refunds.get(refundNo);
  }

  payoutByMerchantNo(merchantId: string, no: string): Payout | undefined {
    const payoutNo = this.byMerchantNo.get(lookupKey(merchantId, 'payout', no));
    return payoutNo === undefined ? undefined : this.payouts.get(payoutNo);
  }

  refundsOf(orderNo: string): Refund[] {
    const out: Refund[] = [];
    for (const no of this.refundsOfOrder.get(orderNo) ?? []) {
      const r = this.refunds.get(no);
      if (r) out.push(r);
    }
    return out;
  }

  /**
   * Arms a failure for the merchant's next `count` requests of that kind (`ANY_MERCHANT`: any merchant's); with
   * `merchantOrderNo`, only for requests about that order.
   */
  arm(merchantId: string, failure: ArmedFailure, merchantOrderNo?: string, count = 1): void {
    const armed = this.armed.get(merchantId) ?? new Map<string, number>();
    const key = merchantOrderNo === undefined ? failure : `${failure}\n${merchantOrderNo}`;
    armed.set(key, (armed.get(key) ?? 0) + count);
    this.armed.set(merchantId, armed);
  }

  /** Whether the failure is armed for this request (about `merchantOrderNo`); `oneShot` disarms one (a transient failure happens once). */
  takeArmed(merchantId: string, failure: ArmedFailure, merchantOrderNo: string, oneShot = true): boolean {
    for (const owner of [merchantId, ANY_MERCHANT]) {
      const armed = this.armed.get(owner);
      const key = [`${failure}\n${merchantOrderNo}`, failure].find((k) => armed?.has(k));
      if (key === undefined || armed === undefined) continue;
      if (oneShot) {
        const left = armed.get(key)! - 1;
        if (left > 0) armed.set(key, left);
        else armed.delete(key);
      }
      return true;
    }
    return false;
  }

  balancesOf(merchantId: string): Balances {
    let b = this.balances.get(merchantId);
    if (!b) {
      b = { payoutCents: 0n, otherPayoutCents: new Map(), refundCoverCents: 0n };
      this.balances.set(merchantId, b);
    }
    return b;
  }
}

function numberKey(merchantId: string, namespace: string, no: string): string {
  return `${merchantId}\n${namespace}\n${no}`;
}

function lookupKey(merchantId: string, kind: IdempotencyKind, no: string): string {
  return `${merchantId}\n${kind}\n${no}`;
}
