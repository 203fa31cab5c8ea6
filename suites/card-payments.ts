import { defineSuite } from '../harness/check/define.js';
import { expectEqual, expectError, expectSuccess, failCheck, pick } from '../harness/check/expect.js';
import { PreconditionSkip, skipUnless } from '../harness/check/failure.js';
import { splitMsg } from '../harness/http/envelope.js';
import { cardFixture, cardPayment, queryPayment } from '../harness/ops.js';
import type { Target } from '../harness/target.js';

const SYSTEM_BUSY_MESSAGE = 'System busy, please try again later';

function recordStatusPath(t: Target): string {
  const rec = t.profile.paymentRecord;
  skipUnless(rec, 'the profile declares no payment record shape (paymentRecord)', { declare: ['paymentRecord'] });
  return rec.status;
}

/** INTERFACE.md › Payment errors, States and transitions: payments with card data and how they are refused. */
export default defineSuite('card-payments', { area: 'payments', resource: 'payment' }, [
  {
    title: 'charges the success card and records the payment as SUCCESS',
    clause: 'state.payment.values',
    async run({ target }) {
      const status = recordStatusPath(target);
      const ex = await cardPayment(target, { card: cardFixture(target, 'success') });
      const data = expectSuccess(ex, { what: 'a payment with the success card' });
      const orderNo = pick(data, target.profile.cardPayment!.data.orderNo);
      skipUnless(
        typeof orderNo === 'string' && orderNo !== '',
        `the card payment response has no order number at data.${target.profile.cardPayment!.data.orderNo}`,
        { declare: ['cardPayment.data.orderNo (the path of the order number in a card payment answer)'] },
      );
      const q = await queryPayment(target, { order_no: orderNo });
      const rec = expectSuccess(q, { what: 'querying the card payment' });
      expectEqual(pick(rec, status), 'SUCCESS', {
        code: 'WRONG_PAYMENT_STATUS',
        title: 'a payment with the success card should be recorded as SUCCESS',
        exchange: q,
      });
    },
  },
  {
    title: 'refuses a declined card as paymentFailed',
    clause: 'err.pay.declined',
    async run({ target }) {
      const ex = await cardPayment(target, { card: cardFixture(target, 'decline') }, { label: 'card payment with the decline card' });
      expectError(ex, { code: 422, key: 'paymentFailed' }, { what: 'a payment with the decline card' });
    },
  },
  {
    title: 'refuses every other decline card the profile declares as paymentFailed',
    clause: 'err.pay.declined',
    async run({ target }) {
      // Profile version 3: a sandbox may publish several decline cards; each one is a decline the document fixes the answer to.
      const more = target.profile.cardPayment?.declines ?? [];
      if (more.length === 0)
        throw new PreconditionSkip('the profile declares no decline card beside cards.decline (cardPayment.declines)', {
          declare: ['cardPayment.declines'],
        });
      for (const [i, card] of more.entries()) {
        const ex = await cardPayment(target, { card }, { label: `card payment with decline card ${i + 1} of cardPayment.declines` });
        expectError(ex, { code: 422, key: 'paymentFailed' }, { what: `a payment with cardPayment.declines[${i}]` });
      }
    },
  },
  {
    title: 'records a declined card payment as FAILED',
    clause: ['state.payment.declined-failed', 'err.pay.declined'],
    async run({ target }) {
      const status = recordStatusPath(target);
      const merchantOrderNo = target.newNo('order');
      const ex = await cardPayment(
        target,
        { merchantOrderNo, card: cardFixture(target, 'decline') },
        { label: 'card payment with the decline card' },
      );
      expectError(ex, { code: 422, key: 'paymentFailed' }, 'err.pay.declined', { what: 'a payment with the decline card' });
      const q = await queryPayment(target, { merchant_order_no: merchantOrderNo }, { label: 'query the declined payment' });
      const rec = expectSuccess(q, { what: 'querying the declined payment by its merchant_order_no' });
      expectEqual(pick(rec, status), 'FAILED', {
        code: 'DECLINED_NOT_FAILED',
        title: 'a declined payment should end as FAILED',
        exchange: q,
      });
    },
  },
  {
    title: "refuses a card declined by the service's risk checks as validationFailed",
    clause: 'err.pay.risk',
    async run({ target }) {
      const ex = await cardPayment(target, { card: cardFixture(target, 'risk') }, { label: 'card payment with the risk card' });
      expectError(ex, { code: 422, key: 'validationFailed' }, { what: 'a payment with the risk card' });
    },
  },
  {
    title: 'refuses an invalid card number as systemBusy',
    clause: 'err.pay.invalid-card',
    async run({ target }) {
      const ex = await cardPayment(target, { card: cardFixture(target, 'invalid') }, { label: 'card payment with the invalid card' });
      expectError(ex, { code: 422, key: 'systemBusy' }, { what: 'a payment with the invalid card' });
    },
  },
  {
    title: 'refuses an expired card as systemBusy',
    clause: 'err.pay.invalid-card',
    async run({ target }) {
      // The success card with an expiry date long past: an invalid expiry date.
      const card = { ...cardFixture(target, 'success'), exp_month: 1, exp_year: 2001 };
      const ex = await cardPayment(target, { card }, { label: 'card payment with the success card, expired in 01/2001' });
      expectError(ex, { code: 422, key: 'systemBusy' }, { what: 'a payment with a card that expired in 01/2001' });
    },
  },
  {
    title: 'answers an invalid card with the message "System busy, please try again later"',
    clause: ['err.system-busy', 'err.pay.invalid-card'],
    async run({ target }) {
      const ex = await cardPayment(target, { card: cardFixture(target, 'invalid') }, { label: 'card payment with the invalid card' });
      expectError(ex, { code: 422, key: 'systemBusy' }, 'err.pay.invalid-card', { what: 'a payment with the invalid card' });
      const { message } = splitMsg((ex.response!.json as { msg: string }).msg);
      if (message !== SYSTEM_BUSY_MESSAGE) {
        failCheck({
          code: 'SYSTEM_BUSY_MESSAGE',
          title: 'a systemBusy error carries the message the document gives',
          expected: JSON.stringify(SYSTEM_BUSY_MESSAGE),
          seen: JSON.stringify(message),
          exchange: ex,
        });
      }
    },
  },
  {
    title: 'refuses a card for which no payment channel is available as validationFailed',
    clause: 'err.pay.no-channel',
    async run({ target }) {
      const ex = await cardPayment(target, { card: cardFixture(target, 'noChannel') }, { label: 'card payment with the no-channel card' });
      expectError(ex, { code: 422, key: 'validationFailed' }, { what: 'a payment with the no-channel card' });
    },
  },
]);
