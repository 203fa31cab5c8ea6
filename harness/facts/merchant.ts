/**
 * The facts of one merchant: the profile's shared method-level sections with the merchant's own laid over them
 * (`merchants.<role>.facts`, version 5, harness/facts/overlay.ts), and the older per-merchant fields read the same way
 * (`paymentMethods`, `payoutMethods`, `refunds.supportByMerchant`, balances). Every reader — checks, the doctor, init,
 * describe — asks here, so a check acting as a merchant uses that merchant's facts and a variation is added in one place.
 *
 * Unknown stays unknown: an accessor answers `undefined` for a fact the profile states neither for every merchant nor
 * for this one. A fact stated only for another merchant is never this one's; a reader must then accept every answer the
 * document allows, or skip naming the fact.
 *
 * Resolved on each read: a few shallow merges, so a profile init is still drafting is never read stale.
 */
import { payoutLimitsIn } from './limits.js';
import type {
  ChannelLimits,
  FeeModel,
  MerchantFactSections,
  MerchantRef,
  PayoutLimits,
  PayoutMethodFacts,
  Profile,
} from '../profile/types.js';
import { overlay } from './overlay.js';

export type MerchantRole = 'primary' | 'second' | 'frozen' | 'lowBalance';
export const MERCHANT_ROLES: readonly MerchantRole[] = ['primary', 'second', 'lowBalance', 'frozen'];
export type FeeKind = 'payments' | 'refunds' | 'payouts';
export type RefundSupport = 'none' | 'full' | 'partial';

/** The shared sections a merchant's facts are laid over, resolved for it. */
export interface FactSections {
  methods: Profile['methods'];
  limits: { payments: Record<string, ChannelLimits>; payouts: Record<string, PayoutLimits> };
  payouts: { methods: Record<string, PayoutMethodFacts> };
  refunds: { support: Record<string, RefundSupport>; createdStatus: Record<string, 'PENDING' | 'SUCCESS'> };
  fees: { payments: Record<string, FeeModel>; refunds: Record<string, FeeModel>; payouts: Record<string, FeeModel> };
  checkout: { extras: Record<string, unknown>; extrasByMethod: Record<string, Record<string, unknown>> };
}

export interface MerchantFacts {
  readonly role: MerchantRole;
  /** Whether the profile declares the merchant at all. */
  readonly declared: boolean;
  readonly sections: FactSections;
  /** Payment methods enabled for it: its `paymentMethods`, else its methods.checkout plus methods.card. */
  readonly paymentMethods: readonly string[];
  /** Its methods.checkout, in order, that are enabled for it. */
  readonly checkoutMethods: readonly string[];
  /** Its payout methods: keys of its payouts.methods, narrowed by its `payoutMethods` list. */
  readonly payoutMethods: readonly string[];
  paymentLimits(method: string): ChannelLimits | undefined;
  payoutMethod(method: string): PayoutMethodFacts | undefined;
  /** The currencies a payout method takes for it, as a set; undefined when the profile does not say which. */
  payoutCurrencies(method: string): readonly string[] | undefined;
  /** Whether a payout method takes `currency` for it; undefined when unknown. */
  takesCurrency(method: string, currency: string): boolean | undefined;
  /** A payout method's range in `currency` (its own there, else its USD one); undefined when none is stated. */
  payoutLimits(method: string, currency?: string): ChannelLimits | undefined;
  /** A payout method's limits as stated (USD range and byCurrency). */
  payoutLimitsDeclared(method: string): PayoutLimits | undefined;
  refundSupport(method: string): RefundSupport | undefined;
  /** The fee model for `kind` and `method`: its own, else "*"; a refund falls back to `refunds.fee`. */
  feeModel(kind: FeeKind, method: string): FeeModel | undefined;
  /** The checkout extras for a method: `extras`, then `extrasByMethod[method]` on top (null removes a field). */
  extrasFor(method: string): Record<string, unknown>;
  /** Its declared payout balance in `currency`, where the profile gives one. */
  payoutBalance(currency?: string): string | undefined;
}

/** The merchant's entry of the profile, where declared. */
function refOf(profile: Profile, role: MerchantRole): (MerchantRef & { payoutBalance?: string }) | undefined {
  const m = profile.merchants[role];
  return typeof m === 'object' ? m : undefined;
}

/** The shared sections as they stand, with every part present (empty where the profile says nothing). */
function sharedSections(profile: Profile): FactSections {
  return {
    methods: profile.methods,
    limits: { payments: profile.limits?.payments ?? {}, payouts: profile.limits?.payouts ?? {} },
    payouts: { methods: profile.payouts?.methods ?? {} },
    refunds: { support: profile.refunds?.support ?? {}, createdStatus: profile.refunds?.createdStatus ?? {} },
    fees: { payments: profile.fees?.payments ?? {}, refunds: profile.fees?.refunds ?? {}, payouts: profile.fees?.payouts ?? {} },
    checkout: { extras: profile.checkout?.extras ?? {}, extrasByMethod: profile.checkout?.extrasByMethod ?? {} },
  };
}

/** The merchant's own facts, the older per-merchant refund field first (`refunds.supportByMerchant`, version 4). */
function ownFacts(profile: Profile, role: MerchantRole): MerchantFactSections | undefined {
  const legacy = role === 'frozen' ? undefined : profile.refunds?.supportByMerchant?.[role];
  const own = refOf(profile, role)?.facts;
  if (!legacy) return own;
  return overlay<MerchantFactSections>({ refunds: { support: legacy } }, own ?? {});
}

/** The sections resolved for `role`: the shared ones with its own facts laid over them. */
export function sectionsFor(profile: Profile, role: MerchantRole): FactSections {
  return overlay(sharedSections(profile), ownFacts(profile, role));
}

/** The facts of the merchant acting as `role`. */
export function merchantFacts(profile: Profile, role: MerchantRole = 'primary'): MerchantFacts {
  const ref = refOf(profile, role);
  const s = sectionsFor(profile, role);
  const m = s.methods;
  const paymentMethods = ref?.paymentMethods
    ? [...ref.paymentMethods]
    : [...(m.checkout ?? []), ...(m.card && !(m.checkout ?? []).includes(m.card) ? [m.card] : [])];
  const enabled = new Set(paymentMethods);
  const checkoutMethods = (m.checkout ?? []).filter((x) => enabled.has(x));
  const payoutMethods = Object.keys(s.payouts.methods).filter((x) => !ref?.payoutMethods || ref.payoutMethods.includes(x));
  const payoutMethod = (method: string) => s.payouts.methods[method];
  const payoutCurrencies = (method: string): readonly string[] | undefined => {
    const p = payoutMethod(method);
    return p?.currencies ?? (p?.usdOnly === true ? ['USD'] : undefined);
  };
  return {
    role,
    declared: ref !== undefined,
    sections: s,
    paymentMethods,
    checkoutMethods,
    payoutMethods,
    paymentLimits: (method) => s.limits.payments[method],
    payoutMethod,
    payoutCurrencies,
    takesCurrency(method, currency) {
      const p = payoutMethod(method);
      if (!p) return undefined;
      if (p.currencies) return p.currencies.includes(currency);
      // Version 4's meaning: every payout method takes USD; `usdOnly` says whether it takes the others.
      if (currency === 'USD') return true;
      return p.usdOnly === undefined ? undefined : !p.usdOnly;
    },
    payoutLimits(method, currency = 'USD') {
      const lim = s.limits.payouts[method];
      return lim && payoutLimitsIn(lim, currency);
    },
    payoutLimitsDeclared: (method) => s.limits.payouts[method],
    refundSupport: (method) => s.refunds.support[method],
    feeModel(kind, method) {
      const table = s.fees[kind];
      const key = table[method] ? method : table['*'] ? '*' : undefined;
      // A fee is one fact: a merchant's own model replaces the shared one whole, never field by field (an own fee without
      // a minimum has none, whatever the shared one has).
      const own = key === undefined ? undefined : (ownFacts(profile, role)?.fees?.[kind]?.[key] ?? table[key]);
      if (own) return own;
      if (kind === 'refunds' && profile.refunds?.fee !== undefined) return { fixed: profile.refunds.fee };
      return undefined;
    },
    extrasFor(method) {
      const out: Record<string, unknown> = { ...s.checkout.extras };
      for (const [k, v] of Object.entries(s.checkout.extrasByMethod[method] ?? {})) {
        if (v === null) delete out[k];
        else out[k] = v;
      }
      return out;
    },
    payoutBalance(currency = 'USD') {
      if (currency === 'USD' && role === 'primary' && profile.payouts?.balances?.primary !== undefined)
        return profile.payouts.balances.primary;
      if (currency === 'USD' && ref?.payoutBalance !== undefined) return ref.payoutBalance;
      return ref?.payoutBalances?.[currency];
    },
  };
}

/**
 * Where the profile states a fact of `role` (segments of a shared section, e.g. ["limits", "payouts", "BANK", "min"]):
 * the merchant's own facts when they say it, else the shared section. The doctor names this path in its items.
 */
export function whereSaid(profile: Profile, role: MerchantRole, segs: readonly string[]): string {
  let node: unknown = refOf(profile, role)?.facts;
  for (const s of segs) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[s] : undefined;
  return node === undefined ? segs.join('.') : `merchants.${role}.facts.${segs.join('.')}`;
}
