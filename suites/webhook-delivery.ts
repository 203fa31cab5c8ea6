import { defineSuite } from '../harness/check/define.js';
import { expectSuccess, failCheck } from '../harness/check/expect.js';
import { cardPayment } from '../harness/ops.js';
import { describeVerifyFailure, headerValue, verify } from '../harness/http/signing.js';
import { signingHeadersOf } from '../harness/webhooks/receiver.js';
import { gapBounds, INTERFACE_WEBHOOK_FIGURES, retryWindowMs } from '../harness/webhooks/schedule.js';
import { TIMED_DELIVERIES as TIMED } from '../harness/webhooks/schedule.js';
import { awaitDeliveries, describeDeliveries, expectEventArrives, recordDeliveries, webhookSetup } from '../harness/webhooks/expect.js';
import { anyPaidPayment, scriptedNo } from './support/webhook-scenarios.js';

/** INTERFACE.md › Events › Delivery: how a webhook is sent and signed. */
export default defineSuite('webhook-delivery', { area: 'webhooks', resource: 'webhook', sequentialBelowRealTime: TIMED }, [
  {
    title: 'sends webhooks as POST with Content-Type application/json',
    clause: ['webhook.post-json'],
    async run({ target: t }) {
      webhookSetup(t);
      const p = await anyPaidPayment(t, 'webhook.post-json');
      const { delivery: d, exchange } = await expectEventArrives(
        t,
        p.merchantOrderNo,
        'payment.updated',
        'SUCCESS',
        'event.payment.updated',
        'a paid payment',
      );
      if (d.method !== 'POST')
        failCheck({ code: 'WEBHOOK_NOT_POST', title: 'a webhook must be sent with POST', expected: 'POST', seen: d.method, exchange });
      const ct = headerValue(d.headers, 'Content-Type');
      if (ct === undefined || ct.split(';')[0]!.trim().toLowerCase() !== 'application/json') {
        failCheck({
          code: 'WEBHOOK_CONTENT_TYPE',
          title: 'a webhook must carry Content-Type: application/json',
          expected: 'Content-Type: application/json',
          seen: `Content-Type: ${ct ?? '(none)'}`,
          exchange,
        });
      }
    },
  },
  {
    title: 'signs a webhook over its raw body with the secret of the merchant that owns the payment',
    clause: ['webhook.signed', 'auth.timestamp.seconds'],
    async run({ target: t }) {
      webhookSetup(t);
      const primary = t.merchant('primary');
      const p = await anyPaidPayment(t, 'webhook.signed');
      const { delivery: d, exchange } = await expectEventArrives(
        t,
        p.merchantOrderNo,
        'payment.updated',
        'SUCCESS',
        'event.payment.updated',
        'a paid payment',
      );
      const v = verify(d.headers, d.body, { merchantId: primary.id, secret: primary.secret });
      if (!v.ok)
        failCheck({
          code: 'WEBHOOK_SIGNATURE_INVALID',
          title: `the webhook does not verify as signed by the payment's merchant: ${describeVerifyFailure(v)}`,
          expected: `signed by ${primary.id} with its secret key`,
          seen: describeVerifyFailure(v),
          exchange,
        });
      const ts = signingHeadersOf(d).timestamp ?? '';
      const now = Date.now() / 1000;
      if (!/^\d{1,10}$/.test(ts) || Math.abs(Number(ts) - now) > 86_400) {
        failCheck('auth.timestamp.seconds', {
          code: 'WEBHOOK_TIMESTAMP_NOT_SECONDS',
          title: 'X-Timestamp of a webhook must be Unix time in seconds, as for requests',
          expected: `about ${Math.floor(now)}`,
          seen: `X-Timestamp: ${ts}`,
          exchange,
        });
      }
    },
  },
  {
    title: "signs a webhook of another merchant with that merchant's id and secret",
    clause: ['webhook.signed', 'auth.merchant-id'],
    async run({ target: t }) {
      webhookSetup(t);
      const second = t.merchant('second');
      const merchantOrderNo = scriptedNo(t, 'order');
      const ex = await cardPayment(t, { merchantOrderNo }, { as: 'second' });
      expectSuccess(ex, { what: 'a card payment of the second merchant' });
      const { delivery: d, exchange } = await expectEventArrives(
        t,
        merchantOrderNo,
        'payment.updated',
        'SUCCESS',
        'event.payment.updated',
        'a paid payment of the second merchant',
      );
      const v = verify(d.headers, d.body, { merchantId: second.id, secret: second.secret });
      if (!v.ok)
        failCheck({
          code: 'WEBHOOK_SIGNED_FOR_WRONG_MERCHANT',
          title:
            `a webhook about the second merchant's payment must be signed ` +
            `with that merchant's id and secret: ${describeVerifyFailure(v)}`,
          expected: `X-MerchantID ${second.id}, signed with its secret`,
          seen: `X-MerchantID ${String(signingHeadersOf(d).merchantId)}: ${describeVerifyFailure(v)}`,
          exchange,
        });
    },
  },
  {
    title: 'signs every attempt of a webhook again with a new timestamp and nonce',
    clause: ['webhook.fresh-signature', 'webhook.signed'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      const p = await anyPaidPayment(t, 'webhook.fresh-signature', { replies: ['reject', 'reject', 'success'] });
      // Three attempts: the first, and two retries after waits of at most the longest the document allows.
      const within = retryWindowMs(timing) + gapBounds(timing, INTERFACE_WEBHOOK_FIGURES.lastWaitMs).max + timing.ackTimeoutMs;
      const ds = await awaitDeliveries(t, { merchantNo: p.merchantOrderNo, event: 'payment.updated' }, (x) => x.length >= 3, within);
      if (ds.length < 2)
        failCheck('webhook.retry.unacked', {
          code: 'WEBHOOK_NOT_RETRIED',
          title: 'an unacknowledged webhook was not sent again, so fresh signatures cannot be compared',
          expected: 'at least 2 attempts',
          seen: describeDeliveries(ds),
        });
      const exchanges = recordDeliveries(t, ds);
      const nonces = new Map<string, number>();
      let lastTs = -Infinity;
      ds.forEach((d, i) => {
        const h = signingHeadersOf(d);
        const ex = exchanges[i]!;
        if (!d.signature.ok)
          failCheck('webhook.signed', {
            code: 'WEBHOOK_SIGNATURE_INVALID',
            title: `attempt ${i + 1} does not verify: ${describeVerifyFailure(d.signature)}`,
            expected: 'every attempt signed over its own raw body',
            seen: describeVerifyFailure(d.signature),
            exchange: ex,
          });
        const earlier = h.nonce === undefined ? undefined : nonces.get(h.nonce);
        if (earlier !== undefined)
          failCheck({
            code: 'WEBHOOK_NONCE_REUSED',
            title: `attempt ${i + 1} reuses the X-Nonce of attempt ${earlier}; every attempt is signed again with a new nonce`,
            expected: 'a new X-Nonce per attempt',
            seen: `X-Nonce ${h.nonce} on attempts ${earlier} and ${i + 1}`,
            exchange: ex,
          });
        if (h.nonce !== undefined) nonces.set(h.nonce, i + 1);
        const ts = Number(h.timestamp);
        if (!(ts >= lastTs))
          failCheck({
            code: 'WEBHOOK_TIMESTAMP_NOT_FRESH',
            title:
              `attempt ${i + 1} carries an X-Timestamp older than the attempt ` +
              `before; every attempt is signed again with a new timestamp`,
            expected: `X-Timestamp >= ${lastTs}`,
            seen: `X-Timestamp ${String(h.timestamp)}`,
            exchange: ex,
          });
        lastTs = ts;
        // Attempts seconds apart must show it: a timestamp copied from an earlier attempt is not new.
        const stale = ds.slice(0, i).findIndex((e) => d.receivedAt - e.receivedAt >= 2000 && Number(signingHeadersOf(e).timestamp) >= ts);
        if (stale >= 0)
          failCheck({
            code: 'WEBHOOK_TIMESTAMP_NOT_FRESH',
            title:
              `attempt ${i + 1} arrived ${d.receivedAt - ds[stale]!.receivedAt}` +
              ` ms after attempt ${stale + 1} with no later X-Timestamp`,
            expected: 'a new X-Timestamp per attempt',
            seen:
              `X-Timestamp ${String(h.timestamp)} on attempt ${i + 1}, ` +
              `${String(signingHeadersOf(ds[stale]!).timestamp)} on attempt ${stale + 1}`,
            exchange: ex,
          });
      });
      t.receiver().script(p.merchantOrderNo, ['success']);
    },
  },
]);
