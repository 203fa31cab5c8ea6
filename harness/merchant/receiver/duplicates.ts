/**
 * (c) Duplicates and order: the same webhook again (fresh timestamp and nonce) and statuses out of
 * order are acknowledged; with an inspection hook, acted on once per event, order_no and status, and
 * a stale status arriving after a newer one does not become the order's status unless the receiver
 * queried the order (should: see the clause's note in the registry).
 */
import { type MerchantCheckSpec, fail } from '../check.js';
import { PreconditionSkip } from '../../check/failure.js';
import { type ReceiverContext, actedOn, delivered, expectAck, post } from './context.js';
import { STATUSES, bytesOf, sampleBody, signed } from './webhooks.js';

/**
 * Statuses the document orders, newer first: a refund created PENDING "becomes SUCCESS or FAILED"; a payment is
 * refunded only once paid successfully ("a refund is refused when the original payment was not paid successfully").
 */
const NEWER_THEN_STALE = [
  ['refund', 'SUCCESS', 'PENDING'],
  ['payment', 'REFUNDED', 'SUCCESS'],
] as const;

export const duplicateSpecs: MerchantCheckSpec<ReceiverContext>[] = [
  {
    title: 'acknowledges a duplicate of a webhook, signed again with a fresh timestamp and nonce',
    clause: 'webhook.dup.may-repeat',
    async run(ctx, seed) {
      const raw = bytesOf(sampleBody('payment', seed, 'SUCCESS'));
      await delivered(ctx, 'delivery 1', raw);
      for (const n of [2, 3])
        expectAck(
          await post(ctx, `delivery ${n}`, raw, signed(ctx.id, raw)),
          'webhook.dup.may-repeat',
          `delivery ${n} of the same webhook`,
          ctx,
        );
    },
  },
  {
    title: 'acknowledges webhooks that arrive out of order',
    clause: 'webhook.dup.out-of-order',
    async run(ctx, seed) {
      for (const [kind, later, earlier] of NEWER_THEN_STALE) {
        const first = sampleBody(kind, seed, later);
        await delivered(ctx, later, bytesOf(first));
        const raw = bytesOf({ ...first, status: earlier });
        expectAck(
          await post(ctx, earlier, raw, signed(ctx.id, raw)),
          'webhook.dup.out-of-order',
          `${kind} ${earlier} arriving after ${later}`,
          ctx,
        );
      }
    },
  },
  {
    title: 'acts once on a webhook delivered three times',
    clause: 'webhook.dup.key',
    async run(ctx, seed) {
      await actedOn(ctx, '');
      const body = sampleBody('payment', seed, 'SUCCESS');
      const raw = bytesOf(body);
      for (const n of [1, 2, 3]) await delivered(ctx, `delivery ${n}`, raw);
      const acted = (await actedOn(ctx, String(body['order_no']))).filter((x) => x.status === 'SUCCESS' && x.event === body['event']);
      if (acted.length !== 1)
        fail('webhook.dup.key', 'NOT_DEDUPLICATED', `the receiver acted ${acted.length} times on one webhook delivered three times`, {
          expected: 'once',
          seen: String(acted.length),
        });
    },
  },
  {
    title: 'acts on each status of one order, deduplicating on event, order_no and status together',
    clause: 'webhook.dup.key',
    async run(ctx, seed) {
      await actedOn(ctx, '');
      const body = sampleBody('refund', seed, 'PENDING');
      for (const status of STATUSES.refund.slice(0, 2)) {
        await delivered(ctx, status, bytesOf({ ...body, status }));
      }
      const seen = (await actedOn(ctx, String(body['order_no']))).map((x) => x.status);
      for (const status of STATUSES.refund.slice(0, 2)) {
        if (seen.filter((s) => s === status).length !== 1)
          fail(
            'webhook.dup.key',
            'WRONG_DEDUP_KEY',
            `refund ${status} of one order was acted on ${seen.filter((s) => s === status).length} times`,
            { expected: 'PENDING once and SUCCESS once', seen: JSON.stringify(seen) },
          );
      }
    },
  },
  {
    title: "does not let a stale status that arrives after a newer one become the order's status without querying the order",
    clause: 'webhook.dup.stale-status',
    async run(ctx, seed) {
      await actedOn(ctx, '');
      for (const [kind, newer, stale] of NEWER_THEN_STALE) {
        const body = sampleBody(kind, seed, newer);
        const orderNo = String(body['order_no']);
        await delivered(ctx, newer, bytesOf(body));
        // Validly signed, as the service sends a webhook it built earlier or a retry of one; whether it is
        // acknowledged is the out-of-order check's to judge, what it did to the order is this one's.
        const raw = bytesOf({ ...body, status: stale });
        await post(ctx, `${stale} (sent before ${newer}, arriving after it)`, raw, signed(ctx.id, raw));
        const acted = (await actedOn(ctx, orderNo)).filter((x) => x.event === body['event']);
        if (!acted.some((x) => x.status === newer))
          throw new PreconditionSkip(
            `the inspection hook does not show ${kind} ${newer} of ${orderNo} acted on, though it was acknowledged: ` +
              'what the stale status did to it cannot be judged',
          );
        const last = acted.at(-1)!;
        if (last.status === stale && last.queried !== true)
          fail(
            'webhook.dup.stale-status',
            'STALE_STATUS_ACTED_ON',
            `${kind} ${orderNo}: ${stale}, arriving after ${newer}, became the order's acted-on status without a query of the order`,
            {
              expected: `${newer} stays the status (or the order queried: "queried": true)`,
              seen: JSON.stringify(acted.map((x) => x.status)),
            },
          );
      }
    },
  },
];
