import { defineSuite } from '../harness/check/define.js';
import { expectError } from '../harness/check/expect.js';
import { skipUnless } from '../harness/check/failure.js';
import { cardPayment, checkout } from '../harness/ops.js';

/** INTERFACE.md › Payment errors: a disabled (suspended) merchant account cannot take payments. */
export default defineSuite('merchant-state', { area: 'payments', resource: 'payment' }, [
  {
    title: 'refuses a checkout by a frozen merchant with merchantFrozen',
    clause: 'err.pay.merchant-frozen',
    async run({ target }) {
      target.merchant('frozen');
      const ex = await checkout(target, {}, { as: 'frozen', label: 'checkout as the frozen merchant' });
      expectError(ex, { code: 1001, key: 'merchantFrozen' }, { what: 'a checkout by a disabled merchant' });
    },
  },
  {
    title: 'refuses a card payment by a frozen merchant with merchantFrozen',
    clause: 'err.pay.merchant-frozen',
    async run({ target }) {
      target.merchant('frozen');
      skipUnless(
        target.profile.cardPayment && target.has('cardPayment'),
        'the profile declares no card payment (cardPayment, endpoints.cardPayment)',
        { declare: ['cardPayment', 'endpoints.cardPayment'] },
      );
      const ex = await cardPayment(target, {}, { as: 'frozen', label: 'card payment as the frozen merchant' });
      expectError(ex, { code: 1001, key: 'merchantFrozen' }, { what: 'a card payment by a disabled merchant' });
    },
  },
]);
