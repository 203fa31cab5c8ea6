import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changeOf, dedupKey, distinctChanges, WebhookDeduplicator, type WebhookChange } from '../../harness/webhooks/dedup.js';

const EVENTS = ['payment.updated', 'refund.updated', 'payout.updated'] as const;

/** A distinct change: event, a service number (some numbers shared across events) and a status. */
function change(): fc.Arbitrary<WebhookChange> {
  return fc.record({
    event: fc.constantFrom(...EVENTS),
    orderNo: fc.oneof(fc.constantFrom('P1', 'P2', 'R1', 'T1'), fc.string({ minLength: 1, maxLength: 8 })),
    status: fc.constantFrom('PENDING', 'SUCCESS', 'FAILED', 'REFUNDED', 'CANCELED'),
  });
}

/** A webhook body for a change; other fields vary between deliveries of the same change (timestamps, metadata). */
function bodyFor(c: WebhookChange, variant: number): Record<string, unknown> {
  return {
    event: c.event,
    order_no: c.orderNo,
    merchant_order_no: `M-${c.orderNo}`,
    status: c.status,
    metadata: `attempt ${variant}`,
    created_at: `2026-11-22T10:00:0${variant % 10}+01:00`,
  };
}

const keyOf = (c: WebhookChange) => dedupKey(c);

/** A set of distinct changes, and deliveries of them: each at least once, duplicated and shuffled. */
function deliveries(): fc.Arbitrary<{ changes: WebhookChange[]; order: number[] }> {
  return fc.uniqueArray(change(), { minLength: 1, maxLength: 12, selector: keyOf }).chain((changes) =>
    fc
      .array(fc.nat({ max: changes.length - 1 }), { maxLength: 40 })
      .chain((extra) => fc.shuffledSubarray([...changes.map((_, i) => i), ...extra], { minLength: changes.length + extra.length }))
      .map((order) => ({ changes, order })),
  );
}

describe('webhook deduplicator (the example merchants follow: webhook.dup.*)', () => {
  it('yields the same set of distinct changes for any interleaving and duplication of the same deliveries', () => {
    fc.assert(
      fc.property(deliveries(), ({ changes, order }) => {
        const d = new WebhookDeduplicator();
        let processed = 0;
        order.forEach((i, n) => {
          const v = d.accept(bodyFor(changes[i]!, n));
          if (v.action === 'process') processed += 1;
          expect(v.action).not.toBe('invalid');
        });
        // Each distinct change is acted on exactly once, whatever the order and the duplicates.
        expect(processed).toBe(changes.length);
        expect(d.size).toBe(changes.length);
        expect(new Set(d.changes().map(keyOf))).toEqual(new Set(changes.map(keyOf)));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same distinct changes for two different orders of the same deliveries', () => {
    fc.assert(
      fc.property(
        deliveries().chain((x) => fc.shuffledSubarray(x.order, { minLength: x.order.length }).map((other) => ({ ...x, other }))),
        ({ changes, order, other }) => {
          const a = distinctChanges(order.map((i, n) => bodyFor(changes[i]!, n)));
          const b = distinctChanges(other.map((i, n) => bodyFor(changes[i]!, n + 7)));
          expect(new Set(a.map(keyOf))).toEqual(new Set(b.map(keyOf)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('treats a repeated (event, order_no, status) as a duplicate even when other fields differ', () => {
    const d = new WebhookDeduplicator();
    const c = { event: 'payment.updated', orderNo: 'P1', status: 'SUCCESS' };
    expect(d.accept(bodyFor(c, 1))).toMatchObject({ action: 'process', queryAdvised: false });
    expect(d.accept(bodyFor(c, 2))).toMatchObject({ action: 'duplicate', change: c });
    expect(d.has(c)).toBe(true);
  });

  it('keys on all three fields: another status, event or number is a new change', () => {
    const d = new WebhookDeduplicator();
    d.accept(bodyFor({ event: 'refund.updated', orderNo: 'R1', status: 'PENDING' }, 0));
    expect(d.accept(bodyFor({ event: 'refund.updated', orderNo: 'R1', status: 'SUCCESS' }, 0)).action).toBe('process');
    expect(d.accept(bodyFor({ event: 'payment.updated', orderNo: 'R1', status: 'SUCCESS' }, 0)).action).toBe('process');
    expect(d.accept(bodyFor({ event: 'refund.updated', orderNo: 'R2', status: 'SUCCESS' }, 0)).action).toBe('process');
    expect(d.size).toBe(4);
  });

  it('advises a query when another status of the same order was seen, whichever arrived first', () => {
    const late = new WebhookDeduplicator();
    late.accept(bodyFor({ event: 'refund.updated', orderNo: 'R1', status: 'SUCCESS' }, 0));
    expect(late.accept(bodyFor({ event: 'refund.updated', orderNo: 'R1', status: 'PENDING' }, 0))).toMatchObject({
      action: 'process',
      queryAdvised: true,
      otherStatuses: ['SUCCESS'],
    });
    expect(late.statusesOf('refund.updated', 'R1')).toEqual(['SUCCESS', 'PENDING']);
  });

  it('cannot be fooled by separators inside the values', () => {
    expect(dedupKey({ event: 'a|b', orderNo: 'c', status: 'd' })).not.toBe(dedupKey({ event: 'a', orderNo: 'b|c', status: 'd' }));
  });

  it('refuses bodies it cannot key, without recording them', () => {
    const d = new WebhookDeduplicator();
    for (const junk of [
      null,
      'success',
      [],
      {},
      { event: 'payment.updated', order_no: 'P1' },
      { event: 'payment.updated', order_no: 'P1', status: '' },
      { event: 1, order_no: 'P1', status: 'SUCCESS' },
    ]) {
      expect(d.accept(junk).action).toBe('invalid');
    }
    expect(d.size).toBe(0);
    expect(changeOf({ event: 'payout.updated', order_no: 'T1', status: 'CANCELED', extra: 1 })).toEqual({
      event: 'payout.updated',
      orderNo: 'T1',
      status: 'CANCELED',
    });
  });
});
