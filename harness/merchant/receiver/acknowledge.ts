/**
 * (a) Every event kind and status the document names, bodies as its Events section describes them
 * (property-generated), acknowledged with exactly `success` within 5 seconds.
 */
import fc from 'fast-check';
import { type MerchantCheckSpec, fail } from '../check.js';
import { type ReceiverContext, delivered, expectAck, post, ruleText } from './context.js';
import { oversized, replyLength } from './deliver.js';
import { type Body, type Kind, STATUSES, bodyArb, bytesOf, sampleBody, signed } from './webhooks.js';

/**
 * Every status of the kind, each with its own share of the runs so none is left to chance, after
 * the shapes the document allows, each sent at least once: metadata empty and not; for payments
 * requested_amount absent and present.
 */
function ackProperty(kind: Kind) {
  return async (ctx: ReceiverContext, seed: number) => {
    const clause = 'merchant.ack.success-body';
    const base = sampleBody(kind, seed, STATUSES[kind][0]);
    const edges: Body[] = [
      { ...base, metadata: '' },
      { ...sampleBody(kind, seed + 1, STATUSES[kind][0]), metadata: 'order=42;note=gift' },
    ];
    if (kind === 'payment') {
      const { requested_amount: _r, ...without } = base;
      edges.push(without, { ...sampleBody(kind, seed + 2, STATUSES[kind][0]), requested_amount: { currency: 'USD', value: '9.99' } });
    }
    for (const body of edges) {
      const raw = bytesOf(body);
      expectAck(
        await post(ctx, 'valid', raw, signed(ctx.id, raw)),
        clause,
        `a valid ${body['event']} ${body['status']} webhook (metadata ${body['metadata'] === '' ? 'empty' : 'set'}` +
          `${kind === 'payment' ? `, requested_amount ${'requested_amount' in body ? 'present' : 'absent'}` : ''})`,
        ctx,
      );
    }
    for (const status of STATUSES[kind]) {
      await fc.assert(
        // Compact bytes: other layouts are the raw-body check's, so each failure is charged to its own clause.
        fc.asyncProperty(bodyArb(kind, 'utc', status), async (body) => {
          const raw = bytesOf(body);
          expectAck(await post(ctx, 'valid', raw, signed(ctx.id, raw)), clause, `a valid ${body['event']} ${body['status']} webhook`, ctx);
        }),
        { seed, numRuns: Math.max(1, Math.ceil(ctx.numRuns / STATUSES[kind].length)), endOnFailure: true },
      );
    }
  };
}

const utc = (t: unknown) => (typeof t === 'string' ? new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z') : t);

/** Times with offsets other than UTC, each after its twin with the same instants in UTC (another order): only the offset differs. */
function offsetProperty(kind: Kind) {
  return async (ctx: ReceiverContext, seed: number) => {
    await fc.assert(
      fc.asyncProperty(bodyArb(kind, 'non-utc'), async (body) => {
        const twin = {
          ...body,
          order_no: `${body['order_no']}U`,
          merchant_order_no: `${body['merchant_order_no']}U`,
          created_at: utc(body['created_at']),
          ...(body['finished_at'] ? { finished_at: utc(body['finished_at']) } : {}),
        };
        await delivered(ctx, 'control (same instants in UTC)', bytesOf(twin));
        const raw = bytesOf(body);
        expectAck(
          await post(ctx, 'offset', raw, signed(ctx.id, raw)),
          'conv.time.read-offset',
          `a valid ${body['event']} ${body['status']} webhook with times ${String(body['created_at'])}`,
          ctx,
        );
      }),
      { seed, numRuns: Math.max(1, Math.ceil(ctx.numRuns / 3)), endOnFailure: true },
    );
  };
}

export const acknowledgementSpecs: MerchantCheckSpec<ReceiverContext>[] = [
  {
    title: 'acknowledges every valid payment.updated webhook with exactly success',
    clause: 'merchant.ack.success-body',
    run: ackProperty('payment'),
  },
  {
    title: 'acknowledges every valid refund.updated webhook with exactly success',
    clause: 'merchant.ack.success-body',
    run: ackProperty('refund'),
  },
  {
    title: 'acknowledges every valid payout.updated webhook with exactly success',
    clause: 'merchant.ack.success-body',
    run: ackProperty('payout'),
  },
  {
    title: 'acknowledges webhooks whose times carry offsets other than UTC',
    clause: 'conv.time.read-offset',
    async run(ctx, seed) {
      for (const kind of ['payment', 'refund', 'payout'] as const) await offsetProperty(kind)(ctx, seed);
    },
  },
  {
    title: 'acknowledges the same webhook in other whitespace and key order, each signed over its own bytes',
    clause: 'merchant.verify.raw-body',
    async run(ctx, seed) {
      await delivered(ctx, 'control (compact)', bytesOf(sampleBody('refund', seed, 'SUCCESS')));
      for (const layout of ['pretty', 'spaced', 'reordered'] as const) {
        const raw = bytesOf(sampleBody('refund', seed + layout.length, 'SUCCESS'), layout);
        expectAck(await post(ctx, layout, raw, signed(ctx.id, raw)), 'merchant.verify.raw-body', `a valid webhook laid out ${layout}`, ctx);
      }
    },
  },
  {
    title: 'replies within 5 seconds',
    clause: 'merchant.ack.within-5s',
    async run(ctx, seed) {
      for (const kind of ['payment', 'refund', 'payout'] as const) {
        const raw = bytesOf(sampleBody(kind, seed));
        const r = await post(ctx, kind, raw, signed(ctx.id, raw));
        if (r.error)
          fail('merchant.ack.within-5s', 'NO_REPLY', `no reply to a valid ${kind} webhook (${r.error})`, {
            expected: `a reply within ${ruleText(ctx)}`,
          });
        if (r.ms > ctx.ackLimitMs)
          fail('merchant.ack.within-5s', 'SLOW_REPLY', `the reply to a valid ${kind} webhook took ${Math.round(r.ms)} ms`, {
            expected: `at most ${ruleText(ctx)}`,
            seen: `${Math.round(r.ms)} ms`,
          });
        // A reply of megabytes came in time; the body is judged by the acknowledgement checks, and no more are sent.
        if (oversized(r)) {
          ctx.log.push(`the reply was ${replyLength(r)}: no other kind sent (its body is judged by the acknowledgement checks)`);
          return;
        }
      }
    },
  },
];
