/**
 * Failures this sandbox causes by magic values in a request, the way most real sandboxes do (an order-number prefix
 * for systemBusy, a refund amount ending in .91 for refundFailed, a test card, an e-mail, a mock-response header), beside
 * or instead of its switch (/sandbox/v1/failures/arm). The document does not show how a sandbox causes its transient
 * failures; a `TargetDescription`'s `sandbox.triggers` says which this one has. A trigger with a `count` fails that many
 * requests carrying its value (per payment or refund), then the sandbox behaves normally, as a transient failure does;
 * without one, every request carrying it fails.
 */
import { ARMABLE_FAILURES, type ArmedFailure } from './store.js';

export const MAGIC_WAYS = ['amount', 'amountEnding', 'numberPrefix', 'numberSuffix', 'card', 'email', 'reason', 'header'] as const;
export type MagicWay = (typeof MAGIC_WAYS)[number];

/** One magic value (JSON, so a profile's embedded description can carry it). */
export interface MagicTriggerDescription {
  readonly way: MagicWay;
  readonly value: string;
  /** numberPrefix, numberSuffix: the payment's merchant order number (default) or the refund's merchant refund number. */
  readonly number?: 'merchantOrderNo' | 'merchantRefundNo';
  /** header: its name (matched without regard to case). */
  readonly name?: string;
  /** email: the dotted field of the payment's creation body (default billing_address.email). */
  readonly field?: string;
  /** How many requests carrying it fail; absent, every one. */
  readonly count?: number;
}

export type MagicTriggers = Readonly<Partial<Record<ArmedFailure, readonly MagicTriggerDescription[]>>>;

/**
 * The README's sandbox: an order-number prefix fails the order's first query and every creation, a header fails a refund
 * with systemBusy, a refund-number suffix fails it with refundFailed. None is a value a merchant meets by chance: a
 * client's numbers would have to carry the prefix or suffix, or it the header.
 */
export const DEFAULT_TRIGGERS: MagicTriggers = {
  QUERY_FAILED: [{ way: 'numberPrefix', number: 'merchantOrderNo', value: 'QF-', count: 1 }],
  ORDER_CREATION_FAILED: [{ way: 'numberPrefix', number: 'merchantOrderNo', value: 'BUSY-' }],
  REFUND_SYSTEM_BUSY: [{ way: 'header', name: 'X-Mock-Response', value: 'REFUND_SYSTEM_BUSY' }],
  REFUND_FAILED: [{ way: 'numberSuffix', number: 'merchantRefundNo', value: '-RF' }],
};

/** What one request carries that a trigger may match. */
export interface RequestFacts {
  readonly merchantOrderNo?: string;
  readonly merchantRefundNo?: string;
  /** The amount that counts for the failure: the payment's for a payment's query or creation, the refund's for a refund. */
  readonly cents?: bigint;
  readonly card?: string;
  /** The e-mails the payment's creation body carried at the triggers' fields. */
  readonly emails?: readonly string[];
  readonly reason?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** What a counted trigger counts per: the payment's or the refund's number. */
  readonly subject: string;
}

/** The amount's two-decimal text, for an ending. */
function shown(cents: bigint): string {
  const abs = cents < 0n ? -cents : cents;
  return `${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** A decimal string with up to two decimals in its two-decimal form ("5" → "5.00"); anything else as it is. */
function exact(value: string): string {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value);
  return m ? `${BigInt(m[1]!)}.${(m[2] ?? '').padEnd(2, '0')}` : value;
}

function matches(t: MagicTriggerDescription, f: RequestFacts): boolean {
  switch (t.way) {
    case 'amount':
      return f.cents !== undefined && shown(f.cents) === exact(t.value);
    case 'amountEnding':
      return f.cents !== undefined && shown(f.cents).endsWith(t.value);
    case 'numberPrefix':
    case 'numberSuffix': {
      const no = t.number === 'merchantRefundNo' ? f.merchantRefundNo : f.merchantOrderNo;
      return no !== undefined && (t.way === 'numberPrefix' ? no.startsWith(t.value) : no.endsWith(t.value));
    }
    case 'card':
      return f.card === t.value;
    case 'email':
      return (f.emails ?? []).includes(t.value);
    case 'reason':
      return f.reason === t.value;
    case 'header': {
      const v = f.headers[(t.name ?? '').toLowerCase()];
      return (Array.isArray(v) ? v : [v]).includes(t.value);
    }
  }
}

/** Refuses a description the reference cannot be: a clear error, never a half-built sandbox. */
export function resolveTriggers(d: MagicTriggers = DEFAULT_TRIGGERS): MagicTriggers {
  for (const [failure, list] of Object.entries(d)) {
    if (!(ARMABLE_FAILURES as readonly string[]).includes(failure))
      throw new Error(`target sandbox.triggers.${failure}: not one of ${ARMABLE_FAILURES.join(', ')}`);
    (list ?? []).forEach((t, i) => {
      const at = `target sandbox.triggers.${failure}[${i}]`;
      if (!(MAGIC_WAYS as readonly string[]).includes(t.way)) throw new Error(`${at}.way: one of ${MAGIC_WAYS.join(', ')}`);
      if (typeof t.value !== 'string') throw new Error(`${at}.value: a string`);
      if (t.way === 'header' && !t.name) throw new Error(`${at}.name: the header's name`);
      if (t.count !== undefined && !(Number.isInteger(t.count) && t.count >= 1)) throw new Error(`${at}.count: a whole number from 1`);
    });
  }
  return d;
}

/** How many requests each counted trigger has failed, per subject (kept by the store, which a reset clears). */
export class TriggerUses {
  constructor(private readonly used: Map<string, number>) {}
  /**
   * Whether a trigger of `failure` fails this request; a counted one counts it. `once`: the trigger fires only the first
   * time any request carries it (a fault); `counted`: whether it keeps to a trigger's count (a fault may not).
   */
  fails(
    triggers: MagicTriggers,
    failure: ArmedFailure,
    f: RequestFacts,
    opts: { once: boolean; counted: boolean } = { once: false, counted: true },
  ): boolean {
    const list = triggers[failure] ?? [];
    for (const [i, t] of list.entries()) {
      if (!matches(t, f)) continue;
      if (opts.once) {
        const fired = `${failure}\n${i}\nfired`;
        if (this.used.has(fired)) continue;
        this.used.set(fired, 1);
        return true;
      }
      if (t.count === undefined || !opts.counted) return true;
      const key = `${failure}\n${i}\n${f.subject}`;
      const n = this.used.get(key) ?? 0;
      if (n >= t.count) continue;
      this.used.set(key, n + 1);
      return true;
    }
    return false;
  }
}

/** The e-mails a payment's creation body carries at the fields of every e-mail trigger. */
export function emailsIn(triggers: MagicTriggers, body: Record<string, unknown>): string[] {
  const fields = new Set(
    Object.values(triggers).flatMap((l) => (l ?? []).filter((t) => t.way === 'email').map((t) => t.field ?? 'billing_address.email')),
  );
  return [...fields].map((f) => stringAt(body, f)).filter((v): v is string => v !== undefined);
}

/** A dotted field of a body, as a string, if it is one. */
export function stringAt(body: Record<string, unknown>, path: string): string | undefined {
  let node: unknown = body;
  for (const s of path.split('.')) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[s] : undefined;
  return typeof node === 'string' ? node : undefined;
}
