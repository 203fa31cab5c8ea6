/**
 * Profile entries no check reads: warnings (the doctor's exit code stays 0), so a vendor sees that a
 * line of its profile has no effect instead of believing it is used.
 */
import type { Profile } from '../profile/types.js';
import { dotted } from '../profile/schema.js';
import { add, type DoctorContext } from './context.js';
import type { DoctorItem } from './model.js';

/**
 * The internalFieldNames keys the checks read (suites/support/error-scenarios.ts, suites/naming.ts);
 * test/doctor/unused.test.ts keeps this list equal to what the suites' source reads.
 */
export const INTERNAL_NAMES_READ = ['merchant_order_no', 'order_no', 'payment_method', 'trade_info', 'trade_info.goods_name'] as const;

export function checkUnused(ctx: DoctorContext): DoctorItem[] {
  const before = ctx.items.length;
  const names = ctx.loaded.profile.internalFieldNames ?? {};
  for (const key of Object.keys(names)) {
    if ((INTERNAL_NAMES_READ as readonly string[]).includes(key)) continue;
    add(ctx, 'warning', dotted(['internalFieldNames', key]), `the server's internal name of ${key} (${names[key]})`, {
      answered: `no check reads it: the checks read the internal names of ${INTERNAL_NAMES_READ.join(', ')} only`,
      fix: 'remove it, or keep it as documentation',
    });
  }
  const p = ctx.loaded.profile;
  if (p.sandbox?.completeCard && !p.cardPayment?.cards.pending) {
    add(ctx, 'warning', 'sandbox.completeCard', 'a control that completes a pending card payment', {
      answered: 'nothing uses it: the profile declares no pending card',
      fix: "declare cardPayment.cards.pending (the vendor's 3-D Secure test card), or remove the control",
    });
  }
  (p.methods.pricePoint ?? []).forEach((m, i) => {
    if (!p.methods.checkout.includes(m))
      add(ctx, 'warning', `methods.pricePoint[${i}]`, `${m} takes price points only`, {
        answered: `nothing uses it: it is not one of methods.checkout${besideCheckout(p, m)?.answered ?? ''}`,
        fix: besideCheckout(p, m)?.fix ?? `add ${m} to methods.checkout, or remove it here`,
      });
  });
  // A tie rule without rounding "nearest" is refused by the loader already.
  for (const m of Object.keys(p.pricePoints?.tiersByMethod ?? {})) {
    if (!(p.methods.pricePoint ?? []).includes(m))
      add(ctx, 'warning', dotted(['pricePoints', 'tiersByMethod', m]), `the tiers of ${m}`, {
        answered: `no check can use them: ${m} is not one of methods.pricePoint`,
        fix: `add ${m} to methods.pricePoint, or remove them`,
      });
  }
  const payable = new Set([...p.methods.checkout, ...(p.methods.card ? [p.methods.card] : [])]);
  // A method another merchant lists (version 3: KLARNA of the second merchant only) is a true fact the checks, paying with
  // methods.checkout, cannot use: adding it to methods.checkout would make them pay it as the primary, which lacks it.
  const ownerOf = (m: string): string | undefined =>
    (['second', 'lowBalance'] as const).find((r) => p.merchants[r]?.paymentMethods?.includes(m) && !payable.has(m));
  const otherMerchant = (m: string, what: string) => {
    const role = ownerOf(m);
    const beside = besideCheckout(p, m);
    if (role === undefined && beside)
      return { answered: `no check can use ${what}: ${m} is not one of methods.checkout${beside.answered}`, fix: beside.fix };
    return role === undefined
      ? undefined
      : {
          answered: `no check can use ${what}: ${m} is a method of merchants.${role} (its paymentMethods), not of methods.checkout`,
          fix: 'keep as documentation: the checks pay with methods.checkout',
        };
  };
  for (const m of Object.keys(p.limits?.payments ?? {})) {
    if (!payable.has(m))
      add(
        ctx,
        'warning',
        dotted(['limits', 'payments', m]),
        `the payment limits of ${m}`,
        otherMerchant(m, 'them') ?? {
          answered: `no check can use them: ${m} is not one of methods.checkout or methods.card`,
          fix: `add ${m} to methods.checkout, or remove them`,
        },
      );
  }
  for (const m of Object.keys(p.refunds?.support ?? {})) {
    if (!payable.has(m))
      add(
        ctx,
        'warning',
        dotted(['refunds', 'support', m]),
        `the refund support of ${m}`,
        otherMerchant(m, 'it') ?? {
          answered: `no check can use it: no payment with ${m} can be made (not one of methods.checkout or methods.card)`,
          fix: `add ${m} to methods.checkout, or remove it`,
        },
      );
  }
  for (const m of Object.keys(p.limits?.payouts ?? {})) {
    if (!p.payouts?.methods[m])
      add(ctx, 'warning', dotted(['limits', 'payouts', m]), `the payout limits of ${m}`, {
        answered: `no check can use them: ${m} is not one of payouts.methods`,
        fix: `add ${m} to payouts.methods, or remove them`,
      });
  }
  if (p.pricePoints && !(p.methods.pricePoint ?? []).some((m) => p.methods.checkout.includes(m))) {
    add(ctx, 'warning', 'pricePoints', 'the price-point tiers', {
      answered: 'nothing uses them: no checkout method is a price-point method (methods.pricePoint)',
      fix: 'list the price-point methods in methods.pricePoint and methods.checkout, or remove pricePoints',
    });
  }
  return ctx.items.slice(before);
}

/** `path` is `parent` or lies below it (`limits.payments.CARD.min` below `limits.payments.CARD`). */
const under = (path: string, parent: string): boolean => path === parent || path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);

/**
 * One word per field: where a probe of the doctor verified a field no check reads (an internal name given as
 * documentation, the limits of a method the checks do not pay with), its line says both, verified and unused by the
 * checks, and the separate warning goes; a warning about a field no probe verified stays as it is.
 */
export function settleUnused(ctx: DoctorContext, warnings: readonly DoctorItem[]): void {
  for (const w of warnings) {
    const verified = ctx.items.filter((i) => i !== w && i.status === 'verified' && under(i.path, w.path));
    if (verified.length === 0) continue;
    for (const v of verified)
      v.answered =
        `${v.answered ? `${v.answered}; ` : ''}verified, though ` +
        `${w.answered ?? 'no check reads it'} (${w.fix ?? 'keep it as documentation'})`;
    ctx.items.splice(ctx.items.indexOf(w), 1);
  }
}

/**
 * A method another declared fact keeps out of methods.checkout (every channel down, not enabled for the primary, unknown
 * to the target): a warning about it never proposes adding it there, which would make the profile false (the doctor
 * told a vendor to list its no-channel method among the checkout methods). Undefined for any other method.
 */
export function besideCheckout(p: Profile, m: string): { answered: string; fix: string } | undefined {
  const fact =
    m === p.methods.noChannel
      ? 'methods.noChannel: every channel of it is down, so no payment of it can be made'
      : m === p.methods.notEnabled
        ? 'methods.notEnabled: it is not enabled for the primary merchant'
        : m === p.methods.unknown
          ? 'methods.unknown: the target does not know it'
          : undefined;
  if (fact === undefined) return undefined;
  return { answered: `, and it cannot be (${fact})`, fix: 'keep it as documentation of a true fact, or remove it; nothing to add' };
}

/** A profile entry the doctor does not probe: listed as not verifiable so its report is whole (docs/PROFILE.md says why). */
export interface NotProbed {
  path: string;
  what: string;
  why: string;
  declared(p: Profile): boolean;
}

export const NOT_PROBED: readonly NotProbed[] = [
  {
    path: 'merchants.lowBalance.refundBalance',
    what: "the low-balance merchant's refund balance",
    why: 'not asked: it could be shown only by spending it (the refund-balance check uses it)',
    declared: (p) => p.merchants.lowBalance?.refundBalance !== undefined,
  },
  {
    path: 'merchants.lowBalance.payoutBalances',
    what: "the low-balance merchant's payout balance in each currency",
    why: 'not asked: it could be shown only by spending it (the insufficientFunds check per currency uses it)',
    declared: (p) => p.merchants.lowBalance?.payoutBalances !== undefined,
  },
  {
    path: 'refunds.fee',
    what: 'the fee added to a refund',
    why: 'not asked: it shows only against a balance (the refund-balance check uses it)',
    declared: (p) => p.refunds?.fee !== undefined,
  },
  {
    path: 'payouts.balances.primary',
    what: "the primary merchant's payout balance",
    why: 'not asked: it could be shown only by paying it out',
    declared: (p) => p.payouts?.balances?.primary !== undefined,
  },
  {
    path: 'payouts.sharedBalance',
    what: 'refunds and payouts share one balance',
    why: 'not asked: it could be shown only by spending a balance',
    declared: (p) => p.payouts?.sharedBalance !== undefined,
  },
  {
    path: 'pricePoints.maxDistance',
    what: 'the largest rounding distance',
    why: 'not asked: the price-point checks probe it',
    declared: (p) => p.pricePoints?.maxDistance !== undefined,
  },
  {
    path: 'webhooks.ackTimeoutMs',
    what: "the target's acknowledgement limit after scaling",
    why: 'not asked: the webhook acknowledgement checks measure it',
    declared: (p) => p.webhooks !== undefined,
  },
];

/** Profile entries the doctor does not probe, listed as not verifiable so the report is whole. */
export function notProbed(ctx: DoctorContext): void {
  const p = ctx.loaded.profile;
  for (const n of NOT_PROBED) if (n.declared(p)) add(ctx, 'not-verifiable', n.path, n.what, { answered: n.why });
}
