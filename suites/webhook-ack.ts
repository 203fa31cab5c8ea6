import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite, type CheckSpec } from '../harness/check/define.js';
import { failCheck } from '../harness/check/expect.js';
import type { ReplyKind } from '../harness/webhooks/types.js';
import { fmtMs, quietWindowMs, retryWindowMs, type WebhookTiming } from '../harness/webhooks/schedule.js';
import { awaitDeliveries, describeDeliveries, webhookSetup } from '../harness/webhooks/expect.js';
import {
  anyPaidPayment,
  confirmedByRetrial,
  firstPaymentUpdated,
  paymentUpdatedNotSent,
  type TrialFinding,
} from './support/webhook-scenarios.js';
import type { Target } from '../harness/target.js';

const DESCRIBED: Record<ReplyKind, string> = {
  success: '`success`',
  'success-newline': '`success` and a newline',
  upper: '`SUCCESS` in capitals',
  quoted: '`"success"` in quotes',
  json: 'a JSON object {"code":0,"msg":"success"}',
  'empty-200': 'an empty body with HTTP 200',
  'http500-success': '`success` with HTTP 500',
  slow: '`success` after the acknowledgement time',
  'in-time': '`success` after half the acknowledgement time',
  drop: 'no answer (connection dropped)',
  reject: 'HTTP 401 `rejected`',
};

/** One check per failure reply: the first attempt gets that reply, the retry gets `success`. */
function retriesAfter(kind: ReplyKind, title: string, clause: ClauseId[]): CheckSpec {
  return {
    title,
    clause,
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      const p = await anyPaidPayment(t, clause[0]!, { replies: [kind, 'success'] });
      const within = retryWindowMs(timing);
      const ds = await awaitDeliveries(t, { merchantNo: p.merchantOrderNo, event: 'payment.updated' }, (x) => x.length >= 2, within);
      if (ds.length === 0) paymentUpdatedNotSent();
      if (ds.length < 2) {
        failCheck(clause[0]!, {
          code: 'WEBHOOK_NOT_RETRIED',
          title: `a webhook answered with ${DESCRIBED[kind]} was not sent again: only a body of exactly \`success\`, in time, acknowledges`,
          expected: `a second attempt within ${fmtMs(within)}`,
          seen: describeDeliveries(ds),
        });
      }
    },
  };
}

/**
 * One trial: a payment whose webhook gets an acknowledging reply, watched for a resend over the
 * quiet window (at least the profile's delivery wait). Returns what was wrong, if anything.
 */
async function resentAfter(
  t: Target,
  timing: WebhookTiming,
  kind: ReplyKind,
  what: Pick<TrialFinding, 'code' | 'clause' | 'message'>,
): Promise<TrialFinding | undefined> {
  const p = await anyPaidPayment(t, what.clause, { replies: [kind] });
  const filter = { merchantNo: p.merchantOrderNo, event: 'payment.updated' };
  try {
    const first = await firstPaymentUpdated(t, p.merchantOrderNo, timing);
    const quiet = quietWindowMs(timing);
    const ds = await awaitDeliveries(t, filter, (x) => x.length >= 2, first[0]!.receivedAt + quiet - Date.now());
    if (ds.length < 2) return undefined;
    return {
      ...what,
      expected: `one attempt (watched ${fmtMs(quiet)})`,
      seen: describeDeliveries(ds),
      acknowledged: { delivery: first[0]!, ackTimeoutMs: timing.ackTimeoutMs, jitterMs: timing.jitterMs },
    };
  } finally {
    t.receiver().script(p.merchantOrderNo, ['success']);
  }
}

/** INTERFACE.md › Events › Acknowledgement and retries (1, 2) and Limits: what acknowledges a webhook. */
export default defineSuite('webhook-ack', { area: 'webhooks', resource: 'webhook' }, [
  {
    title: 'does not send a webhook answered with success again',
    clause: ['webhook.retry.acked-not-resent', 'webhook.ack.exact-success'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      await confirmedByRetrial(() =>
        resentAfter(t, timing, 'success', {
          code: 'WEBHOOK_RESENT_AFTER_ACK',
          clause: 'webhook.retry.acked-not-resent',
          message: 'a webhook answered with exactly `success` (HTTP 200) was sent again',
        }),
      );
    },
  },
  {
    title: 'takes success with HTTP 500 as an acknowledgement, since only the body is examined',
    clause: ['webhook.ack.body-only'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      await confirmedByRetrial(() =>
        resentAfter(t, timing, 'http500-success', {
          code: 'WEBHOOK_ACK_STATUS_EXAMINED',
          clause: 'webhook.ack.body-only',
          message:
            'a reply with body `success` and HTTP 500 was not taken as an acknowledgement: the interface says only the body is examined',
        }),
      );
    },
  },
  {
    title: 'takes success sent late but within the acknowledgement time as an acknowledgement',
    clause: ['limit.ack-time', 'webhook.ack.within-5s'],
    async run({ target: t }) {
      const { timing } = webhookSetup(t);
      await confirmedByRetrial(() =>
        resentAfter(t, timing, 'in-time', {
          code: 'WEBHOOK_ACK_TIME_SHORT',
          clause: 'limit.ack-time',
          message:
            `a webhook answered with \`success\` after half the acknowledgement time (${fmtMs(timing.ackTimeoutMs / 2)} of ` +
            `${fmtMs(timing.ackTimeoutMs)}) was sent again: the target gives a receiver less than the 5 seconds the interface allows`,
        }),
      );
    },
  },
  retriesAfter('success-newline', 'retries a webhook answered with success and a newline', [
    'webhook.ack.exact-success',
    'webhook.retry.unacked',
  ]),
  retriesAfter('upper', 'retries a webhook answered with SUCCESS in capitals', ['webhook.ack.exact-success', 'webhook.retry.unacked']),
  retriesAfter('quoted', 'retries a webhook answered with a quoted "success"', ['webhook.ack.exact-success', 'webhook.retry.unacked']),
  retriesAfter('json', 'retries a webhook answered with a JSON object', ['webhook.ack.exact-success', 'webhook.retry.unacked']),
  retriesAfter('empty-200', 'retries a webhook answered with an empty body and HTTP 200', [
    'webhook.ack.body-only',
    'webhook.ack.exact-success',
    'webhook.retry.unacked',
  ]),
  retriesAfter('reject', 'retries a webhook answered with an error status and another body', ['webhook.retry.unacked']),
  retriesAfter('drop', 'retries a webhook whose connection closed without an answer', ['webhook.retry.unacked']),
  // The `slow` reply comes at ackTimeoutMs × 3 + 200 ms: past the limit, so it counts as no answer.
  retriesAfter('slow', 'retries a webhook answered with success only after the acknowledgement time', [
    'webhook.ack.within-5s',
    'limit.ack-time',
    'webhook.retry.unacked',
  ]),
]);
