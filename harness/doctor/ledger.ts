/**
 * The doctor's money account: every payment, refund, payout, fee and chargeback its requests caused, and what they
 * moved, summed per merchant, balance and currency, so that its report says it whole. One vendor's doctor report said
 * "Payouts made: 0" after it made six (one kept as settled), and what it listed explained 14.48 of the 39.58 USD that
 * left the primary's balance (refund fees, a chargeback and a payout fee with a minimum were missing).
 *
 * Read from the doctor's own requests, not from its probes' intentions: every request it sends passes `sent` with the
 * operation its tag names. A sandbox control is known by its path (and, from harness/doctor/control.ts, by its name
 * and variables: `control`), so one sent by any helper counts; its outcome is the profile's value found in its body.
 * Numbers are matched by value, in bodies and in paths: the merchant's numbers the doctor created (they start with its
 * prefix) and the service's numbers read at the profile's data paths. An amount is the Amount object of the request
 * (the document fixes its two fields, wherever a template puts it). What became of a record is also read from any
 * answer showing its status (a payout that settles by itself, a payment paid without a control).
 *
 * The balances: a payout takes its amount and its fee (unless `balances.payoutFee` is "elsewhere") from the payout
 * balance of its currency until it is given back (cancelled, or settled as failed); a refund takes its amount and fee
 * from the refund balance until it is settled as failed; a paid payment credits the balances `balances.paymentsCredit`
 * names with its amount less its fee, once its proceeds are available (`balances.proceeds`: proceeds a control releases
 * stay pending and move nothing; proceeds that wait a delay may or may not have moved, and are said so). Fees are the
 * profile's (harness/facts/fees.ts). A chargeback takes the payment's amount and its fee from the balance
 * `balances.chargeback` names; where no field says it, it is listed with its amount and counted apart, never guessed.
 */
import type { Exchange } from '../http/exchange.js';
import type { Operation } from '../http/exclusive.js';
import { matchesTemplate } from '../profile/endpoint-path.js';
import { feeCents, feeModelOf, type FeeKind } from '../facts/fees.js';
import { centsOf, tryCentsOf, valueOfCents } from '../facts/money.js';
import type { Profile } from '../profile/types.js';
import type { BalanceLine, MoneyMoved, MovedChargeback, MovedPayment, MovedPayout, MovedRefund, Unanswered } from './model.js';
import { pick } from '../ops.js';

type Json = Record<string, unknown>;

interface Payment {
  merchant: string;
  merchantNo: string;
  serviceNo?: string;
  method?: string;
  amount?: string;
  currency?: string;
  paid?: MovedPayment['paidBy'];
  refundedCents: bigint;
  chargedBack: boolean;
}

interface Refund {
  merchant: string;
  of: Payment;
  merchantNo?: string;
  serviceNo?: string;
  amount: string;
  end: MovedRefund['end'];
}

interface Payout {
  merchant: string;
  merchantNo: string;
  serviceNo?: string;
  method?: string;
  amount?: string;
  currency?: string;
  end: MovedPayout['end'];
}

/** The answer's envelope when it accepted the request (code 0, read leniently as the doctor reads codes). */
function acceptedAnswer(ex: Exchange): Json | undefined {
  const res = ex.response?.json;
  if (!res || typeof res !== 'object') return undefined;
  const code = (res as Json)['code'];
  return code === 0 || code === '0' ? (res as Json) : undefined;
}

function jsonOf(b: Buffer): unknown {
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Every string of a JSON value, depth first. */
function stringsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (v && typeof v === 'object') for (const x of Object.values(v as Json)) stringsIn(x, out);
  return out;
}

/** The first Amount object ({value, currency}, both strings) in a JSON value. */
function amountIn(v: unknown): { value: string; currency: string } | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Json;
  if (typeof o['value'] === 'string' && typeof o['currency'] === 'string' && tryCentsOf(o['value']) !== undefined)
    return { value: o['value'], currency: o['currency'] };
  for (const x of Object.values(o)) {
    const hit = amountIn(x);
    if (hit) return hit;
  }
  return undefined;
}

/** The statuses the document names for a payout's end: SUCCESS spends it, FAILED and CANCELED give it back. */
const PAYOUT_ENDS: Readonly<Record<string, MovedPayout['end']>> = { SUCCESS: 'spent', FAILED: 'given back', CANCELED: 'given back' };

/** The requests that make a record that moves money: one that got no answer may have made it. */
const CREATIONS: readonly Operation[] = ['payment.create', 'refund.create', 'payout.create'];

/** The sandbox controls that move money, the only ones the account reads. */
const MONEY_CONTROLS = ['completeCheckout', 'completeCard', 'chargeback', 'settleRefund', 'settlePayout'] as const;
type MoneyControl = (typeof MONEY_CONTROLS)[number];

export class Ledger {
  private readonly payments: Payment[] = [];
  private readonly refunds: Refund[] = [];
  private readonly payouts: Payout[] = [];
  private readonly paymentBy = new Map<string, Payment>();
  private readonly refundBy = new Map<string, Refund>();
  private readonly payoutBy = new Map<string, Payout>();
  private readonly unanswered: Unanswered[] = [];

  constructor(
    private readonly profile: Profile,
    /** The prefix of every number the doctor creates. */
    private readonly prefix: string,
    /** The path of a request, relative to the target's base URL. */
    private readonly pathOf: (url: string) => string,
  ) {}

  /** One of the doctor's requests and its answer, with the operation its tag names. */
  sent(ex: Exchange, merchant: string, operation: Operation): void {
    const res = acceptedAnswer(ex);
    if (!ex.response && CREATIONS.includes(operation)) {
      // No answer came: the target may have made the record all the same. Said, never counted.
      const body = jsonOf(ex.request.body);
      const merchantNo = [...stringsIn(body), ...this.pathOf(ex.request.url).split('/')].find((n) => n.startsWith(this.prefix));
      const amount = amountIn(body);
      this.unanswered.push({
        merchant,
        operation,
        ...(merchantNo !== undefined ? { merchantNo } : {}),
        ...(amount ? { amount: amount.value, currency: amount.currency } : {}),
      });
    }
    if (!res) return;
    const body = jsonOf(ex.request.body);
    const data = (res['data'] ?? {}) as Json;
    const path = this.pathOf(ex.request.url);
    const numbers = [...stringsIn(body), ...path.split('/')];
    const p = this.profile;
    if (operation === 'payment.create') this.paymentMade(merchant, body, numbers, data, path);
    else if (operation === 'payout.create') this.payoutMade(merchant, body, numbers, data);
    else if (operation === 'refund.create') this.refundMade(merchant, body, numbers, data);
    else if (operation === 'payout.cancel') this.payoutEnds(this.find(this.payoutBy, numbers), 'given back');
    else if (operation === 'payout.query' && p.payouts)
      this.payoutEnds(this.find(this.payoutBy, numbers), PAYOUT_ENDS[String(pick(data, p.payouts.data.status ?? 'status'))]);
    else if (operation === 'refund.query' && p.refunds?.data.status !== undefined && pick(data, p.refunds.data.status) === 'FAILED')
      this.refundGivenBack(this.find(this.refundBy, numbers));
    else if (operation === 'payment.query' && p.paymentRecord) {
      const status = pick(data, p.paymentRecord.status);
      const paid = this.find(this.paymentBy, numbers);
      if (paid && (status === 'SUCCESS' || status === 'REFUNDED')) paid.paid ??= 'seen paid in its record';
    } else if (operation === 'sandbox') {
      // A control known by its path alone (any helper may send it); two controls at one path are told apart only by
      // control.ts, which names the one it sends.
      const named = MONEY_CONTROLS.filter((c) => {
        const at = p.sandbox?.[c]?.path;
        return at !== undefined && (at === path || matchesTemplate(at, path));
      });
      if (named.length === 1) this.controlDone(named[0]!, numbers);
    }
  }

  /** A sandbox control the doctor sent, by name, with the variables its template was filled with. */
  control(name: string, vars: Json, ex: Exchange): void {
    if (!acceptedAnswer(ex) || !(MONEY_CONTROLS as readonly string[]).includes(name)) return;
    this.controlDone(
      name as MoneyControl,
      Object.values(vars).filter((v): v is string => typeof v === 'string'),
    );
  }

  moved(): MoneyMoved {
    const fee = (kind: FeeKind, method: string | undefined, amount: string | undefined, currency = 'USD') =>
      method === undefined || amount === undefined
        ? undefined
        : feeCents(feeModelOf(this.profile, kind, method), centsOf(amount), currency);
    const shown = (cents: bigint | undefined) => (cents === undefined ? undefined : valueOfCents(cents));
    const payments = this.payments
      .filter((r) => r.paid)
      .map(
        (r): MovedPayment => ({
          merchant: r.merchant,
          merchantOrderNo: r.merchantNo,
          ...(r.serviceNo ? { orderNo: r.serviceNo } : {}),
          ...(r.method ? { method: r.method } : {}),
          ...(r.amount ? { amount: r.amount, currency: r.currency } : {}),
          ...feeField(shown(fee('payments', r.method, r.amount))),
          paidBy: r.paid!,
          refunded: valueOfCents(r.refundedCents),
        }),
      );
    const refunds = this.refunds.map(
      (r): MovedRefund => ({
        merchant: r.merchant,
        ...(r.merchantNo ? { merchantRefundNo: r.merchantNo } : {}),
        ...(r.serviceNo ? { refundNo: r.serviceNo } : {}),
        of: r.of.merchantNo,
        amount: r.amount,
        currency: 'USD',
        ...feeField(shown(fee('refunds', r.of.method, r.amount))),
        end: r.end,
      }),
    );
    const payouts = this.payouts.map(
      (r): MovedPayout => ({
        merchant: r.merchant,
        merchantPayoutNo: r.merchantNo,
        ...(r.serviceNo ? { payoutNo: r.serviceNo } : {}),
        ...(r.method ? { method: r.method } : {}),
        ...(r.amount ? { amount: r.amount, currency: r.currency } : {}),
        ...feeField(shown(fee('payouts', r.method, r.amount, r.currency))),
        end: r.end,
      }),
    );
    const debit = this.profile.balances?.chargeback;
    const chargebacks = this.payments
      .filter((r) => r.chargedBack)
      .map(
        (r): MovedChargeback => ({
          merchant: r.merchant,
          merchantOrderNo: r.merchantNo,
          ...(r.serviceNo ? { orderNo: r.serviceNo } : {}),
          ...(r.amount ? { amount: r.amount, currency: r.currency } : {}),
          ...(debit?.fee && r.amount ? feeField(shown(feeCents(debit.fee, centsOf(r.amount), r.currency ?? 'USD'))) : {}),
        }),
      );
    return {
      payments,
      refunds,
      payouts,
      chargebacks,
      balances: this.balances(payments, refunds, payouts, chargebacks),
      ...(this.unanswered.length ? { unanswered: [...this.unanswered] } : {}),
    };
  }

  /** What each merchant's balances moved, per balance and currency, from the records and their ends. */
  private balances(
    payments: readonly MovedPayment[],
    refunds: readonly MovedRefund[],
    payouts: readonly MovedPayout[],
    chargebacks: readonly MovedChargeback[],
  ): BalanceLine[] {
    const debit = this.profile.balances?.chargeback;
    const lines = new Map<string, { line: BalanceLine; cents: bigint }>();
    const line = (merchant: string, balance: BalanceLine['balance'], currency: string) => {
      const key = `${merchant}\n${balance}\n${currency}`;
      let l = lines.get(key);
      if (!l) {
        l = { line: { merchant, balance, currency, moved: '0.00', unknown: [] }, cents: 0n };
        lines.set(key, l);
      }
      return l;
    };
    const move = (l: { line: BalanceLine; cents: bigint }, cents: bigint | undefined, what: string) => {
      if (cents === undefined) l.line.unknown.push(what);
      else l.cents += cents;
    };
    const credited = this.profile.balances?.paymentsCredit ?? [];
    const after = this.profile.balances?.proceeds?.after ?? 0;
    for (const x of payments) {
      if (x.amount === undefined || x.currency === undefined) continue;
      // Proceeds a control releases are still pending: they moved no balance the doctor's requests could spend.
      if (after === 'control') continue;
      const net = x.fee === undefined ? undefined : centsOf(x.amount) - centsOf(x.fee);
      const what =
        after > 0
          ? `the credit of ${x.merchantOrderNo} (its proceeds wait ${after} ms: balances.proceeds; available or not yet)`
          : `the credit of ${x.merchantOrderNo} (its fee cannot be computed)`;
      if (credited.includes('payout')) move(line(x.merchant, 'payout', x.currency), after > 0 ? undefined : net, what);
      if (credited.includes('refund')) move(line(x.merchant, 'refund', x.currency), after > 0 ? undefined : net, what);
    }
    for (const x of refunds) {
      const l = line(x.merchant, 'refund', x.currency);
      if (x.end === 'given back') continue;
      move(l, x.fee === undefined ? undefined : -(centsOf(x.amount) + centsOf(x.fee)), `the fee of the refund of ${x.of}`);
    }
    const feeHere = this.profile.balances?.payoutFee !== 'elsewhere';
    for (const x of payouts) {
      if (x.amount === undefined || x.currency === undefined) continue;
      const l = line(x.merchant, 'payout', x.currency);
      if (x.end === 'given back') continue;
      const cost = !feeHere ? centsOf(x.amount) : x.fee === undefined ? undefined : centsOf(x.amount) + centsOf(x.fee);
      move(l, cost === undefined ? undefined : -cost, `the fee of the payout ${x.merchantPayoutNo}`);
    }
    for (const x of chargebacks) {
      if (debit !== undefined) {
        const cost = x.amount === undefined || (debit.fee && x.fee === undefined) ? undefined : centsOf(x.amount) + centsOf(x.fee ?? '0');
        move(
          line(x.merchant, debit.from, x.currency ?? 'USD'),
          cost === undefined ? undefined : -cost,
          `the chargeback of ${x.merchantOrderNo}`,
        );
        continue;
      }
      line(x.merchant, 'not stated', x.currency ?? 'USD').line.unknown.push(
        `the chargeback of ${x.merchantOrderNo}${x.amount ? ` (${x.amount} ${x.currency})` : ''}` +
          `: what it takes from a balance is not stated (balances.chargeback)`,
      );
    }
    return [...lines.values()].map(({ line: l, cents }) => ({ ...l, moved: valueOfCents(cents) }));
  }

  private controlDone(name: MoneyControl, numbers: readonly string[]): void {
    const s = this.profile.sandbox;
    const c = s?.[name] as { outcomes?: { success: string; failed: string } } | undefined;
    const outcome = c?.outcomes
      ? numbers.includes(c.outcomes.success)
        ? 'success'
        : numbers.includes(c.outcomes.failed)
          ? 'failed'
          : undefined
      : undefined;
    if ((name === 'completeCheckout' || name === 'completeCard') && outcome === 'success') {
      const paid = this.find(this.paymentBy, numbers);
      if (paid) paid.paid ??= 'completed by sandbox control';
    } else if (name === 'chargeback') {
      const paid = this.find(this.paymentBy, numbers);
      if (paid?.paid) paid.chargedBack = true;
    } else if (name === 'settleRefund' && outcome === 'failed') this.refundGivenBack(this.find(this.refundBy, numbers));
    else if (name === 'settlePayout' && outcome !== undefined)
      this.payoutEnds(this.find(this.payoutBy, numbers), outcome === 'success' ? 'spent' : 'given back');
  }

  private paymentMade(merchant: string, body: unknown, numbers: readonly string[], data: Json, path: string): void {
    const merchantNo = numbers.find((s) => s.startsWith(this.prefix));
    if (merchantNo === undefined) return;
    const p = this.profile;
    const isCard = p.endpoints.cardPayment !== undefined && matchesTemplate(p.endpoints.cardPayment, path);
    const serviceAt = isCard ? p.cardPayment?.data.orderNo : (p.checkout?.data.orderNo ?? 'order_no');
    const service = serviceAt ? pick(data, serviceAt) : undefined;
    const amount = amountIn(body);
    const methods = new Set([...(p.methods?.checkout ?? []), ...(p.methods?.card ? [p.methods.card] : [])]);
    const method = isCard ? (p.methods?.card ?? 'CARD') : stringsIn(body).find((s) => methods.has(s));
    const r: Payment = {
      merchant,
      merchantNo,
      ...(typeof service === 'string' && service !== '' ? { serviceNo: service } : {}),
      ...(method ? { method } : {}),
      ...(amount ? { amount: amount.value, currency: amount.currency } : {}),
      refundedCents: 0n,
      chargedBack: false,
    };
    const status = isCard && p.cardPayment ? pick(data, p.cardPayment.data.status ?? 'status') : undefined;
    if (status === 'SUCCESS') r.paid = 'card payment';
    this.payments.push(r);
    this.remember(this.paymentBy, r, merchantNo, r.serviceNo);
  }

  private payoutMade(merchant: string, body: unknown, numbers: readonly string[], data: Json): void {
    const merchantNo = numbers.find((s) => s.startsWith(this.prefix));
    if (merchantNo === undefined) return;
    const p = this.profile;
    const service = p.payouts ? pick(data, p.payouts.data.payoutNo) : undefined;
    const amount = amountIn(body);
    const method = stringsIn(body).find((s) => p.payouts?.methods?.[s] !== undefined);
    const r: Payout = {
      merchant,
      merchantNo,
      ...(typeof service === 'string' && service !== '' ? { serviceNo: service } : {}),
      ...(method ? { method } : {}),
      ...(amount ? { amount: amount.value, currency: amount.currency } : {}),
      end: 'held',
    };
    this.payouts.push(r);
    this.remember(this.payoutBy, r, merchantNo, r.serviceNo);
    // A payout may be answered already at its end (settled at once).
    this.payoutEnds(r, PAYOUT_ENDS[String(pick(data, p.payouts?.data.status ?? 'status'))]);
  }

  private refundMade(merchant: string, body: unknown, numbers: readonly string[], data: Json): void {
    const paid = this.find(this.paymentBy, numbers);
    const amount = amountIn(body);
    if (!paid || !amount) return;
    const p = this.profile;
    const service = p.refunds ? pick(data, p.refunds.data.refundNo) : undefined;
    const merchantNo = numbers.find((s) => s.startsWith(this.prefix) && s !== paid.merchantNo);
    const r: Refund = {
      merchant,
      of: paid,
      ...(merchantNo ? { merchantNo } : {}),
      ...(typeof service === 'string' && service !== '' ? { serviceNo: service } : {}),
      amount: amount.value,
      end: 'taken',
    };
    paid.refundedCents += centsOf(amount.value);
    this.refunds.push(r);
    this.remember(this.refundBy, r, merchantNo, r.serviceNo);
    if (p.refunds?.data.status !== undefined && pick(data, p.refunds.data.status) === 'FAILED') this.refundGivenBack(r);
  }

  private payoutEnds(r: Payout | undefined, end: MovedPayout['end'] | undefined): void {
    if (r && end && r.end === 'held') r.end = end;
  }

  private refundGivenBack(r: Refund | undefined): void {
    if (r?.end !== 'taken') return;
    r.end = 'given back';
    r.of.refundedCents -= centsOf(r.amount);
  }

  private remember<T>(by: Map<string, T>, r: T, ...numbers: (string | undefined)[]): void {
    for (const n of numbers) if (n !== undefined) by.set(n, r);
  }

  private find<T>(by: ReadonlyMap<string, T>, numbers: readonly string[]): T | undefined {
    for (const n of numbers) {
      const r = by.get(n);
      if (r) return r;
    }
    return undefined;
  }
}

/** A fee as a record shows it: its amount, or that it cannot be computed (its fixed part in another currency). */
function feeField(fee: string | undefined): { fee?: string } {
  return fee === undefined ? {} : { fee };
}

/** Sums of amounts by currency, "70.00 USD, 1.00 EUR"; amounts not read are counted apart. */
export function sumsText(items: readonly { amount?: string; currency?: string }[]): string {
  const by = new Map<string, bigint>();
  let unread = 0;
  for (const i of items) {
    if (i.amount === undefined || i.currency === undefined) unread += 1;
    else by.set(i.currency, (by.get(i.currency) ?? 0n) + centsOf(i.amount));
  }
  const parts = [...by].map(([c, cents]) => `${valueOfCents(cents)} ${c}`);
  if (unread) parts.push(`${unread} of an amount not read`);
  return parts.join(', ') || 'nothing';
}
