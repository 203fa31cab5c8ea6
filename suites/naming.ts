import { defineSuite } from '../harness/check/define.js';
import { fitLength } from '../harness/profile/lengths.js';
import { expectEqual, expectError, expectRefused, expectSuccess, failCheck, held, pick } from '../harness/check/expect.js';
import { recordReading } from '../harness/check/context.js';
import { nonSnakeCaseKeys } from '../harness/check/invariants.js';
import { skipUnless } from '../harness/check/failure.js';
import { splitMsg } from '../harness/http/envelope.js';
import type { Exchange } from '../harness/http/exchange.js';
import { cardPayment, cardPaymentBody, checkoutBody, queryPayment, usd } from '../harness/ops.js';
import { awaitDeliveries, describeDeliveries, webhookSetup } from '../harness/webhooks/expect.js';
import { scriptedNo } from './support/webhook-scenarios.js';
import type { Target } from '../harness/target.js';
import { type CamelCaseField, CHECKOUT_FIELDS_WITH_UNDERSCORE } from '../fixtures/arbitraries/field-names.js';
import { valueOfCents } from '../harness/facts/money.js';
import { plainCentsIn, rangedCheckoutMethodHolding } from './support/ranged-methods.js';

type Body = Record<string, unknown>;

function expectSnakeCaseData(ex: Exchange, data: Body, what: string): void {
  const bad = nonSnakeCaseKeys(data, 'data').map((b) => b.path);
  if (bad.length > 0) {
    failCheck('conv.snake-case', {
      code: 'FIELD_NAME_NOT_SNAKE_CASE',
      title: `${what} names fields in another case than snake_case`,
      expected: 'snake_case field names, e.g. merchant_order_no',
      seen: bad.join(', '),
      exchange: ex,
    });
  }
}

function codeOf(ex: Exchange): unknown {
  return (ex.response?.json as { code?: unknown } | undefined)?.code;
}

/** The object holding the last part of a dotted path, and that part; undefined when the parent is absent. */
function parentOf(body: Body, path: string): { parent: Body; key: string } | undefined {
  const parts = path.split('.');
  let cur: unknown = body;
  for (const p of parts.slice(0, -1)) {
    cur = (cur as Body)[p];
    if (cur === null || typeof cur !== 'object') return undefined;
  }
  return { parent: cur as Body, key: parts[parts.length - 1]! };
}

/** A valid checkout body with the field at `path` renamed to its camelCase spelling (same value). */
function withCamelCaseOnly(body: Body, field: CamelCaseField): Body {
  const copy = structuredClone(body);
  const at = parentOf(copy, field.path);
  if (at && Object.hasOwn(at.parent, at.key)) {
    at.parent[field.camel] = at.parent[at.key];
    delete at.parent[at.key];
  }
  return copy;
}

function without(body: Body, path: string): Body {
  const copy = structuredClone(body);
  const at = parentOf(copy, path);
  if (at) delete at.parent[at.key];
  return copy;
}

function post(t: Target, body: Body, label: string): Promise<Exchange> {
  return t.post(t.path('checkout'), body, { label });
}

/** INTERFACE.md › Conventions, Versioning, Request errors: snake_case names only; required fields named when missing. */
export default defineSuite('naming', { area: 'naming', resource: 'payment' }, [
  {
    title: 'refuses a checkout whose required field is sent only under its camelCase name',
    clause: ['conv.snake-case', 'version.no-camelcase'],
    async run({ target }) {
      // Every required field in turn: five cases, so all of them rather than a sample.
      for (const field of CHECKOUT_FIELDS_WITH_UNDERSCORE.filter((f) => f.required)) {
        const body = withCamelCaseOnly(checkoutBody(target), field);
        const ex = await post(target, body, `checkout with ${field.path} sent as ${field.camel}`);
        expectRefused(ex, {
          what: `a checkout whose ${field.path} is sent only as ${field.camel}`,
          topic: `naming.camel-only.${field.path}`,
        });
      }
    },
  },
  {
    title: 'refuses a checkout with notify_url or return_url only under its camelCase name when it refuses one without the field',
    clause: ['conv.snake-case', 'version.no-camelcase'],
    async run({ target }) {
      // Whether these are required is not shown. Where leaving the field out is refused, the
      // camelCase name must not fill the gap; where it is accepted, ignoring the camelCase name is
      // a valid reading and nothing can be observed without webhooks.
      let compared = 0;
      for (const field of CHECKOUT_FIELDS_WITH_UNDERSCORE.filter((f) => !f.required)) {
        const base = checkoutBody(target);
        if (pick(base, field.path) === undefined) continue;
        const control = await post(target, without(checkoutBody(target), field.path), `checkout without ${field.path}`);
        if (codeOf(control) === 0) {
          recordReading(`naming.${field.path}.required`, 'not required (camelCase use not observable)');
          continue;
        }
        recordReading(`naming.${field.path}.required`, 'required');
        compared += 1;
        const ex = await post(target, withCamelCaseOnly(base, field), `checkout with ${field.path} sent as ${field.camel}`);
        expectRefused(ex, { what: `a checkout whose ${field.path} (required by this target) is sent only as ${field.camel}` });
      }
      // Where notify_url is optional, only a webhook shows whether notifyUrl was taken for it: the next check watches for one.
      skipUnless(
        compared > 0,
        'the target accepts a checkout without notify_url and without return_url (or the profile sends neither), so ' +
          "the checkout's answer cannot show whether their camelCase spelling is taken (the check of a webhook sent to " +
          'a notifyUrl watches for that where the profile declares webhooks and a card payment)',
        { declare: ['as methods.checkout[0] a method that requires notify_url or return_url, if the target has one,'] },
      );
    },
  },
  {
    title: 'sends no webhook to a notify_url given only under its camelCase name notifyUrl',
    clause: ['conv.snake-case', 'version.no-camelcase'],
    async run({ target: t }) {
      // A card payment charges at once and is notified (no sandbox control needed). A target that does not require
      // notify_url accepts one without it, so only the webhook shows whether the camelCase notifyUrl was taken for it.
      const { timing } = webhookSetup(t);
      const control = scriptedNo(t, 'order');
      const sent = await cardPayment(t, { merchantOrderNo: control }, { label: 'card payment with notify_url' });
      expectSuccess(sent, { what: 'a card payment with notify_url (the control)' });
      const seen = await awaitDeliveries(t, { merchantNo: control }, (ds) => ds.length > 0, timing.deliveryWaitMs);
      skipUnless(
        seen.length > 0,
        `no webhook reached the receiver within ${timing.deliveryWaitMs} ms of a charged card payment with notify_url, so its ` +
          'absence for a notifyUrl would show nothing',
        { declare: ['webhooks.deliveryWaitMs', 'cardPayment.template.notify_url'] },
      );
      const no = scriptedNo(t, 'order');
      const body = cardPaymentBody(t, { merchantOrderNo: no });
      skipUnless(typeof body.notify_url === 'string', 'the profile sends no notify_url with a card payment', {
        declare: ['cardPayment.template.notify_url'],
      });
      const camel = withCamelCaseOnly(body, CHECKOUT_FIELDS_WITH_UNDERSCORE.find((f) => f.path === 'notify_url')!);
      const ex = await t.post(t.path('cardPayment', { merchant_order_no: no }), camel, { label: 'card payment with notifyUrl only' });
      if (codeOf(ex) !== 0) {
        // Refused without notify_url: the camelCase name did not stand in for it.
        expectRefused(ex, { what: 'a card payment whose notify_url is sent only as notifyUrl' });
        return;
      }
      const ds = await awaitDeliveries(t, { merchantNo: no }, (x) => x.length > 0, timing.deliveryWaitMs);
      if (ds.length > 0)
        failCheck({
          code: 'CAMELCASE_FIELD_USED',
          title: 'a webhook was sent to the URL given only as notifyUrl: a camelCase name was accepted',
          expected: 'no webhook (the payment has no notify_url)',
          seen: describeDeliveries(ds),
          exchange: ex,
        });
      held();
    },
  },
  {
    title: 'names every field of a created and a queried payment in snake_case',
    clause: ['conv.snake-case'],
    async run({ target }) {
      const merchantOrderNo = target.newNo('order');
      const created = await post(target, checkoutBody(target, { merchantOrderNo }), 'checkout');
      expectSnakeCaseData(created, expectSuccess(created, { what: 'a checkout' }), 'the checkout response');
      const q = await queryPayment(target, { merchant_order_no: merchantOrderNo }, { label: 'query the checkout' });
      expectSnakeCaseData(q, expectSuccess(q, { what: 'querying the checkout' }), 'the payment query response');
    },
  },
  {
    title: 'never takes merchant_order_no from a camelCase merchantOrderNo sent beside it',
    clause: ['conv.snake-case', 'version.no-camelcase'],
    async run({ target }) {
      const snakeNo = target.newNo('order');
      const camelNo = target.newNo('order');
      const body = { ...checkoutBody(target, { merchantOrderNo: snakeNo }), merchantOrderNo: camelNo };
      const ex = await post(target, body, 'checkout with merchant_order_no and a different merchantOrderNo');
      if (codeOf(ex) !== 0) {
        expectRefused(ex, { what: 'a checkout with an extra merchantOrderNo', topic: 'naming.camel-duplicate' });
        return;
      }
      recordReading('naming.camel-duplicate', 'ignored');
      const byCamel = await queryPayment(target, { merchant_order_no: camelNo }, { label: 'query by the camelCase number' });
      if (codeOf(byCamel) === 0) {
        failCheck({
          code: 'CAMELCASE_FIELD_USED',
          title: 'the order was recorded under the number sent as merchantOrderNo: a camelCase name was accepted',
          expected: 'no order under the merchantOrderNo value (2002 orderNotFound)',
          seen: 'an order found by it',
          exchange: byCamel,
        });
      }
      expectSuccess(await queryPayment(target, { merchant_order_no: snakeNo }, { label: 'query by the snake_case number' }), {
        what: 'a query by the merchant_order_no sent',
      });
    },
  },
  {
    title: 'never takes trans_amount from a camelCase transAmount sent beside it',
    clause: ['conv.snake-case', 'version.no-camelcase'],
    async run({ target }) {
      const rec = target.profile.paymentRecord;
      skipUnless(rec, 'the profile declares no payment record shape (paymentRecord)', { declare: ['paymentRecord'] });
      // Two amounts the method accepts: the lowest two of its range that no declared failure trigger fails.
      const { method, range } = rangedCheckoutMethodHolding(target);
      const [snakeCents, otherCents] = plainCentsIn(target, range, 2);
      skipUnless(otherCents !== undefined, `the ${method} range holds fewer than two amounts no declared failure trigger fails`, {
        declare: ['limits.payments'],
      });
      const snake = valueOfCents(snakeCents!);
      const other = valueOfCents(otherCents!);
      const merchantOrderNo = target.newNo('order');
      const body = { ...checkoutBody(target, { merchantOrderNo, method, amount: usd(snake) }), transAmount: usd(other) };
      const ex = await post(target, body, 'checkout with trans_amount and a different transAmount');
      if (codeOf(ex) !== 0) {
        expectRefused(ex, { what: 'a checkout with an extra transAmount', topic: 'naming.camel-duplicate' });
        return;
      }
      recordReading('naming.camel-duplicate', 'ignored');
      const q = await queryPayment(target, { merchant_order_no: merchantOrderNo });
      const data = expectSuccess(q, { what: 'querying the checkout' });
      expectEqual(pick(data, rec.transAmount), usd(snake), {
        code: 'CAMELCASE_FIELD_USED',
        title: 'the payment should be recorded with trans_amount, not with the camelCase transAmount',
        exchange: q,
      });
    },
  },
  {
    title: 'refuses a checkout without trade_info.goods_name as invalidRequest',
    clause: ['checkout.goods-name-missing', 'payment.goods-name.required', 'err.req.invalid-request'],
    async run({ target }) {
      const variants: [string, Body][] = [
        [
          'trade_info without goods_name',
          { ...checkoutBody(target), trade_info: { description: fitLength(target.profile, 'description', 'No goods name') } },
        ],
        ['trade_info empty', { ...checkoutBody(target), trade_info: {} }],
        ['no trade_info', checkoutBody(target, { omit: ['trade_info'] })],
      ];
      for (const [what, body] of variants) {
        const ex = await post(target, body, `checkout with ${what}`);
        expectError(
          ex,
          { code: 400, key: 'invalidRequest' },
          { what: `a checkout with ${what}`, ifAccepted: 'payment.goods-name.required' },
        );
      }
    },
  },
  {
    title: "names trade_info.goods_name by the server's internal name when it is missing",
    clause: ['err.req.internal-field-name', 'checkout.goods-name-missing'],
    async run({ target }) {
      const internal = target.profile.internalFieldNames?.['trade_info.goods_name'];
      skipUnless(
        internal,
        "the profile declares no internal name for trade_info.goods_name (internalFieldNames['trade_info.goods_name'])",
        { declare: [`internalFieldNames['trade_info.goods_name']`] },
      );
      const ex = await post(
        target,
        { ...checkoutBody(target), trade_info: { description: fitLength(target.profile, 'description', 'No goods name') } },
        'checkout with trade_info without goods_name',
      );
      expectError(ex, { code: 400, key: 'invalidRequest' }, 'checkout.goods-name-missing', {
        what: 'a checkout without trade_info.goods_name',
      });
      const { message } = splitMsg((ex.response!.json as { msg: string }).msg);
      if (!message.includes(internal)) {
        failCheck({
          code: 'FIELD_NOT_NAMED',
          title: 'the invalidRequest message should name the missing field by the internal name the profile declares',
          expected: `a message containing ${JSON.stringify(internal)}`,
          seen: JSON.stringify(message),
          exchange: ex,
        });
      }
    },
  },
  {
    title: 'refuses a checkout without payment_method as invalidRequest',
    clause: ['err.req.method-missing', 'payment.method.required', 'err.req.invalid-request'],
    async run({ target }) {
      const ex = await post(target, checkoutBody(target, { omit: ['payment_method'] }), 'checkout without payment_method');
      expectError(
        ex,
        { code: 400, key: 'invalidRequest' },
        { what: 'a checkout without payment_method', ifAccepted: 'payment.method.required' },
      );
    },
  },
]);
