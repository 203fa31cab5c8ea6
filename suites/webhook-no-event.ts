import { defineSuite } from '../harness/check/define.js';
import { failCheck } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import type { Delivery } from '../harness/webhooks/types.js';
import { sandboxOrderControl, settleRefund } from '../harness/ops.js';
import { awaitDeliveries, describeDeliveries, expectEventArrives, webhookSetup } from '../harness/webhooks/expect.js';
import { acceptedRefund, anyPaidPayment, scriptedCheckout } from './support/webhook-scenarios.js';

/**
 * INTERFACE.md › Events: "No webhook is sent when a payment is refunded (the refund event is sent
 * instead), when a checkout link expires, or when a chargeback is recorded." Each check watches
 * its own number for the profile's delivery wait.
 */
export default defineSuite('webhook-no-event', { area: 'webhooks', resource: 'webhook' }, [
  {
    title: 'sends refund.updated but no payment.updated when a payment is refunded in full',
    clause: ['state.refunded.refund-event', 'event.none.refunded-payment'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      const payment = await anyPaidPayment(t, 'state.refunded.refund-event');
      // The payment's own SUCCESS webhook comes first and is acknowledged, so nothing of it is left to retry.
      await expectEventArrives(t, payment.merchantOrderNo, 'payment.updated', 'SUCCESS', 'event.payment.updated', 'the paid payment');
      const refundStarted = Date.now();
      const refund = await acceptedRefund(t, 'state.refunded.refund-event', payment);
      if (refund.status === 'PENDING') await settleRefund(t, refund, 'success', 'state.refunded.refund-event');
      await expectEventArrives(t, refund.merchantRefundNo, 'refund.updated', 'SUCCESS', 'state.refunded.refund-event', 'a full refund that completed');
      const after = (ds: Delivery[]) => ds.filter((d) => d.receivedAt >= refundStarted);
      const ds = await awaitDeliveries(t, { merchantNo: payment.merchantOrderNo, event: 'payment.updated' }, (x) => after(x).length > 0, timing.deliveryWaitMs);
      const late = after(ds);
      if (late.length > 0) {
        failCheck('PAYMENT_UPDATED_ON_REFUND', 'state.refunded.refund-event', 'a payment refunded in full sent payment.updated; the interface sends only refund.updated for a refund', {
          expected: `no payment.updated for ${payment.merchantOrderNo} after the refund (watched ${timing.deliveryWaitMs} ms)`,
          seen: describeDeliveries(late),
        });
      }
    },
  },
  {
    title: 'sends no webhook when a checkout link expires',
    clause: ['event.none.expiry', 'state.no-webhook.expiry-chargeback'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      if (!t.profile.sandbox?.expireCheckout) throw new PreconditionSkip('the profile declares no sandbox control sandbox.expireCheckout');
      const p = await scriptedCheckout(t, 'event.none.expiry');
      await sandboxOrderControl(t, 'expireCheckout', { orderNo: p.orderNo!, merchantOrderNo: p.merchantOrderNo }, 'event.none.expiry');
      const ds = await awaitDeliveries(t, { merchantNo: p.merchantOrderNo }, (x) => x.length > 0, timing.deliveryWaitMs);
      if (ds.length > 0) {
        failCheck('WEBHOOK_ON_EXPIRY', 'event.none.expiry', 'an expired checkout link sent a webhook', {
          expected: `no webhook for ${p.merchantOrderNo} (watched ${timing.deliveryWaitMs} ms)`,
          seen: describeDeliveries(ds),
        });
      }
    },
  },
  {
    title: 'sends no webhook when a chargeback is recorded',
    clause: ['event.none.chargeback', 'state.no-webhook.expiry-chargeback'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      if (!t.profile.sandbox?.chargeback) throw new PreconditionSkip('the profile declares no sandbox control sandbox.chargeback');
      const payment = await anyPaidPayment(t, 'event.none.chargeback');
      await expectEventArrives(t, payment.merchantOrderNo, 'payment.updated', 'SUCCESS', 'event.payment.updated', 'the paid payment');
      const started = Date.now();
      await sandboxOrderControl(t, 'chargeback', { orderNo: payment.orderNo!, merchantOrderNo: payment.merchantOrderNo }, 'event.none.chargeback');
      const after = (ds: Delivery[]) => ds.filter((d) => d.receivedAt >= started);
      const ds = await awaitDeliveries(t, { merchantNo: payment.merchantOrderNo }, (x) => after(x).length > 0, timing.deliveryWaitMs);
      const late = after(ds);
      if (late.length > 0) {
        failCheck('WEBHOOK_ON_CHARGEBACK', 'event.none.chargeback', 'a recorded chargeback sent a webhook; a chargeback is visible only in the merchant portal', {
          expected: `no webhook for ${payment.merchantOrderNo} after the chargeback (watched ${timing.deliveryWaitMs} ms)`,
          seen: describeDeliveries(late),
        });
      }
    },
  },
]);
