import { factsOf } from '../harness/facts/index.js';
import type { ClauseId } from '../harness/clauses/registry.js';
import fc from 'fast-check';
import { defineSuite } from '../harness/check/define.js';
import { expectError, expectSuccess, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { property } from '../harness/check/property.js';
import {
  avoidMagic,
  completeCheckout,
  createRefund,
  lookupsAt,
  queryPayment,
  queryRefund,
  REFUND_NUMBERS,
  sandboxOrderControl,
  usd,
} from '../harness/ops.js';
import type { Target } from '../harness/target.js';
import { centsNumberOf, centsOf, valueOfCents } from '../harness/facts/money.js';
import { balanceMoves, refundCost, smallestAbove } from '../harness/facts/fees.js';
import { withBalanceHeld } from '../harness/facts/balance-hold.js';
import {
  cumulativeRefundsExceedingCents,
  notPositiveRefundValue,
  partialRefundCents,
  refundCentsAboveOriginal,
  refundValueWithThreeOrMoreDecimals,
} from '../fixtures/arbitraries/refund-amounts.js';
import {
  declinedCardPayment,
  defaultCents,
  methodsWithSupport,
  paymentsWithSupport,
  payableMethods,
  payOrder,
  pendingCheckout,
  supportOf,
  type Payment,
} from './support/paid-orders.js';
import { refundAccepted, refundMadeToFail, settlePending, type CreatedRefund } from './support/refund-records.js';
import { type MagicTrigger, refundCarrying } from './support/triggered.js';
import { describeTrigger, triggersOf } from '../harness/profile/triggers.js';

/** Refund creation errors use code 422 (INTERFACE.md › Errors › Refund errors). */
const refusal = (key: string) => ({ code: 422, key });

function refund(t: Target, order: Payment, amount: unknown, label: string) {
  return createRefund(t, { order, amount }, { as: order.as, label });
}

/** A paid payment on which any amount up to the total is a valid refund. */
function paidWithPartialRefunds(t: Target, clause: ClauseId): Promise<Payment> {
  return payOrder(t, methodsWithSupport(t, ['partial'])[0]!, clause);
}

/** Checkout methods that support refunds, where the kit can leave the checkout unpaid or fail it. */
function refundableCheckoutMethod(t: Target): string {
  const m = methodsWithSupport(t, ['partial', 'full']).find((x) => t.profile.methods.checkout.includes(x));
  if (!m)
    throw new PreconditionSkip('no checkout method with refund support partial or full (methods.checkout, refunds.support)', {
      declare: ['methods.checkout', 'refunds.support'],
    });
  return m;
}

/** INTERFACE.md › Errors › Refund errors, States and transitions (1): refusals of refund creation and query. */
export default defineSuite('refund-errors', { area: 'errors', resource: 'refund' }, [
  {
    title: 'refuses a single refund above the amount paid with refundAmountExceeded',
    clause: ['err.ref.amount-exceeded', 'err.ref.codes'],
    async run(ctx) {
      const t = ctx.target;
      const paid = await paidWithPartialRefunds(t, 'err.ref.amount-exceeded');
      await property(
        ctx,
        refundCentsAboveOriginal(paid.cents, avoidMagic(t)),
        async (cents) => {
          const ex = await refund(t, paid, usd(valueOfCents(cents)), `refund ${valueOfCents(cents)} of ${valueOfCents(paid.cents)}`);
          expectError(ex, refusal('refundAmountExceeded'), {
            what: 'a refund above the amount paid',
            ifHalfRight: 'err.ref.codes',
            halfRight: 'code',
          });
        },
        { numRuns: 6 },
      );
    },
  },
  {
    title: 'refuses the partial refund that takes the refunded total above the amount paid with refundAmountExceeded',
    clause: ['err.ref.amount-exceeded', 'refund.channel-support'],
    async run(ctx) {
      const t = ctx.target;
      const method = methodsWithSupport(t, ['partial'])[0]!;
      const total = defaultCents(t, method);
      await property(
        ctx,
        cumulativeRefundsExceedingCents(total, 3, avoidMagic(t)),
        async ({ accepted, excess }) => {
          const paid = await payOrder(t, method, 'err.ref.amount-exceeded');
          const done: CreatedRefund[] = [];
          for (const part of accepted)
            done.push(await refundAccepted(t, paid, part, 'refund.channel-support', 'a partial refund within the amount paid'));
          // Settled or pending, the earlier refunds are committed; settle them when the sandbox can.
          if (t.profile.sandbox?.settleRefund) await settlePending(t, done, 'err.ref.amount-exceeded');
          const ex = await refund(
            t,
            paid,
            usd(valueOfCents(excess)),
            `refund ${valueOfCents(excess)} after ${accepted.map((c) => valueOfCents(c)).join(' + ')} of ${valueOfCents(total)}`,
          );
          expectError(ex, refusal('refundAmountExceeded'), {
            what: 'a partial refund taking the refunded total above the amount paid',
            ifHalfRight: 'err.ref.codes',
            halfRight: 'code',
          });
        },
        { numRuns: 5 },
      );
    },
  },
  {
    title: 'refuses a refund of an unpaid checkout with refundOrderNotPaid',
    clause: ['err.ref.not-paid', 'state.refund.not-paid'],
    async run({ target: t }) {
      const method = refundableCheckoutMethod(t);
      const order = await pendingCheckout(t, method, 'err.ref.not-paid');
      const ex = await refund(t, order, usd(valueOfCents(order.cents)), 'refund an unpaid checkout');
      expectError(ex, refusal('refundOrderNotPaid'), {
        what: 'a refund of an unpaid checkout',
        ifAccepted: 'state.refund.not-paid',
        ifHalfRight: 'err.ref.codes',
        halfRight: 'code',
      });
    },
  },
  {
    title: 'refuses a refund of a FAILED payment with refundOrderNotPaid',
    clause: ['err.ref.not-paid', 'state.refund.not-paid', 'state.payment.declined-failed'],
    async run({ target: t }) {
      const failed: Payment[] = [];
      const card = t.profile.methods.card ?? 'CARD';
      if (
        t.profile.cardPayment?.cards.decline &&
        payableMethods(t).includes(card) &&
        supportOf(t, card) !== undefined &&
        supportOf(t, card) !== 'none'
      ) {
        const declined = await declinedCardPayment(t);
        // The declined payment is recorded; its service number comes from a query when the profile locates it.
        let orderNo = '';
        const rec = t.profile.paymentRecord;
        if (rec) {
          const data = expectSuccess(
            await queryPayment(t, { merchant_order_no: declined.merchantOrderNo }),
            'state.payment.declined-failed',
            { what: 'querying the declined payment' },
          );
          orderNo = String(pick(data, rec.orderNo) ?? '');
        }
        failed.push({ orderNo, merchantOrderNo: declined.merchantOrderNo, method: declined.method, cents: declined.cents, as: 'primary' });
      }
      if (t.profile.sandbox?.completeCheckout) {
        const method = t.profile.methods.checkout.find((m) => supportOf(t, m) === 'partial' || supportOf(t, m) === 'full');
        if (method) {
          const order = await pendingCheckout(t, method, 'err.ref.not-paid');
          await completeCheckout(t, order, 'failed', 'err.ref.not-paid');
          failed.push(order);
        }
      }
      if (failed.length === 0)
        throw new PreconditionSkip(
          'the profile declares neither a decline card nor a sandbox control that fails a checkout, on a method with refund support',
          { declare: ['cardPayment.cards.decline or sandbox.completeCheckout'] },
        );
      for (const order of failed) {
        const ex = await refund(t, order, usd(valueOfCents(order.cents)), `refund a FAILED ${order.method} payment`);
        expectError(ex, refusal('refundOrderNotPaid'), {
          what: `a refund of a FAILED ${order.method} payment`,
          ifAccepted: 'state.refund.not-paid',
          ifHalfRight: 'err.ref.codes',
          halfRight: 'code',
        });
      }
    },
  },
  {
    title: 'refuses a refund of an expired checkout with refundOrderNotPaid',
    clause: ['err.ref.not-paid', 'state.refund.not-paid'],
    async run({ target: t }) {
      const method = refundableCheckoutMethod(t);
      const order = await pendingCheckout(t, method, 'err.ref.not-paid');
      await sandboxOrderControl(t, 'expireCheckout', order, 'err.ref.not-paid');
      const ex = await refund(t, order, usd(valueOfCents(order.cents)), 'refund an expired checkout');
      expectError(ex, refusal('refundOrderNotPaid'), {
        what: 'a refund of an expired checkout',
        ifAccepted: 'state.refund.not-paid',
        ifHalfRight: 'err.ref.codes',
        halfRight: 'code',
      });
    },
  },
  {
    title: 'refuses a refund of a charged-back payment with validationFailed',
    clause: ['err.ref.charged-back', 'state.refund.charged-back'],
    async run({ target: t }) {
      if (!t.profile.sandbox?.chargeback)
        throw new PreconditionSkip('the profile declares no sandbox control sandbox.chargeback', { declare: ['sandbox.chargeback'] });
      const paid = await payOrder(t, methodsWithSupport(t, ['partial', 'full'])[0]!, 'err.ref.charged-back');
      await sandboxOrderControl(t, 'chargeback', paid, 'err.ref.charged-back');
      const ex = await refund(t, paid, usd(valueOfCents(paid.cents)), 'refund a charged-back payment');
      expectError(ex, refusal('validationFailed'), {
        what: 'a refund of a charged-back payment',
        ifAccepted: 'state.refund.charged-back',
        ifHalfRight: 'err.ref.codes',
        halfRight: 'code',
      });
    },
  },
  {
    title: 'refuses a refund on a method without refund support with notSupported',
    clause: ['err.ref.not-supported', 'refund.channel-support'],
    async run({ target: t }) {
      // A method without refunds may be another merchant's only (its own channel): paid and refunded as that merchant.
      for (const { method, as } of paymentsWithSupport(t, ['none'], ['second'])) {
        const paid = await payOrder(t, method, 'err.ref.not-supported', { as });
        const ex = await refund(t, paid, usd(valueOfCents(paid.cents)), `refund a ${method} payment`);
        expectError(ex, refusal('notSupported'), {
          what: `a full refund of a ${method} payment (no refund support)`,
          ifHalfRight: 'err.ref.codes',
          halfRight: 'code',
        });
      }
    },
  },
  {
    title: 'refuses a partial refund on a method with full refunds only with notSupported',
    clause: ['err.ref.full-only', 'refund.channel-support'],
    async run(ctx) {
      const t = ctx.target;
      const method = methodsWithSupport(t, ['full'])[0]!;
      const paid = await payOrder(t, method, 'err.ref.full-only');
      await property(
        ctx,
        partialRefundCents(paid.cents, avoidMagic(t)),
        async (part) => {
          const ex = await refund(t, paid, usd(valueOfCents(part)), `partial refund ${valueOfCents(part)} of ${valueOfCents(paid.cents)}`);
          expectError(ex, refusal('notSupported'), {
            what: `a partial refund of a ${method} payment (full refunds only)`,
            ifHalfRight: 'err.ref.codes',
            halfRight: 'code',
          });
        },
        { numRuns: 5 },
      );
    },
  },
  {
    title: 'refuses a refund amount that is not positive with invalidRefundAmount',
    clause: ['err.ref.invalid-amount', 'refund.amount.positive-2-decimals', 'amount.value.positive'],
    async run(ctx) {
      const t = ctx.target;
      const paid = await paidWithPartialRefunds(t, 'err.ref.invalid-amount');
      await property(
        ctx,
        notPositiveRefundValue(),
        async (value) => {
          const ex = await refund(t, paid, usd(value), `refund ${value}`);
          expectError(ex, refusal('invalidRefundAmount'), {
            what: `a refund of ${value}`,
            ifAccepted: 'refund.amount.positive-2-decimals',
            ifHalfRight: 'err.ref.codes',
            halfRight: 'code',
          });
        },
        { numRuns: 8 },
      );
    },
  },
  {
    title: 'refuses a refund amount with three or more decimals with validationFailed',
    clause: ['err.ref.decimals', 'refund.amount.positive-2-decimals', 'amount.value.max-2-decimals'],
    async run(ctx) {
      const t = ctx.target;
      const paid = await paidWithPartialRefunds(t, 'err.ref.decimals');
      await property(
        ctx,
        refundValueWithThreeOrMoreDecimals(paid.cents),
        async (value) => {
          const ex = await refund(t, paid, usd(value), `refund ${value}`);
          expectError(ex, refusal('validationFailed'), {
            what: `a refund of ${value}`,
            ifAccepted: 'refund.amount.positive-2-decimals',
            ifHalfRight: 'err.ref.codes',
            halfRight: 'code',
          });
        },
        { numRuns: 8 },
      );
    },
  },
  {
    title: 'refuses a refund of an order that does not exist with orderNotFound',
    clause: ['err.ref.order-not-found', 'err.ref.codes'],
    async run({ target: t }) {
      const no = t.newNo('order');
      const ghost: Payment = { orderNo: no, merchantOrderNo: no, method: '', cents: 1000, as: 'primary' };
      const ex = await refund(t, ghost, usd('10.00'), 'refund an order that does not exist');
      expectError(ex, refusal('orderNotFound'), {
        what: 'a refund of an order that does not exist',
        ifHalfRight: 'err.ref.codes',
        halfRight: 'code',
      });
    },
  },
  {
    title: 'refuses a repeated merchant_refund_no with duplicateRefundOrder',
    clause: ['err.ref.duplicate', 'err.ref.codes'],
    async run({ target: t }) {
      const methods = methodsWithSupport(t, ['partial', 'full']);
      const partial = methods.find((m) => supportOf(t, m) === 'partial');
      // A target that refunds only in full is asked with a second payment: a second full refund of the same one could
      // be refused as already refunded (found by bench/legal-targets.ts --kill: such targets hid this clause's fault).
      const paid = await payOrder(t, partial ?? methods[0]!, 'err.ref.duplicate');
      const other = partial ? paid : await payOrder(t, methods[0]!, 'err.ref.duplicate');
      const refundNo = t.newNo('refund');
      const part = (p: Payment) => usd(valueOfCents(partial ? Math.max(1, Math.floor(p.cents / 4)) : p.cents));
      expectSuccess(await createRefund(t, { refundNo, order: paid, amount: part(paid) }, { as: paid.as, label: 'the first refund' }), {
        what: 'the first refund',
      });
      const ex = await createRefund(
        t,
        { refundNo, order: other, amount: part(other) },
        { as: other.as, label: 'a second refund with the same merchant_refund_no' },
      );
      expectError(ex, refusal('duplicateRefundOrder'), {
        what: 'a refund repeating a merchant_refund_no',
        ifAccepted: 'idem.refund.refused',
        ifHalfRight: 'err.ref.codes',
        halfRight: 'code',
      });
    },
  },
  {
    title: 'answers a query for a refund that does not exist with code 2002 refundNotFound',
    clause: ['err.ref.not-found', 'err.ref.codes'],
    async run({ target: t }) {
      for (const by of lookupsAt(t, 'refundQuery', REFUND_NUMBERS, { serviceNo: t.newNo('refund'), merchantNo: t.newNo('refund') })) {
        const ex = await queryRefund(t, by, { label: `query an unknown refund by ${by.serviceNo ? 'refund_no' : 'merchant_refund_no'}` });
        expectError(
          ex,
          { code: 2002, key: 'refundNotFound' },
          { what: 'a query for a refund that does not exist', ifHalfRight: 'err.ref.codes', halfRight: 'code' },
        );
      }
    },
  },
  {
    title: 'refuses a refund the provider fails with refundFailed',
    clause: ['err.ref.failed', 'err.ref.codes'],
    async run({ target: t }) {
      // Each magic value or header the sandbox fails a refund by (refunds.failingReason is one); without one, the failure
      // the sandbox switch arms (sandbox.armFailure.failures.refundFailed), inside the exclusive section it needs.
      const ways = triggersOf(t.profile, 'refundFailed').filter((w): w is MagicTrigger => w.way !== 'control');
      for (const w of ways) {
        const refund = await refundCarrying(t, w, 'refundFailed', 'err.ref.failed');
        expectError(await refund.send(`refund carrying ${describeTrigger(w)}`), refusal('refundFailed'), {
          what: `a refund the sandbox provider fails (${describeTrigger(w)})`,
          ifHalfRight: 'err.ref.codes',
          halfRight: 'code',
        });
      }
      if (ways.length > 0) return;
      const paid = await payOrder(t, methodsWithSupport(t, ['partial', 'full'])[0]!, 'err.ref.failed');
      await refundMadeToFail(
        t,
        { refundNo: t.newNo('refund'), order: paid, amount: usd(valueOfCents(paid.cents)) },
        'err.ref.failed',
        (ex) =>
          expectError(ex, refusal('refundFailed'), {
            what: 'a refund the sandbox provider fails',
            ifHalfRight: 'err.ref.codes',
            halfRight: 'code',
          }),
      );
    },
  },
  {
    title: 'refuses a refund the merchant balance does not cover with its fee with validationFailed',
    clause: ['err.ref.balance'],
    async run(ctx) {
      const t = ctx.target;
      t.merchant('lowBalance');
      const balance = t.profile.merchants.lowBalance?.refundBalance;
      if (!balance)
        throw new PreconditionSkip(
          'the profile declares no refund balance of the low-balance merchant (merchants.lowBalance.refundBalance)',
          { declare: ['merchants.lowBalance.refundBalance'] },
        );
      // A balance successful payments credit moves with this check's own payment, and with every other one of the merchant.
      // What is missing is the balance at the moment of the refund, which no profile entry can say (balances.paymentsCredit is
      // declared, and true): the skip names it and asks for nothing already there.
      if (balanceMoves(t.profile, 'refund'))
        throw new PreconditionSkip(
          "the low-balance merchant's refund balance when the refund is made: successful payments credit it " +
            '(balances.paymentsCredit) and the interface shows no balance, so the declared one is only where it started',
        );
      const card = t.profile.methods.card ?? 'CARD';
      // Each skip names the fact that is missing, never one already declared.
      if (!payableMethods(t).includes(card))
        throw new PreconditionSkip('the low-balance merchant pays by card; the profile declares no card payment', {
          declare: ['cardPayment', 'endpoints.cardPayment'],
        });
      const support = supportOf(t, card, 'lowBalance');
      if (support === undefined)
        throw new PreconditionSkip(`the low-balance merchant pays by card; the profile does not say whether ${card} refunds for it`, {
          declare: [`refunds.support.${card}`],
        });
      if (support === 'none') throw new PreconditionSkip(`the low-balance merchant's ${card} payments take no refunds (refunds.support)`);
      const lim = factsOf(t, 'lowBalance').paymentLimits(card);
      // Paid amount above the balance: a full refund of it never fits, whatever the fee.
      const total = Math.max(defaultCents(t, card, 'lowBalance'), centsNumberOf(balance) + 100);
      if (lim && total > centsNumberOf(lim.max))
        throw new PreconditionSkip(`the ${card} maximum does not reach above the low-balance merchant's refund balance`);
      // The smallest refund the balance does not cover with its fee (the method's, profile fees.refunds or refunds.fee).
      const cost = (cents: bigint) => refundCost(t.profile, card, cents, 'lowBalance');
      const first = smallestAbove(cost, centsOf(balance));
      if (first === undefined)
        throw new PreconditionSkip(`the profile's ${card} refund fee is in another currency than the refund (fees.refunds)`, {
          declare: ['fees.refunds'],
        });
      const floor = Number(first);
      if (floor > total) throw new PreconditionSkip(`a ${card} payment the check can make is covered by the refund balance with its fee`);
      await withBalanceHeld(t, 'lowBalance', async () => {
        const paid = await payOrder(t, card, 'err.ref.balance', { as: 'lowBalance', cents: total });
        // Any refund the balance does not cover with its fee, up to the amount paid; partial ones only where the method allows them.
        const amounts =
          supportOf(t, card, 'lowBalance') === 'partial'
            ? fc.integer({ min: floor, max: total }).filter((c) => !avoidMagic(t)(c) || c === total)
            : fc.constant(total);
        await property(
          ctx,
          amounts,
          async (cents) => {
            const fee = (cost(BigInt(cents)) ?? BigInt(cents)) - BigInt(cents);
            const ex = await refund(t, paid, usd(valueOfCents(cents)), `refund ${valueOfCents(cents)} with a refund balance of ${balance}`);
            expectError(ex, refusal('validationFailed'), {
              what: `a refund of ${valueOfCents(cents)} by a merchant whose refund balance is ${balance} (fee ${valueOfCents(fee)})`,
              ifHalfRight: 'err.ref.codes',
              halfRight: 'code',
            });
          },
          { numRuns: 4 },
        );
      });
    },
  },
]);
