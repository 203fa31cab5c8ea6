/**
 * (c) Duplicates and order: the same webhook again (fresh timestamp and nonce) and statuses out of
 * order are acknowledged; with an inspection hook, acted on once per event, order_no and status.
 */
import { type MerchantCheckSpec, fail } from '../check.js';
import { type ReceiverContext, actedOn, delivered, expectAck, post } from './context.js';
import { STATUSES, bytesOf, sampleBody, signed } from './webhooks.js';

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
      for (const [kind, later, earlier] of [
        ['refund', 'SUCCESS', 'PENDING'],
        ['payment', 'REFUNDED', 'SUCCESS'],
      ] as const) {
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
];
