import type { ClauseId } from '../harness/clauses/registry.js';
import fc from 'fast-check';
import { defineSuite } from '../harness/check/define.js';
import { expectError, expectOneOf, expectString, expectSuccess, failCheck } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { property } from '../harness/check/property.js';
import { splitMsg } from '../harness/http/envelope.js';
import {
  cancelPayout,
  createPayout,
  givePayoutBack,
  lookupFor,
  lookupsAt,
  PAYOUT_NUMBERS,
  payoutMayHaveSettled,
  payoutMethod,
  payoutMethodsOf,
  sentAtOf,
  queryPayout,
  settlePayout,
  usd,
  payoutsOf,
} from '../harness/ops.js';
import type { ChannelLimits, PayoutLimits } from '../harness/profile/types.js';
import type { Exchange } from '../harness/http/exchange.js';
import type { MerchantRole, Target } from '../harness/target.js';
import { centsNumberOf, centsOf, valueOfCents } from '../harness/facts/money.js';
import { balanceMoves, largestWithin, payoutCost, smallestAbove } from '../harness/facts/fees.js';
import { withBalanceHeld } from '../harness/facts/balance-hold.js';
import { amountInside, channelSpans } from '../harness/facts/limits.js';
import { factsOf, type MerchantFacts, whereSaid } from '../harness/facts/index.js';
import { firstRefusalIsInsufficientFunds, leaveProceedsPending } from './support/moving-balance.js';
import {
  currenciesKnownFirst,
  currencyCodeOtherThanUsd,
  payoutValueAboveBalance,
  payoutValueInsideLimits,
  payoutValueOutsideLimits,
} from '../fixtures/arbitraries/payout-amounts.js';

/** The currencies the profile names anywhere it states a fact about money (balances per currency, of every merchant). */
function namedCurrencies(t: Target): string[] {
  return Object.values(t.profile.merchants).flatMap((m) => (typeof m === 'object' ? Object.keys(m.payoutBalances ?? {}) : []));
}

/** A payout method the merchant's facts say takes USD (harness/facts/: a set without USD is another currency's method). */
const takesUsd = (name: string, facts: MerchantFacts): boolean => facts.takesCurrency(name, 'USD') === true;

/**
 * Payout methods enabled for `as` (default primary) with limits stated for that merchant, and those limits: its own facts,
 * never another merchant's.
 */
function methodsWithLimits(
  t: Target,
  filter: (name: string, facts: MerchantFacts) => boolean = () => true,
  as: MerchantRole = 'primary',
): { method: string; lim: PayoutLimits }[] {
  payoutsOf(t);
  const facts = factsOf(t, as);
  const out = facts.payoutMethods
    .filter((name) => filter(name, facts) && facts.payoutLimitsDeclared(name))
    .map((method) => ({ method, lim: facts.payoutLimitsDeclared(method)! }));
  if (out.length === 0)
    throw new PreconditionSkip(
      'the profile declares no payout method, of the kind this check needs, with limits (payouts.methods, limits.payouts)',
      { declare: ['payouts.methods', 'limits.payouts'] },
    );
  return out;
}

async function payoutCreated(
  t: Target,
  method: string,
  clause: ClauseId,
): Promise<{ payoutNo: string; merchantPayoutNo: string; sentAt: number }> {
  const merchantPayoutNo = t.newNo('payout');
  const ex = await createPayout(t, { payoutNo: merchantPayoutNo, method });
  const data = expectSuccess(ex, clause, { what: `creating a ${method} payout` });
  return { payoutNo: expectString(data, payoutsOf(t).data.payoutNo, clause, ex), merchantPayoutNo, sentAt: sentAtOf(ex) };
}

/**
 * A non-USD payout may get either 5008 row; a refusal with one of their keys under another code
 * (say the payment catalogue's) is wrong on that row's code.
 */
function expectPayoutCatalogueCode(ex: Exchange): void {
  const body = ex.response?.json as { code?: unknown; msg?: unknown } | undefined;
  if (!body || typeof body.msg !== 'string' || body.code === 0 || body.code === 5008) return;
  const key = splitMsg(body.msg).key;
  const row = key === 'notSupported' ? 'err.po.currency' : key === 'amountOutOfRange' ? 'err.po.amount-out-of-range' : undefined;
  if (row)
    failCheck(row, {
      code: 'WRONG_ERROR_CODE',
      title: `a non-USD payout refused with \`${key}\` must carry the payout code 5008`,
      expected: `code 5008, key ${key}`,
      seen: `code ${JSON.stringify(body.code)}, key ${key}`,
      exchange: ex,
    });
}

/** The merchants other than the primary a check may act as. */
const OTHER_ROLES = ['second', 'lowBalance'] as const;

/** A merchant's payout methods whose USD range its own facts state (merchants.<role>.facts.limits.payouts.<method>). */
function ownRanges(t: Target, as: MerchantRole): { method: string; lim: ChannelLimits }[] {
  const facts = factsOf(t, as);
  return facts.payoutMethods.flatMap((method) => {
    const lim = facts.payoutLimits(method, 'USD');
    const own = whereSaid(t.profile, as, ['limits', 'payouts', method]).startsWith('merchants.');
    return own && lim && facts.takesCurrency(method, 'USD') === true ? [{ method, lim }] : [];
  });
}

/** Whether the merchant's declared balance (a constant one) covers a payout of `value` and its fee. */
function coveredBy(t: Target, as: MerchantRole, method: string, value: string, currency: string): boolean {
  const balance = factsOf(t, as).payoutBalance(currency);
  const cost = payoutCost(t.profile, method, centsOf(value), currency, as);
  return balance !== undefined && cost !== undefined && !balanceMoves(t.profile, 'payout', currency) && cost <= centsOf(balance);
}

/** Room kept under the primary merchant's declared payout balance for payouts other checks hold at the same time. */
const BALANCE_MARGIN_CENTS = 1_000_000;

/** What a `method` payout of `cents` in `currency` by `as` draws from its balance: the amount and its fee (its `fees`). */
function costOf(t: Target, method: string, currency: string, as: MerchantRole = 'primary'): (cents: bigint) => bigint | undefined {
  return (cents) => payoutCost(t.profile, method, cents, currency, as);
}

/**
 * "A cent above the balance", fee included: the smallest amount whose cost exceeds `balance`, and the largest whose cost
 * fits it; undefined when the fee cannot be added to the amount (another currency's).
 */
function aroundBalance(
  t: Target,
  method: string,
  currency: string,
  balance: string,
  as: MerchantRole = 'primary',
): { above: string; within?: string } | undefined {
  const cost = costOf(t, method, currency, as);
  const above = smallestAbove(cost, centsOf(balance));
  if (above === undefined) return undefined;
  const within = largestWithin(cost, centsOf(balance));
  return { above: valueOfCents(above), ...(within !== undefined ? { within: valueOfCents(within) } : {}) };
}

/** ", whose fee is 0.28 (0.53 in all)", when the method charges a payout fee the balance must cover; else nothing. */
function feeNote(t: Target, method: string, value: string, currency: string, as: MerchantRole = 'primary'): string {
  const cost = payoutCost(t.profile, method, centsOf(value), currency, as);
  const fee = cost === undefined ? undefined : cost - centsOf(value);
  return fee === undefined || fee === 0n ? '' : ` (fee ${valueOfCents(fee)}, ${valueOfCents(cost!)} from the balance)`;
}

/** Why a balance is not judged: the profile says payments credit it while the kit runs (`balances.paymentsCredit`). */
const MOVING_BALANCE =
  'the profile says successful payments credit the USD payout balance (balances.paymentsCredit), and the interface shows ' +
  'no balance, so a declared USD balance is only where it started and is not judged as a constant';

/** How a cancel names a payout: by its service number, or by what the cancel path carries (harness/profile/endpoint-path.ts). */
function cancelLookup(t: Target, p: { payoutNo: string; merchantPayoutNo: string }) {
  return lookupFor(t, 'payoutCancel', PAYOUT_NUMBERS, { serviceNo: p.payoutNo, merchantNo: p.merchantPayoutNo });
}

/** INTERFACE.md › Errors › Payout errors, States and transitions (2). */
export default defineSuite('payout-errors', { area: 'errors', resource: 'payout' }, [
  {
    title: 'refuses a payout with a payment method not available for payouts with 5007 unsupportedPayoutMethod',
    clause: ['err.po.unsupported-payout-method'],
    async run({ target: t }) {
      const method = payoutsOf(t).notForPayouts;
      if (!method)
        throw new PreconditionSkip('the profile declares no payment method unavailable for payouts (payouts.notForPayouts)', {
          declare: ['payouts.notForPayouts'],
        });
      const ex = await createPayout(t, { method }, { label: `payout with ${method}` });
      expectError(ex, { code: 5007, key: 'unsupportedPayoutMethod' }, { what: `a payout with ${method}` });
    },
  },
  {
    title: 'refuses a payout by a merchant with a payout method not enabled for it',
    clause: ['err.po.unsupported-payout-method'],
    async run({ target: t }) {
      // A payout method the profile declares that another active merchant does not have (merchants.<role>.payoutMethods).
      const declared = Object.keys(payoutsOf(t).methods);
      const found = (['second', 'lowBalance'] as const).flatMap((as) => {
        if (!t.merchants[as]) return [];
        const own = payoutMethodsOf(t, as);
        const method = declared.find((m) => !own.includes(m));
        return method ? [{ as, method }] : [];
      })[0];
      if (!found)
        throw new PreconditionSkip(
          'the profile declares no active merchant lacking one of the payout methods (merchants.second / lowBalance .payoutMethods)',
          { declare: ['merchants.second.payoutMethods or merchants.lowBalance.payoutMethods (without one of payouts.methods)'] },
        );
      const { as, method } = found;
      const lim = t.profile.limits?.payouts?.[method];
      // The smallest amount the method takes: a low balance must not be what refuses it.
      const ex = await createPayout(
        t,
        { method, amount: usd(lim?.min ?? '1.00') },
        { as, label: `payout with ${method} as the ${as} merchant, which does not have it` },
      );
      // "Not available for payouts" (5007) for this merchant, or the payment row's "not enabled for the merchant" (3003): both describe it.
      expectOneOf(
        ex,
        [
          { code: 5007, key: 'unsupportedPayoutMethod' },
          { code: 3003, key: 'paymentMethodUnavailable' },
        ],
        { topic: 'payout.method-not-enabled', what: `a ${method} payout by the ${as} merchant, for which it is not enabled` },
      );
    },
  },
  {
    title: 'refuses a payout with an unknown payment method with unsupportedPaymentMethod',
    clause: ['err.po.unknown-method', 'err.req.unsupported-method'],
    async run({ target: t }) {
      const method = t.profile.methods.unknown;
      const ex = await createPayout(t, { method }, { label: 'payout with an unknown method' });
      // Payout errors say 5007, the request errors of all endpoints say 3003: both readings are accepted.
      expectOneOf(
        ex,
        [
          { code: 5007, key: 'unsupportedPaymentMethod' },
          { code: 3003, key: 'unsupportedPaymentMethod' },
        ],
        { topic: 'payout.unknown-method-code', what: 'a payout with an unknown method' },
      );
    },
  },
  {
    title: 'refuses a payout of a disabled merchant with 1001 merchantFrozen',
    clause: ['err.po.merchant-frozen'],
    async run({ target: t }) {
      t.merchant('frozen');
      const first = payoutMethod(t, { as: 'frozen' });
      const facts = factsOf(t, 'frozen');
      // A balance the profile does not say covers the payout (fee included) may refuse it too: the document orders neither.
      // Credits only raise a balance, and a disabled merchant pays nothing out, so a declared one that covers it still does.
      // The amount: 10.00 (or inside the range), else the method's minimum where only that one is covered; the method: the
      // first whose fee (the disabled merchant's own) leaves such an amount covered.
      const balance = t.profile.merchants.frozen?.payoutBalances?.USD;
      const covers = ({ method, value }: { method: string; value: string }) => {
        const cost = payoutCost(t.profile, method, centsOf(value), 'USD', 'frozen');
        return balance !== undefined && cost !== undefined && cost <= centsOf(balance);
      };
      const candidates = (method: string) => {
        const lim = facts.payoutLimits(method, 'USD');
        const values = lim ? [amountInside(lim), amountInside(lim, valueOfCents(channelSpans(lim)[0]!.min))] : ['10.00'];
        return values.map((value) => ({ method, value }));
      };
      const others = facts.payoutMethods.filter((m) => m !== first && facts.takesCurrency(m, 'USD') !== false);
      const tries = [first, ...others].flatMap(candidates);
      const { method, value } = tries.find(covers) ?? tries[0]!;
      const covered = covers({ method, value });
      const ex = await createPayout(t, { method, amount: usd(value) }, { as: 'frozen', label: 'payout by a disabled merchant' });
      const what = `a ${method} payout of ${value} by a disabled merchant`;
      if (covered) return expectError(ex, { code: 1001, key: 'merchantFrozen' }, { what });
      const seen = expectOneOf(
        ex,
        [
          { code: 1001, key: 'merchantFrozen' },
          { code: 5004, key: 'insufficientFunds' },
        ],
        'err.po.merchant-frozen',
        { what: `${what}, whose payout balance the profile does not say covers it` },
      );
      // Refused for funds: legal, and it shows nothing of the disabled account.
      if (seen.key === 'insufficientFunds')
        throw new PreconditionSkip(
          `the disabled merchant's ${value} USD payout was refused 5004 insufficientFunds, which its undeclared balance explains`,
          { declare: ['merchants.frozen.payoutBalances'] },
        );
    },
  },
  {
    title: 'refuses a non-USD payout on a USD-only method with 5008',
    clause: ['payout.usd-only-methods', 'err.po.amount-out-of-range', 'err.po.currency', 'amount.currency.usd-only'],
    async run(ctx) {
      const t = ctx.target;
      // A method whose currencies the profile states as a set (usdOnly: true is ["USD"]): every other currency is refused.
      const setOf = (name: string) => factsOf(t).payoutCurrencies(name) ?? [];
      const methods = methodsWithLimits(t, (name, f) => f.payoutCurrencies(name) !== undefined);
      const arb = fc.constantFrom(...methods).chain(({ method, lim }) =>
        fc.record({
          method: fc.constant(method),
          currency: currencyCodeOtherThanUsd().filter((c) => !setOf(method).includes(c)),
          value: payoutValueInsideLimits({
            min: lim.min,
            max: valueOfCents(Math.min(centsNumberOf(lim.max), centsNumberOf(lim.min) + 10_000)),
          }),
        }),
      );
      const refusesIt = async ({ method, currency, value }: { method: string; currency: string; value: string }) => {
        const ex = await createPayout(t, { method, amount: { currency, value } }, { label: `${method} payout in ${currency}` });
        expectPayoutCatalogueCode(ex);
        expectOneOf(
          ex,
          [
            { code: 5008, key: 'amountOutOfRange', clause: 'err.po.amount-out-of-range' },
            { code: 5008, key: 'notSupported', clause: 'err.po.currency' },
          ],
          { topic: 'payout.non-usd-currency', what: `a ${method} payout of ${value} ${currency}` },
        );
      };
      // First what the target is known to take elsewhere, at each USD-only method's minimum; then drawn codes.
      for (const currency of ['USD', ...currenciesKnownFirst(namedCurrencies(t))])
        for (const { method, lim } of methods) if (!setOf(method).includes(currency)) await refusesIt({ method, currency, value: lim.min });
      await property(ctx, arb, refusesIt, { numRuns: 5 });
    },
  },
  {
    title: 'refuses a payout outside the method limits with 5008 amountOutOfRange',
    clause: ['err.po.amount-out-of-range', 'limit.amount.channel-range'],
    async run(ctx) {
      const t = ctx.target;
      const balance = payoutsOf(t).balances?.primary;
      const methods = methodsWithLimits(t, takesUsd);
      const arb = fc
        .constantFrom(...methods)
        .chain(({ method, lim }) => payoutValueOutsideLimits(lim, 100_000).map((value) => ({ method, lim, value })));
      await property(
        ctx,
        arb,
        async ({ method, lim, value }) => {
          const ex = await createPayout(
            t,
            { method, amount: usd(value) },
            { label: `${method} payout of ${value} (limits ${lim.min}..${lim.max})` },
          );
          const above = centsNumberOf(value) > centsNumberOf(lim.max);
          const cost = payoutCost(t.profile, method, centsOf(value), 'USD');
          if (above && !(balance && cost !== undefined && Number(cost) + BALANCE_MARGIN_CENTS <= centsNumberOf(balance))) {
            // Above the maximum and possibly above the balance too: the document orders neither error first.
            expectOneOf(
              ex,
              [
                { code: 5008, key: 'amountOutOfRange' },
                { code: 5004, key: 'insufficientFunds' },
              ],
              { topic: 'payout.above-max-and-balance', what: `a ${method} payout of ${value} above the maximum ${lim.max}` },
            );
          } else {
            expectError(
              ex,
              { code: 5008, key: 'amountOutOfRange' },
              { what: `a ${method} payout of ${value} outside ${lim.min}..${lim.max}` },
            );
          }
        },
        { numRuns: 8 },
      );
    },
  },
  {
    title: "refuses a payout outside another merchant's own range of the method with 5008 amountOutOfRange",
    clause: ['err.po.amount-out-of-range', 'limit.amount.channel-range'],
    async run(ctx) {
      const t = ctx.target;
      // A merchant whose facts give a payout method a range of its own (merchants.<role>.facts.limits.payouts): its range
      // is its fact, another merchant's is not.
      const found = OTHER_ROLES.flatMap((as) => (t.merchants[as] ? ownRanges(t, as).map((r) => ({ ...r, as })) : []));
      if (found.length === 0)
        throw new PreconditionSkip(
          'the profile gives no other active merchant a payout range of its own (merchants.<role>.facts.limits.payouts)',
          { declare: ['merchants.second.facts.limits.payouts or merchants.lowBalance.facts.limits.payouts'] },
        );
      const arb = fc.constantFrom(...found).chain((r) => payoutValueOutsideLimits(r.lim, 100_000).map((value) => ({ ...r, value })));
      // Each range's edges first (a cent outside each end), then drawn amounts outside it.
      const edges = (lim: ChannelLimits) => [
        ...(centsOf(lim.min) > 1n ? [valueOfCents(centsOf(lim.min) - 1n)] : []),
        valueOfCents(centsOf(lim.max) + 1n),
      ];
      for (const as of new Set(found.map((r) => r.as)))
        await withBalanceHeld(t, as, async () => {
          for (const r of found.filter((f) => f.as === as)) for (const value of edges(r.lim)) await outside({ ...r, value });
          await property(
            ctx,
            arb.filter((r) => r.as === as),
            outside,
            { numRuns: 6 },
          );
        });
      async function outside({ as, method, lim, value }: { as: MerchantRole; method: string; lim: ChannelLimits; value: string }) {
        const ex = await createPayout(
          t,
          { method, amount: usd(value) },
          { as, label: `${method} payout of ${value} by the ${as} merchant (its limits ${lim.min}..${lim.max})` },
        );
        const what = `a ${method} payout of ${value} by the ${as} merchant, outside its own ${lim.min}..${lim.max}`;
        // Refused for its range, unless its balance may not cover it: the document orders neither error first.
        if (coveredBy(t, as, method, value, 'USD')) expectError(ex, { code: 5008, key: 'amountOutOfRange' }, { what });
        else
          expectOneOf(
            ex,
            [
              { code: 5008, key: 'amountOutOfRange' },
              { code: 5004, key: 'insufficientFunds' },
            ],
            { topic: 'payout.above-max-and-balance', what },
          );
      }
    },
  },
  {
    title: "refuses a payout in a currency another merchant's method does not take for it with 5008",
    clause: ['err.po.amount-out-of-range', 'err.po.currency'],
    async run({ target: t }) {
      // A currency set of the merchant's own (merchants.<role>.facts.payouts.methods.<method>.currencies): a currency the
      // set leaves out is refused for this merchant, whatever the method takes for another.
      const found = OTHER_ROLES.flatMap((as) => {
        if (!t.merchants[as]) return [];
        const facts = factsOf(t, as);
        return facts.payoutMethods.flatMap((method) => {
          const own = whereSaid(t.profile, as, ['payouts', 'methods', method, 'currencies']).startsWith('merchants.');
          const set = facts.payoutCurrencies(method);
          const lim = facts.payoutLimitsDeclared(method);
          if (!own || !set || !lim) return [];
          return ['USD', ...currenciesKnownFirst(namedCurrencies(t))]
            .filter((c) => !set.includes(c))
            .map((currency) => ({ as, method, currency, lim }));
        });
      });
      if (found.length === 0)
        throw new PreconditionSkip(
          "the profile gives no other active merchant a payout method's currencies of its own " +
            '(merchants.<role>.facts.payouts.methods.<method>.currencies)',
          { declare: ['merchants.lowBalance.facts.payouts.methods.<method>.currencies'] },
        );
      for (const { as, method, currency, lim } of found) {
        const ex = await createPayout(
          t,
          { method, amount: { currency, value: lim.min } },
          { as, label: `${method} payout of ${lim.min} ${currency} by the ${as} merchant, for which it does not take ${currency}` },
        );
        expectPayoutCatalogueCode(ex);
        expectOneOf(
          ex,
          [
            { code: 5008, key: 'amountOutOfRange', clause: 'err.po.amount-out-of-range' },
            { code: 5008, key: 'notSupported', clause: 'err.po.currency' },
          ],
          {
            topic: 'payout.non-usd-currency',
            what: `a ${method} payout in ${currency} by the ${as} merchant, whose ${method} does not take it`,
          },
        );
      }
    },
  },
  {
    title: "refuses a payout outside the method's own range in its currency with 5008 amountOutOfRange",
    clause: ['err.po.amount-out-of-range', 'limit.amount.channel-range'],
    async run(ctx) {
      const t = ctx.target;
      const facts = factsOf(t);
      const ranges = methodsWithLimits(t).flatMap(({ method, lim }) =>
        Object.keys(lim.byCurrency ?? {})
          .filter((currency) => currency !== 'USD' && facts.takesCurrency(method, currency) === true)
          .map((currency) => ({ method, currency, usd: lim, own: facts.payoutLimits(method, currency)! })),
      );
      if (ranges.length === 0)
        throw new PreconditionSkip(
          'the profile declares no payout range of its own in a currency other than USD (limits.payouts.<method>.byCurrency)',
          { declare: ['limits.payouts.<method>.byCurrency (a method with "usdOnly": false)'] },
        );
      // Mostly where the two ranges differ (outside the currency's, inside the USD one), where a range read in USD lets it through.
      const arb = fc.constantFrom(...ranges).chain((r) => {
        const between = [
          ...(centsOf(r.own.max) < centsOf(r.usd.max)
            ? [payoutValueInsideLimits({ min: valueOfCents(centsOf(r.own.max) + 1n), max: r.usd.max })]
            : []),
          ...(centsOf(r.own.min) > centsOf(r.usd.min) && centsOf(r.own.min) > 1n
            ? [payoutValueInsideLimits({ min: r.usd.min, max: valueOfCents(centsOf(r.own.min) - 1n) })]
            : []),
        ];
        return fc.oneof(...between, payoutValueOutsideLimits(r.own, 100_000)).map((value) => ({ ...r, value }));
      });
      const balances = t.profile.merchants.primary.payoutBalances ?? {};
      await property(
        ctx,
        arb,
        async ({ method, currency, own, value }) => {
          const ex = await createPayout(
            t,
            { method, amount: { currency, value } },
            { label: `${method} payout of ${value} ${currency} (its ${currency} range ${own.min}..${own.max})` },
          );
          const above = centsOf(value) > centsOf(own.max);
          const balance = balances[currency];
          const cost = payoutCost(t.profile, method, centsOf(value), currency);
          const covered =
            balance !== undefined && cost !== undefined && !balanceMoves(t.profile, 'payout', currency) && cost <= centsOf(balance);
          const what = `a ${method} payout of ${value} ${currency} outside its ${currency} range ${own.min}..${own.max}`;
          // Above the maximum and perhaps above a balance the profile does not declare: the document orders neither error first.
          if (above && !covered)
            expectOneOf(
              ex,
              [
                { code: 5008, key: 'amountOutOfRange' },
                { code: 5004, key: 'insufficientFunds' },
              ],
              { topic: 'payout.above-max-and-balance', what },
            );
          else expectError(ex, { code: 5008, key: 'amountOutOfRange' }, { what });
        },
        { numRuns: 8 },
      );
    },
  },
  {
    title: 'refuses a payout above the merchant payout balance with 5004 insufficientFunds',
    clause: ['err.po.insufficient-funds'],
    async run(ctx) {
      const t = ctx.target;
      t.merchant('lowBalance');
      const balance = t.profile.merchants.lowBalance?.payoutBalance;
      if (!balance)
        throw new PreconditionSkip(
          'the profile declares no payout balance of the low-balance merchant (merchants.lowBalance.payoutBalance)',
          { declare: ['merchants.lowBalance.payoutBalance'] },
        );
      // The first amount above the balance with its fee, per method (the fee is the method's).
      // Its own facts: a method that takes USD for it, with its own range (a method that takes EUR only for this merchant
      // is not one; another merchant's currencies or ranges are not its facts).
      const low = factsOf(t, 'lowBalance');
      const methods = methodsWithLimits(t, takesUsd, 'lowBalance').flatMap(({ method }) => {
        const lim = low.payoutLimits(method, 'USD')!;
        const around = aroundBalance(t, method, 'USD', balance, 'lowBalance');
        return around && centsNumberOf(lim.max) >= centsNumberOf(around.above) ? [{ method, lim, above: around.above }] : [];
      });
      if (methods.length === 0)
        throw new PreconditionSkip(
          `no payout method enabled for the low-balance merchant allows an amount above ` +
            `its balance ${balance}, fee included (merchants.lowBalance.payoutMethods, limits.payouts, fees.payouts)`,
          { declare: ['merchants.lowBalance.payoutMethods', 'limits.payouts'] },
        );
      // A balance payments credit is at least the declared one: found from the target (suites/support/moving-balance.ts).
      if (balanceMoves(t.profile, 'payout', 'USD')) return firstRefusalIsInsufficientFunds(t, balance, methods);
      const arb = fc
        .constantFrom(...methods)
        .chain(({ method, lim, above }) => payoutValueAboveBalance(lim, balance, above).map((value) => ({ method, value })));
      const refusedAbove = async ({ method, value }: { method: string; value: string }, pending = '') => {
        const ex = await createPayout(
          t,
          { method, amount: usd(value) },
          { as: 'lowBalance', label: `${method} payout of ${value} with a balance of ${balance}` },
        );
        expectError(
          ex,
          { code: 5004, key: 'insufficientFunds' },
          {
            what:
              `a payout of ${value}${feeNote(t, method, value, 'USD', 'lowBalance')} ` +
              `by a merchant whose payout balance is ${balance}${pending}`,
          },
        );
      };
      await withBalanceHeld(t, 'lowBalance', async () => {
        // Proceeds that stay pending (balances.proceeds) are no part of the balance: paid first, the edge stays where it was.
        const pending = await leaveProceedsPending(t);
        // First the edge itself, a cent above what the balance covers with the fee (a minimum fee included), then drawn ones.
        for (const { method, lim, above } of methods)
          await refusedAbove({ method, value: centsOf(above) < centsOf(lim.min) ? lim.min : above }, pending);
        await property(ctx, arb, refusedAbove, { numRuns: 6 });
      });
    },
  },
  {
    title: 'draws a payout on the balance of its own currency: just above it is refused with 5004 insufficientFunds, within it is not',
    clause: ['err.po.insufficient-funds'],
    async run({ target: t }) {
      t.merchant('lowBalance');
      // USD is the check above's (and the stateful model's): a payout of the whole USD balance here would race them.
      const balances = Object.entries(t.profile.merchants.lowBalance?.payoutBalances ?? {}).filter(([currency]) => currency !== 'USD');
      if (balances.length === 0)
        throw new PreconditionSkip(
          'the profile declares no payout balance of the low-balance merchant ' +
            'in a currency other than USD (merchants.lowBalance.payoutBalances)',
          { declare: ['merchants.lowBalance.payoutBalances'] },
        );
      payoutsOf(t);
      const low = factsOf(t, 'lowBalance');
      let tried = 0;
      for (const [currency, declared] of balances) {
        if (balanceMoves(t.profile, 'payout', currency)) continue;
        // A method that takes this currency for this merchant, whose range in it holds both the largest payout the balance
        // covers with its fee and the smallest it does not, so only the balance can refuse.
        const found = low.payoutMethods.flatMap((name) => {
          if (low.takesCurrency(name, currency) !== true) return [];
          const around = aroundBalance(t, name, currency, declared, 'lowBalance');
          if (!around?.within) return [];
          const lim = low.payoutLimits(name, currency);
          const fits = !lim || (centsOf(lim.min) <= centsOf(around.within) && centsOf(around.above) <= centsOf(lim.max));
          return fits ? [{ method: name, ...around, within: around.within }] : [];
        })[0];
        if (!found) continue;
        const { method, above, within: whole } = found;
        tried++;
        const amount = (value: string) => ({ currency, value });
        await withBalanceHeld(t, 'lowBalance', async () => {
          const over = await createPayout(
            t,
            { method, amount: amount(above) },
            { as: 'lowBalance', label: `${method} payout of ${above} ${currency} with a ${currency} balance of ${declared}` },
          );
          expectError(
            over,
            { code: 5004, key: 'insufficientFunds' },
            {
              what:
                `a payout of ${above} ${currency}${feeNote(t, method, above, currency, 'lowBalance')}` +
                ` by a merchant whose ${currency} payout balance is ${declared}`,
            },
          );
          const merchantPayoutNo = t.newNo('payout');
          const within = await createPayout(
            t,
            { payoutNo: merchantPayoutNo, method, amount: amount(whole) },
            {
              as: 'lowBalance',
              label:
                `${method} payout of ${whole} ${currency}, ` +
                `its whole ${currency} balance${feeNote(t, method, whole, currency, 'lowBalance')}`,
            },
          );
          const body = within.response?.json as { code?: unknown; msg?: unknown } | undefined;
          if (body?.code === 5004 || (typeof body?.msg === 'string' && splitMsg(body.msg).key === 'insufficientFunds')) {
            failCheck({
              code: 'REFUSED_WITHIN_BALANCE',
              title:
                `a payout of ${whole} ${currency}${feeNote(t, method, whole, currency, 'lowBalance')}` +
                `, within the declared ${currency} balance ${declared}, ` +
                `was refused for funds (is the balance checked against another currency's?)`,
              expected: 'the payout accepted',
              seen: JSON.stringify(body),
              exchange: within,
            });
          }
          const data = expectSuccess(within, { what: `a payout of ${whole} ${currency} within the ${currency} balance` });
          // Give the balance back for the next run.
          const payoutNo = expectString(data, payoutsOf(t).data.payoutNo, 'err.po.insufficient-funds', within);
          await givePayoutBack(
            t,
            { payoutNo, merchantPayoutNo, as: 'lowBalance' },
            method,
            'err.po.insufficient-funds',
            `cancel the ${currency} payout to give the balance back`,
          );
        });
      }
      if (tried === 0)
        throw new PreconditionSkip(
          'no payout method of the low-balance merchant declares it takes other currencies ' +
            'than USD (currencies, or "usdOnly": false) with a range holding its balance and a cent more',
          { declare: ['payouts.methods.<method>.currencies (a method of the low-balance merchant)', 'limits.payouts'] },
        );
    },
  },
  {
    title: "checks a payout against the sending merchant's own balance: a cent above the second merchant's is refused with 5004",
    clause: ['err.po.insufficient-funds'],
    async run({ target: t }) {
      t.merchant('second');
      // The second merchant, not the low-balance one: its balance is not the smallest, so a check against any other account's
      // (the primary's, a pooled one) would let it through. No other check pays out as the second merchant, so it is intact.
      const balances = Object.entries(t.profile.merchants.second?.payoutBalances ?? {});
      if (balances.length === 0)
        throw new PreconditionSkip('the profile declares no payout balance of the second merchant (merchants.second.payoutBalances)', {
          declare: ['merchants.second.payoutBalances'],
        });
      payoutsOf(t);
      const second = factsOf(t, 'second');
      let tried = 0;
      let moving = 0;
      for (const [currency, balance] of balances) {
        // A balance payments credit is only where it started: another check's payment may have raised it since.
        if (balanceMoves(t.profile, 'payout', currency)) {
          moving++;
          continue;
        }
        // Each method that takes the currency and whose range in it holds a cent above the balance, fee included: only the
        // balance can refuse. Every one, as each has its own fee (a merchant's own fee may differ from every merchant's).
        const found = second.payoutMethods.flatMap((name) => {
          const lim = second.payoutLimits(name, currency);
          if (second.takesCurrency(name, currency) !== true || !lim) return [];
          const above = aroundBalance(t, name, currency, balance, 'second')?.above;
          return above !== undefined && centsOf(lim.min) <= centsOf(above) && centsOf(above) <= centsOf(lim.max)
            ? [{ method: name, above }]
            : [];
        });
        for (const { method, above } of found) {
          tried++;
          await withBalanceHeld(t, 'second', async () => {
            const ex = await createPayout(
              t,
              { method, amount: { currency, value: above } },
              {
                as: 'second',
                label: `${method} payout of ${above} ${currency} by the second merchant, whose ${currency} balance is ${balance}`,
              },
            );
            expectError(
              ex,
              { code: 5004, key: 'insufficientFunds' },
              {
                what:
                  `a payout of ${above} ${currency}${feeNote(t, method, above, currency, 'second')} by ` +
                  `the second merchant, whose own ${currency} payout balance is ${balance}`,
              },
            );
          });
        }
      }
      if (tried === 0 && moving > 0 && moving === balances.length)
        throw new PreconditionSkip(MOVING_BALANCE, {
          declare: ['merchants.second.payoutBalances (a currency payments do not credit)'],
        });
      if (tried === 0)
        throw new PreconditionSkip(
          'no payout method of the second merchant takes a cent above one of its declared balances within its limits ' +
            '(merchants.second.payoutBalances, limits.payouts, payouts.methods.<method>.usdOnly)',
          { declare: ['merchants.second.payoutBalances (below a payout maximum)', 'limits.payouts'] },
        );
    },
  },
  {
    title: 'answers a query for a payout that does not exist with 5002 notFound',
    clause: ['err.po.query-not-found'],
    async run({ target: t }) {
      for (const by of lookupsAt(t, 'payoutQuery', PAYOUT_NUMBERS, { serviceNo: t.newNo('payout'), merchantNo: t.newNo('payout') })) {
        const ex = await queryPayout(t, by, { label: `query an unknown payout by ${by.serviceNo ? 'payout_no' : 'merchant_payout_no'}` });
        expectError(ex, { code: 5002, key: 'notFound' }, { what: 'a query for a payout that does not exist' });
      }
    },
  },
  {
    title: 'answers a cancel of a payout that does not exist with 422 notFound',
    clause: ['err.po.cancel-not-found'],
    async run({ target: t }) {
      for (const by of lookupsAt(t, 'payoutCancel', PAYOUT_NUMBERS, { serviceNo: t.newNo('payout'), merchantNo: t.newNo('payout') })) {
        const ex = await cancelPayout(t, by, { label: `cancel an unknown payout by ${by.serviceNo ? 'payout_no' : 'merchant_payout_no'}` });
        expectError(ex, { code: 422, key: 'notFound' }, { what: 'a cancel of a payout that does not exist' });
      }
    },
  },
  {
    title: 'refuses to cancel a payout in status SUCCESS with 5003 payoutNotCancelable naming the status',
    clause: ['err.po.not-cancelable', 'state.payout.not-cancelable'],
    async run({ target: t }) {
      const created = await payoutCreated(t, payoutMethod(t, { cancel: true }), 'err.po.not-cancelable');
      await settlePayout(t, created, 'success', 'err.po.not-cancelable');
      const ex = await cancelPayout(t, cancelLookup(t, created), { label: 'cancel a payout settled as SUCCESS' });
      expectError(
        ex,
        { code: 5003, key: 'payoutNotCancelable' },
        { what: 'a cancel of a payout in status SUCCESS', ifAccepted: 'state.payout.not-cancelable' },
      );
      const msg = String((ex.response!.json as { msg?: unknown }).msg ?? '');
      const { message } = splitMsg(msg);
      if (!message.includes('SUCCESS')) {
        failCheck('state.payout.not-cancelable', {
          code: 'STATUS_NOT_NAMED',
          title: 'the refusal does not name the current status SUCCESS in its message',
          expected: 'a message containing SUCCESS, before the key',
          seen: JSON.stringify(msg),
          exchange: ex,
        });
      }
    },
  },
  {
    title: 'refuses to cancel a payout that ended as FAILED or CANCELED with 5003 payoutNotCancelable',
    clause: ['err.po.not-cancelable', 'state.payout.not-cancelable'],
    level: 'should',
    async run({ target: t }) {
      const method = payoutMethod(t, { cancel: true });
      const failed = await payoutCreated(t, method, 'err.po.not-cancelable');
      await settlePayout(t, failed, 'failed', 'err.po.not-cancelable');
      const canceled = await payoutCreated(t, method, 'err.po.not-cancelable');
      const first = await cancelPayout(t, cancelLookup(t, canceled));
      // Time the vendor keeps: a payout that may have ended by itself before the first cancel is refused it, and is
      // then a payout in that final status, as not cancelable as a CANCELED one.
      const ended = payoutMayHaveSettled(t, canceled.sentAt);
      const refused = (first.response?.json as { code?: unknown } | undefined)?.code === 5003;
      if (!(ended !== undefined && refused)) expectSuccess(first, { what: 'the first cancel' });
      const second: string = ended !== undefined && refused ? ended : 'CANCELED';
      for (const [p, status] of [
        [failed, 'FAILED'],
        [canceled, second],
      ] as const) {
        const ex = await cancelPayout(t, cancelLookup(t, p), { label: `cancel a payout in status ${status}` });
        expectError(
          ex,
          { code: 5003, key: 'payoutNotCancelable' },
          { what: `a cancel of a payout in status ${status}`, ifAccepted: 'state.payout.not-cancelable' },
        );
      }
    },
  },
  {
    title: 'refuses to cancel a payout on a method without cancel support with 422 notSupported',
    clause: ['err.po.cancel-unsupported'],
    async run({ target: t }) {
      const method = payoutMethod(t, { cancel: false });
      const created = await payoutCreated(t, method, 'err.po.cancel-unsupported');
      const record = { serviceNo: created.payoutNo, merchantNo: created.merchantPayoutNo };
      for (const by of lookupsAt(t, 'payoutCancel', PAYOUT_NUMBERS, record)) {
        const ex = await cancelPayout(t, by, { label: `cancel a pending ${method} payout` });
        const what = `a cancel of a ${method} payout (no cancel support)`;
        // A payout that may have ended by itself (sandbox.autoSettle.payouts) is not cancelable either: either refusal holds.
        if (payoutMayHaveSettled(t, created.sentAt) !== undefined)
          expectOneOf(
            ex,
            [
              { code: 422, key: 'notSupported' },
              { code: 5003, key: 'payoutNotCancelable' },
            ],
            'err.po.cancel-unsupported',
            { what: `${what}, which may have ended by itself` },
          );
        else expectError(ex, { code: 422, key: 'notSupported' }, { what });
      }
    },
  },
]);
