/**
 * From one target genome, mechanically: the running reference (its profile's `embedded.readings`,
 * started through harness/run/embedded.ts on port 0) and the true profile (what that target is, in the
 * profile's terms). Nothing here is written for one genome: each reading contributes its own edit of the
 * reference profile, and the reading's own data (paths, names, tiers) is restated from reference/readings/.
 */
import { editMoneyAndTime, moneyAndTimeDescription } from './genes/money-and-time.js';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { valueOfCents } from '../../harness/facts/money.js';
import {
  ARMED_FAILURES,
  type BalanceGene,
  type ChannelGene,
  type FeeGene,
  CONTROL_LEAVES,
  type ControlName,
  MERCHANT_NUMBER_FIELDS,
  ONE_VALUE_SWITCHES,
  OUTCOME_PAIRS,
  type SandboxGene,
  TWO_VALUE_SWITCHES,
  MERCHANT_ROLES,
  OWN_CHANNEL_ROLES,
  type MerchantRole,
  type PayeeField,
  PAYOUT_METHODS,
  PRICE_POINT_METHODS,
  type PricePointMethod,
  RANGE_METHODS,
  type ReadingName,
  type TargetGenes,
  type TargetGenome,
  templatedPaths,
} from '../../fixtures/arbitraries/genome.js';
import { type LoadedProfile, parseProfile } from '../../harness/profile/load.js';
import type { ChannelLimits, FeeModel, PayoutLimitsOverlay, Profile } from '../../harness/profile/types.js';
import type { TargetDescription } from '../../reference/index.js';
import { editShapes, withShapes } from './genes/shapes.js';
import { describeMethods, editMethods } from './genes/methods.js';
import { editRequestShape, requestShapeDescription } from './genes/request-shape.js';
import { editOwnFees, ownFeesDescription } from './genes/fees.js';
import { editTriggers, triggersDescription } from './genes/triggers.js';

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
  'refunds-created-pending': (p) => {
    const created = p.refunds!.createdStatus;
    if (created) p.refunds!.createdStatus = Object.fromEntries(Object.keys(created).map((m) => [m, 'PENDING' as const]));
  },
  'google-pay-own-tiers': (p) => {
    p.pricePoints!.tiersByMethod = { GOOGLE_PAY: ALT_TIERS };
  },
  'price-point-nearest-within': (p) => {
    Object.assign(p.pricePoints!, { rounding: 'nearest', maxDistance: '0.50', tie: 'up' });
  },
};

/** Amounts no price-point method charges under the genome's rule and tiers. */
function unroundable(g: ReadonlySet<ReadingName>, methods: readonly string[]): string[] {
  if (g.has('price-point-nearest-within')) return ['3.00', '101.50', '250.00'];
  // Rounding up: above the largest tier of every method (Google Pay's own tiers end at 100.00).
  return [g.has('google-pay-own-tiers') && methods.includes('GOOGLE_PAY') ? '100.01' : '100.00', '250.00', '9999.99'];
}

/** One price-point method as charged: its tiers in cents and its rounding (up, or the nearest within so many cents). */
export interface ChargedRule {
  readonly tiers: readonly number[];
  readonly nearestWithinCents?: number;
}

/**
 * Amounts no price-point method charges, from each method's tiers and rounding: above every tier of a method that
 * rounds up, farther than its distance from every tier of a method that rounds to the nearest.
 */
export function unroundableOf(methods: readonly ChargedRule[]): string[] {
  const all = [...new Set(methods.flatMap((m) => m.tiers))].sort((a, b) => a - b);
  const top = all[all.length - 1]!;
  const refusedBy = (c: number, m: ChargedRule) =>
    m.nearestWithinCents === undefined ? c > Math.max(...m.tiers) : m.tiers.every((t) => Math.abs(t - c) > m.nearestWithinCents!);
  const refused = (c: number) => methods.every((m) => refusedBy(c, m));
  const gaps = all.slice(1).map((t, i) => Math.floor((t + all[i]!) / 2));
  const picked = [...gaps.filter(refused).slice(0, 1), top + 1, top + 150, top + 15_001, 999_999].filter(refused);
  // The reference profile's own three (rounding up everywhere): just above the top tier, 250.00 and 9999.99.
  const up = methods.every((m) => m.nearestWithinCents === undefined);
  return (up ? [top + 1, top + 15_001, 999_999] : picked.slice(0, 3)).map((c) => valueOfCents(c));
}

/** The rule a price-point method charges by on the genome's target: the reading's, else its own drawn one. */
function ruleCharged(t: TargetGenes, method: PricePointMethod, readings: ReadonlySet<ReadingName>): ChargedRule {
  const tiers = tiersCharged(t, method, readings);
  if (readings.has('price-point-nearest-within')) return { tiers, nearestWithinCents: NEAREST_WITHIN_CENTS };
  const own = t.roundingByMethod?.[method]?.nearestWithinCents;
  return own === undefined ? { tiers } : { tiers, nearestWithinCents: own };
}

/** A charged rule as the profile says it (`rounding`, `maxDistance`, `tie` of pricePoints or of ruleByMethod). */
function profileRule(r: ChargedRule): { rounding: 'up' | 'nearest'; maxDistance?: string; tie?: 'up' } {
  return r.nearestWithinCents === undefined
    ? { rounding: 'up' }
    : { rounding: 'nearest', maxDistance: valueOfCents(r.nearestWithinCents), tie: 'up' };
}

/** reference/readings/amounts.ts PRICE_POINT_MAX_DISTANCE_CENTS. */
const NEAREST_WITHIN_CENTS = 50;

/** The reference's price points (reference/methods.ts TIERS), for the price-point methods a genome enables. */
const REFERENCE_TIERS_CENTS = [99, 199, 499, 999, 1999, 4999, 9999];
/** Google Pay's own tiers under `google-pay-own-tiers` (reference/readings/amounts.ts), whatever the genome draws. */
const ALT_TIERS_CENTS = [100, 200, 500, 1000, 2000, 5000, 10000];

/** The tiers a price-point method charges on the genome's target: its drawn ones, unless a reading replaces them. */
function tiersCharged(t: TargetGenes, method: PricePointMethod, readings: ReadonlySet<ReadingName>): readonly number[] {
  if (method === 'GOOGLE_PAY' && readings.has('google-pay-own-tiers')) return ALT_TIERS_CENTS;
  return t.tiersCents?.[method] ?? REFERENCE_TIERS_CENTS;
}
/** A payee's fields as the reference profile fills them. */
const PAYEE_SAMPLE: Readonly<Record<PayeeField, string>> = {
  name: 'Grace Hopper',
  account: 'US00BANK0000000001',
  email: 'grace@merchant.invalid',
};

type MerchantEntry = NonNullable<TargetDescription['merchants']>[number];
/** reference/fixtures.ts: the merchant of each role, as a target description names it. */
const FIXTURE_IDS: Readonly<Record<MerchantRole, string>> = {
  primary: 'M100001',
  second: 'M100002',
  lowBalance: 'M100003',
  frozen: 'M100009',
};

/** KLARNA's one channel where a genome gives it to the second merchant only. */
const SECOND_ONLY_CHANNEL: ChannelGene = { minCents: 100, maxCents: 100_000 };

/** The methods every merchant without a list of its own has, in the profile's order (the first is the checks' default). */
export function enabledMethods(t: TargetGenes): string[] {
  return ['PAYPAL', 'CASH_APP', 'CARD', 'APPLE_PAY', 'GOOGLE_PAY'].filter(
    (m) => m === 'CARD' || (t.methods as readonly string[]).includes(m),
  );
}

/** What the reference is given to be the genome's target (reference/sandbox-data.ts), beside its readings. */
export function targetDescription(t: TargetGenes): TargetDescription {
  const enabled = enabledMethods(t);
  const ranged = (m: (typeof RANGE_METHODS)[number]) => ({
    ranges: t.channels[m],
    refunds: t.refunds[m].support,
    refundSettlesImmediately: t.refunds[m].createdSuccess,
  });
  const tiers = (m: PricePointMethod) => ({
    tiersCents: t.tiersCents?.[m] ?? REFERENCE_TIERS_CENTS,
    ...(t.roundingByMethod?.[m]?.nearestWithinCents !== undefined
      ? { rounding: { mode: 'nearest' as const, maxDistanceCents: t.roundingByMethod[m].nearestWithinCents } }
      : {}),
    refunds: 'none' as const,
    refundSettlesImmediately: false,
  });
  const balances = (b: BalanceGene) => ({ payoutBalancesCents: { USD: b.usdCents, EUR: b.eurCents } });
  const entries: Record<MerchantRole, Omit<MerchantEntry, 'id'>> = {
    primary: { name: t.primaryName, login: t.primaryLogin },
    second: {
      ...(t.secondOnly ? { paymentMethods: [...enabled, 'VENMO', t.secondOnly] } : {}),
      ...(t.secondBalance ? balances(t.secondBalance) : {}),
      ...ownPayoutChannels(t, 'second'),
      ...ownFeesDescription(t.merchantFees, 'second'),
    },
    lowBalance: {
      payoutBalancesCents: { USD: t.lowBalance.usdCents, EUR: t.lowBalance.eurCents },
      refundCoverCents: t.lowBalance.refundCoverCents,
      paymentMethods: [...t.lowBalance.paymentMethods, 'VENMO'],
      payoutMethods: t.lowBalance.payoutMethods,
      ...ownPayoutChannels(t, 'lowBalance'),
      ...ownFeesDescription(t.merchantFees, 'lowBalance'),
    },
    frozen: t.frozenBalance ? balances(t.frozenBalance) : {},
  };
  const keysOf = (role: MerchantRole): Omit<MerchantEntry, 'id'> => {
    const k = t.keys?.[role];
    if (!k) return {};
    return { assignedId: k.id, secret: k.secret, ...(k.productionSecret !== undefined ? { productionSecret: k.productionSecret } : {}) };
  };
  return withShapes(
    t,
    describeMethods(
      {
        merchants: MERCHANT_ROLES.map((role) => ({ id: FIXTURE_IDS[role], ...entries[role], ...keysOf(role) })).filter(
          (e) => Object.keys(e).length > 1,
        ),
        paymentMethods: [...enabled, 'VENMO'],
        noChannelMethods: ['VENMO'],
        paymentChannels: {
          CARD: ranged('CARD'),
          PAYPAL: ranged('PAYPAL'),
          CASH_APP: ranged('CASH_APP'),
          APPLE_PAY: tiers('APPLE_PAY'),
          GOOGLE_PAY: tiers('GOOGLE_PAY'),
          KLARNA: { ranges: [SECOND_ONLY_CHANNEL], refunds: 'none', refundSettlesImmediately: false },
        },
        payoutChannels: Object.fromEntries(
          PAYOUT_METHODS.map((m) => {
            const o = t.payouts[m];
            // A range in EUR only where the method takes EUR (a varied rule may make a method USD-only under a drawn range).
            const eur = o.usdOnly ? undefined : t.money?.eurRanges[m];
            return [
              m,
              {
                currencies: o.usdOnly ? ['USD'] : ['USD', 'EUR'],
                minCents: o.minCents,
                maxCents: o.maxCents,
                cancelable: o.cancelable,
                ...(eur ? { byCurrency: { EUR: eur } } : {}),
              },
            ];
          }),
        ),
        declineCards: t.declineCards,
        ...(t.retryWaitsMs ? { retryWaitsMs: t.retryWaitsMs } : {}),
        ...(t.payeeFields ? { payeeFields: t.payeeFields } : {}),
        ...(t.sandbox || t.triggers ? { sandbox: triggersDescription(t.triggers, t.sandbox && sandboxDescription(t.sandbox)) } : {}),
        ...moneyDescription(t),
        ...(t.paths ? { apiPaths: apiPathsOf(t) } : {}),
        ...(t.cardPendingStatus ? { cardPendingStatus: t.cardPendingStatus } : {}),
        ...requestShapeDescription(t),
        ...moneyAndTimeDescription(t),
      },
      t,
    ),
  );
}

/** A merchant's own payout channels (version 5 genes): each part laid over every merchant's channel of the method. */
function ownPayoutChannels(t: TargetGenes, role: (typeof OWN_CHANNEL_ROLES)[number]): Pick<MerchantEntry, 'payoutChannels'> {
  const own = t.merchantPayouts?.[role];
  if (!own) return {};
  return { payoutChannels: Object.fromEntries(Object.entries(own).map(([m, g]) => [m, { ...g }])) };
}

/**
 * The profile's facts of a merchant's own payout channels (version 5: merchants.<role>.facts): its range laid over the
 * method's, its currencies, and no EUR range where it takes no EUR.
 */
function editOwnPayouts(p: Profile, t: TargetGenes): void {
  for (const role of OWN_CHANNEL_ROLES) {
    const own = t.merchantPayouts?.[role];
    const ref = p.merchants[role];
    // The reference profile's own facts are its genes' (REFERENCE_GENES): a genome says its own.
    if (ref) delete ref.facts;
    if (!own || !ref) continue;
    const limits: Record<string, PayoutLimitsOverlay> = {};
    const methods: Record<string, { currencies: string[] }> = {};
    for (const [m, g] of Object.entries(own)) {
      const range = {
        ...(g.minCents !== undefined ? { min: valueOfCents(g.minCents) } : {}),
        ...(g.maxCents !== undefined ? { max: valueOfCents(g.maxCents) } : {}),
      };
      const dropEur = g.currencies && !g.currencies.includes('EUR') && p.limits?.payouts?.[m]?.byCurrency?.['EUR'];
      if (Object.keys(range).length > 0 || dropEur) limits[m] = { ...range, ...(dropEur ? { byCurrency: { EUR: null } } : {}) };
      if (g.currencies) methods[m] = { currencies: [...g.currencies] };
    }
    ref.facts = {
      ...(Object.keys(limits).length > 0 ? { limits: { payouts: limits } } : {}),
      ...(Object.keys(methods).length > 0 ? { payouts: { methods } } : {}),
    };
  }
}

/** What the reference is given for the gene's fees, credits and EUR ranges (reference/sandbox-data.ts). */
function moneyDescription(t: TargetGenes): Pick<TargetDescription, 'fees' | 'paymentsCredit'> {
  const g = t.money;
  if (!g) return {};
  const every = (f: FeeGene | undefined, methods: readonly string[]) => (f ? Object.fromEntries(methods.map((m) => [m, f])) : undefined);
  const paid = [...enabledMethods(t), ...(t.secondOnly ? [t.secondOnly] : [])];
  const refunds = every(g.refundFee, paid);
  const payments = every(g.paymentFee, paid);
  return {
    fees: { payouts: { ...g.payoutFees }, ...(payments ? { payments } : {}), ...(refunds ? { refunds } : {}) },
    ...(g.paymentsCredit.length > 0 ? { paymentsCredit: [...g.paymentsCredit] } : {}),
  };
}

/** A fee as the profile writes it: the fixed part with two decimals, the percentage as a decimal ("2.9"). */
function feeModel(f: FeeGene): FeeModel {
  const whole = Math.floor(f.percentMillionths / 10_000);
  const frac = String(f.percentMillionths % 10_000)
    .padStart(4, '0')
    .replace(/0+$/, '');
  return {
    ...(f.fixedCents > 0 || f.percentMillionths === 0 ? { fixed: valueOfCents(f.fixedCents) } : {}),
    ...(f.percentMillionths > 0 ? { percent: frac ? `${whole}.${frac}` : `${whole}` } : {}),
    rounding: 'halfUp',
    ...(f.minCents !== undefined ? { min: valueOfCents(f.minCents) } : {}),
    ...(f.maxCents !== undefined ? { max: valueOfCents(f.maxCents) } : {}),
  };
}

/** The profile's fees, balances and EUR ranges for the gene (version 4); none of them when the gene has none. */
function editMoney(p: Profile, t: TargetGenes): void {
  delete p.fees;
  delete p.balances;
  const g = t.money;
  if (!g) return;
  const payouts = Object.fromEntries(Object.entries(g.payoutFees).map(([m, f]) => [m, feeModel(f)]));
  p.fees = {
    ...(Object.keys(payouts).length > 0 ? { payouts } : {}),
    ...(g.paymentFee ? { payments: { '*': feeModel(g.paymentFee) } } : {}),
    ...(g.refundFee ? { refunds: { '*': feeModel(g.refundFee) } } : {}),
  };
  if (Object.keys(p.fees).length === 0) delete p.fees;
  if (g.paymentsCredit.length > 0) p.balances = { paymentsCredit: [...g.paymentsCredit] };
  for (const [m, r] of Object.entries(g.eurRanges)) {
    if (t.payouts[m as keyof typeof t.payouts]?.usdOnly) continue;
    const lim = p.limits!.payouts![m]!;
    lim.byCurrency = { EUR: { min: valueOfCents(r.minCents), max: valueOfCents(r.maxCents) } };
  }
}

/** The reference's route of each endpoint a gene may template (reference/api-paths.ts API_ROUTES). */
const API_ROUTE_OF = {
  refundCreate: '/api/v1/refunds/create',
  refundQuery: '/api/v1/refunds/query',
  payoutQuery: '/api/v1/payouts/query',
  payoutCancel: '/api/v1/payouts/cancel',
} as const;

/** Where the gene's target serves its templated endpoints, by the reference's route. */
function apiPathsOf(t: TargetGenes): NonNullable<TargetDescription['apiPaths']> {
  return Object.fromEntries(
    Object.entries(templatedPaths(t.paths!)).map(([name, path]) => [API_ROUTE_OF[name as keyof typeof API_ROUTE_OF], path]),
  );
}

/** Version 4: the gene's paths with numbers in them, the card's own pending status, refund support said per merchant. */
function editVersion4(p: Profile, t: TargetGenes): void {
  const paths = t.paths ? templatedPaths(t.paths) : {};
  const v4 = Object.keys(paths).length > 0 || Boolean(t.cardPendingStatus) || (Boolean(t.refundsByMerchant) && t.secondOnly !== null);
  if (!v4) return;
  p.profileVersion = 4;
  Object.assign(p.endpoints, paths);
  // A refund under its payment's path names the payment there: the body no longer carries either of its numbers.
  if (paths.refundCreate) {
    const r = p.refunds!;
    const payment = new Set([`\${merchantOrderNo}`, `\${orderNo}`]);
    r.template = Object.fromEntries(Object.entries(r.template).filter(([, v]) => typeof v !== 'string' || !payment.has(v)));
  }
  if (t.cardPendingStatus) p.cardPayment!.pendingStatus = t.cardPendingStatus;
  if (t.refundsByMerchant && t.secondOnly) {
    delete p.refunds!.support[t.secondOnly];
    p.refunds!.supportByMerchant = { second: { [t.secondOnly]: 'none' } };
  }
}

/** The reference's route of each control (reference/sandbox-shape.ts SANDBOX_ROUTES), by the profile's name. */
const CONTROL_ROUTES: Readonly<Record<ControlName, string>> = Object.fromEntries(
  Object.entries(CONTROL_LEAVES.reference).map(([name, leaf]) => [name, `/sandbox/v1/${leaf}`]),
) as Record<ControlName, string>;

/** The path of a control on the gene's target. */
function controlPath(g: SandboxGene, name: ControlName): string {
  return `${g.prefix}/${CONTROL_LEAVES[g.leaves][name]}`;
}

/** The profile's name of each failure the switch arms, in ARMED_FAILURES order. */
const FAILURE_KINDS = ['queryFailed', 'orderCreationFailed', 'refundSystemBusy', 'refundFailed'] as const;

/** Each failure's body values on the gene's switch (the target's field names), in ARMED_FAILURES order. */
function switchValues(g: SandboxGene): Record<string, string>[] {
  if (g.armSwitch.form === 'one-value') {
    const sw = ONE_VALUE_SWITCHES[g.armSwitch.index]!;
    return sw.values.map((v) => ({ [sw.field]: v }));
  }
  const sw = TWO_VALUE_SWITCHES[g.armSwitch.index]!;
  return sw.values.map(([a, b]) => ({ [sw.fields[0]]: a, [sw.fields[1]]: b }));
}

/** What the reference is given to be the gene's sandbox (reference/sandbox-shape.ts). */
function sandboxDescription(g: SandboxGene): NonNullable<TargetDescription['sandbox']> {
  const paths = Object.fromEntries(
    (Object.keys(CONTROL_ROUTES) as ControlName[])
      .map((name) => [CONTROL_ROUTES[name], controlPath(g, name)] as const)
      .filter(([route, path]) => route !== path),
  );
  const [success, failed] = OUTCOME_PAIRS[g.outcomes]!;
  const values = switchValues(g);
  return {
    paths,
    fieldNames: Object.fromEntries(
      [
        [g.orderField, MERCHANT_NUMBER_FIELDS.has(g.orderField) ? 'merchant_order_no' : 'order_no'],
        ...(g.refundField ? [[g.refundField, MERCHANT_NUMBER_FIELDS.has(g.refundField) ? 'merchant_refund_no' : 'refund_no']] : []),
        ...(g.payoutField ? [[g.payoutField, MERCHANT_NUMBER_FIELDS.has(g.payoutField) ? 'merchant_payout_no' : 'payout_no']] : []),
        [g.outcomeField, 'outcome'],
      ].filter(([theirs, ours]) => theirs !== ours),
    ),
    outcomes: { success, failed },
    armFailure: {
      values: Object.fromEntries(ARMED_FAILURES.map((f, i) => [f, values[i]!])) as Record<
        (typeof ARMED_FAILURES)[number],
        Record<string, string>
      >,
      refundSubject: g.refundSubject,
      ...(g.subjectField !== null ? { subjectField: g.subjectField } : {}),
    },
    ...(g.armReach !== undefined ? { armReach: g.armReach } : {}),
    ...(g.armCount !== undefined ? { armCount: g.armCount } : {}),
    ...(g.vendorAnswers ? { answers: 'vendor' as const } : {}),
  };
}

/** The narrowest scope the profile can truly say of the gene's switch (sandbox.armFailure.scope). */
const SCOPE_OF_REACH = { subject: 'subject', 'merchant-operation': 'operation', operation: 'target' } as const;

/** The profile's sandbox section for the gene: every control at its path, with its field names and values. */
function editSandbox(p: Profile, g: SandboxGene): void {
  const sb = p.sandbox!;
  // A profile template's variable, "${name}" (harness/profile/template.ts).
  const v = (name: string) => `\${${name}}`;
  const [success, failed] = OUTCOME_PAIRS[g.outcomes]!;
  const outcomes = { success, failed };
  const order = { [g.orderField]: v(MERCHANT_NUMBER_FIELDS.has(g.orderField) ? 'merchantOrderNo' : 'orderNo') };
  const withOutcome = (template: Record<string, unknown>) => renameKeys(template, { outcome: g.outcomeField });
  sb.completeCheckout = { path: controlPath(g, 'completeCheckout'), template: { ...order, [g.outcomeField]: v('outcome') }, outcomes };
  sb.completeCard = { path: controlPath(g, 'completeCard'), template: { ...order, [g.outcomeField]: v('outcome') }, outcomes };
  sb.chargeback = { path: controlPath(g, 'chargeback'), template: order };
  sb.expireCheckout = { path: controlPath(g, 'expireCheckout'), template: order };
  // The refund and payout controls name their record by the gene's field (absent: the one the readings give them).
  const record = (template: Record<string, unknown>, field: string | undefined, service: string, merchant: string) => {
    if (field === undefined) return withOutcome(template);
    const rest = Object.entries(withOutcome(template)).filter(([, x]) => x !== v(service) && x !== v(merchant));
    return { [field]: v(MERCHANT_NUMBER_FIELDS.has(field) ? merchant : service), ...Object.fromEntries(rest) };
  };
  sb.settleRefund = {
    ...sb.settleRefund!,
    path: controlPath(g, 'settleRefund'),
    template: record(sb.settleRefund!.template, g.refundField, 'refundNo', 'merchantRefundNo'),
    outcomes,
  };
  sb.settlePayout = {
    ...sb.settlePayout!,
    path: controlPath(g, 'settlePayout'),
    template: record(sb.settlePayout!.template, g.payoutField, 'payoutNo', 'merchantPayoutNo'),
    outcomes,
  };

  const values = switchValues(g);
  const one = g.armSwitch.form === 'one-value' ? ONE_VALUE_SWITCHES[g.armSwitch.index]! : undefined;
  const valueTemplate = one ? { [one.field]: v('failure') } : Object.fromEntries(Object.keys(values[0]!).map((field) => [field, v(field)]));
  const subjectTemplate =
    g.subjectField !== null
      ? { [g.subjectField]: v('subject') }
      : {
          merchant_order_no: v('merchantOrderNo'),
          ...(g.refundSubject === 'merchantRefundNo' ? { merchant_refund_no: v('merchantRefundNo') } : {}),
        };
  sb.armFailure = {
    path: controlPath(g, 'armFailure'),
    template: { ...valueTemplate, ...subjectTemplate },
    ...(g.refundSubject === 'merchantRefundNo' ? { refundSubject: 'merchantRefundNo' as const } : {}),
    failures: Object.fromEntries(FAILURE_KINDS.map((k, i) => [k, one ? one.values[i]! : values[i]!])),
  };
  // Version 4: the switch's scope and count (the default, every request to the target, is true of any switch).
  if (g.declareScope) sb.armFailure.scope = SCOPE_OF_REACH[g.armReach ?? 'subject'];
  if ((g.armCount ?? 1) > 1) sb.armFailure.count = g.armCount;
  if (sb.armFailure.scope !== undefined || sb.armFailure.count !== undefined) p.profileVersion = 4;
}

/** Channels as the profile (version 3) says them: each one, ascending by minimum, overlapping or leaving gaps. */
export function limitsOf(channels: readonly ChannelGene[]): ChannelLimits {
  const sorted = [...channels].sort((a, b) => a.minCents - b.minCents);
  const range = (c: ChannelGene) => ({ min: valueOfCents(c.minCents), max: valueOfCents(c.maxCents) });
  const all = range({ minCents: sorted[0]!.minCents, maxCents: Math.max(...sorted.map((c) => c.maxCents)) });
  return sorted.length > 1 ? { ...all, channels: sorted.map(range) } : all;
}

/** The profile's edits for the genome's accounts and channels (version 3 says every one of them). */
function editTarget(p: Profile, t: TargetGenes, readings: ReadonlySet<ReadingName>): void {
  const enabled = enabledMethods(t);
  p.methods.checkout = enabled;
  const pricePoint = PRICE_POINT_METHODS.filter((m) => enabled.includes(m));
  if (pricePoint.length > 0) {
    p.methods.pricePoint = [...pricePoint];
    // The shared tiers are the first method's; a method charging others says its own.
    const charged = pricePoint.map((m) => [m, tiersCharged(t, m, readings).map((c) => valueOfCents(c))] as const);
    const shared = charged[0]![1];
    const pp = p.pricePoints!;
    pp.tiers = [...shared];
    const own = charged.filter(([, tiers]) => tiers.join() !== shared.join());
    if (own.length > 0) pp.tiersByMethod = Object.fromEntries(own.map(([m, tiers]) => [m, [...tiers]]));
    else delete pp.tiersByMethod;
    // The shared rule is the first method's too; a method rounding otherwise says its own (version 3).
    const rules = pricePoint.map((m) => [m, profileRule(ruleCharged(t, m, readings))] as const);
    const sharedRule = rules[0]![1];
    delete pp.maxDistance;
    delete pp.tie;
    Object.assign(pp, sharedRule);
    const ownRules = rules.filter(([, r]) => JSON.stringify(r) !== JSON.stringify(sharedRule));
    if (ownRules.length > 0) pp.ruleByMethod = Object.fromEntries(ownRules.map(([m, r]) => [m, r]));
    else delete pp.ruleByMethod;
    pp.unroundable = unroundableOf(pricePoint.map((m) => ruleCharged(t, m, readings)));
  } else {
    delete p.methods.pricePoint;
    delete p.pricePoints;
  }
  const extras = p.checkout!.extrasByMethod;
  if (extras) {
    const kept = Object.entries(extras).filter(([m]) => enabled.includes(m));
    if (kept.length > 0) p.checkout!.extrasByMethod = Object.fromEntries(kept);
    else delete p.checkout!.extrasByMethod;
  }
  p.limits!.payments = Object.fromEntries(RANGE_METHODS.filter((m) => enabled.includes(m)).map((m) => [m, limitsOf(t.channels[m])]));
  const support = { partial: 'partial', 'full-only': 'full', none: 'none' } as const;
  p.refunds!.support = Object.fromEntries(
    enabled.map((m) => [
      m,
      (RANGE_METHODS as readonly string[]).includes(m) ? support[t.refunds[m as (typeof RANGE_METHODS)[number]].support] : 'none',
    ]),
  );
  const payouts = p.payouts!;
  payouts.methods = Object.fromEntries(
    PAYOUT_METHODS.map((m) => [m, { ...payouts.methods[m]!, cancel: t.payouts[m].cancelable, usdOnly: t.payouts[m].usdOnly }]),
  );
  if (t.payeeFields)
    for (const m of PAYOUT_METHODS) payouts.methods[m]!.payee = Object.fromEntries(t.payeeFields[m].map((f) => [f, PAYEE_SAMPLE[f]]));
  p.limits!.payouts = Object.fromEntries(
    PAYOUT_METHODS.map((m) => [m, { min: valueOfCents(t.payouts[m].minCents), max: valueOfCents(t.payouts[m].maxCents) }]),
  );
  const low = p.merchants.lowBalance!;
  Object.assign(low, {
    payoutBalance: valueOfCents(t.lowBalance.usdCents),
    payoutBalances: { EUR: valueOfCents(t.lowBalance.eurCents) },
    refundBalance: valueOfCents(t.lowBalance.refundCoverCents),
    paymentMethods: [...t.lowBalance.paymentMethods],
    payoutMethods: [...t.lowBalance.payoutMethods],
  });
  for (const role of MERCHANT_ROLES) {
    const k = t.keys?.[role];
    const m = p.merchants[role];
    if (!k || !m) continue;
    Object.assign(m, { id: k.id, secret: k.secret });
    if (k.productionSecret !== undefined) m.productionSecret = k.productionSecret;
    else delete m.productionSecret;
  }
  if (t.secondBalance) p.merchants.second!.payoutBalances = balanceEntries(t.secondBalance);
  if (t.frozenBalance) p.merchants.frozen!.payoutBalances = balanceEntries(t.frozenBalance);
  const cards = p.cardPayment!.cards;
  cards.decline = { ...cards.decline!, card_number: t.declineCards[0]! };
  // Version 3 from here: what a version-2 profile cannot say; version 4 when the target has fees or moving balances.
  editMoney(p, t);
  editOwnPayouts(p, t);
  p.profileVersion = p.fees || p.balances || Object.values(p.limits!.payouts!).some((l) => l.byCurrency) ? 4 : 3;
  if (t.declineCards.length > 1) p.cardPayment!.declines = t.declineCards.slice(1).map((n) => ({ ...cards.decline!, card_number: n }));
  else delete p.cardPayment!.declines;
  Object.assign(p.merchants.primary, { name: t.primaryName, login: t.primaryLogin });
  if (t.sandbox) editSandbox(p, t.sandbox);
  // Refunds of a method are created as its channel settles them, unless the reading creates every refund PENDING.
  p.refunds!.createdStatus = Object.fromEntries(
    RANGE_METHODS.filter((m) => enabled.includes(m) && t.refunds[m].support !== 'none').map((m) => [
      m,
      t.refunds[m].createdSuccess && !readings.has('refunds-created-pending') ? 'SUCCESS' : 'PENDING',
    ]),
  );
  if (t.noChannelListed) {
    p.merchants.primary.paymentMethods = [...enabled, 'VENMO'];
    low.paymentMethods = [...low.paymentMethods!, 'VENMO'];
  }
  if (t.secondOnly) {
    p.merchants.second!.paymentMethods = [...enabled, t.secondOnly];
    p.limits!.payments![t.secondOnly] = limitsOf([SECOND_ONLY_CHANNEL]);
    p.refunds!.support[t.secondOnly] = 'none';
  }
  editVersion4(p, t);
  editRequestShape(p, t);
  editTriggers(p, t.triggers);
  editOwnFees(p, t.merchantFees, feeModel);
  // Version 5: a merchant's own facts, a fee's bounds.
  const feeBounds = Object.values(p.fees ?? {}).some((table) => Object.values(table ?? {}).some((f) => f.min || f.max));
  if (feeBounds || OWN_CHANNEL_ROLES.some((r) => p.merchants[r]?.facts)) p.profileVersion = 5;
  editShapes(p, t);
  // Version 5: method names of the target's own, fields required per method, the method not for payouts, own payment ranges.
  editMethods(p, t);
  editMoneyAndTime(p, t);
}

function balanceEntries(b: BalanceGene): Record<string, string> {
  return { USD: valueOfCents(b.usdCents), EUR: valueOfCents(b.eurCents) };
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
  p.embedded = { readings: startOrder(g), ...(g.target ? { target: targetDescription(g.target) as Record<string, unknown> } : {}) };
  // The reference profile's magic-value triggers (version 5) are left unsaid: a genome's target has them, and a profile
  // that does not say them is as true (the checks then use the switch). A genome that draws its own says them (genes/triggers.ts).
  delete p.sandbox!.triggers;
  p.profileVersion = 4;
  for (const r of g.readings) EDITS[r]?.(p, set);
  if (g.target) editTarget(p, g.target, set);
  if (p.pricePoints && !g.target) p.pricePoints.unroundable = unroundable(set, p.methods.checkout);
  // Version 5: a merchant's own facts, a fee's bounds (the reference's own, or a genome's).
  const feeBounds = Object.values(p.fees ?? {}).some((table) => Object.values(table ?? {}).some((f) => f.min || f.max));
  // The reference's own proceeds wait until released (balances.proceeds, version 5).
  if (feeBounds || OWN_CHANNEL_ROLES.some((r) => p.merchants[r]?.facts) || p.lengths || p.queryParams || p.balances?.proceeds)
    p.profileVersion = 5;
  return p;
}

/** The true profile through the kit's own loader (schema, semantics, consistency). */
export function loadTrueProfile(g: TargetGenome): LoadedProfile {
  return parseProfile(JSON.stringify(trueProfile(g)), `genome-${genomeId(g)}.json`);
}
