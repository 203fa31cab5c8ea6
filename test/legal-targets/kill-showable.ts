/**
 * Whether a target built from a genome can show a fault to the checks that name its clause (kill over
 * genomes). Restated from the genome's own terms, never from a run's outcome. Two ways not to:
 * - `nothing-to-show`: the target leaves the fault nothing to act on (no price-point method for a rounding fault, no
 *   refundable payment for a refund fault); the mutant behaves as the conformant target. Not counted.
 * - `check-blind`: the target could show it, but the checks that name the clause cannot reach it (they refund by card,
 *   or need a partial refund where the target has only full ones). Not counted as a kill either: a known gap, listed
 *   by the bench with its reason.
 * A fault not listed here is showable on every genome.
 */
import {
  type ChannelGene,
  type FeeGene,
  PAYOUT_METHODS,
  type PayoutMethod,
  RANGE_METHODS,
  type RangeMethod,
  REFERENCE_GENES,
  type TargetGenes,
  type TargetGenome,
} from '../../fixtures/arbitraries/genome.js';
import { enabledMethods } from './genome.js';

/** A fee on `cents` as the reference takes it (reference/fees.ts feeOn): half up, capped, then at least its minimum. */
function feeAt(f: FeeGene | undefined, cents: number, o: { min?: boolean; max?: boolean } = {}): number {
  if (!f) return 0;
  const raw = f.fixedCents + Math.floor((cents * f.percentMillionths + 500_000) / 1_000_000);
  if (o.max !== false && f.maxCents !== undefined && raw > f.maxCents) return f.maxCents;
  if (o.min !== false && f.minCents !== undefined && raw < f.minCents) return f.minCents;
  return raw;
}

/** The largest amount whose cost (amount and fee) fits `balance`, and the one a cent above it. */
function edge(balance: number, fee: (cents: number) => number): { within: number; above: number } {
  let within = 0;
  for (let c = Math.max(0, balance - 100_000); c <= balance; c++) if (c + fee(c) <= balance) within = c;
  return { within, above: within + 1 };
}

/** The payout fee a merchant pays on `m` on the gene's target: its own, else every merchant's. */
function payoutFeeOf(t: TargetGenes, role: 'second' | 'lowBalance', m: PayoutMethod): { own?: FeeGene; shared?: FeeGene } {
  const money = t.money ?? REFERENCE_GENES.money!;
  const own = t.merchantFees?.[role]?.payouts?.[m];
  return { ...(own ? { own } : {}), ...(money.payoutFees[m] ? { shared: money.payoutFees[m] } : {}) };
}

/** Whether the low-balance merchant's EUR balance can be paid out by `m` (the check that pays out within a balance). */
function lowEurMethod(t: TargetGenes, m: PayoutMethod): boolean {
  const own = t.merchantPayouts?.lowBalance?.[m];
  return t.lowBalance.payoutMethods.includes(m) && !t.payouts[m].usdOnly && (!own?.currencies || own.currencies.includes('EUR'));
}

/** Whether `cents` lies in the range of payout method `m` for `role` in `currency` (its own, the EUR one, or the shared). */
function inPayoutRange(t: TargetGenes, role: 'second' | 'lowBalance', m: PayoutMethod, currency: 'USD' | 'EUR', cents: number): boolean {
  const eur = currency === 'EUR' ? (t.money ?? REFERENCE_GENES.money!).eurRanges[m] : undefined;
  const mine = t.merchantPayouts?.[role]?.[m];
  const min = mine?.minCents ?? eur?.minCents ?? t.payouts[m].minCents;
  const max = mine?.maxCents ?? eur?.maxCents ?? t.payouts[m].maxCents;
  return min <= cents && cents <= max;
}

/**
 * Whether the target's USD balance of `which` moves while the kit runs, so no check judges it as a constant: payments
 * credit it, or a chargeback debits it (moneyTerms.chargeback; harness/facts/fees.ts balanceMoves). Proceeds that wait
 * for a control are counted as moving too: it only leaves a fault unrun, never judged where it cannot show.
 */
function moves(t: TargetGenes, which: 'payout' | 'refund'): boolean {
  return (t.money ?? REFERENCE_GENES.money!).paymentsCredit.includes(which) || t.moneyTerms?.chargeback?.from === which;
}

/**
 * Whether a payout method of the low-balance merchant takes EUR with a range holding both the largest payout its EUR
 * balance covers with the fee and a cent more (the check that pays out within and just above its own EUR balance).
 */
function lowEurEdge(t: TargetGenes): boolean {
  return PAYOUT_METHODS.some((m) => {
    if (!lowEurMethod(t, m)) return false;
    const { own, shared } = payoutFeeOf(t, 'lowBalance', m);
    const { within, above } = edge(t.lowBalance.eurCents, (c) => feeAt(own ?? shared, c));
    return within > 0 && inPayoutRange(t, 'lowBalance', m, 'EUR', within) && inPayoutRange(t, 'lowBalance', m, 'EUR', above);
  });
}

/** Whether a payout method of the low-balance merchant takes USD with a cent above its USD balance (fee included) in range. */
function lowUsdEdge(t: TargetGenes): boolean {
  return t.lowBalance.payoutMethods.some((m) => {
    const mine = t.merchantPayouts?.lowBalance?.[m];
    if (mine?.currencies && !mine.currencies.includes('USD')) return false;
    const { own, shared } = payoutFeeOf(t, 'lowBalance', m);
    const { above } = edge(t.lowBalance.usdCents, (c) => feeAt(own ?? shared, c));
    return inPayoutRange(t, 'lowBalance', m, 'USD', above);
  });
}

/** Whether a payout method of the second merchant takes EUR with a cent above its EUR balance (fee included) in range. */
function secondEurEdge(t: TargetGenes): boolean {
  const eur = (t.secondBalance ?? REFERENCE_GENES.secondBalance!).eurCents;
  return PAYOUT_METHODS.some((m) => {
    const mine = t.merchantPayouts?.second?.[m];
    if (t.payouts[m].usdOnly || (mine?.currencies && !mine.currencies.includes('EUR'))) return false;
    const { own, shared } = payoutFeeOf(t, 'second', m);
    const { above } = edge(eur, (c) => feeAt(own ?? shared, c));
    return inPayoutRange(t, 'second', m, 'EUR', above);
  });
}

/** Whether a payout by `role` of `m` is judged a cent above its USD or EUR balance (balances payments do not move). */
function aboveEdges(t: TargetGenes, role: 'second' | 'lowBalance', m: PayoutMethod): number[] {
  const moving = moves(t, 'payout');
  if (role === 'lowBalance') return t.lowBalance.payoutMethods.includes(m) && !moving ? [t.lowBalance.usdCents] : [];
  const b = t.secondBalance ?? REFERENCE_GENES.secondBalance!;
  const own = t.merchantPayouts?.second?.[m];
  return [
    ...(!moving && (!own?.currencies || own.currencies.includes('USD')) ? [b.usdCents] : []),
    ...(!t.payouts[m].usdOnly && (!own?.currencies || own.currencies.includes('EUR')) ? [b.eurCents] : []),
  ];
}

export type Showing = { show: true } | { show: false; kind: 'nothing-to-show' | 'check-blind'; why: string };

const SHOWS: Showing = { show: true };
const nothing = (why: string): Showing => ({ show: false, kind: 'nothing-to-show', why });
const blind = (why: string): Showing => ({ show: false, kind: 'check-blind', why });

type Rule = (t: TargetGenes, g: TargetGenome) => Showing;

function enabledRanged(t: TargetGenes): RangeMethod[] {
  return RANGE_METHODS.filter((m) => enabledMethods(t).includes(m));
}

/** Whether amounts between the lowest minimum and highest maximum find no channel somewhere. */
export function hasGap(channels: readonly ChannelGene[]): boolean {
  const sorted = [...channels].sort((a, b) => a.minCents - b.minCents);
  let reach = sorted[0]!.maxCents;
  for (const c of sorted.slice(1)) {
    if (c.minCents > reach + 1) return true;
    reach = Math.max(reach, c.maxCents);
  }
  return false;
}

/** Enabled methods whose refunds the genome supports as one of `wants` (price-point methods take no refunds). */
function refundable(t: TargetGenes, wants: readonly ('partial' | 'full-only')[]): RangeMethod[] {
  return enabledRanged(t).filter((m) => (wants as readonly string[]).includes(t.refunds[m].support));
}

/** A check that needs a payment refundable in part: blind where the target refunds only in full, nothing where not at all. */
const needsPartialRefund: Rule = (t) => {
  if (refundable(t, ['partial']).length > 0) return SHOWS;
  if (refundable(t, ['full-only']).length > 0)
    return blind('the check needs a method refundable in part; the target refunds its methods in full only');
  return nothing('no payment of this target can be refunded');
};

const needsRefund: Rule = (t) =>
  refundable(t, ['partial', 'full-only']).length > 0 ? SHOWS : nothing('no payment of this target can be refunded');

/** A magic-value fault of `kind` shows where the genome's profile says a way of it (a refund's needs a refundable payment). */
function triggerShows(kind: 'queryFailed' | 'orderCreationFailed' | 'refundSystemBusy' | 'refundFailed'): Rule {
  return (t, g) => {
    if ((t.triggers?.ways[kind] ?? []).length === 0) return nothing(`the profile says no magic value of ${kind}`);
    return kind === 'refundSystemBusy' || kind === 'refundFailed' ? needsRefund(t, g) : SHOWS;
  };
}

/**
 * A fault of how a failure of `kind` is answered shows where the profile says a way to cause one: the switch (said unless
 * the triggers gene leaves it unsaid) or a magic value of that kind; a refund's needs a refundable payment too. (A refund
 * failure is always said: the profile's failing reason, refunds.failingReason.)
 */
function failureSaid(kind: 'queryFailed' | 'orderCreationFailed' | 'refundSystemBusy'): Rule {
  return (t, g) => {
    if (t.triggers && !t.triggers.declareSwitch && (t.triggers.ways[kind] ?? []).length === 0)
      return nothing(`the profile says neither the switch nor a magic value of ${kind}`);
    return kind === 'refundSystemBusy' ? needsRefund(t, g) : SHOWS;
  };
}

/** The method whose payment the webhook checks refund: the card, else the first checkout method that takes refunds. */
function webhookRefundMethod(t: TargetGenes): RangeMethod | undefined {
  const takes = refundable(t, ['partial', 'full-only']);
  return takes.includes('CARD') ? 'CARD' : takes[0];
}

const needsPricePoint: Rule = (t) =>
  t.methods.some((m) => m === 'APPLE_PAY' || m === 'GOOGLE_PAY')
    ? SHOWS
    : nothing('no price-point method is enabled (Apple Pay and Google Pay are not among its methods)');

/** A fault of a CANCELED payout: only a cancel makes one, and none succeeds where no payout method cancels. */
const needsCanceledPayout: Rule = (t) =>
  PAYOUT_METHODS.some((m) => t.payouts[m].cancelable) ? SHOWS : nothing('no payout method cancels: no payout is ever CANCELED');

const RULES: Readonly<Record<string, Rule>> = {
  'amount-channel-range-ignored': () => SHOWS,
  'channel-gap-accepted': (t) =>
    enabledRanged(t).some((m) => hasGap(t.channels[m])) ? SHOWS : nothing('no enabled method has a gap between its channels'),
  'no-channel-method-accepted': () => SHOWS,
  'merchant-payment-methods-ignored': (t) =>
    enabledMethods(t).some((m) => !t.lowBalance.paymentMethods.includes(m))
      ? SHOWS
      : nothing('the low-balance merchant has every method the others have'),
  'merchant-payout-methods-ignored': (t) =>
    PAYOUT_METHODS.some((m) => !t.lowBalance.payoutMethods.includes(m))
      ? SHOWS
      : nothing('the low-balance merchant has every payout method'),
  'refund-full-only-partial-accepted': (t) =>
    refundable(t, ['full-only']).length > 0 ? SHOWS : nothing('no enabled method is refundable in full only'),
  'refund-unsupported-channel-accepted': (t) =>
    enabledMethods(t).some((m) => !(RANGE_METHODS as readonly string[]).includes(m)) ||
    enabledRanged(t).some((m) => t.refunds[m].support === 'none')
      ? SHOWS
      : nothing('every enabled method takes refunds'),
  // The check pays by card as the low-balance merchant (suites/refund-errors.ts): without CARD in its list it is skipped.
  // Found by npm test's random genome (LEGAL_TARGETS_SEED=927210037): the low-balance merchant had PAYPAL only.
  'refund-balance-ignored': (t) => {
    // A refund balance payments credit is never judged as a constant (profile balances.paymentsCredit): its check skips.
    if (moves(t, 'refund'))
      return blind('payments credit the refund balance, which the interface does not show: no check judges it as a constant');
    if (t.lowBalance.paymentMethods.includes('CARD') && t.refunds.CARD.support !== 'none') return SHOWS;
    const other = refundable(t, ['partial', 'full-only']).filter((m) => t.lowBalance.paymentMethods.includes(m));
    return other.length > 0
      ? blind(`the check refunds a card payment of the low-balance merchant; it could refund ${other.join(', ')}`)
      : nothing('the low-balance merchant has no refundable method');
  },
  // A USD payout balance payments credit is never judged as a constant (balances.paymentsCredit); where every payout
  // method is USD-only, no other currency's balance is left to show it. Found by npm test's random kill genome
  // (LEGAL_TARGETS_SEED=1492451955): payments credited the payout balance, BANK_TRANSFER and PAYPAL USD-only.
  // With a moving USD balance, only a EUR edge inside a range judges it (bench/legal-targets.ts --kill all --seed 50071).
  // A merchant's own currencies and ranges may leave no edge at all (--seed 50071: the low-balance merchant's only method
  // takes EUR only, its fee above its EUR balance).
  'payout-insufficient-funds-ignored': (t) =>
    (!moves(t, 'payout') && lowUsdEdge(t)) || lowEurEdge(t) || secondEurEdge(t)
      ? SHOWS
      : nothing('no payout balance a check judges as a constant has an edge inside a method’s range for its merchant'),
  // Proceeds paid out early show where they stay pending by control (the reference's own proceeds, or a genome's
  // "control"): the balance is then a constant, and err.po.insufficient-funds pays the low-balance merchant first.
  'pending-proceeds-paid-out-early': (t) => {
    const credit = (t.money ?? REFERENCE_GENES.money!).paymentsCredit;
    const after = t.moneyTerms?.proceedsAfter;
    if (credit.length > 0 && !credit.includes('payout')) return nothing('payments credit the refund balance only: no payout draws on it');
    if (credit.length > 0 && after === undefined) return nothing('proceeds are credited at once: none wait');
    if (credit.length > 0 && after !== 'control')
      return blind('proceeds wait a delay: the balance moves, and its check finds it from the declared one up');
    if (t.moneyTerms?.chargeback?.from === 'payout')
      return blind('chargebacks debit the USD payout balance: no check judges it as a constant');
    const payable = t.lowBalance.paymentMethods.some((m) => (RANGE_METHODS as readonly string[]).includes(m));
    return payable ? SHOWS : nothing('the low-balance merchant has no method the kit pays it with');
  },
  // A payout fee shows only where a method charges one; the checks judge it against the balances payments do not move.
  'payout-fee-not-charged': (t) => {
    const money = t.money ?? REFERENCE_GENES.money!;
    const charged = PAYOUT_METHODS.filter((m) => {
      const f = money.payoutFees[m];
      return f !== undefined && (f.fixedCents > 0 || f.percentMillionths > 0);
    });
    if (charged.length === 0) return nothing('no payout method charges a fee');
    const moving = moves(t, 'payout');
    return moving && charged.every((m) => t.payouts[m].usdOnly)
      ? blind('the only balances the fee could show against are USD ones, which payments credit (never judged as constants)')
      : SHOWS;
  },
  // A merchant's own payout channel shows only where it differs from the primary's in a way a check sends: a currency it
  // leaves out (sent at the method's minimum), or a USD bound inside the primary's range that its balance covers a cent past.
  // A merchant's own payment range shows where a cent outside it is inside every merchant's channels of the method (the
  // check acting as that merchant sends it); the genome's primary has no range of its own, so the fault gives it theirs.
  'merchant-payment-range-of-primary': (t) => {
    const own = t.merchantPayments;
    if (!own) return nothing('no merchant has a payment range of its own');
    for (const role of ['second', 'lowBalance'] as const) {
      const has = role === 'second' ? enabledMethods(t) : t.lowBalance.paymentMethods;
      for (const m of RANGE_METHODS) {
        const r = own[role]?.[m];
        if (!r || !has.includes(m)) continue;
        const shared = (c: number) => t.channels[m].some((ch) => c >= ch.minCents && c <= ch.maxCents);
        if ((r.minCents > 1 && shared(r.minCents - 1)) || shared(r.maxCents + 1)) return SHOWS;
      }
    }
    return nothing("no merchant's own range leaves out an amount every merchant's channels take");
  },
  'merchant-payout-range-of-primary': (t) => {
    const own = t.merchantPayouts;
    if (!own) return nothing('no merchant has a payout channel of its own');
    for (const role of ['second', 'lowBalance'] as const) {
      const usd = role === 'second' ? (t.secondBalance?.usdCents ?? 250_000) : t.lowBalance.usdCents;
      const moving = moves(t, 'payout');
      for (const m of PAYOUT_METHODS) {
        const g = own[role]?.[m];
        if (!g || (role === 'lowBalance' && !t.lowBalance.payoutMethods.includes(m))) continue;
        if (g.currencies) return SHOWS;
        // A cent outside its own bound, inside the primary's, with a fee of at most 100.00 on top within its balance.
        const covered = (cents: number) => !moving && cents + 10_000 <= usd;
        if (g.minCents !== undefined && g.minCents > t.payouts[m].minCents && covered(g.minCents)) return SHOWS;
        if (g.maxCents !== undefined && g.maxCents < t.payouts[m].maxCents && covered(g.maxCents + 1)) return SHOWS;
      }
    }
    return nothing("no merchant's own channel leaves out a currency, or a bound its balance covers a cent past");
  },
  // Version 5: a fee's cap shows where it binds at the low-balance merchant's EUR balance, the one a check pays out within.
  'payout-fee-cap-ignored': (t) => {
    for (const m of PAYOUT_METHODS) {
      if (!lowEurMethod(t, m)) continue;
      const { own, shared } = payoutFeeOf(t, 'lowBalance', m);
      const f = own ?? shared;
      if (f?.maxCents === undefined) continue;
      const { within } = edge(t.lowBalance.eurCents, (c) => feeAt(f, c));
      if (within > 0 && within + feeAt(f, within, { max: false }) > t.lowBalance.eurCents) return SHOWS;
    }
    return nothing("no payout fee's cap binds at the low-balance merchant's EUR balance");
  },
  // Version 5: a merchant's own payout fee shows where every merchant's differs from it at a balance's edge a check judges:
  // less a cent above (accepted), or more within the low-balance merchant's EUR balance (refused).
  'merchant-payout-fee-ignored': (t) => {
    if (!t.merchantFees) return nothing('no merchant has a fee of its own');
    for (const role of ['second', 'lowBalance'] as const)
      for (const m of PAYOUT_METHODS) {
        const { own, shared } = payoutFeeOf(t, role, m);
        if (!own) continue;
        // Each edge only where its amounts lie in the method's range for that merchant (bench/legal-targets.ts --kill all
        // --seed 50043: the second merchant's balances above every maximum, the EUR one below the minimum with the fee).
        const b2 = t.secondBalance ?? REFERENCE_GENES.secondBalance!;
        for (const b of aboveEdges(t, role, m)) {
          const { above } = edge(b, (c) => feeAt(own, c));
          const currency = role === 'second' && b === b2.eurCents && b !== b2.usdCents ? 'EUR' : 'USD';
          if (above + feeAt(shared, above) <= b && inPayoutRange(t, role, m, currency, above)) return SHOWS;
        }
        if (role === 'lowBalance' && lowEurMethod(t, m)) {
          const { within, above } = edge(t.lowBalance.eurCents, (c) => feeAt(own, c));
          const inRange = inPayoutRange(t, role, m, 'EUR', within) && inPayoutRange(t, role, m, 'EUR', above);
          if (within > 0 && inRange && within + feeAt(shared, within) > t.lowBalance.eurCents) return SHOWS;
        }
      }
    return nothing("no merchant's own payout fee differs from every merchant's at a balance's edge a check judges");
  },
  // A fee's minimum shows where it binds at the low-balance merchant's USD balance: the fee there without its minimum is less.
  'payout-fee-minimum-ignored': (t) => {
    const money = t.money ?? REFERENCE_GENES.money!;
    if (moves(t, 'payout')) return nothing('payments credit or chargebacks debit the USD payout balance: no USD balance is a constant');
    const usd = t.lowBalance.usdCents;
    const binds = t.lowBalance.payoutMethods.filter((m) => {
      const f = t.merchantFees?.lowBalance?.payouts?.[m] ?? money.payoutFees[m];
      const own = t.merchantPayouts?.lowBalance?.[m];
      const takesUsd = !own?.currencies || own.currencies.includes('USD');
      const min = own?.minCents ?? t.payouts[m].minCents;
      const raw = f ? f.fixedCents + Math.ceil((usd * f.percentMillionths) / 1_000_000) : 0;
      return f?.minCents !== undefined && f.minCents > raw && takesUsd && min <= usd - f.minCents;
    });
    // The second merchant's own fee's minimum, a cent above one of its balances.
    const second = PAYOUT_METHODS.some((m) => {
      const own = t.merchantFees?.second?.payouts?.[m];
      if (own?.minCents === undefined) return false;
      const b2 = t.secondBalance ?? REFERENCE_GENES.secondBalance!;
      return aboveEdges(t, 'second', m).some((b) => {
        const { above } = edge(b, (c) => feeAt(own, c));
        const currency = b === b2.eurCents && b !== b2.usdCents ? 'EUR' : 'USD';
        return above + feeAt(own, above, { min: false }) <= b && inPayoutRange(t, 'second', m, currency, above);
      });
    });
    if (second) return SHOWS;
    return binds.length > 0 ? SHOWS : nothing("no payout fee's minimum binds at the low-balance merchant's USD balance");
  },
  // A EUR range of a method's own shows only where it leaves out amounts its USD range takes.
  'payout-range-ignores-currency': (t) => {
    const money = t.money ?? REFERENCE_GENES.money!;
    const narrower = PAYOUT_METHODS.filter((m) => {
      const r = money.eurRanges[m];
      return r !== undefined && !t.payouts[m].usdOnly && (r.minCents > t.payouts[m].minCents || r.maxCents < t.payouts[m].maxCents);
    });
    if (narrower.length > 0) return SHOWS;
    const other = PAYOUT_METHODS.filter((m) => money.eurRanges[m] !== undefined && !t.payouts[m].usdOnly);
    return other.length > 0
      ? blind('a EUR range wider than the USD one: the check pays out outside the EUR range, never inside it beyond the USD one')
      : nothing('no payout method has a EUR range of its own');
  },
  'payout-cancel-unsupported-accepted': (t) =>
    PAYOUT_METHODS.some((m) => !t.payouts[m].cancelable) ? SHOWS : nothing('every payout method can be cancelled'),
  'decline-only-first-card': (t) => (t.declineCards.length > 1 ? SHOWS : nothing('the target has one decline card')),
  'auth-login-as-merchant-id': () => SHOWS,
  // A genome without the triggers gene leaves the reference's unsaid: the kit sends no request that carries a magic value,
  // and the mutant answers every request it sends as the conformant target does. With it, a kind's ways are its checks'.
  'magic-query-failure-ignored': triggerShows('queryFailed'),
  'magic-creation-failure-ignored': triggerShows('orderCreationFailed'),
  'magic-refund-busy-ignored': triggerShows('refundSystemBusy'),
  'magic-refund-failure-ignored': triggerShows('refundFailed'),
  'magic-query-failure-not-transient': (t) =>
    (t.triggers?.ways.queryFailed ?? []).some((w) => w.count !== undefined)
      ? SHOWS
      : nothing('the profile says no query failure that ends after a count'),
  // Judged from bench/legal-targets.ts --kill 3 --seed 7, each survivor replayed with the reasons its checks skipped.
  // Its check repeats the number on a second payment where the target refunds only in full.
  'refund-duplicate-merchant-order-key': needsRefund,
  'refund-decimals-invalid-amount-key': needsPartialRefund,
  'refund-charged-back-accepted': needsRefund,
  // Judged from the same bench with --seed 2027 --n 24.
  'refund-3-decimals-accepted': needsPartialRefund,
  'refund-exceed-allowed': needsPartialRefund,
  // Its check refunds every method that takes refunds, in full.
  'refund-full-as-exceeded': needsRefund,
  'webhook-none-on-refund-create': needsRefund,
  // Judged from the same bench with --seed 11 --n 20.
  // Its check (suites/webhook-retry.ts) refunds a card payment (kill.test.ts, LEGAL_TARGETS_SEED=1291603365).
  'webhook-body-at-change': (t) => {
    if (t.refunds.CARD.support !== 'none') return SHOWS;
    const other = refundable(t, ['partial', 'full-only']);
    return other.length > 0
      ? blind(`the check refunds a card payment; the target refunds ${other.join(', ')} only`)
      : nothing('no payment of this target can be refunded');
  },
  'webhook-refund-order-no-of-payment': needsRefund,
  'duplicate-refund-wrong-key': needsPartialRefund,
  'refund-partial-refused': (t) =>
    refundable(t, ['partial']).length > 0 ? SHOWS : nothing('no enabled method refunds in part: refusing a partial refund is right'),
  'payout-cancel-success': (t, g) => {
    if (PAYOUT_METHODS.some((m) => t.payouts[m].cancelable)) return SHOWS;
    return g.readings.includes('payout-cancel-status-first')
      ? blind('no payout method cancels, so its checks skip; the target judges the status first and would show it')
      : nothing('no payout method cancels: every cancel is refused for its channel before its status is read');
  },
  // It writes the payment's amount for the refund's: a full refund's amount is the payment's, so it needs a partial
  // refund of the method the webhook checks refund (kill.test.ts, LEGAL_TARGETS_SEED=1606475159: card refunds full-only).
  'webhook-refund-amount-of-payment': (t) => {
    const used = webhookRefundMethod(t);
    if (used === undefined) return nothing('no payment of this target can be refunded');
    if (t.refunds[used].support === 'partial') return SHOWS;
    const partial = refundable(t, ['partial']);
    return partial.length > 0
      ? blind(`the check refunds ${used} in full (its amount is the payment's); ${partial.join(', ')} refund in part`)
      : nothing("every refund of this target is of the whole payment, whose amount is the payment's");
  },
  // Judged from bench/legal-targets.ts --kill 3 --seed 31, each survivor replayed on its genome.
  // Its code is that of a cancel refused for the payout's status: where no payout method cancels, every cancel is refused
  // for its channel first (as payout-cancel-success).
  'payout-not-cancelable-code-422': (t, g) => {
    if (PAYOUT_METHODS.some((m) => t.payouts[m].cancelable)) return SHOWS;
    return g.readings.includes('payout-cancel-status-first')
      ? blind('no payout method cancels, so its checks skip; the target judges the status first and would show it')
      : nothing('no payout method cancels: every cancel is refused for its channel before its status is read');
  },
  // It draws every payout on the USD balance: its check (suites/payout-errors.ts) pays out just above the low-balance
  // merchant's balance in another currency, with a payout method of its own that is not USD-only and whose range holds it.
  // Its range in EUR (its own where the target gives one) must hold the largest payout the EUR balance covers with the
  // merchant's fee, and a cent more (bench/legal-targets.ts --kill all --seed 50032: a 9.92 EUR balance under a fee above it).
  'payout-balance-usd-only': (t) =>
    lowEurEdge(t)
      ? SHOWS
      : nothing('no payout of the low-balance merchant in EUR both within its balance with the fee and a cent above it is in range'),
  // It renames PENDING in refund.updated: it needs a refund created pending. Its check refunds a method the profile's
  // refunds.createdStatus declares PENDING where there is one (suites/webhook-events.ts); found by kill.test.ts
  // (LEGAL_TARGETS_SEED=793264271): the wide genome's refunds are all created SUCCESS.
  'webhook-refund-status-processing': (t, g) => {
    const pending = (m: RangeMethod) => g.readings.includes('refunds-created-pending') || !t.refunds[m].createdSuccess;
    return refundable(t, ['partial', 'full-only']).some(pending)
      ? SHOWS
      : nothing('every refund of this target is created SUCCESS (or none can be made): none is ever PENDING');
  },
  // Judged from bench/legal-targets.ts --kill 3 --seed 13, each survivor replayed on its genome.
  // Its check (suites/refund-errors.ts) refunds a payment refundable in part, as refund-decimals-invalid-amount-key's.
  'refund-invalid-amount-key': needsPartialRefund,
  // It drops refund.updated for a refund created SUCCESS: it needs one (suites/webhook-events.ts refunds a method the
  // profile's refunds.createdStatus declares SUCCESS); seed 13's genome refunded nothing, and created every refund PENDING.
  'webhook-none-on-refund-created-settled': (t, g) =>
    refundable(t, ['partial', 'full-only']).some((m) => !g.readings.includes('refunds-created-pending') && t.refunds[m].createdSuccess)
      ? SHOWS
      : nothing('no refund of this target is created SUCCESS (or none can be made)'),
  // Its one violation is a payment accepted under a refund's number: without a refund, no number to take. Seed 13's survivor
  // refunded in full only: the idempotency check that shows it now charges its own clause.
  'idem-separate-namespaces': needsRefund,
  'checkout-answers-session-no': (_t, g) =>
    g.readings.includes('other-record-field-names')
      ? nothing("the fault rewrites the checkout's order_no, which other-record-field-names renames: the mutant is the target")
      : SHOWS,
  // Judged from bench/legal-targets.ts --n 6 --kill 8 --init no --seed 4343: it sets the HTTP status of
  // the signed invalidRequest a body that is not JSON gets; invalid-json-unreadable answers such a body as unreadable (HTTP
  // 500, unsigned) before it is parsed, so that refusal is never made.
  'bad-json-http-400': (_t, g) =>
    g.readings.includes('invalid-json-unreadable')
      ? nothing('invalid-json-unreadable answers a body that is not JSON as unreadable before parsing: the mutant is the target')
      : SHOWS,
  // Judged from bench/legal-targets.ts --kill 3 --seed 13 (a catalogue of 198 draws other faults than one of 197):
  // it nests a payment record it knows by its `status` and `order_no`, which other-record-field-names renames.
  'query-record-nested': (_t, g) =>
    g.readings.includes('other-record-field-names')
      ? nothing('the fault knows a payment record by status and order_no, which other-record-field-names renames: the mutant is the target')
      : SHOWS,
  // Judged from bench/legal-targets.ts --kill 3 --seed 31 and replayed with the other faults of a canceled payout on the
  // reference's accounts with no payout method cancelling: each survived, with and without payout-cancel-status-first.
  'webhook-payout-status-cancelled': needsCanceledPayout,
  'webhook-none-on-payout-cancel': needsCanceledPayout,
  'payout-cancel-canceled-accepted': needsCanceledPayout,
  // Its refusal of a cancel for the payout's status: where the target judges the channel first, no such refusal is made; where it
  // judges the status first, the stateful payout sequences see it (killed on that replay).
  'payout-not-cancelable-no-status': (t, g) =>
    PAYOUT_METHODS.some((m) => t.payouts[m].cancelable) || g.readings.includes('payout-cancel-status-first')
      ? SHOWS
      : nothing('no payout method cancels: every cancel is refused for its channel before its status is read'),
  // Judged from bench/legal-targets.ts --kill 3 --seed 47: no payout method of that target was USD-only.
  'payout-eur-accepted': (t) =>
    PAYOUT_METHODS.some((m) => t.payouts[m].usdOnly) ? SHOWS : nothing('no payout method is USD-only: a payout in EUR is allowed'),
  'payout-usd-only-takes-eur': (t) =>
    PAYOUT_METHODS.some((m) => t.payouts[m].usdOnly) ? SHOWS : nothing('no payout method is USD-only: a payout in EUR is allowed'),
  // The same run: a fault of refund.updated bodies, on a target where no enabled method takes refunds; the other faults that
  // rewrite only refund.updated bodies read the same way.
  'webhook-refund-goods-name-not-reason': needsRefund,
  'webhook-refund-payment-method-refund': needsRefund,
  'webhook-refund-no-original-order-no': needsRefund,
  'webhook-refund-merchant-no-of-payment': needsRefund,
  'webhook-refund-original-refs-swapped': needsRefund,
  // Judged from bench/legal-targets.ts --n 8 --kill 12 --init no --seed 8484: an armed refund failure is reached
  // only past the channel's refund support (reference/handlers/refund-create.ts); the card, that genome's only method,
  // took no refunds.
  'refund-failed-validation-failed': needsRefund,
  // A refund of an unpaid payment on a method without refunds may be refused as notSupported (several refusals hold, the
  // document orders none): the not-paid checks need a method that takes refunds (bench/legal-targets.ts --kill all --seed 50023).
  'refund-not-paid-validation-failed': needsRefund,
  'refund-unpaid-accepted': needsRefund,
  'refund-system-busy-code-500': failureSaid('refundSystemBusy'),
  // A genome whose profile says no switch and no magic value of the kind (bench/legal-targets.ts --kill all --seed 50022).
  'creation-failed-as-validation-failed': failureSaid('orderCreationFailed'),
  'query-failed-as-system-busy': failureSaid('queryFailed'),
  // It makes the switch's failure persist (reference armedFailureOneShot); a magic way's failures keep their own count.
  'query-failure-persists': (t) =>
    t.triggers && !t.triggers.declareSwitch ? nothing('the profile leaves the switch unsaid: no armed query failure to persist') : SHOWS,
  // Judged from bench/legal-targets.ts --kill 3 --seed 71: no enabled method took refunds, so no refund to look up.
  // A refund query whose path carries the refund's service number is never sent by merchant_refund_no. Found by
  // LEGAL_TARGETS_SEED=747948071 (paths.refundQuery: refund_no).
  'refund-query-merchant-no-as-refund-no': (t, g) =>
    t.paths?.refundQuery === 'refund_no'
      ? nothing('the refund query path carries the refund_no: no lookup by merchant_refund_no')
      : needsRefund(t, g),
  // The same for payouts: a payout query whose path carries the payout_no (bench/legal-targets.ts --kill all --seed 50021).
  'payout-query-merchant-no-as-payout-no': (t) =>
    t.paths?.payoutQuery === 'payout_no' ? nothing('the payout query path carries the payout_no: no lookup by merchant_payout_no') : SHOWS,
  // A settle control that takes no reason leaves the status_reason the sandbox's own: a canned one is that reason
  // (bench/legal-targets.ts --kill all --seed 50023, shapes.settleReason null).
  'payout-reason-canned': (t) =>
    t.shapes?.settleReason === null ? nothing('the settle control takes no reason: the status_reason is the sandbox’s own') : SHOWS,
  // Its check needs a full refund (bench/legal-targets.ts --kill all --seed 50033: no method took refunds).
  'webhook-on-refund-looks-resent': needsRefund,
  // Its check needs a payment made without metadata (bench/legal-targets.ts --kill all --seed 50041: every method required it).
  'webhook-metadata-null': (t) => {
    const r = t.requiredFields;
    const needs = (m: string) =>
      r !== undefined && (r.every.includes('metadata') || (r.byMethod[m as keyof typeof r.byMethod] ?? []).includes('metadata'));
    return enabledMethods(t).every(needs) ? nothing('every checkout method requires the metadata a payment then carries') : SHOWS;
  },
  // Its check refunds a charged-back payment: a method that takes refunds (the same run, --seed 50042).
  'refund-charged-back-not-paid-key': needsRefund,
  // Where the low-balance merchant's USD balance moves, a payout above the declared one accepted may be one the balance
  // rose to, and the check finds the edge upwards (bench/legal-targets.ts --kill all --seed 50053); the other checks that
  // judge a merchant's own balance need a EUR edge inside a range.
  'payout-funds-of-first-merchant': (t) =>
    !moves(t, 'payout') || lowEurEdge(t)
      ? SHOWS
      : nothing("the low-balance merchant's USD balance moves and no payout in EUR reaches its EUR balance's edge"),
  // Their checks refund a payment (bench/legal-targets.ts --kill all --seed 50051, 50052: no method took refunds).
  'webhook-payment-updated-instead-of-refund': needsRefund,
  // A refund number's checks need a refund (--kill all --seed 50073).
  'refund-number-free-for-payments': needsRefund,
  // A currency refusal needs a method whose currencies are said: USD-only, or a merchant's own set (--seed 50072).
  'payout-currency-not-supported-422': (t) =>
    PAYOUT_METHODS.some((m) => t.payouts[m].usdOnly) ||
    Object.values(t.merchantPayouts ?? {}).some((own) => Object.values(own ?? {}).some((o) => o?.currencies !== undefined))
      ? SHOWS
      : nothing('no payout method is USD-only and no merchant has currencies of its own: no currency is refused'),
  // A payment refunded in full needs a method that takes refunds (--kill all --seed 50063).
  'refunded-status-not-shown': needsRefund,
  'webhook-payment-updated-on-refund': needsRefund,
  'price-point-no-requested-amount': needsPricePoint,
  'price-point-unroundable-accepted': needsPricePoint,
  'price-point-round-down': needsPricePoint,
  'price-point-amounts-swapped': needsPricePoint,
  // Back in: it survived on drawn tiers while the price-point checks judged its first wrong charge (another
  // tier, a refusal); they now judge a charge of no tier first (kill.test.ts LEGAL_TARGETS_SEED=1495603823, both genomes).
  'price-point-ninety-nine': needsPricePoint,
  'unroundable-validation-failed': needsPricePoint,
};

/** The faults whose showing depends on the genome (every other fault shows on every genome). */
export const GENOME_DEPENDENT_FAULTS: readonly string[] = Object.keys(RULES);

export function showing(g: TargetGenome, fault: string): Showing {
  const rule = RULES[fault];
  return rule ? rule(g.target ?? REFERENCE_GENES, g) : SHOWS;
}

/**
 * Faults a legal profile explains, and the facts it would say otherwise: where the doctor isolates one of them it calls
 * the true profile WRONG there and stops the run (exit 2), as it must ("blames the profile only when some legal profile
 * explains the answer"). Such a stop, naming only these facts, is the mutant caught, not a failure of the matrix; a stop
 * naming any other fact still is one.
 */
const DOCTOR_OWN_FACTS: Readonly<Record<string, RegExp>> = {
  // Every merchant given the primary's ranges: a profile giving them those ranges explains it.
  'merchant-payment-range-of-primary': /^merchants\.\w+\.facts\.limits\.payments\./,
  // A EUR payout held to the USD range: a profile whose EUR range is the USD one (or a USD-only method) explains it.
  'payout-range-ignores-currency': /^(payouts\.methods\.\w+\.(usdOnly|currencies)|limits\.payouts\.\w+\.byCurrency\.)/,
  // A magic value that fails nothing: a profile without that way explains it.
  'magic-query-failure-ignored': /^sandbox\.triggers\.queryFailed\[/,
  'magic-creation-failure-ignored': /^sandbox\.triggers\.orderCreationFailed\[/,
  'magic-refund-busy-ignored': /^sandbox\.triggers\.refundSystemBusy\[/,
  'magic-refund-failure-ignored': /^sandbox\.triggers\.refundFailed\[/,
  // A refund number its switch matches, sent again after the armed failure: a profile arming one failure explains the
  // acceptance the replay gives (a refused refund is no record, so its number is free).
  'idem-replay': /^sandbox\.armFailure\.count$/,
  // A fee term ignored moves a balance's edge by the fee's difference: a profile saying another balance explains it.
  'merchant-payout-fee-ignored': /^merchants\.\w+\.payoutBalances?(\.|$)/,
  'payout-fee-minimum-ignored': /^merchants\.\w+\.payoutBalances?(\.|$)/,
  'payout-fee-cap-ignored': /^merchants\.\w+\.payoutBalances?(\.|$)/,
};

/** Whether a doctor's stop of `fault` (the paths it called WRONG) names only facts a legal profile would say otherwise. */
export function stoppedOnOwnFacts(fault: string, wrong: readonly string[]): boolean {
  const own = DOCTOR_OWN_FACTS[fault];
  return own !== undefined && wrong.length > 0 && wrong.every((p) => own.test(p));
}
