/**
 * From one target genome, mechanically: the running reference (its profile's `embedded.readings`,
 * started through harness/run/embedded.ts on port 0) and the true profile (what that target is, in the
 * profile's terms). Nothing here is written for one genome: each reading contributes its own edit of the
 * reference profile, and the reading's own data (paths, names, tiers) is restated from reference/readings/.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { ReadingName, TargetGenome } from '../../fixtures/arbitraries/genome.js';
import { type LoadedProfile, parseProfile } from '../../harness/profile/load.js';
import type { Profile } from '../../harness/profile/types.js';

export const REFERENCE_PROFILE = 'fixtures/profiles/reference.json';

type Edit = (p: Profile, g: ReadonlySet<ReadingName>) => void;

const ALT_TIERS = ['1.00', '2.00', '5.00', '10.00', '20.00', '50.00', '100.00'];

/** What each reading changes in the profile; a reading absent here changes nothing the profile says. */
const EDITS: Partial<Record<ReadingName, Edit>> = {
  'other-endpoint-paths': (p) => {
    Object.assign(p.endpoints, {
      cardPayment: '/api/v1/payments/create',
      refundCreate: '/api/v1/refunds/apply',
      payoutCreate: '/api/v1/payouts/submit',
      payoutQuery: '/api/v1/payouts/detail',
      payoutCancel: '/api/v1/payouts/revoke',
    });
  },
  'other-internal-field-names': (p) => {
    p.internalFieldNames = {
      ...p.internalFieldNames,
      payment_method: 'PayMethod',
      merchant_order_no: 'MchOrderNo',
      trans_amount: 'OrderAmount',
      'trans_amount.value': 'OrderAmount.Value',
      'trans_amount.currency': 'OrderAmount.Currency',
      notify_url: 'NotifyUrl',
      return_url: 'ReturnUrl',
    };
  },
  'unnamed-payment-statuses': (p) => {
    p.checkout!.pendingStatus = 'WAITING_PAYMENT';
  },
  'other-record-field-names': (p) => {
    const names = { orderNo: 'trade_no', status: 'state' };
    p.checkout!.data = { ...p.checkout!.data, ...names };
    Object.assign(p.paymentRecord!, names);
    p.cardPayment!.data = { ...p.cardPayment!.data, ...names };
    p.refunds!.data = { ...p.refunds!.data, refundNo: 'refund_order_no', status: 'refund_status', amount: 'amount' };
    p.payouts!.data = { ...p.payouts!.data, payoutNo: 'payout_order_no', status: 'payout_status' };
  },
  'other-request-field-names': (p) => {
    const refunds = p.refunds!;
    refunds.template = renameKeys(refunds.template, { refund_amount: 'amount', reason: 'refund_reason' });
    refunds.queryBy = { ...refunds.queryBy!, serviceNo: 'refund_order_no' };
    const payouts = p.payouts!;
    payouts.template = renameKeys(payouts.template, { payment_method: 'payout_method', trans_amount: 'amount', payee: 'beneficiary' });
    payouts.queryBy = { ...payouts.queryBy!, serviceNo: 'payout_order_no' };
    payouts.cancelBy = { ...payouts.cancelBy!, serviceNo: 'payout_order_no' };
    const sb = p.sandbox!;
    sb.settleRefund!.template = renameKeys(sb.settleRefund!.template, { refund_no: 'refund_order_no' });
    sb.settlePayout!.template = renameKeys(sb.settlePayout!.template, { payout_no: 'payout_order_no' });
  },
  'google-pay-own-tiers': (p) => {
    p.pricePoints!.tiersByMethod = { GOOGLE_PAY: ALT_TIERS };
  },
  'price-point-nearest-within': (p) => {
    Object.assign(p.pricePoints!, { rounding: 'nearest', maxDistance: '0.50', tie: 'up' });
  },
};

/** Amounts no price-point method charges under the genome's rule and tiers. */
function unroundable(g: ReadonlySet<ReadingName>): string[] {
  if (g.has('price-point-nearest-within')) return ['3.00', '101.50', '250.00'];
  // Rounding up: above the largest tier of every method (Google Pay's own tiers end at 100.00).
  return [g.has('google-pay-own-tiers') ? '100.01' : '100.00', '250.00', '9999.99'];
}

function renameKeys<T>(o: T, names: Readonly<Record<string, string>>): T {
  return Object.fromEntries(Object.entries(o as Record<string, unknown>).map(([k, v]) => [names[k] ?? k, v])) as T;
}

/** The order the reference takes them in: renames after the readings that change values (reference/readings/index.ts). */
export function startOrder(g: TargetGenome): string[] {
  const late = (n: string): number => (n.endsWith('-field-names') ? 1 : 0);
  return [...g.readings].sort((a, b) => late(a) - late(b));
}

export function genomeId(g: TargetGenome): string {
  return createHash('sha256').update(JSON.stringify(g)).digest('hex').slice(0, 10);
}

/** The profile that tells the truth about the target built from the genome. */
export function trueProfile(g: TargetGenome): Profile {
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as Profile & { $schema?: string };
  delete p.$schema;
  const set = new Set(g.readings);
  p.name = `genome-${genomeId(g)}`;
  p.description = `A generated legal target: ${JSON.stringify(g)}`;
  p.embedded = { readings: startOrder(g) };
  for (const r of g.readings) EDITS[r]?.(p, set);
  p.pricePoints!.unroundable = unroundable(set);
  return p;
}

/** The true profile through the kit's own loader (schema, semantics, consistency). */
export function loadTrueProfile(g: TargetGenome): LoadedProfile {
  return parseProfile(JSON.stringify(trueProfile(g)), `genome-${genomeId(g)}.json`);
}
