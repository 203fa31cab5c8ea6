import type { ClauseId } from '../harness/clauses/registry.js';
import fc from 'fast-check';
import { defineSuite } from '../harness/check/define.js';
import { expectEqual, expectOneOf, expectSuccess, failCheck, pick } from '../harness/check/expect.js';
import { CheckFailure, PreconditionSkip } from '../harness/check/failure.js';
import { property } from '../harness/check/property.js';
import { checkout, createCheckout, queryPayment, usd } from '../harness/ops.js';
import type { Target } from '../harness/target.js';
import type { Exchange } from '../harness/http/exchange.js';
import { splitMsg } from '../harness/http/envelope.js';
import {
  amountBetweenPricePoints,
  amountNotRoundableToPricePoint,
  amountsNextToPricePoints,
  amountsNextToRefusal,
  type RoundedAmountCase,
} from '../fixtures/arbitraries/price-points.js';
import { describeRule, pricePointRule, type PricePointRule } from '../harness/profile/price-points.js';
import { acceptsCents } from '../harness/facts/limits.js';
import { centsNumberOf } from '../harness/facts/money.js';

/** Price-point methods a checkout accepts, with the profile's tiers; skips when either is undeclared. */
function pricePointSetup(t: Target) {
  const pp = t.profile.pricePoints;
  const methods = (t.profile.methods.pricePoint ?? []).filter((m) => t.profile.methods.checkout.includes(m));
  if (!pp || pp.tiers.length === 0)
    throw new PreconditionSkip('the profile declares no price points (pricePoints.tiers)', { declare: ['pricePoints.tiers'] });
  if (methods.length === 0)
    throw new PreconditionSkip(
      'the profile declares no price-point method among the checkout methods (methods.pricePoint, methods.checkout)',
      { declare: ['methods.pricePoint', 'methods.checkout'] },
    );
  return {
    pp,
    methods,
    ruleOf: (method: string): PricePointRule => pricePointRule(pp, method),
    tiersOf: (method: string): string[] => pp.tiersByMethod?.[method] ?? pp.tiers,
    insideOf: (method: string) => insideLimits(t, method),
  };
}

/**
 * Whether an amount of the method falls inside one of its declared channels. An amount (or the tier it rounds to) outside
 * every channel may be refused 2006 ("No available channel accepts the amount"), whatever the rounding rule says, so the
 * rounding checks judge only amounts and tiers inside; with no declared limits, every amount is.
 */
function insideLimits(t: Target, method: string): (cents: number) => boolean {
  const lim = t.profile.limits?.payments?.[method];
  return lim ? (cents) => acceptsCents(lim, cents) : () => true;
}

/** The record paths of the amount charged and the amount asked; skips when undeclared. */
function amountPaths(t: Target): { trans: string; requested: string } {
  const rec = t.profile.paymentRecord;
  if (!rec?.requestedAmount)
    throw new PreconditionSkip('the profile declares no path of requested_amount in the payment record (paymentRecord.requestedAmount)', {
      declare: ['paymentRecord.requestedAmount'],
    });
  return { trans: rec.transAmount, requested: rec.requestedAmount };
}

async function recordOf(
  t: Target,
  orderNo: string,
  clause: ClauseId,
): Promise<{ data: Record<string, unknown>; ex: Awaited<ReturnType<typeof queryPayment>> }> {
  const ex = await queryPayment(t, { order_no: orderNo });
  return { data: expectSuccess(ex, clause, { what: 'querying the price-point payment' }), ex };
}

/**
 * What a wrong charge for a rounded amount is evidence against: showing the amount asked as the
 * amount charged breaks "trans_amount is the USD amount charged"; charging something that is no
 * tier at all breaks "fixed tiers only"; another tier than the rounding rule gives breaks the rounding.
 */
function roundingClause(charged: unknown, c: RoundedAmountCase, tiers: readonly string[]): ClauseId {
  const value = (charged as { value?: unknown } | undefined)?.value;
  if (c.requested !== c.tier && JSON.stringify(charged) === JSON.stringify(usd(c.requested))) return 'payment.trans-amount.usd-charged';
  if (typeof value === 'string' && !tiers.some((t) => Number(t) === Number(value))) return 'limit.price-points';
  return 'payment.price-point.round';
}

const UNROUNDABLE: { code: number; key: string; clause: ClauseId }[] = [
  { code: 2006, key: 'amountOutOfRange', clause: 'err.pay.amount-out-of-range' },
  { code: 422, key: 'notSupported', clause: 'err.pay.price-point' },
];

/** A refusal with one half of a row the document allows (its code or its key) is evidence against that row. */
function unroundableClause(ex: Exchange): ClauseId {
  const body = ex.response?.json as { code?: unknown; msg?: unknown } | undefined;
  const code = body && typeof body === 'object' ? body.code : undefined;
  const key = body && typeof body === 'object' && typeof body.msg === 'string' ? splitMsg(body.msg).key : undefined;
  if (ex.response?.status !== 200 || code === 0 || code === undefined) return 'payment.price-point.refuse';
  if ((code === 422) !== (key === 'notSupported')) return 'err.pay.price-point';
  if ((code === 2006) !== (key === 'amountOutOfRange')) return 'err.pay.amount-out-of-range';
  return 'payment.price-point.refuse';
}

/** INTERFACE.md › Payment, Limits, Payment errors: Apple Pay and Google Pay charge fixed tiers only. */
export default defineSuite('price-points', { area: 'payments', resource: 'payment' }, [
  {
    title: 'charges an amount equal to a price point as it is, without requested_amount',
    clause: ['payment.requested-amount.only-rounded', 'limit.price-points', 'payment.trans-amount.usd-charged'],
    async run(ctx) {
      const { target } = ctx;
      const { methods, tiersOf, insideOf } = pricePointSetup(target);
      const paths = amountPaths(target);
      // Every tier with every price-point method: a handful of cases, so all of them (a tier outside the method's
      // declared channels may be refused 2006).
      for (const method of methods) {
        for (const tier of tiersOf(method).filter((x) => insideOf(method)(centsNumberOf(x)))) {
          const order = await createCheckout(target, 'limit.price-points', { method, amount: usd(tier) });
          const { data, ex } = await recordOf(target, order.orderNo, 'payment.requested-amount.only-rounded');
          const charged = pick(data, paths.trans);
          // A charge that is no tier at all breaks "fixed tiers only" first (price-point-ninety-nine: 1.00 charged 1.99).
          const value = (charged as { value?: unknown } | undefined)?.value;
          const noTier = typeof value === 'string' && !tiersOf(method).some((t) => Number(t) === Number(value));
          expectEqual(charged, usd(tier), noTier ? 'limit.price-points' : 'payment.trans-amount.usd-charged', {
            code: 'PRICE_POINT_NOT_CHARGED_AS_IS',
            title: `a ${method} payment of the price point ${tier} should be charged ${tier}`,
            exchange: ex,
          });
          const requested = pick(data, paths.requested);
          if (requested !== undefined) {
            failCheck({
              code: 'REQUESTED_AMOUNT_NOT_ROUNDED',
              title: `requested_amount is present only when the amount was rounded; ${tier} is a price point and was not`,
              expected: `no data.${paths.requested}`,
              seen: JSON.stringify(requested),
              exchange: ex,
            });
          }
        }
      }
    },
  },
  {
    title: 'rounds an amount between price points to the declared tier and shows the amount asked as requested_amount',
    clause: [
      'payment.price-point.round',
      'payment.requested-amount.only-rounded',
      'amount.value.two-decimals-out',
      'limit.price-points',
      'payment.trans-amount.usd-charged',
    ],
    async run(ctx) {
      const { target } = ctx;
      const { pp, methods, ruleOf, tiersOf, insideOf } = pricePointSetup(target);
      const paths = amountPaths(target);
      // Only amounts the declared rule (rounding, distance, tie, per-method tiers) rounds are judged here, inside the
      // method's declared channels.
      const withCases = methods.flatMap((method) => {
        const between = amountBetweenPricePoints(ruleOf(method), pp.unroundable, insideOf(method));
        return between ? [{ method, between }] : [];
      });
      if (withCases.length === 0)
        throw new PreconditionSkip('the declared price-point rule rounds no amount between the tiers', { declare: ['pricePoints.tiers'] });
      type Charge = { method: string; c: RoundedAmountCase; data: Record<string, unknown>; ex: Exchange; charged: unknown };
      const charge = async ({ method, c }: { method: string; c: RoundedAmountCase }): Promise<Charge | { refused: CheckFailure }> => {
        try {
          const order = await createCheckout(target, 'payment.price-point.round', { method, amount: usd(c.sent) });
          const { data, ex } = await recordOf(target, order.orderNo, 'payment.price-point.round');
          return { method, c, data, ex, charged: pick(data, paths.trans) };
        } catch (err) {
          // A roundable amount refused, or its record unreadable: judged in its turn (judge), after any charge of no tier.
          if (err instanceof CheckFailure) return { refused: err };
          throw err;
        }
      };
      const judge = (x: Charge | { refused: CheckFailure }) => {
        if ('refused' in x) throw x.refused;
        const { method, c, data, ex, charged } = x;
        expectEqual(charged, usd(c.tier), roundingClause(charged, c, tiersOf(method)), {
          code: 'NOT_ROUNDED_TO_PRICE_POINT',
          title: `a ${method} payment of ${c.sent} should be charged the price point ${c.tier} (rounding ${describeRule(ruleOf(method))})`,
          exchange: ex,
        });
        expectEqual(pick(data, paths.requested), usd(c.requested), 'payment.requested-amount.only-rounded', {
          code: 'REQUESTED_AMOUNT_WRONG',
          title: `a payment rounded from ${c.sent} should show requested_amount ${c.requested}`,
          exchange: ex,
        });
      };
      const probe = async (x: { method: string; c: RoundedAmountCase }) => judge(await charge(x));
      // The cents next to each change of decision first (the first such method), all charged before any is judged: of
      // several wrong charges, one that is no tier at all is judged first, as the most telling ("fixed tiers only"); on
      // x.99 tiers rounded to the nearest, price-point-ninety-nine's first wrong charge is another tier (bench --kill,
      // kill.test.ts LEGAL_TARGETS_SEED=1495603823). Then anywhere the rule rounds.
      const first = withCases[0]!.method;
      const seen: Awaited<ReturnType<typeof charge>>[] = [];
      for (const c of amountsNextToPricePoints(ruleOf(first), pp.unroundable, insideOf(first)))
        seen.push(await charge({ method: first, c }));
      const telling = (x: (typeof seen)[number]) =>
        !('refused' in x) && roundingClause(x.charged, x.c, tiersOf(x.method)) === 'limit.price-points' ? 0 : 1;
      for (const x of [...seen].sort((a, b) => telling(a) - telling(b))) judge(x);
      const cases = fc.constantFrom(...withCases).chain(({ method, between }) => between.map((c) => ({ method, c })));
      await property(ctx, cases, probe, { numRuns: Math.min(ctx.numRuns, 12), independent: true });
    },
  },
  {
    title: 'refuses an amount that cannot be rounded to a price point',
    clause: ['payment.price-point.refuse', 'err.pay.price-point', 'err.pay.amount-out-of-range', 'limit.price-points'],
    async run(ctx) {
      const { target } = ctx;
      const { pp, methods, ruleOf } = pricePointSetup(target);
      const generated = methods.flatMap((method) => {
        const derived = amountNotRoundableToPricePoint(ruleOf(method));
        return derived ? [derived.map((value) => ({ method, value }))] : [];
      });
      const listed = pp.unroundable.length
        ? [fc.record({ method: fc.constantFrom(...methods), value: fc.constantFrom(...pp.unroundable) })]
        : [];
      const sources = [...listed, ...generated];
      if (sources.length === 0)
        throw new PreconditionSkip('the profile lists no unroundable amount (pricePoints.unroundable) and its rounding rule refuses none', {
          declare: ['pricePoints.unroundable'],
        });
      const probe = async ({ method, value }: { method: string; value: string }) => {
        const ex = await checkout(target, { method, amount: usd(value) }, { label: `checkout ${method} of unroundable ${value}` });
        // The document gives both: 2006 "cannot be rounded to a price point", and 422 notSupported
        // "amount that cannot be rounded to a fixed tier". Either is accepted and recorded.
        expectOneOf(ex, UNROUNDABLE, unroundableClause(ex), {
          topic: 'price-point.unroundable',
          what: `a ${method} checkout of ${value}, which no price point rounds`,
        });
      };
      // Every amount the profile lists, with every price-point method, then generated ones.
      for (const method of methods) for (const value of pp.unroundable) await probe({ method, value });
      // The first cents the declared rule refuses next to a tier or a distance limit, for each method.
      for (const method of methods)
        for (const value of amountsNextToRefusal(ruleOf(method), pp.unroundable).slice(0, 6)) await probe({ method, value });
      await property(ctx, fc.oneof(...sources), probe, { independent: true });
    },
  },
]);
