import { defineSuite } from '../harness/check/define.js';
import { expectError, expectSuccess } from '../harness/check/expect.js';
import { PreconditionSkip, skipUnless } from '../harness/check/failure.js';
import { splitMsg } from '../harness/http/envelope.js';
import { property } from '../harness/check/property.js';
import { checkout, defaultAmount, notifyUrlOrPlaceholder, paymentMethodsOf, usd } from '../harness/ops.js';
import type { MerchantRole, Target } from '../harness/target.js';
import { paymentMethodNameUnknown } from '../fixtures/arbitraries/methods.js';

/** Active merchants other than the primary that may have their own methods. */
const OTHER_ACTIVE: readonly MerchantRole[] = ['second', 'lowBalance'];

/** Every method name the profile mentions: none of them may serve as an "unknown" one. */
function declaredMethods(t: Target): string[] {
  const m = t.profile.methods;
  return [
    ...m.checkout,
    ...(m.card ? [m.card] : []),
    ...(m.notEnabled ? [m.notEnabled] : []),
    ...(m.noChannel ? [m.noChannel] : []),
    ...(m.pricePoint ?? []),
    ...Object.keys(t.profile.limits?.payments ?? {}),
    ...Object.keys(t.profile.limits?.payouts ?? {}),
    ...Object.keys(t.profile.payouts?.methods ?? {}),
    ...(t.profile.payouts?.notForPayouts ? [t.profile.payouts.notForPayouts] : []),
    ...Object.keys(t.profile.refunds?.support ?? {}),
  ];
}

/** INTERFACE.md › Payment, Request errors, Payment errors: which payment methods a checkout accepts. */
export default defineSuite('payment-methods', { area: 'payments', resource: 'payment' }, [
  {
    title: 'refuses the method the profile names as unknown with unsupportedPaymentMethod',
    clause: ['payment.method.unknown', 'err.req.unsupported-method'],
    async run({ target }) {
      const method = target.profile.methods.unknown;
      const ex = await checkout(target, { method, amount: usd('10.00') }, { label: `checkout with unknown method ${method}` });
      expectError(
        ex,
        { code: 3003, key: 'unsupportedPaymentMethod' },
        { what: `a checkout with the unknown method ${method}`, ifHalfRight: 'err.req.unsupported-method', halfRight: 'code' },
      );
    },
  },
  {
    title: 'refuses any unknown upper-case method name with unsupportedPaymentMethod',
    clause: ['payment.method.unknown', 'err.req.unsupported-method'],
    async run(ctx) {
      const { target } = ctx;
      await property(
        ctx,
        paymentMethodNameUnknown(declaredMethods(target)),
        async (method) => {
          const ex = await checkout(target, { method, amount: usd('10.00') }, { label: `checkout with unknown method ${method}` });
          expectError(
            ex,
            { code: 3003, key: 'unsupportedPaymentMethod' },
            { what: `a checkout with the unknown method ${method}`, ifHalfRight: 'err.req.unsupported-method', halfRight: 'code' },
          );
        },
        { independent: true },
      );
    },
  },
  {
    title: 'refuses a known method not enabled for the merchant with paymentMethodUnavailable',
    clause: 'err.pay.method-unavailable',
    async run({ target }) {
      const method = target.profile.methods.notEnabled;
      skipUnless(method, 'the profile declares no method that is known but not enabled for the primary merchant (methods.notEnabled)', {
        declare: ['methods.notEnabled'],
      });
      // An amount the method would take if it were enabled (a tier of a price-point method, one inside its limits): the
      // document does not order a method's checks, so a refusal of the amount may come first.
      const amount = defaultAmount(target, method);
      // Every optional field the document names for a checkout: the profile says a method's own fields only for methods
      // the merchant has, and a target may refuse a missing one before it looks at the method.
      const extra = { notify_url: notifyUrlOrPlaceholder(target), return_url: 'https://merchant.invalid/return' };
      const ex = await checkout(
        target,
        { method, amount: usd(amount), extra },
        { label: `checkout with the not-enabled method ${method}` },
      );
      // A field the method needs that the profile does not give for it (its checkout extras are said only for methods the
      // merchant has): the document does not order a method's checks, so a missing field may be refused first.
      const body = ex.response?.json as { code?: unknown; msg?: unknown } | undefined;
      if (body?.code === 400 && typeof body.msg === 'string' && splitMsg(body.msg).key === 'invalidRequest')
        throw new PreconditionSkip(
          `the target asked for a field of ${method} the kit does not send for it (${splitMsg(body.msg).message}): ` +
            'declare as methods.notEnabled a method whose checkout needs no other field',
          { declare: ['methods.notEnabled'] },
        );
      expectError(
        ex,
        { code: 3003, key: 'paymentMethodUnavailable' },
        { what: `a checkout with ${method}, known but not enabled for the merchant` },
      );
    },
  },
  {
    title: 'refuses a checkout with a method whose every channel is down with 422 validationFailed',
    clause: 'err.pay.no-channel',
    async run({ target }) {
      const method = target.profile.methods.noChannel;
      skipUnless(method, 'the profile declares no method whose every channel is down (methods.noChannel)', {
        declare: ['methods.noChannel'],
      });
      const ex = await checkout(target, { method }, { label: `checkout with ${method}, which has no channel available` });
      expectError(
        ex,
        { code: 422, key: 'validationFailed' },
        { what: `a checkout with ${method}, for which no payment channel is available` },
      );
    },
  },
  {
    title: 'refuses a checkout by another merchant with a method not enabled for it with paymentMethodUnavailable',
    clause: 'err.pay.method-unavailable',
    async run({ target }) {
      // A method the primary merchant checks out with that another active merchant does not have (merchants.<role>.paymentMethods).
      const found = OTHER_ACTIVE.flatMap((as) => {
        if (!target.merchants[as] || !target.profile.merchants[as]?.paymentMethods) return [];
        const own = paymentMethodsOf(target, as);
        const method = target.profile.methods.checkout.find((m) => !own.includes(m));
        return method ? [{ as, method }] : [];
      })[0];
      skipUnless(
        found,
        'the profile declares no active merchant other than the primary lacking ' +
          'one of the checkout methods (merchants.second / lowBalance .paymentMethods)',
        { declare: ['merchants.second.paymentMethods or merchants.lowBalance.paymentMethods (without one of methods.checkout)'] },
      );
      const { as, method } = found;
      const ex = await checkout(target, { method }, { as, label: `checkout with ${method} as the ${as} merchant, which does not have it` });
      expectError(
        ex,
        { code: 3003, key: 'paymentMethodUnavailable' },
        { what: `a checkout with ${method} by the ${as} merchant, for which it is not enabled` },
      );
    },
  },
  {
    title: 'creates a checkout with each method the profile declares for checkout',
    clause: 'checkout.creates',
    async run({ target }) {
      for (const method of target.profile.methods.checkout) {
        const ex = await checkout(target, { method }, { label: `checkout with ${method}` });
        expectSuccess(ex, { what: `a checkout with ${method} for ${defaultAmount(target, method)} USD` });
      }
    },
  },
]);
