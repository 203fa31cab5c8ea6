/**
 * What a sequence may do and predict, from the target's profile: the command space (which
 * commands are generated) and the model's capabilities (what predictions rest on).
 */
import { factsOf } from '../../../harness/facts/index.js';
import { balanceMoves } from '../../../harness/facts/fees.js';
import type { CommandSpace } from '../../../fixtures/arbitraries/commands.js';
import { type CentsSpan, channelSpans } from '../../../harness/facts/limits.js';
import { avoidMagic, payoutMethodsOf } from '../../../harness/ops.js';
import type { ChannelLimits } from '../../../harness/profile/types.js';
import type { Target } from '../../../harness/target.js';
import { templateUses } from './sandbox.js';
import { centsNumberOf } from '../../../harness/facts/money.js';
import type { LookupPath, ModelCaps } from './state.js';
import { carriedBy, type PathNumber } from '../../../harness/profile/endpoint-path.js';

function carries(path: string | undefined, service: PathNumber, merchant: PathNumber): LookupPath {
  const c = carriedBy(path);
  return { service: c.has(service), merchant: c.has(merchant) };
}

export function commandSpaceOf(t: Target, names: number): CommandSpace {
  const p = t.profile;
  const pricePoint = new Set(p.methods.pricePoint ?? []);
  const space: CommandSpace = {
    checkoutMethods: t.has('checkout') ? p.methods.checkout.filter((m) => !pricePoint.has(m)) : [],
    complete: Boolean(p.sandbox?.completeCheckout),
    chargeback: Boolean(p.sandbox?.chargeback),
    expire: Boolean(p.sandbox?.expireCheckout),
    names,
  };
  if (p.cardPayment && t.has('cardPayment'))
    space.card = { method: p.methods.card ?? 'CARD', decline: Boolean(p.cardPayment.cards.decline) };
  if (p.refunds && t.has('refundCreate')) {
    space.refunds = {
      failingReason: Boolean(p.refunds.failingReason),
      settle: Boolean(p.sandbox?.settleRefund),
      query: t.has('refundQuery'),
    };
  }
  if (p.payouts && t.has('payoutCreate')) {
    space.payouts = {
      // Methods enabled for the primary merchant; a command for another merchant applies only with one of its own.
      methods: payoutMethodsOf(t, 'primary'),
      cancelable: Object.entries(p.payouts.methods)
        .filter(([, m]) => m.cancel)
        .map(([name]) => name),
      lowBalance: Boolean(p.merchants.lowBalance?.payoutBalance && t.merchants.lowBalance),
      settle: Boolean(p.sandbox?.settlePayout),
      cancel: t.has('payoutCancel'),
      query: t.has('payoutQuery'),
    };
  }
  return space;
}

function limitsInCents(src: Record<string, ChannelLimits> | undefined): Record<string, CentsSpan[]> {
  return Object.fromEntries(Object.entries(src ?? {}).map(([method, l]) => [method, channelSpans(l)]));
}

/** The merchant's payout methods that take USD for it (harness/facts/). */
function usdMethodsOf(t: Target, as: 'primary' | 'lowBalance'): string[] {
  const facts = factsOf(t, as);
  return payoutMethodsOf(t, as).filter((m) => facts.takesCurrency(m, 'USD') !== false);
}

/** The merchant's USD payout ranges, in cents. */
function ownUsdLimits(t: Target, as: 'primary' | 'lowBalance'): Record<string, { min: number; max: number }[]> {
  const facts = factsOf(t, as);
  const own = Object.fromEntries(
    facts.payoutMethods.flatMap((m) => (facts.payoutLimits(m, 'USD') ? [[m, facts.payoutLimits(m, 'USD')!]] : [])),
  );
  return limitsInCents(own);
}

export function modelCapsOf(t: Target): ModelCaps {
  const p = t.profile;
  const balances: ModelCaps['balances'] = {};
  // A USD payout balance payments credit (balances.paymentsCredit) is only where it started: the model judges none. A payout
  // fee (fees.payouts) only makes the target refuse sooner than the model's sum of amounts, which stays a sound bound.
  const moving = balanceMoves(p, 'payout', 'USD');
  const primary = p.payouts?.balances?.primary;
  if (primary !== undefined && !moving) balances.primary = centsNumberOf(primary);
  const low = p.merchants.lowBalance?.payoutBalance;
  if (low !== undefined && !moving) balances.lowBalance = centsNumberOf(low);
  const payoutCancel: Record<string, boolean> = {};
  for (const [method, m] of Object.entries(p.payouts?.methods ?? {})) payoutCancel[method] = m.cancel;
  return {
    pendingStatus: p.checkout?.pendingStatus,
    ...(p.cardPayment?.pendingStatus !== undefined ? { cardPendingStatus: p.cardPayment.pendingStatus } : {}),
    // The model's payments are the primary merchant's: its own channels' support, where the profile gives them.
    refundSupport: { ...(p.refunds?.support ?? {}), ...(p.refunds?.supportByMerchant?.primary ?? {}) },
    payoutCancel,
    ...(p.sandbox?.autoSettle?.payouts ? { payoutAutoSettle: { ...p.sandbox.autoSettle.payouts } } : {}),
    ...(p.sandbox?.autoSettle?.refunds ? { refundAutoSettle: { ...p.sandbox.autoSettle.refunds } } : {}),
    ...(p.sandbox?.autoSettle?.checkouts ? { checkoutAutoExpire: { afterMs: p.sandbox.autoSettle.checkouts.afterMs } } : {}),
    balances,
    paymentLimits: limitsInCents(p.limits?.payments),
    payoutLimits: limitsInCents(p.limits?.payouts),
    ...(p.payouts?.sharedBalance ? { sharedBalance: { refundFeeCents: centsNumberOf(p.refunds?.fee ?? '0') } } : {}),
    // Each merchant's own facts: its methods that take USD for it, at its own USD ranges.
    payoutMethods: {
      primary: usdMethodsOf(t, 'primary'),
      ...(p.merchants.lowBalance ? { lowBalance: usdMethodsOf(t, 'lowBalance') } : {}),
    },
    payoutLimitsBy: {
      primary: ownUsdLimits(t, 'primary'),
      ...(p.merchants.lowBalance ? { lowBalance: ownUsdLimits(t, 'lowBalance') } : {}),
    },
    refundNeedsOrderNo: templateUses(p.refunds?.template, 'orderNo') || carriedBy(p.endpoints.refundCreate).has('order_no'),
    magicCents: avoidMagic(t),
    lookupPaths: {
      payoutCancel: carries(p.endpoints.payoutCancel, 'payout_no', 'merchant_payout_no'),
      payoutQuery: carries(p.endpoints.payoutQuery, 'payout_no', 'merchant_payout_no'),
      refundQuery: carries(p.endpoints.refundQuery, 'refund_no', 'merchant_refund_no'),
    },
  };
}
