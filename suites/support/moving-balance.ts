/**
 * err.po.insufficient-funds on a USD payout balance that successful payments credit while the kit runs
 * (`balances.paymentsCredit`): the interface shows no balance (INTERFACE.md › Payout errors 5004 insufficientFunds), so
 * the check cannot take the declared one as a constant. What it knows: the balance is at least the declared one (credits
 * only raise it), and nothing else moves it while the check holds it (harness/facts/balance-hold.ts). So it establishes the
 * balance at the moment it needs it, from the target: payouts from a cent above the declared balance, doubling up to the
 * method's maximum, one at a time, each accepted one given back at once. An acceptance is explained by the credits; the
 * first refusal must be 5004 insufficientFunds, since nothing a balance does explains another. None refused up to the
 * maximum: the balance has risen beyond what the method reaches, and the check says so rather than pass.
 */
import { expectError, expectString, expectSuccess } from '../../harness/check/expect.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import { canGivePayoutBack, createPayout, givePayoutBack, usd } from '../../harness/ops.js';
import { centsNumberOf, valueOfCents } from '../../harness/facts/money.js';
import { amountInside, channelSpans } from '../../harness/facts/limits.js';
import { withBalanceHeld } from '../../harness/facts/balance-hold.js';
import { proceedsStayPending } from '../../harness/facts/fees.js';
import { defaultCents, payableMethodsOf, payOrder } from './paid-orders.js';
import type { PayoutLimits } from '../../harness/profile/types.js';
import type { Target } from '../../harness/target.js';

/** A payout method of the low-balance merchant, its USD range, and the first amount whose cost exceeds the declared balance. */
export interface MovingBalanceMethod {
  method: string;
  lim: PayoutLimits;
  above: string;
}

/**
 * The amounts tried: from `above` (or the method's smallest amount, if larger) doubling up to the method's maximum,
 * each inside a channel of the method (one in a gap moves up to the next channel's minimum), so that only the balance
 * may refuse them; a dozen or so for any range.
 */
export function ladder(above: string, lim: PayoutLimits): string[] {
  const inside = (c: number) => centsNumberOf(amountInside(lim, valueOfCents(c)));
  const top = channelSpans(lim).at(-1)!.max;
  const out: number[] = [];
  for (let c = inside(centsNumberOf(above)); ; c = inside(Math.min(c * 2, top))) {
    if (out.at(-1) !== c) out.push(c);
    if (c >= top) break;
  }
  return out.map((c) => valueOfCents(c));
}

/** The first refusal on the way up must be 5004 insufficientFunds; see the module's comment. */
export async function firstRefusalIsInsufficientFunds(t: Target, declared: string, methods: MovingBalanceMethod[]): Promise<void> {
  const usable = methods.filter((m) => canGivePayoutBack(t, m.method));
  if (usable.length === 0)
    throw new PreconditionSkip(
      `payments credit the low-balance merchant's USD payout balance (balances.paymentsCredit), so the check finds it with ` +
        `payouts it gives back at once, and no payout method of that merchant can be given back`,
      { declare: ['payouts.methods.<method>.cancel', 'sandbox.settlePayout'] },
    );
  const { method, lim, above } = usable[0]!;
  await withBalanceHeld(t, 'lowBalance', async () => {
    for (const value of ladder(above, lim)) {
      const merchantPayoutNo = t.newNo('payout');
      const ex = await createPayout(
        t,
        { payoutNo: merchantPayoutNo, method, amount: usd(value) },
        { as: 'lowBalance', label: `${method} payout of ${value}, above the declared balance ${declared} that payments credit` },
      );
      const body = ex.response?.json as { code?: unknown } | undefined;
      if (body?.code !== 0) {
        expectError(
          ex,
          { code: 5004, key: 'insufficientFunds' },
          {
            what: `the first payout refused on the way up from the declared balance ${declared} (payments only raise it), of ${value}`,
          },
        );
        return;
      }
      const data = expectSuccess(ex, 'err.po.insufficient-funds', { what: `a ${method} payout the balance covered` });
      const payoutNo = expectString(data, t.profile.payouts!.data.payoutNo, 'err.po.insufficient-funds', ex);
      await givePayoutBack(
        t,
        { payoutNo, merchantPayoutNo, as: 'lowBalance' },
        method,
        'err.po.insufficient-funds',
        'cancel the payout to give the balance back',
      );
    }
    throw new PreconditionSkip(
      `every ${method} payout from ${above} up to its maximum ${lim.max} was accepted (each given back): the low-balance ` +
        `merchant's USD balance, which payments credit, has risen beyond what the method reaches`,
      { declare: ['limits.payouts'] },
    );
  });
}

/**
 * Proceeds the profile says stay pending while the kit runs (`balances.proceeds.after` "control", with
 * `balances.paymentsCredit`): the low-balance merchant is paid once, so that a payout a cent above its declared balance
 * is one drawn against pending proceeds, which the balance does not cover (INTERFACE.md › Payout errors: "Insufficient
 * merchant payout balance."). Returns what was paid, for the finding's words; nothing where the merchant cannot be paid
 * (the balance is still a constant, judged without it).
 */
export async function leaveProceedsPending(t: Target): Promise<string | undefined> {
  if (!proceedsStayPending(t.profile, 'payout')) return undefined;
  const method = payableMethodsOf(t, 'lowBalance')[0];
  if (method === undefined) return undefined;
  const paid = await payOrder(t, method, 'err.po.insufficient-funds', { as: 'lowBalance', cents: defaultCents(t, method, 'lowBalance') });
  return `; the merchant was just paid ${valueOfCents(paid.cents)} by ${method}, whose proceeds stay pending (balances.proceeds)`;
}
