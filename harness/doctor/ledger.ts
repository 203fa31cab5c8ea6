/**
 * The money the doctor moved on the target, and what it gave back, so that its report says it whole: every payment
 * it paid (a card payment answered SUCCESS, or a checkout or pending card completed as success by a sandbox control)
 * with what it refunded of each, and every payout it made with its end (given back by a cancel or a settlement as
 * failed; spent by a settlement as success; still held).
 *
 * Read from the doctor's own requests, not from its probes' intentions: every request it sends passes `sent` with
 * the operation its tag names, and every sandbox control passes `control` with its name and variables (a control's
 * body is the vendor's, so only its variables say what it did). Numbers are matched by value: the merchant's numbers
 * the doctor created (they start with its prefix) and the service's numbers read at the profile's data paths.
 * An amount is the Amount object of the request (the document fixes its two fields, wherever a template puts it).
 */
import type { Exchange } from '../exchange.js';
import type { Operation } from '../exclusive.js';
import { matchesTemplate } from '../endpoint-path.js';
import { centsOf, tryCentsOf, valueOfCents } from '../money.js';
import type { Profile } from '../profile/types.js';
import type { MoneyMoved, MovedPayment, MovedPayout } from './model.js';
import { pick } from '../ops.js';

type Json = Record<string, unknown>;

interface Entry {
  kind: 'payment' | 'payout';
  merchant: string;
  merchantNo: string;
  serviceNo?: string;
  amount?: string;
  currency?: string;
  paid?: MovedPayment['paidBy'];
  refundedCents: bigint;
  end: MovedPayout['end'];
}

/** The answer's envelope when it accepted the request (code 0). */
function acceptedAnswer(ex: Exchange): Json | undefined {
  const res = ex.response?.json;
  return res && typeof res === 'object' && (res as Json)['code'] === 0 ? (res as Json) : undefined;
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

export class Ledger {
  private readonly records: Entry[] = [];
  private readonly byNumber = new Map<string, Entry>();

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
    if (!res) return;
    const body = jsonOf(ex.request.body);
    const data = (res['data'] ?? {}) as Json;
    const path = this.pathOf(ex.request.url);
    if (operation === 'payment.create') this.created('payment', merchant, body, data, path);
    else if (operation === 'payout.create') this.created('payout', merchant, body, data, path);
    else if (operation === 'refund.create') {
      const paid = this.find([...stringsIn(body), ...path.split('/')], 'payment');
      const amount = amountIn(body);
      if (paid && amount) paid.refundedCents += centsOf(amount.value);
    } else if (operation === 'payout.cancel') {
      const payout = this.find([...stringsIn(body), ...path.split('/')], 'payout');
      if (payout) payout.end = 'given back';
    }
  }

  /** A sandbox control the doctor sent, by name, with the variables its template was filled with. */
  control(name: string, vars: Json, ex: Exchange): void {
    if (!acceptedAnswer(ex)) return;
    const s = this.profile.sandbox;
    const numbers = Object.values(vars).filter((v): v is string => typeof v === 'string');
    if ((name === 'completeCheckout' || name === 'completeCard') && vars['outcome'] === s?.[name]?.outcomes.success) {
      const paid = this.find(numbers, 'payment');
      if (paid) paid.paid ??= 'completed by sandbox control';
    } else if (name === 'settlePayout' && s?.settlePayout) {
      const payout = this.find(numbers, 'payout');
      if (payout && payout.end === 'held') payout.end = vars['outcome'] === s.settlePayout.outcomes.success ? 'spent' : 'given back';
    }
  }

  moved(): MoneyMoved {
    const payments = this.records
      .filter((r) => r.kind === 'payment' && r.paid)
      .map(
        (r): MovedPayment => ({
          merchant: r.merchant,
          merchantOrderNo: r.merchantNo,
          ...(r.serviceNo ? { orderNo: r.serviceNo } : {}),
          ...(r.amount ? { amount: r.amount, currency: r.currency } : {}),
          paidBy: r.paid!,
          refunded: valueOfCents(r.refundedCents),
        }),
      );
    const payouts = this.records
      .filter((r) => r.kind === 'payout')
      .map(
        (r): MovedPayout => ({
          merchant: r.merchant,
          merchantPayoutNo: r.merchantNo,
          ...(r.serviceNo ? { payoutNo: r.serviceNo } : {}),
          ...(r.amount ? { amount: r.amount, currency: r.currency } : {}),
          end: r.end,
        }),
      );
    return { payments, payouts };
  }

  private created(kind: Entry['kind'], merchant: string, body: unknown, data: Json, path: string): void {
    const merchantNo = stringsIn(body).find((s) => s.startsWith(this.prefix));
    if (merchantNo === undefined) return;
    const p = this.profile;
    const isCard = p.endpoints.cardPayment !== undefined && matchesTemplate(p.endpoints.cardPayment, path);
    const serviceAt =
      kind === 'payout' ? p.payouts?.data.payoutNo : isCard ? p.cardPayment?.data.orderNo : (p.checkout?.data.orderNo ?? 'order_no');
    const service = serviceAt ? pick(data, serviceAt) : undefined;
    const amount = amountIn(body);
    const r: Entry = {
      kind,
      merchant,
      merchantNo,
      ...(typeof service === 'string' && service !== '' ? { serviceNo: service } : {}),
      ...(amount ? { amount: amount.value, currency: amount.currency } : {}),
      refundedCents: 0n,
      end: 'held',
    };
    const status = isCard && p.cardPayment ? pick(data, p.cardPayment.data.status ?? 'status') : undefined;
    if (kind === 'payment' && status === 'SUCCESS') r.paid = 'card payment';
    this.records.push(r);
    this.byNumber.set(`${kind} ${merchantNo}`, r);
    if (r.serviceNo) this.byNumber.set(`${kind} ${r.serviceNo}`, r);
  }

  private find(numbers: readonly string[], kind: Entry['kind']): Entry | undefined {
    for (const n of numbers) {
      const r = this.byNumber.get(`${kind} ${n}`);
      if (r) return r;
    }
    return undefined;
  }
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
