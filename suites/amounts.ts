import fc from 'fast-check';
import { defineSuite } from '../harness/check/define.js';
import { expectEqual, expectError, expectRefused, expectSuccess, held, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { property } from '../harness/check/property.js';
import { avoidMagic, checkout, createCheckout, queryPayment } from '../harness/ops.js';
import type { Target } from '../harness/target.js';
import {
  amountValueAsJsonNumber,
  amountValueNotPositive,
  amountValueInsideChannels,
  amountValueOutsideChannels,
  amountValueWithAtMostTwoDecimals,
  amountValueWithThreeOrMoreDecimals,
  type AmountValueCase,
  type CentsRange,
  currencyCodeMalformed,
  currencyCodeOtherThanUsd,
} from '../fixtures/arbitraries/amounts.js';
import { valueOfCents } from '../harness/facts/money.js';
import {
  ownRangedCheckoutMethods,
  plainCentsIn,
  rangedCheckoutMethodHolding,
  requireRangedCheckoutMethods,
} from './support/ranged-methods.js';
import { AUTH_ERROR_KEYS } from './support/auth-outcomes.js';
import { expectRowError } from './support/charge.js';
import { splitMsg } from '../harness/http/envelope.js';
import type { Exchange } from '../harness/http/exchange.js';

/** A correctly signed amount refusal answered like an authentication failure mixes up two unrelated errors. */
function expectAmountErrorNotAuth(ex: Exchange, what: string): void {
  const body = ex.response?.json as { msg?: unknown } | undefined;
  const key = body && typeof body === 'object' && typeof body.msg === 'string' ? splitMsg(body.msg).key : undefined;
  const status = ex.response?.status;
  if (status === 401 || status === 403 || (key !== undefined && AUTH_ERROR_KEYS.includes(key))) {
    expectError(ex, { code: 2006, key: 'amountOutOfRange' }, 'auth.amount-errors-unrelated', { what: `${what}, correctly signed,` });
  } else if (ex.response) held('auth.amount-errors-unrelated');
}

/**
 * Fixed cases run before the generated ones: the document's own "12.5" and "12.50", and the same
 * amount with no decimals, each where the method's range holds it; else the minimum in all spellings.
 */
/** A checkout of `value` (more than two decimals) refused as validationFailed, the row err.pay.decimals answers. */
async function expectDecimalsRefused(target: Target, method: string, value: string): Promise<void> {
  const what = `a checkout with value ${JSON.stringify(value)}`;
  const ex = await checkout(
    target,
    { method, amount: { currency: 'USD', value } },
    { label: `checkout with value ${JSON.stringify(value)}` },
  );
  expectRowError(ex, { code: 422, key: 'validationFailed' }, 'amount.value.max-2-decimals', 'err.pay.decimals', what);
}

function fixedAcceptedValues(range: CentsRange): AmountValueCase[] {
  const twelve: AmountValueCase[] = [
    { sent: '12.5', shown: '12.50', cents: 1250 },
    { sent: '12.50', shown: '12.50', cents: 1250 },
    { sent: '12', shown: '12.00', cents: 1200 },
  ];
  const held = twelve.filter((c) => c.cents >= range.min && c.cents <= range.max);
  if (held.length === twelve.length) return held;
  const steps = [0, 1, 2] as const;
  return steps
    .filter((d) => range.min % 10 ** (2 - d) === 0)
    .map((d) => ({ sent: valueOfCents(range.min, d), shown: valueOfCents(range.min), cents: range.min }));
}

function paymentRecord(t: Target) {
  const rec = t.profile.paymentRecord;
  if (!rec) throw new PreconditionSkip('the profile declares no payment record shape (paymentRecord)', { declare: ['paymentRecord'] });
  return rec;
}

/** INTERFACE.md › Amount object, Limits: the value's decimals, sign, type and currency, and the channel range. */
export default defineSuite('amounts', { area: 'amounts', resource: 'payment' }, [
  {
    title: 'accepts a value with zero, one or two decimals',
    clause: 'amount.value.max-2-decimals',
    async run(ctx) {
      const { target } = ctx;
      const { method, range } = rangedCheckoutMethodHolding(target);
      const probe = async (v: AmountValueCase) => {
        const ex = await checkout(
          target,
          { method, amount: { currency: 'USD', value: v.sent } },
          { label: `checkout ${method} with value ${JSON.stringify(v.sent)}` },
        );
        expectSuccess(ex, { what: `a checkout with value ${JSON.stringify(v.sent)}` });
      };
      for (const v of fixedAcceptedValues(range)) if (!avoidMagic(ctx.target)(v.cents)) await probe(v);
      await property(ctx, amountValueWithAtMostTwoDecimals(range, avoidMagic(ctx.target)), probe, { independent: true });
    },
  },
  {
    title: 'shows an accepted amount with exactly two decimals in the payment record',
    clause: ['amount.value.two-decimals-out', 'payment.trans-amount.usd-charged'],
    async run(ctx) {
      const { target } = ctx;
      const rec = paymentRecord(target);
      const { method, range } = rangedCheckoutMethodHolding(target);
      const probe = async (v: AmountValueCase) => {
        const order = await createCheckout(target, 'amount.value.two-decimals-out', { method, amount: { currency: 'USD', value: v.sent } });
        const ex = await queryPayment(target, { order_no: order.orderNo });
        const data = expectSuccess(ex, { what: 'querying the new checkout' });
        expectEqual(
          pick(data, rec.transAmount),
          { currency: 'USD', value: v.shown },
          {
            code: 'AMOUNT_NOT_SHOWN_WITH_TWO_DECIMALS',
            title:
              `the record should show the amount sent as ${JSON.stringify(v.sent)}` +
              ` with exactly two decimals at data.${rec.transAmount}`,
            exchange: ex,
          },
        );
      };
      for (const v of fixedAcceptedValues(range)) if (!avoidMagic(ctx.target)(v.cents)) await probe(v);
      await property(ctx, amountValueWithAtMostTwoDecimals(range, avoidMagic(ctx.target)), probe, {
        numRuns: Math.min(ctx.numRuns, 12),
        independent: true,
      });
    },
  },
  {
    title: 'refuses a value with three or more decimals as validationFailed',
    clause: ['amount.value.max-2-decimals', 'err.pay.decimals'],
    async run(ctx) {
      const { target } = ctx;
      const { method, range } = rangedCheckoutMethodHolding(target);
      await property(
        ctx,
        amountValueWithThreeOrMoreDecimals(range),
        async (value) => {
          await expectDecimalsRefused(target, method, value);
        },
        { independent: true },
      );
    },
  },
  {
    title: 'refuses the document examples "12.500" and "10.100" as validationFailed',
    clause: ['amount.value.max-2-decimals', 'err.pay.decimals'],
    async run({ target }) {
      const { method } = rangedCheckoutMethodHolding(target, [1010, 1250, 1251]);
      for (const value of ['12.500', '10.100']) {
        await expectDecimalsRefused(target, method, value);
      }
    },
  },
  {
    title: 'refuses a value sent as a JSON number',
    clause: 'amount.value.string',
    async run(ctx) {
      const { target } = ctx;
      const { method, range } = rangedCheckoutMethodHolding(target);
      await property(
        ctx,
        amountValueAsJsonNumber(range),
        async (value) => {
          const ex = await checkout(
            target,
            { method, amount: { currency: 'USD', value } },
            { label: `checkout with value ${value} as a JSON number` },
          );
          // The document says "refused" without naming the error; which one the target uses is recorded.
          expectRefused(ex, { what: `a checkout whose value is the JSON number ${value}`, topic: 'amount.value.json-number' });
        },
        { independent: true },
      );
    },
  },
  {
    title: 'refuses a zero or negative value as invalidAmount',
    clause: ['amount.value.positive', 'err.pay.invalid-amount'],
    async run(ctx) {
      const { target } = ctx;
      const { method } = rangedCheckoutMethodHolding(target);
      const probe = async (value: string) => {
        const ex = await checkout(
          target,
          { method, amount: { currency: 'USD', value } },
          { label: `checkout with value ${JSON.stringify(value)}` },
        );
        expectRowError(
          ex,
          { code: 422, key: 'invalidAmount' },
          'amount.value.positive',
          'err.pay.invalid-amount',
          `a checkout with value ${JSON.stringify(value)}`,
        );
      };
      for (const value of ['0', '0.00', '-1.00', '-0.01']) await probe(value);
      await property(ctx, amountValueNotPositive(), probe, { independent: true });
    },
  },
  {
    title: 'refuses a well-formed currency other than USD as notSupported',
    clause: ['amount.currency.usd-only', 'err.pay.currency'],
    async run(ctx) {
      const { target } = ctx;
      const { method, range } = rangedCheckoutMethodHolding(target);
      const arb = fc.record({
        currency: currencyCodeOtherThanUsd(),
        value: amountValueWithAtMostTwoDecimals(range, avoidMagic(ctx.target)).map((v) => v.shown),
      });
      await property(
        ctx,
        arb,
        async (amount) => {
          const ex = await checkout(target, { method, amount }, { label: `checkout in ${amount.currency}` });
          expectRowError(
            ex,
            { code: 422, key: 'notSupported' },
            'amount.currency.usd-only',
            'err.pay.currency',
            `a checkout of ${amount.value} ${amount.currency}`,
          );
        },
        { independent: true },
      );
    },
  },
  {
    title: 'refuses a currency code that is not three upper-case letters',
    clause: ['conv.currency.code', 'amount.currency.usd-only'],
    async run(ctx) {
      const { target } = ctx;
      const { method, range } = rangedCheckoutMethodHolding(target);
      const value = valueOfCents(plainCentsIn(target, range)[0] ?? range.min);
      const probe = async (currency: string) => {
        const ex = await checkout(
          target,
          { method, amount: { currency, value } },
          { label: `checkout with currency ${JSON.stringify(currency)}` },
        );
        // "Three-letter upper-case code" names no error for other spellings; the target's choice is recorded.
        expectRefused(ex, { what: `a checkout with currency ${JSON.stringify(currency)}`, topic: 'amount.currency.malformed' });
      };
      // USD itself misspelt first: a target that normalises the spelling would accept exactly these.
      for (const currency of ['usd', 'Usd', 'US', 'USDD', '']) await probe(currency);
      await property(ctx, currencyCodeMalformed(), probe, { independent: true });
    },
  },
  {
    title: "refuses an amount outside the method's declared channel range as amountOutOfRange",
    clause: ['limit.amount.channel-range', 'err.pay.amount-out-of-range', 'auth.amount-errors-unrelated'],
    async run(ctx) {
      const { target } = ctx;
      const methods = requireRangedCheckoutMethods(target);
      const probe = async ({ method, value }: { method: string; value: string }) => {
        const ex = await checkout(
          target,
          { method, amount: { currency: 'USD', value } },
          { label: `checkout ${method} with value ${JSON.stringify(value)}` },
        );
        expectAmountErrorNotAuth(ex, `a ${method} checkout of ${value} USD (outside the declared range)`);
        expectRowError(
          ex,
          { code: 2006, key: 'amountOutOfRange' },
          'limit.amount.channel-range',
          'err.pay.amount-out-of-range',
          `a ${method} checkout of ${value} USD (outside the declared range)`,
        );
      };
      // One cent outside each bound of every method first, then each end of every gap between two channels, then anywhere outside.
      for (const { method, range, gaps } of methods) {
        if (range.min > 1) await probe({ method, value: valueOfCents(range.min - 1) });
        await probe({ method, value: valueOfCents(range.max + 1) });
        for (const gap of gaps) {
          await probe({ method, value: valueOfCents(gap.min) });
          await probe({ method, value: valueOfCents(gap.max) });
        }
      }
      const arb = fc
        .constantFrom(...methods)
        .chain((m) =>
          amountValueOutsideChannels(m.range, m.gaps, avoidMagic(ctx.target)).map((v) => ({ method: m.method, value: v.sent })),
        );
      await property(ctx, arb, probe, { independent: true });
    },
  },
  {
    title: 'accepts every amount inside each declared channel range of each method',
    clause: ['limit.amount.channel-range', 'amount.value.max-2-decimals'],
    async run(ctx) {
      const { target } = ctx;
      const methods = requireRangedCheckoutMethods(target);
      const probe = async ({ method, value }: { method: string; value: string }) => {
        const ex = await checkout(
          target,
          { method, amount: { currency: 'USD', value } },
          { label: `checkout ${method} with value ${JSON.stringify(value)}` },
        );
        const lim = target.profile.limits!.payments![method]!;
        const ranges = (lim.channels ?? [lim]).map((c) => `${c.min}..${c.max}`).join(', ');
        expectSuccess(ex, { what: `a ${method} checkout of ${value} USD (inside a declared channel range: ${ranges}, bounds included)` });
      };
      // Both bounds of every channel of every method first (ranges are inclusive), then anywhere inside one.
      // A bound a declared failure trigger fails by design (an amount, an amount's ending) is not the range's to judge.
      const magic = avoidMagic(target);
      for (const { method, channels } of methods)
        for (const cents of channels.flatMap((range) => [range.min, range.max]).filter((c) => !magic(c)))
          await probe({ method, value: valueOfCents(cents) });
      const arb = fc
        .constantFrom(...methods)
        .chain((m) => amountValueInsideChannels(m.channels, avoidMagic(ctx.target)).map((v) => ({ method: m.method, value: v.sent })));
      await property(ctx, arb, probe, { independent: true });
    },
  },
  {
    title: "keeps to a merchant's own channel range: refuses an amount just outside it and accepts its bounds, acting as that merchant",
    clause: ['limit.amount.channel-range', 'err.pay.amount-out-of-range'],
    async run(ctx) {
      const { target } = ctx;
      const methods = ownRangedCheckoutMethods(target);
      if (methods.length === 0)
        throw new PreconditionSkip(
          "the profile states no merchant's own channel range that differs from every merchant's (merchants.<role>.facts.limits.payments)",
          { declare: ['merchants.second.facts.limits.payments'] },
        );
      const magic = avoidMagic(target);
      for (const { as, method, channels, gaps } of methods) {
        const what = (value: string, where: string) =>
          `a ${method} checkout of ${value} USD by the ${as} merchant (${where} its own range)`;
        const send = (value: string) =>
          checkout(target, { method, amount: { currency: 'USD', value } }, { as, label: `checkout ${method} as ${as} of ${value}` });
        // Just outside each end of its own range and at each end of a gap: refused whatever every merchant's range holds.
        const outside = [channels[0]!.min - 1, channels[channels.length - 1]!.max + 1, ...gaps.flatMap((g) => [g.min, g.max])];
        for (const cents of outside.filter((c) => c > 0 && !magic(c))) {
          const value = valueOfCents(cents);
          const ex = await send(value);
          expectRowError(
            ex,
            { code: 2006, key: 'amountOutOfRange' },
            'limit.amount.channel-range',
            'err.pay.amount-out-of-range',
            what(value, 'outside'),
          );
        }
        for (const cents of channels.flatMap((c) => [c.min, c.max]).filter((c) => !magic(c))) {
          const value = valueOfCents(cents);
          expectSuccess(await send(value), { what: what(value, 'at a bound of') });
        }
      }
    },
  },
]);
