import { factsOf } from '../harness/facts/index.js';
import { fitLength } from '../harness/profile/lengths.js';
import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite } from '../harness/check/define.js';
import { failCheck } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { note, recordReading } from '../harness/check/context.js';
import { checkoutExtras, settlePayout, usd, type Amount } from '../harness/ops.js';
import type { Target } from '../harness/target.js';
import { shortJson } from '../harness/http/exchange-text.js';
import {
  awaitDeliveries,
  BODY_FIELD_CLAUSES,
  bodyOf,
  expectBodyField,
  expectDelivery,
  expectEventArrives,
  expectValidBody,
  recordDeliveries,
  webhookSetup,
  type Body,
} from '../harness/webhooks/expect.js';
import {
  acceptedPayout,
  acceptedRefund,
  anyPaidPayment,
  completedCheckout,
  declinedCardPayment,
  partOf,
  type CheckoutOpts,
  type Payment,
} from './support/webhook-scenarios.js';
import type { Exchange } from '../harness/http/exchange.js';
import { decidePricePoint, describeRule, pricePointRule, type PricePointRule } from '../harness/profile/price-points.js';
import { acceptsCents } from '../harness/facts/limits.js';
import { centsOf, compareCents, isShownValue, maxCents, shownValue, valueOfCents } from '../harness/facts/money.js';

const RFC3339_OFFSET = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** INTERFACE.md › Payment: the fields of a payment as they appear in webhooks (requested_amount aside: only when rounded). */
const PAYMENT_WEBHOOK_FIELDS = [
  'order_no',
  'merchant_order_no',
  'payment_method',
  'trans_amount',
  'trade_info',
  'status',
  'metadata',
  'finished_at',
  'created_at',
];
/** Names a field would have if it stated why a payment failed. */
const NAMES_A_REASON = /reason|error|errno|message|msg|declin|fail|cause|why|explanation|detail|code|response/i;

/** A method without price points, from the profile's checkout methods. */
function plainMethod(t: Target): string {
  const pp = new Set(t.profile.methods.pricePoint ?? []);
  const m = t.profile.methods.checkout.find((x) => !pp.has(x));
  if (!m)
    throw new PreconditionSkip('the profile declares no checkout method without price points (methods.checkout)', {
      declare: ['methods.checkout'],
    });
  return m;
}

function pricePointSetup(t: Target): {
  method: string;
  tiers: bigint[];
  rule: PricePointRule;
  inside: (cents: number) => boolean;
  unroundable: Set<string>;
} {
  const method = (t.profile.methods.pricePoint ?? []).find((m) => t.profile.methods.checkout.includes(m));
  if (!method)
    throw new PreconditionSkip('the profile declares no price-point method among the checkout methods (methods.pricePoint)', {
      declare: ['methods.pricePoint'],
    });
  const pp = t.profile.pricePoints;
  if (!pp || pp.tiers.length === 0)
    throw new PreconditionSkip('the profile declares no price-point tiers (pricePoints.tiers)', { declare: ['pricePoints.tiers'] });
  // The method's own tiers and rule where it has them: a target whose only price-point method has its own tiers (a genome)
  // charges those. An amount or tier outside the method's declared channels may be refused 2006, so only those inside count.
  const tiers = (pp.tiersByMethod?.[method] ?? pp.tiers).map((v) => centsOf(v)).sort(compareCents);
  const lim = t.profile.limits?.payments?.[method];
  return {
    method,
    tiers,
    rule: pricePointRule(pp, method),
    inside: lim ? (c) => acceptsCents(lim, c) : () => true,
    unroundable: new Set(pp.unroundable.map((v) => shownValue(v))),
  };
}

/**
 * The first amount one cent above a tier that the declared rule (the method's rounding, distance and tie) rounds to a
 * tier it is not, inside the method's channels: an amount the rule leaves undecided (a midpoint with no tie said) is never
 * taken.
 */
function amountBetweenTiers(s: ReturnType<typeof pricePointSetup>): { requested: string; charged: string } {
  for (const lo of s.tiers) {
    const c = Number(lo) + 1;
    const d = decidePricePoint(c, s.rule);
    if (d.kind !== 'rounded' || d.tier === c || !s.inside(c) || !s.inside(d.tier)) continue;
    const requested = valueOfCents(c);
    if (s.unroundable.has(requested)) continue;
    return { requested, charged: valueOfCents(d.tier) };
  }
  throw new PreconditionSkip("the profile's price-point rule rounds no amount one cent above a tier (pricePoints)", {
    declare: ['pricePoints.tiers'],
  });
}

/** A paid payment and its payment.updated SUCCESS body. */
async function paidWithBody(t: Target, clause: ClauseId, opts: CheckoutOpts = {}): Promise<{ p: Payment; body: Body; exchange: Exchange }> {
  const p = await completedCheckout(t, clause, 'success', opts);
  const { body, exchange } = await expectEventArrives(
    t,
    p.merchantOrderNo,
    'payment.updated',
    'SUCCESS',
    'event.payment.updated',
    'a paid checkout',
  );
  return { p, body, exchange };
}

function sentBody(p: Payment): Record<string, unknown> {
  try {
    return JSON.parse(p.exchange.request.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** A refund of part of a paid payment (the whole where only full refunds are allowed) and its first refund.updated. */
async function refundWithBody(t: Target, clause: ClauseId, reason?: string) {
  const payment = await anyPaidPayment(t, clause, { refundable: true });
  const refund = await acceptedRefund(t, clause, payment, { amount: partOf(t, payment), ...(reason ? { reason } : {}) });
  const got = await expectEventArrives(
    t,
    refund.merchantRefundNo,
    'refund.updated',
    ['PENDING', 'SUCCESS', 'FAILED'],
    'event.refund.updated',
    'a refund just created',
  );
  return { payment, refund, ...got };
}

/** INTERFACE.md › Events › Body fields, and the payment fields as they appear in webhooks. */
export default defineSuite('webhook-body', { area: 'webhooks', resource: 'webhook' }, [
  {
    title: "sends payment.updated with the payment's numbers, method, amount and trade_info",
    clause: [
      'payment.webhook.fields',
      'webhook.body.event',
      'webhook.body.order-no',
      'webhook.body.merchant-order-no',
      'webhook.body.payment-method',
      'webhook.body.trans-amount',
      'webhook.body.trade-info',
      'payment.trans-amount.usd-charged',
    ],
    async run({ target: t }) {
      webhookSetup(t);
      const method = plainMethod(t);
      const { p, body, exchange } = await paidWithBody(t, 'payment.webhook.fields', {
        method,
        goodsName: 'Green tea',
        description: 'Two boxes, loose leaf',
      });
      const missing = PAYMENT_WEBHOOK_FIELDS.filter((f) => !(f in body));
      if (missing.length > 0) {
        failCheck({
          code: 'PAYMENT_WEBHOOK_FIELD_MISSING',
          title: 'a payment in webhooks has every field the Payment resource lists for webhooks',
          expected: PAYMENT_WEBHOOK_FIELDS.join(', '),
          seen: `missing ${missing.join(', ')}`,
          exchange,
        });
      }
      expectValidBody(body, exchange, 'payment.updated');
      expectBodyField(
        body,
        'order_no',
        p.orderNo,
        'webhook.body.order-no',
        "`order_no` must be the service's number of the payment",
        exchange,
      );
      expectBodyField(
        body,
        'merchant_order_no',
        p.merchantOrderNo,
        'webhook.body.merchant-order-no',
        "`merchant_order_no` must be the merchant's number of the payment",
        exchange,
      );
      expectBodyField(
        body,
        'payment_method',
        method,
        'webhook.body.payment-method',
        '`payment_method` must be the method of the payment',
        exchange,
      );
      expectBodyField(
        body,
        'trans_amount',
        { currency: 'USD', value: shownValue(p.amount.value) },
        'payment.trans-amount.usd-charged',
        '`trans_amount` must be the USD amount charged',
        exchange,
      );
      expectBodyField(
        body,
        'trade_info',
        sentBody(p)['trade_info'],
        'webhook.body.trade-info',
        '`trade_info` of a payment must be the trade_info sent',
        exchange,
      );
    },
  },
  {
    title: 'echoes the metadata sent with the payment in payment.updated',
    clause: ['payment.metadata.echo', 'webhook.body.metadata'],
    async run({ target: t }) {
      webhookSetup(t);
      // Within the metadata length the profile says (lengths.maxLength.metadata): the echo is compared with what was sent.
      const metadata = fitLength(t.profile, 'metadata', 'cart=42;note="gift, wrapped" | ünïcödé ✓ {"k":[1,2]}');
      const { body, exchange } = await paidWithBody(t, 'payment.metadata.echo', { metadata });
      expectBodyField(body, 'metadata', metadata, 'payment.metadata.echo', '`metadata` must echo exactly the metadata sent', exchange);
    },
  },
  {
    title: 'sends metadata as an empty string in payment.updated when none was sent',
    clause: ['payment.metadata.echo', 'webhook.body.metadata'],
    async run({ target: t }) {
      webhookSetup(t);
      // A checkout method whose required fields leave metadata out, where one has (checkout.extrasByMethod).
      const method = t.profile.methods.checkout.find((m) => !('metadata' in checkoutExtras(t, m)));
      const { p, body, exchange } = await paidWithBody(t, 'payment.metadata.echo', method ? { method } : {});
      if ('metadata' in sentBody(p))
        throw new PreconditionSkip(
          "the profile's checkout extras send metadata (checkout.extras): no payment without metadata can be made",
          { declare: ['checkout.extras without metadata'] },
        );
      expectBodyField(
        body,
        'metadata',
        '',
        'payment.metadata.echo',
        '`metadata` must be an empty string when none was sent (not null, not absent)',
        exchange,
      );
    },
  },
  {
    title: 'shows the amount in payment.updated with two decimals',
    clause: ['amount.value.two-decimals-out', 'webhook.body.trans-amount'],
    async run({ target: t }) {
      webhookSetup(t);
      const method = plainMethod(t);
      // One decimal sent ("10.5"): the webhook must show "10.50", neither "10.5" nor a number.
      const lim = factsOf(t).paymentLimits(method);
      const base = centsOf(lim?.min ?? '10.00');
      const value = valueOfCents((maxCents(base, 1000n) / 100n) * 100n + 50n, 1);
      if (lim && (centsOf(value) < centsOf(lim.min) || centsOf(value) > centsOf(lim.max)))
        throw new PreconditionSkip(`the ${method} channel range ${lim.min}..${lim.max} holds no amount with one decimal the check can use`);
      const { body, exchange } = await paidWithBody(t, 'amount.value.two-decimals-out', { method, amount: usd(value) });
      const amount = body['trans_amount'] as Amount | undefined;
      if (!amount || !isShownValue(amount.value)) {
        failCheck({
          code: 'WEBHOOK_AMOUNT_NOT_TWO_DECIMALS',
          title: 'webhooks always show amounts with two decimals',
          expected: `trans_amount.value "${shownValue(value)}"`,
          seen: `trans_amount ${shortJson(amount)}`,
          exchange,
        });
      }
      expectBodyField(
        body,
        'trans_amount',
        { currency: 'USD', value: shownValue(value) },
        'amount.value.two-decimals-out',
        '`trans_amount` must show the amount sent with two decimals',
        exchange,
      );
    },
  },
  {
    title: 'shows created_at and finished_at in payment.updated as RFC 3339 times with an offset',
    clause: ['conv.time.rfc3339-offset', 'webhook.body.created-at', 'webhook.body.finished-at'],
    async run({ target: t }) {
      webhookSetup(t);
      const { body, exchange } = await paidWithBody(t, 'conv.time.rfc3339-offset');
      for (const field of ['created_at', 'finished_at']) {
        const v = body[field];
        if (typeof v !== 'string' || !RFC3339_OFFSET.test(v) || Number.isNaN(Date.parse(v))) {
          failCheck({
            code: 'WEBHOOK_TIME_NOT_RFC3339_OFFSET',
            title: `\`${field}\` must be an RFC 3339 time with an offset`,
            expected: `${field} like 2026-11-22T10:00:00+01:00`,
            seen: `${field} ${shortJson(v)}`,
            exchange,
          });
        }
      }
      const created = Date.parse(String(body['created_at']));
      const finished = Date.parse(String(body['finished_at']));
      if (finished < created) {
        failCheck('webhook.body.finished-at', {
          code: 'WEBHOOK_FINISHED_BEFORE_CREATED',
          title: '`finished_at` (completion time) is earlier than `created_at` (creation time)',
          expected: 'finished_at >= created_at',
          seen: `created_at ${String(body['created_at'])}, finished_at ${String(body['finished_at'])}`,
          exchange,
        });
      }
    },
  },
  {
    title: 'carries requested_amount with the amount sent when a price-point amount was rounded',
    clause: ['webhook.body.requested-amount', 'payment.requested-amount.only-rounded', 'payment.price-point.round'],
    async run({ target: t }) {
      webhookSetup(t);
      const s = pricePointSetup(t);
      const { requested, charged } = amountBetweenTiers(s);
      const { body, exchange } = await paidWithBody(t, 'webhook.body.requested-amount', { method: s.method, amount: usd(requested) });
      expectBodyField(
        body,
        'requested_amount',
        usd(requested),
        'webhook.body.requested-amount',
        '`requested_amount` must be present, with the amount sent, when the amount was rounded to a price point',
        exchange,
      );
      expectBodyField(
        body,
        'trans_amount',
        usd(charged),
        'payment.price-point.round',
        `\`trans_amount\` must be the price point charged (rounding ${describeRule(s.rule)} per the profile)`,
        exchange,
      );
    },
  },
  {
    title: 'omits requested_amount when a price-point amount needed no rounding',
    clause: ['webhook.body.requested-amount', 'payment.requested-amount.only-rounded'],
    async run({ target: t }) {
      webhookSetup(t);
      const s = pricePointSetup(t);
      // A tier inside the method's channels: one outside may be refused 2006.
      const first = s.tiers.find((c) => s.inside(Number(c)));
      if (first === undefined)
        throw new PreconditionSkip(`no price point of ${s.method} is inside its declared channels (limits.payments.${s.method})`, {
          declare: [`limits.payments.${s.method}`],
        });
      const tier = valueOfCents(first);
      const { body, exchange } = await paidWithBody(t, 'webhook.body.requested-amount', { method: s.method, amount: usd(tier) });
      if ('requested_amount' in body) {
        failCheck({
          code: 'REQUESTED_AMOUNT_NOT_ROUNDED',
          title: '`requested_amount` is present only when the amount was rounded; an exact price point is not rounded',
          expected: 'no requested_amount',
          seen: `requested_amount ${shortJson(body['requested_amount'])}`,
          exchange,
        });
      }
      expectBodyField(
        body,
        'trans_amount',
        usd(tier),
        'payment.trans-amount.usd-charged',
        '`trans_amount` must be the price point charged',
        exchange,
      );
    },
  },
  {
    title: 'omits requested_amount for a payment method without price points',
    clause: ['webhook.body.requested-amount', 'payment.requested-amount.only-rounded'],
    async run({ target: t }) {
      webhookSetup(t);
      const { body, exchange } = await paidWithBody(t, 'webhook.body.requested-amount', { method: plainMethod(t) });
      if ('requested_amount' in body) {
        failCheck({
          code: 'REQUESTED_AMOUNT_NOT_ROUNDED',
          title: '`requested_amount` is present only when the amount was rounded to a price point',
          expected: 'no requested_amount',
          seen: `requested_amount ${shortJson(body['requested_amount'])}`,
          exchange,
        });
      }
    },
  },
  {
    title: 'states no reason for the failure in payment.updated of a declined payment',
    clause: ['webhook.body.no-failure-reason'],
    async run({ target: t }) {
      webhookSetup(t);
      let p: Payment;
      try {
        p = await declinedCardPayment(t);
      } catch (e) {
        if (!(e instanceof PreconditionSkip)) throw e;
        p = await completedCheckout(t, 'webhook.body.no-failure-reason', 'failed');
      }
      const { body, exchange } = await expectEventArrives(
        t,
        p.merchantOrderNo,
        'payment.updated',
        'FAILED',
        'state.payment.declined-failed',
        'a failed payment',
      );
      const stated: string[] = [];
      const unknown: string[] = [];
      for (const k of Object.keys(body)) {
        if (k === 'status_reason')
          stated.push(k); // the payout field that states a reason
        else if (!(k in BODY_FIELD_CLAUSES)) (NAMES_A_REASON.test(k) ? stated : unknown).push(k);
      }
      const sentTrade = (sentBody(p)['trade_info'] ?? {}) as Record<string, unknown>;
      const trade = body['trade_info'];
      if (trade && typeof trade === 'object') {
        for (const k of Object.keys(trade)) if (!(k in sentTrade) && NAMES_A_REASON.test(k)) stated.push(`trade_info.${k}`);
      }
      if (unknown.length > 0) note(`payment.updated carries fields the Events table does not list: ${unknown.join(', ')}`);
      if (stated.length > 0) {
        failCheck({
          code: 'WEBHOOK_STATES_FAILURE_REASON',
          title: 'a webhook for a failed payment must not state the reason for the failure',
          expected: 'only the fields of the Events table, none naming a reason',
          seen: stated
            .map((k) => `${k}: ${shortJson(k.startsWith('trade_info.') ? (trade as Record<string, unknown>)[k.slice(11)] : body[k])}`)
            .join('; '),
          exchange,
        });
      }
    },
  },
  {
    title: 'names the refunded payment in refund.updated by original_order_no and original_merchant_order_no',
    clause: ['webhook.body.original-refs', 'refund.original-refs'],
    async run({ target: t }) {
      webhookSetup(t);
      const { payment, body, exchange } = await refundWithBody(t, 'webhook.body.original-refs');
      // An absent field is charged to the body field by the delivery rules; a present one naming another number breaks how a refund refers
      // to its payment.
      expectValidBody(body, exchange, 'refund.updated');
      expectBodyField(
        body,
        'original_order_no',
        payment.orderNo,
        'refund.original-refs',
        '`original_order_no` must be the order_no of the refunded payment',
        exchange,
      );
      expectBodyField(
        body,
        'original_merchant_order_no',
        payment.merchantOrderNo,
        'refund.original-refs',
        '`original_merchant_order_no` must be the merchant_order_no of the refunded payment',
        exchange,
      );
    },
  },
  {
    title: 'carries the refund reason as trade_info.goods_name in refund.updated',
    clause: ['refund.webhook.goods-name-reason', 'webhook.body.trade-info'],
    async run({ target: t }) {
      webhookSetup(t);
      // Within the reason length the profile says (lengths.maxLength.reason): the webhook is compared with what was sent.
      const reason = fitLength(t.profile, 'reason', 'Arrived damaged: box crushed (ref #7)');
      const { body, exchange } = await refundWithBody(t, 'refund.webhook.goods-name-reason', reason);
      const trade = body['trade_info'] as Record<string, unknown> | undefined;
      if (!trade || trade['goods_name'] !== reason) {
        failCheck({
          code: 'REFUND_REASON_NOT_GOODS_NAME',
          title: 'in a refund webhook `trade_info.goods_name` holds the refund reason',
          expected: `trade_info.goods_name ${shortJson(reason)}`,
          seen: `trade_info ${shortJson(trade)}`,
          exchange,
        });
      }
    },
  },
  {
    title: 'carries the amount refunded as trans_amount in refund.updated',
    clause: ['refund.webhook.trans-amount', 'webhook.body.trans-amount'],
    async run({ target: t }) {
      webhookSetup(t);
      const { refund, payment, body, exchange } = await refundWithBody(t, 'refund.webhook.trans-amount');
      if (refund.amount.value !== payment.amount.value) recordReading('refund.webhook.amount', 'partial refund');
      expectBodyField(
        body,
        'trans_amount',
        { currency: 'USD', value: shownValue(refund.amount.value) },
        'refund.webhook.trans-amount',
        '`trans_amount` of a refund webhook must be the USD amount refunded',
        exchange,
      );
    },
  },
  {
    title: "names the refunded payment's method as payment_method in refund.updated",
    clause: ['webhook.body.payment-method'],
    async run({ target: t }) {
      webhookSetup(t);
      const { payment, body, exchange } = await refundWithBody(t, 'webhook.body.payment-method');
      // Presence is the schema's (expectValidBody); here the value: a refund goes back through the method of the payment it refunds.
      expectBodyField(
        body,
        'payment_method',
        payment.method,
        'webhook.body.payment-method',
        '`payment_method` of a refund webhook must be the method of the refunded payment',
        exchange,
      );
    },
  },
  {
    title: 'identifies the refund in refund.updated by its refund_no and merchant_refund_no',
    clause: ['webhook.body.order-no', 'webhook.body.merchant-order-no', 'refund.ids'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      const payment = await anyPaidPayment(t, 'webhook.body.order-no', { refundable: true });
      const refund = await acceptedRefund(t, 'webhook.body.order-no', payment, { amount: partOf(t, payment) });
      const all = await awaitDeliveries(
        t,
        { merchantNo: refund.merchantRefundNo, event: 'refund.updated' },
        (ds) => ds.length > 0,
        timing.deliveryWaitMs,
      );
      if (all.length === 0) {
        // Receivers file webhooks by merchant_order_no: one carrying another number is found only by the refund's refund_no.
        const misfiled = t
          .receiver()
          .deliveries({ event: 'refund.updated' })
          .filter((d) => bodyOf(d)?.['order_no'] === refund.refundNo);
        const [ex] = recordDeliveries(t, misfiled);
        if (misfiled.length > 0)
          expectBodyField(
            bodyOf(misfiled[0]!)!,
            'merchant_order_no',
            refund.merchantRefundNo,
            'webhook.body.merchant-order-no',
            '`merchant_order_no` of a refund webhook must be the merchant_refund_no',
            ex!,
          );
      }
      const { body, exchange } = expectDelivery(all, { event: 'refund.updated' }, 'event.refund.updated', 'a refund just created', t);
      expectBodyField(
        body,
        'order_no',
        refund.refundNo,
        'webhook.body.order-no',
        "`order_no` of a refund webhook must be the refund's refund_no",
        exchange,
      );
      expectBodyField(
        body,
        'merchant_order_no',
        refund.merchantRefundNo,
        'webhook.body.merchant-order-no',
        '`merchant_order_no` of a refund webhook must be the merchant_refund_no',
        exchange,
      );
    },
  },
  {
    title: 'sends payout.updated with a status_reason and a finished_at time',
    clause: ['webhook.body.status-reason', 'payout.fields', 'webhook.body.finished-at'],
    async run({ target: t }) {
      webhookSetup(t);
      const p = await acceptedPayout(t, 'webhook.body.status-reason');
      await settlePayout(t, p, 'failed', 'webhook.body.status-reason');
      const { body, exchange } = await expectEventArrives(
        t,
        p.merchantPayoutNo,
        'payout.updated',
        'FAILED',
        'event.payout.updated',
        'a failed payout',
      );
      if (typeof body['status_reason'] !== 'string') {
        failCheck({
          code: 'PAYOUT_STATUS_REASON_MISSING',
          title: 'payout.updated must carry `status_reason` (a string)',
          expected: 'status_reason: a string',
          seen: `status_reason ${shortJson(body['status_reason'])}`,
          exchange,
        });
      }
      // The sandbox was told why the payout failed (sandbox.settlePayout.reason): that is the reason for its status.
      const reason = t.profile.sandbox?.settlePayout?.reason;
      if (reason !== undefined)
        expectBodyField(
          body,
          'status_reason',
          reason,
          'webhook.body.status-reason',
          '`status_reason` must be the reason for the payout status (the settle control recorded one)',
          exchange,
        );
      const fin = body['finished_at'];
      if (typeof fin !== 'string' || !RFC3339_OFFSET.test(fin)) {
        failCheck('webhook.body.finished-at', {
          code: 'PAYOUT_FINISHED_AT_MISSING',
          title: 'payout.updated must carry `finished_at`, an RFC 3339 completion time',
          expected: 'finished_at like 2026-11-22T10:00:00+01:00',
          seen: `finished_at ${shortJson(fin)}`,
          exchange,
        });
      }
    },
  },
  {
    title: 'identifies the payout in payout.updated by its payout_no and merchant_payout_no, with its amount',
    clause: ['webhook.body.order-no', 'webhook.body.merchant-order-no', 'webhook.body.trans-amount', 'payout.ids'],
    async run({ target: t }) {
      webhookSetup(t);
      const p = await acceptedPayout(t, 'webhook.body.order-no');
      await settlePayout(t, p, 'success', 'webhook.body.order-no');
      const { body, exchange } = await expectEventArrives(
        t,
        p.merchantPayoutNo,
        'payout.updated',
        'SUCCESS',
        'event.payout.updated',
        'a paid payout',
      );
      expectValidBody(body, exchange, 'payout.updated');
      expectBodyField(
        body,
        'order_no',
        p.payoutNo,
        'webhook.body.order-no',
        "`order_no` of a payout webhook must be the payout's payout_no",
        exchange,
      );
      expectBodyField(
        body,
        'merchant_order_no',
        p.merchantPayoutNo,
        'webhook.body.merchant-order-no',
        '`merchant_order_no` of a payout webhook must be the merchant_payout_no',
        exchange,
      );
      expectBodyField(
        body,
        'trans_amount',
        { currency: p.amount.currency, value: shownValue(p.amount.value) },
        'webhook.body.trans-amount',
        '`trans_amount` of a payout webhook must be the payout amount',
        exchange,
      );
    },
  },
]);
