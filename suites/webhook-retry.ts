import { defineSuite, type CheckContext } from '../harness/check/define.js';
import { expectEqual, expectSuccess, failCheck, pick } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { note, recordReading } from '../harness/check/context.js';
import { lookupFor, queryPayment, queryRefund, REFUND_NUMBERS, settleRefund } from '../harness/ops.js';
import type { Target } from '../harness/target.js';
import type { Delivery, Receiver } from '../harness/webhooks/types.js';
import { distinctChanges } from '../harness/webhooks/dedup.js';
import {
  extraAttemptWatchEndsAt,
  attemptAllowanceMs,
  fmtBounds,
  fmtMs,
  fullScheduleWithinMs,
  gapBounds,
  lagExcuse,
  noteExcuse,
  INTERFACE_WEBHOOK_FIGURES as F,
  judgedGaps,
  machineShareNote,
  type JudgedGaps,
  retryWindowMs,
  spanBounds,
  within,
  type WebhookTiming,
} from '../harness/webhooks/schedule.js';
import { TIMED_DELIVERIES as TIMED } from '../harness/webhooks/schedule.js';
import { awaitDeliveries, describeDeliveries, recordDeliveries, statusOf, webhookSetup } from '../harness/webhooks/expect.js';
import { acceptedRefund, anyPaidPayment, firstPaymentUpdated, type Payment } from './support/webhook-scenarios.js';

/** Longest the first two retries may take to arrive after the first attempt, by the document's figures. */
function twoRetriesWithinMs(timing: WebhookTiming): number {
  return retryWindowMs(timing) + gapBounds(timing, F.lastWaitMs).max + timing.ackTimeoutMs;
}

/** The payment's first two payment.updated attempts (its first reply refused), within the retry window; else WEBHOOK_NOT_RETRIED. */
async function retriedOnce(t: Target, p: Payment, timing: WebhookTiming): Promise<Delivery[]> {
  const filter = { merchantNo: p.merchantOrderNo, event: 'payment.updated' };
  const ds = await awaitDeliveries(t, filter, (x) => x.length >= 2, retryWindowMs(timing));
  if (ds.length < 2)
    failCheck('webhook.retry.unacked', {
      code: 'WEBHOOK_NOT_RETRIED',
      title: 'an unacknowledged webhook must be sent again',
      expected: '2 attempts',
      seen: describeDeliveries(ds),
    });
  return ds;
}

/** Says in the check's notes when a verdict was given on the target's own gaps rather than on what we measured. */
function noteMachineShare(g: JudgedGaps): void {
  const line = machineShareNote(g);
  if (line) note(line);
}

function requireFull(ctx: CheckContext): void {
  if (ctx.webhooks !== 'full') throw new PreconditionSkip('webhooks mode is not full (run with --webhooks full to run it)');
}

interface FullObservation {
  payment: Payment;
  /** Every attempt that came, in arrival order. */
  deliveries: Delivery[];
  /** How long the receiver watched after the ninth attempt (0 when fewer than nine came). */
  watchedAfterLastMs: number;
}

/**
 * One never-acknowledged webhook watched over its whole schedule, shared by the full-mode checks
 * of one receiver (each asserts one behaviour of it; a check run alone makes its own).
 */
const observations = new WeakMap<Receiver, Promise<FullObservation>>();

function observeFullSchedule(t: Target): Promise<FullObservation> {
  const { receiver } = webhookSetup(t);
  let obs = observations.get(receiver);
  if (!obs) {
    obs = watchFullSchedule(t, receiver);
    observations.set(receiver, obs);
  }
  return obs.then((o) => {
    recordDeliveries(t, o.deliveries);
    return o;
  });
}

async function watchFullSchedule(t: Target, receiver: Receiver): Promise<FullObservation> {
  const { timing } = webhookSetup(t);
  const payment = await anyPaidPayment(t, 'webhook.retry.max-9', { replies: ['reject'] });
  const filter = { merchantNo: payment.merchantOrderNo, event: 'payment.updated' };
  let deliveries = await receiver.waitFor(
    filter,
    (ds) => ds.length >= F.attempts,
    fullScheduleWithinMs(timing),
    'all 9 attempts of a never-acknowledged webhook',
  );
  let watchedAfterLastMs = 0;
  if (deliveries.length >= F.attempts) {
    const until = extraAttemptWatchEndsAt(timing, deliveries);
    watchedAfterLastMs = Math.max(0, until - deliveries[F.attempts - 1]!.receivedAt);
    deliveries = await receiver.waitFor(
      filter,
      (ds) => ds.length > F.attempts,
      until - Date.now(),
      'a 10th attempt (none may come) until the span bound',
    );
  }
  // A target that would go on forever is stopped here, so it does not load the rest of the run.
  receiver.script(payment.merchantOrderNo, ['success']);
  return { payment, deliveries, watchedAfterLastMs };
}

/** INTERFACE.md › Events › Acknowledgement and retries (3), Duplicates and order, Limits. */
export default defineSuite('webhook-retry', { area: 'webhooks', resource: 'webhook', sequentialBelowRealTime: TIMED }, [
  {
    title: 'sends the first two retries of a webhook that is not acknowledged',
    clause: ['webhook.retry.unacked'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      const p = await anyPaidPayment(t, 'webhook.retry.unacked', { replies: ['reject', 'reject', 'success'] });
      const limit = twoRetriesWithinMs(timing);
      const ds = await awaitDeliveries(t, { merchantNo: p.merchantOrderNo, event: 'payment.updated' }, (x) => x.length >= 3, limit);
      if (ds.length < 3) {
        failCheck({
          code: 'WEBHOOK_NOT_RETRIED',
          title: 'an unacknowledged webhook must be sent again',
          expected: `3 attempts within ${fmtMs(limit)}`,
          seen: describeDeliveries(ds),
        });
      }
    },
  },
  {
    title: "waits about 15 seconds, on the target's time scale, before the first retry",
    clause: ['webhook.retry.growing-waits'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      const p = await anyPaidPayment(t, 'webhook.retry.growing-waits', { replies: ['reject', 'success'] });
      const ds = await retriedOnce(t, p, timing);
      const gaps = judgedGaps(timing, ds.slice(0, 2));
      const gap = gaps.judged[0]!;
      const b = gapBounds(timing, F.firstWaitMs, attemptAllowanceMs(timing, ds[0]!));
      recordReading('webhook.first-wait', fmtMs(gap));
      noteMachineShare(gaps);
      if (!within(gap, b)) {
        if (!gaps.exact[0]) noteExcuse(lagExcuse(gap, b, ds[0]!.receivedAt, ds[1]!.receivedAt, 'the first wait', [ds[0]!, ds[1]!]));
        failCheck({
          code: 'FIRST_WAIT_OFF',
          title:
            `the first retry came ${fmtMs(gap)} after the first attempt; the document says ` +
            `about 15 s (× time scale ${timing.timeScale}, tolerance ${timing.tolerance})`,
          expected: fmtBounds(b),
          seen: fmtMs(gap),
        });
      }
    },
  },
  {
    title: 'shows the status at sending time in a retried payment.updated of a payment refunded since',
    clause: ['webhook.body.status', 'state.payment.values'],
    async run({ target: t }) {
      const { timing, receiver } = webhookSetup(t);
      const payment = await anyPaidPayment(t, 'webhook.body.status', { replies: ['reject'] });
      const filter = { merchantNo: payment.merchantOrderNo, event: 'payment.updated' };
      try {
        await firstPaymentUpdated(t, payment.merchantOrderNo, timing);
        const refundSentAt = Date.now();
        const refund = await acceptedRefund(t, 'webhook.body.status', payment);
        if (refund.status === 'PENDING') await settleRefund(t, refund, 'success', 'webhook.body.status');
        const refundedAt = Date.now();
        const after = (x: Delivery[]) => x.filter((d) => d.receivedAt > refundedAt);
        const limit = twoRetriesWithinMs(timing);
        const ds = await awaitDeliveries(t, filter, (x) => after(x).length >= 2, limit);
        let refundedSeen = 0;
        let afterRefund = 0;
        ds.forEach((d, i) => {
          const s = statusOf(d);
          const at = `attempt ${i + 1} (+${d.receivedAt - ds[0]!.receivedAt} ms)`;
          if (s !== 'SUCCESS' && s !== 'REFUNDED') {
            failCheck({
              code: 'WEBHOOK_STATUS_INVALID',
              title: `${at} carries status ${String(s)}; a paid payment refunded later is SUCCESS, then REFUNDED`,
              expected: 'SUCCESS or REFUNDED',
              seen: String(s),
            });
          }
          if (s === 'REFUNDED' && d.receivedAt < refundSentAt) {
            failCheck({
              code: 'WEBHOOK_STATUS_AHEAD',
              title: `${at} carries REFUNDED before the refund was requested`,
              expected: 'SUCCESS',
              seen: 'REFUNDED',
            });
          }
          if (s === 'SUCCESS' && refundedSeen > 0) {
            failCheck({
              code: 'WEBHOOK_STATUS_STALE',
              title: `${at} carries SUCCESS after attempt ${refundedSeen} carried REFUNDED: a body shows the status at sending time`,
              expected: 'REFUNDED',
              seen: 'SUCCESS',
            });
          }
          if (s === 'REFUNDED' && refundedSeen === 0) refundedSeen = i + 1;
          // The attempt after one that arrived once the refund was done was built after it: it must show REFUNDED.
          if (d.receivedAt > refundedAt) {
            afterRefund += 1;
            if (afterRefund >= 2 && s !== 'REFUNDED') {
              failCheck({
                code: 'WEBHOOK_STATUS_STALE',
                title:
                  `${at} was sent after the payment was refunded in full but ` +
                  `carries ${String(s)}: a body shows the status at sending time`,
                expected: 'REFUNDED',
                seen: String(s),
              });
            }
          }
        });
        recordReading(
          'webhook.retry-after-refund',
          afterRefund >= 2
            ? `attempts after the refund carry ${String(statusOf(after(ds).at(-1)!))}`
            : `${afterRefund} attempt(s) after the refund within ${fmtMs(limit)}`,
        );
        if (afterRefund < 2)
          note(
            `the target made ${afterRefund} attempt(s) after the refund within ` +
              `${fmtMs(limit)}: only the statuses of the attempts made were checked`,
          );
      } finally {
        receiver.script(payment.merchantOrderNo, ['success']);
      }
    },
  },
  {
    title: 'repeats an unchanged webhook with the same event, order_no and status',
    clause: ['webhook.dup.key', 'webhook.dup.may-repeat'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      const p = await anyPaidPayment(t, 'webhook.dup.key', { replies: ['reject', 'success'] });
      const ds = await retriedOnce(t, p, timing);
      const changes = distinctChanges(ds.map((d) => d.json));
      if (changes.length !== 1) {
        failCheck({
          code: 'WEBHOOK_DEDUP_KEY_UNSTABLE',
          title:
            'attempts of one webhook about an unchanged payment differ in event, ' +
            'order_no or status, so a receiver deduplicating on them sees several changes',
          expected: 'one (event, order_no, status)',
          seen: changes.map((c) => `(${c.event}, ${c.orderNo}, ${c.status})`).join(' ') || 'no keyable body',
        });
      }
    },
  },
  {
    title: "shows a payment's change in a payment query when its webhook is never acknowledged",
    clause: ['webhook.recover-by-query', 'query.returns-record'],
    async run({ target: t }) {
      const { timing, receiver } = webhookSetup(t);
      const rec = t.profile.paymentRecord;
      if (!rec) throw new PreconditionSkip('the profile declares no payment record shape (paymentRecord)', { declare: ['paymentRecord'] });
      const p = await anyPaidPayment(t, 'webhook.recover-by-query', { replies: ['reject'] });
      try {
        const ds = await firstPaymentUpdated(t, p.merchantOrderNo, timing);
        const ex = await queryPayment(t, { merchant_order_no: p.merchantOrderNo });
        const data = expectSuccess(ex, { what: 'querying the payment whose webhook was missed' });
        expectEqual(pick(data, rec.status), statusOf(ds.at(-1)!), {
          code: 'QUERY_MISSES_CHANGE',
          title: 'the payment query must show the status the unacknowledged webhook reported',
          exchange: ex,
        });
      } finally {
        receiver.script(p.merchantOrderNo, ['success']);
      }
    },
  },
  {
    title: "shows a refund's change in a refund query when its webhook is never acknowledged",
    clause: ['webhook.recover-by-query'],
    async run({ target: t }) {
      const { timing, receiver } = webhookSetup(t);
      const payment = await anyPaidPayment(t, 'webhook.recover-by-query', { refundable: true });
      const refund = await acceptedRefund(t, 'webhook.recover-by-query', payment, { replies: ['reject'] });
      try {
        const ds = await awaitDeliveries(
          t,
          { merchantNo: refund.merchantRefundNo, event: 'refund.updated' },
          (x) => x.length >= 1,
          timing.deliveryWaitMs,
        );
        if (ds.length === 0)
          failCheck('event.refund.updated', {
            code: 'WEBHOOK_NOT_SENT',
            title: 'the new refund sent no refund.updated',
            expected: 'refund.updated',
            seen: 'no delivery',
          });
        const record = { serviceNo: refund.refundNo, merchantNo: refund.merchantRefundNo };
        const ex = await queryRefund(t, lookupFor(t, 'refundQuery', REFUND_NUMBERS, record, 'merchantNo'));
        const data = expectSuccess(ex, { what: 'querying the refund whose webhook was missed' });
        const latest = statusOf(receiver.deliveries({ merchantNo: refund.merchantRefundNo, event: 'refund.updated' }).at(-1)!);
        expectEqual(pick(data, t.profile.refunds!.data.status), latest, {
          code: 'QUERY_MISSES_CHANGE',
          title: 'the refund query must show the status the unacknowledged webhook reported',
          exchange: ex,
        });
      } finally {
        receiver.script(refund.merchantRefundNo, ['success']);
      }
    },
  },
  {
    title: 'makes exactly 9 attempts at a webhook that is never acknowledged, and none after',
    clause: ['webhook.retry.max-9', 'limit.attempts'],
    async run(ctx) {
      requireFull(ctx);
      const { timing } = webhookSetup(ctx.target);
      const o = await observeFullSchedule(ctx.target);
      recordReading('webhook.attempts', String(o.deliveries.length));
      if (o.deliveries.length < F.attempts) {
        failCheck({
          code: 'TOO_FEW_ATTEMPTS',
          title: `a webhook never acknowledged was attempted ${o.deliveries.length} times; the interface makes 9 attempts in total`,
          expected: `9 attempts within ${fmtMs(fullScheduleWithinMs(timing))}`,
          seen: describeDeliveries(o.deliveries),
        });
      }
      if (o.deliveries.length > F.attempts) {
        failCheck({
          code: 'TOO_MANY_ATTEMPTS',
          title: `a webhook never acknowledged was attempted ${o.deliveries.length} times; after 9 attempts no more are made`,
          expected: `9 attempts, none in the ${fmtMs(o.watchedAfterLastMs)} after the ninth`,
          seen: describeDeliveries(o.deliveries),
        });
      }
    },
  },
  {
    title: "waits longer as retries go on, from about 15 seconds to about 40 minutes on the target's time scale",
    clause: ['webhook.retry.growing-waits'],
    async run(ctx) {
      requireFull(ctx);
      const { timing } = webhookSetup(ctx.target);
      const o = await observeFullSchedule(ctx.target);
      const observed = o.deliveries.slice(0, F.attempts);
      const judged = judgedGaps(timing, observed);
      const gaps = judged.judged;
      recordReading('webhook.waits', gaps.map(fmtMs).join(', '));
      noteMachineShare(judged);
      if (gaps.length < 2)
        failCheck({
          code: 'TOO_FEW_ATTEMPTS',
          title: 'fewer than three attempts: no growth of waits can be seen',
          expected: '9 attempts',
          seen: describeDeliveries(o.deliveries),
        });
      const scale = `× time scale ${timing.timeScale}, tolerance ${timing.tolerance}`;
      const first = gapBounds(timing, F.firstWaitMs, attemptAllowanceMs(timing, observed[0]!));
      const last = gapBounds(timing, F.lastWaitMs, attemptAllowanceMs(timing, observed.at(-2) ?? observed[0]!));
      const lastGap = gaps.at(-1)!;
      const firstFails = () =>
        failCheck({
          code: 'FIRST_WAIT_OFF',
          title: `the first wait was ${fmtMs(gaps[0]!)}; the document says about 15 s (${scale})`,
          expected: fmtBounds(first),
          seen: gaps.map(fmtMs).join(', '),
        });
      const lastFails = () =>
        failCheck({
          code: 'LAST_WAIT_OFF',
          title:
            `the ${gaps.length < F.attempts - 1 ? 'last observed' : 'eighth'} wait was ` +
            `${fmtMs(lastGap)}; the document says the waits grow to about 40 minutes (${scale})`,
          expected: `8 waits, the last ${fmtBounds(last)}`,
          seen: gaps.map(fmtMs).join(', '),
        });
      const firstOff = !within(gaps[0]!, first);
      const lastOff = gaps.length < F.attempts - 1 || !within(lastGap, last);
      // A miss our lost time explains is judged last: a miss beyond it, elsewhere in the schedule, is charged first.
      const firstExcuse =
        firstOff && !judged.exact[0]
          ? lagExcuse(gaps[0]!, first, observed[0]!.receivedAt, observed[1]!.receivedAt, 'the first wait', [observed[0]!, observed[1]!])
          : undefined;
      const lastExcuse =
        lastOff && gaps.length >= F.attempts - 1 && !judged.exact.at(-1)
          ? lagExcuse(lastGap, last, observed.at(-2)!.receivedAt, observed.at(-1)!.receivedAt, 'the last wait', [
              observed.at(-2)!,
              observed.at(-1)!,
            ])
          : undefined;
      if (firstOff && !firstExcuse) firstFails();
      if (lastOff && !lastExcuse) lastFails();
      // Each measured wait has the profile's jitter either way (gapBounds): a wait shrinks only beyond both.
      let longest = 0;
      gaps.forEach((g, i) => {
        if (g + timing.jitterMs < (longest - timing.jitterMs) * (1 - timing.tolerance)) {
          failCheck({
            code: 'WAITS_SHRINK',
            title:
              `wait ${i + 1} (${fmtMs(g)}) is shorter than an earlier wait (` +
              `${fmtMs(longest)}) beyond the tolerance: the waits must grow`,
            expected: 'non-decreasing waits',
            seen: gaps.map(fmtMs).join(', '),
          });
        }
        longest = Math.max(longest, g);
      });
      noteExcuse(firstExcuse ?? lastExcuse);
      if (firstOff) firstFails();
      if (lastOff) lastFails();
    },
  },
  {
    title: "makes the last attempt about 80 to 100 minutes after the first, on the target's time scale",
    clause: ['webhook.retry.total-span', 'limit.attempts'],
    async run(ctx) {
      requireFull(ctx);
      const { timing } = webhookSetup(ctx.target);
      const o = await observeFullSchedule(ctx.target);
      const ds = o.deliveries.slice(0, F.attempts);
      if (ds.length < 2)
        failCheck({ code: 'TOO_FEW_ATTEMPTS', title: 'the webhook was not retried', expected: '9 attempts', seen: describeDeliveries(ds) });
      const judged = judgedGaps(timing, ds);
      const span = judged.judged.reduce((sum, g) => sum + g, 0);
      noteMachineShare(judged);
      const b = spanBounds(
        timing,
        ds.slice(0, -1).reduce((sum, d) => sum + attemptAllowanceMs(timing, d), 0),
      );
      recordReading('webhook.span', fmtMs(span));
      if (!within(span, b)) {
        if (!judged.exact.every(Boolean))
          noteExcuse(lagExcuse(span, b, ds[0]!.receivedAt, ds.at(-1)!.receivedAt, 'the span of the attempts', [ds[0]!, ds.at(-1)!]));
        failCheck({
          code: 'SPAN_OFF',
          title:
            `the last attempt came ${fmtMs(span)} after the first (${ds.length} attempts); the document ` +
            `says about 80 to 100 minutes (× time scale ${timing.timeScale}, tolerance ${timing.tolerance})`,
          expected: fmtBounds(b),
          seen: `${fmtMs(span)}: ${describeDeliveries(ds)}`,
        });
      }
    },
  },
]);
