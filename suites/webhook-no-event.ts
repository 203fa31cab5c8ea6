import { defineSuite } from '../harness/check/define.js';
import { failCheck } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import type { Delivery, ReplyKind } from '../harness/webhooks/types.js';
import { sandboxOrderControl, settleRefund } from '../harness/ops.js';
import { awaitDeliveries, currentDeliveries, describeDeliveries, expectEventArrives, webhookSetup } from '../harness/webhooks/expect.js';
import { changeOf, dedupKey, type WebhookChange } from '../harness/webhooks/dedup.js';
import { acceptedRefund, anyPaidPayment, confirmedByRetrial, scriptedCheckout } from './support/webhook-scenarios.js';

/** Replies that acknowledge (INTERFACE.md › Acknowledgement: only the body is examined). */
const ACKNOWLEDGING: ReadonlySet<ReplyKind> = new Set<ReplyKind>(['success', 'http500-success', 'in-time']);

/** The (event, order_no, status) of a delivery; junk gets a key no real change has. */
function changeKeyOf(d: Delivery): WebhookChange {
  const c = changeOf(d.json);
  return 'invalid' in c ? { event: '', orderNo: `#${d.seq}`, status: '' } : c;
}

/** Changes an earlier delivery reported without our acknowledgement: only those may legitimately come again. */
function retryableChanges(earlier: Delivery[]): Set<string> {
  return new Set(earlier.filter((d) => !ACKNOWLEDGING.has(d.reply)).map((d) => dedupKey(changeKeyOf(d))));
}

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
      await confirmedByRetrial(async () => {
        const payment = await anyPaidPayment(t, 'state.refunded.refund-event', { refundable: true });
        // The payment's own SUCCESS webhook comes first and is acknowledged, so nothing of it is left to retry.
        await expectEventArrives(t, payment.merchantOrderNo, 'payment.updated', 'SUCCESS', 'event.payment.updated', 'the paid payment');
        // By arrival order, not time: the SUCCESS delivery can arrive in the same millisecond the refund starts.
        const before = new Set(currentDeliveries(t, { merchantNo: payment.merchantOrderNo }).map((d) => d.seq));
        const refund = await acceptedRefund(t, 'state.refunded.refund-event', payment);
        if (refund.status === 'PENDING') await settleRefund(t, refund, 'success', 'state.refunded.refund-event');
        await expectEventArrives(
          t,
          refund.merchantRefundNo,
          'refund.updated',
          'SUCCESS',
          'state.refunded.refund-event',
          'a full refund that completed',
        );
        const after = (ds: Delivery[]) => ds.filter((d) => !before.has(d.seq));
        const ds = await awaitDeliveries(
          t,
          { merchantNo: payment.merchantOrderNo, event: 'payment.updated' },
          (x) => after(x).length > 0,
          timing.deliveryWaitMs,
        );
        const late = after(ds);
        if (late.length === 0) return undefined;
        return {
          code: 'PAYMENT_UPDATED_ON_REFUND',
          clause: 'state.refunded.refund-event',
          message: 'a payment refunded in full sent payment.updated; the interface sends only refund.updated for a refund',
          expected: `no payment.updated after the refund (watched ${timing.deliveryWaitMs} ms)`,
          seen: `${payment.merchantOrderNo}: ${describeDeliveries(late)}`,
        };
      });
    },
  },
  {
    title: 'sends no webhook when a checkout link expires',
    clause: ['event.none.expiry', 'state.no-webhook.expiry-chargeback'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      if (!t.profile.sandbox?.expireCheckout)
        throw new PreconditionSkip('the profile declares no sandbox control sandbox.expireCheckout', {
          declare: ['sandbox.expireCheckout'],
        });
      const p = await scriptedCheckout(t, 'event.none.expiry');
      await sandboxOrderControl(t, 'expireCheckout', { orderNo: p.orderNo!, merchantOrderNo: p.merchantOrderNo }, 'event.none.expiry');
      const ds = await awaitDeliveries(t, { merchantNo: p.merchantOrderNo }, (x) => x.length > 0, timing.deliveryWaitMs);
      if (ds.length > 0) {
        failCheck({
          code: 'WEBHOOK_ON_EXPIRY',
          title: 'an expired checkout link sent a webhook',
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
      if (!t.profile.sandbox?.chargeback)
        throw new PreconditionSkip('the profile declares no sandbox control sandbox.chargeback', { declare: ['sandbox.chargeback'] });
      await confirmedByRetrial(async () => {
        const payment = await anyPaidPayment(t, 'event.none.chargeback');
        await expectEventArrives(t, payment.merchantOrderNo, 'payment.updated', 'SUCCESS', 'event.payment.updated', 'the paid payment');
        const earlier = currentDeliveries(t, { merchantNo: payment.merchantOrderNo });
        await sandboxOrderControl(
          t,
          'chargeback',
          { orderNo: payment.orderNo!, merchantOrderNo: payment.merchantOrderNo },
          'event.none.chargeback',
        );
        // Only an unacknowledged webhook is sent again, and nobody resends by hand during a sandbox run: a
        // delivery after the chargeback repeating a change we acknowledged is a new send, not a duplicate.
        const retryable = retryableChanges(earlier);
        const seen = new Set(earlier.map((d) => d.seq));
        const fresh = (ds: Delivery[]) => ds.filter((d) => !seen.has(d.seq) && !retryable.has(dedupKey(changeKeyOf(d))));
        const ds = await awaitDeliveries(t, { merchantNo: payment.merchantOrderNo }, (x) => fresh(x).length > 0, timing.deliveryWaitMs);
        const late = fresh(ds);
        if (late.length === 0) return undefined;
        return {
          code: 'WEBHOOK_ON_CHARGEBACK',
          clause: 'event.none.chargeback',
          message: 'a recorded chargeback sent a webhook; a chargeback is visible only in the merchant portal',
          expected:
            `no webhook for ${payment.merchantOrderNo} after the chargeback, ` +
            `every earlier one acknowledged (watched ${timing.deliveryWaitMs} ms)`,
          seen: describeDeliveries(late),
        };
      });
    },
  },
]);
