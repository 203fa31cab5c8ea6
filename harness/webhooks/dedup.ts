/**
 * Receiver-side deduplication, as INTERFACE.md › Events › Duplicates and order asks of every
 * merchant, written to be copied:
 *
 *   - The same webhook can arrive more than once (a retry, a resend by support).
 *   - Webhooks can arrive out of order, and a body shows the status at sending time.
 *   - Webhooks carry no event id: deduplicate on `event`, `order_no` and `status` together,
 *     and query the order when in doubt.
 *
 * How a merchant uses it (after verifying the signature over the raw body and its own merchant
 * id, webhook.receiver-verifies):
 *
 * ```ts
 * const seen = new WebhookDeduplicator();           // in production: a table with a unique key
 * const v = seen.accept(JSON.parse(rawBody));
 * if (v.action === 'process') {
 *   if (v.queryAdvised) await queryOrder(v.change);   // another status of this order was seen: ask which is current
 *   else await apply(v.change);
 * }
 * reply('success');                                   // duplicates are acknowledged too, or they come again
 * ```
 *
 * The verdict depends only on the set of keys seen before, so any interleaving or repetition of
 * the same deliveries yields the same set of distinct changes (test/harness/dedup.test.ts).
 */

export type WebhookEvent = 'payment.updated' | 'refund.updated' | 'payout.updated';

/** One change the service reported: what a merchant acts on once. */
export interface WebhookChange {
  event: string;
  /** The service's number: the payment's order_no, the refund's refund_no or the payout's payout_no. */
  orderNo: string;
  status: string;
}

export type DedupVerdict =
  /** First time this (event, order_no, status) is seen: act on it. */
  | {
      action: 'process';
      key: string;
      change: WebhookChange;
      /**
       * Other statuses of the same (event, order_no) were seen before. Arrival order does not tell
       * which status is current (webhooks can arrive out of order), so query the order.
       */
      queryAdvised: boolean;
      otherStatuses: string[];
    }
  /** Seen before: acknowledge it and do nothing. */
  | { action: 'duplicate'; key: string; change: WebhookChange }
  /** Not a webhook body this deduplicator can key: do not acknowledge; query if it matters. */
  | { action: 'invalid'; reason: string };

/** The deduplication key; the parts are JSON-encoded so no separator inside a value can collide. */
export function dedupKey(change: WebhookChange): string {
  return JSON.stringify([change.event, change.orderNo, change.status]);
}

/** The change a webhook body reports, or why it has none. */
export function changeOf(body: unknown): WebhookChange | { invalid: string } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return { invalid: 'the body is not a JSON object' };
  const b = body as Record<string, unknown>;
  for (const field of ['event', 'order_no', 'status'] as const) {
    if (typeof b[field] !== 'string' || b[field] === '') return { invalid: `\`${field}\` is missing or not a non-empty string` };
  }
  return { event: b['event'] as string, orderNo: b['order_no'] as string, status: b['status'] as string };
}

export class WebhookDeduplicator {
  private readonly keys = new Set<string>();
  /** Statuses seen per (event, order_no), in first-seen order. */
  private readonly statuses = new Map<string, string[]>();
  private readonly order: WebhookChange[] = [];

  /** Records one delivery's body and says what to do with it. */
  accept(body: unknown): DedupVerdict {
    const c = changeOf(body);
    if ('invalid' in c) return { action: 'invalid', reason: c.invalid };
    const key = dedupKey(c);
    if (this.keys.has(key)) return { action: 'duplicate', key, change: c };
    this.keys.add(key);
    this.order.push(c);
    const resource = JSON.stringify([c.event, c.orderNo]);
    const others = this.statuses.get(resource) ?? [];
    this.statuses.set(resource, [...others, c.status]);
    return { action: 'process', key, change: c, queryAdvised: others.length > 0, otherStatuses: [...others] };
  }

  has(change: WebhookChange): boolean {
    return this.keys.has(dedupKey(change));
  }

  /** Distinct changes, in the order they were first seen. */
  changes(): WebhookChange[] {
    return this.order.map((c) => ({ ...c }));
  }

  /** Distinct statuses seen for one resource, in first-seen order. */
  statusesOf(event: string, orderNo: string): string[] {
    return [...(this.statuses.get(JSON.stringify([event, orderNo])) ?? [])];
  }

  get size(): number {
    return this.keys.size;
  }
}

/** The distinct changes in a list of bodies (invalid ones left out), first-seen order. */
export function distinctChanges(bodies: Iterable<unknown>): WebhookChange[] {
  const d = new WebhookDeduplicator();
  for (const b of bodies) d.accept(b);
  return d.changes();
}
