/**
 * Exclusive sections: shared sandbox state isolated by construction. A check that does something which may change what
 * *another* request of the target answers (a failure switch armed, a balance spent, a control with merchant-wide
 * effect) does it inside an exclusive section; while the section is held, no other request the change could reach is
 * sent by anyone (every vitest worker and the doctor go through one book of sections: the run-wide pool,
 * harness/run/pool.ts, or, in a process that sends alone, the client's own `GatedPacer`); the section's own requests go.
 *
 * How to use it (checks, the doctor, helpers of harness/ops.ts):
 *
 *     await t.exclusive({ scope: 'merchant', merchant: t.merchant('primary').id, operation: 'payout.create', label: 'a
 *       payout that spends the balance' }, async () => { ...requests that change and read the shared state... });
 *
 * `scope` is what the change can reach, the broadest the profile does not rule out:
 * - `subject`: only requests about the check's own numbers (nobody else uses them): no section at all, `fn` just runs;
 * - `operation`: the merchant's requests of that operation (`Operation`, from the profile's endpoints);
 * - `merchant`: every request signed as that merchant, whatever the operation (a sandbox control's too);
 * - `target`: every request to the target, of every merchant and operation.
 * The requests of the section are those sent from inside `fn` (its async context, carried by the running check's
 * recorder, harness/check/context.ts `holds`): a property's examples inside `fn` are its own too. A section that
 * cannot be opened within `EXCLUSIVE_WAIT_MS` is an error naming who holds it; a section is never held longer than
 * `EXCLUSIVE_HOLD_MS` (then it is closed and the check ends with no verdict). A section closes when `fn` settles, and
 * with its worker's connection to the pool. Opening waits until no request the section covers is in flight, and from
 * the moment it asks, holds back new ones (but never a request of another section's holder, so none can deadlock).
 *
 * Requests that are not to the target (our webhook receiver, a merchant's endpoint) are never held.
 */

/** What a section's change can reach; ordered from the narrowest to the broadest. */
export type ExclusiveScope = 'subject' | 'operation' | 'merchant' | 'target';
export const EXCLUSIVE_SCOPES: readonly ExclusiveScope[] = ['subject', 'operation', 'merchant', 'target'];

/**
 * What a request to the target is, as the profile's endpoints say (`operationOf`): a payment's creation (checkout and
 * card payment alike), a payment query, a refund's creation or query, a payout's creation, query or cancel, a sandbox
 * control, or anything else (a path the profile does not name).
 */
export const OPERATIONS = [
  'payment.create',
  'payment.query',
  'refund.create',
  'refund.query',
  'payout.create',
  'payout.query',
  'payout.cancel',
  'sandbox',
  'other',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** A request to the target: who signs it and what it is. */
export interface RequestClass {
  merchant: string;
  operation: Operation;
}

/** A request about to be sent: its class and the sections its sender holds (their ids). */
export interface RequestTag extends RequestClass {
  holds: readonly string[];
  /** Set by the gate that admits it, to tell its release apart from the others in flight. */
  rid?: number;
}

/** A section asked for: what it covers, and a label naming it in a wait's error. */
export interface SectionSpec {
  scope: ExclusiveScope;
  /** The merchant id whose requests it covers (scopes `operation`, `merchant`). */
  merchant: string;
  /** The operation it covers (scope `operation`). */
  operation: Operation;
  label?: string;
}

export interface HeldSection {
  readonly id: string;
  close(): void;
}

/** Who opens sections: the run-wide pool's client, or a process's own gate. */
export interface SectionGate {
  /** Resolves once the section is held; `holds`: the sections its opener holds already (nested: never waits for them). */
  openSection(spec: SectionSpec, holds: readonly string[]): Promise<HeldSection>;
}

/** How long a section may take to open (other sections and requests in flight before it), ms. */
export const EXCLUSIVE_WAIT_MS = 180_000;
/** How long a section may be held, ms: a check inside one sends a few requests, each bounded by its deadline. */
export const EXCLUSIVE_HOLD_MS = 180_000;

/** Whether a section covers a request of this class. */
export function covers(s: SectionSpec, r: RequestClass): boolean {
  switch (s.scope) {
    case 'subject':
      return false;
    case 'operation':
      return r.merchant === s.merchant && r.operation === s.operation;
    case 'merchant':
      return r.merchant === s.merchant;
    case 'target':
      return true;
  }
}

/** Whether some request could be covered by both sections: they may not be held at once. */
export function overlap(a: SectionSpec, b: SectionSpec): boolean {
  if (a.scope === 'subject' || b.scope === 'subject') return false;
  if (a.scope === 'target' || b.scope === 'target') return true;
  if (a.merchant !== b.merchant) return false;
  return a.scope === 'merchant' || b.scope === 'merchant' || a.operation === b.operation;
}

/** The endpoint names of a profile (harness/profile/types.ts) and what they are. */
const ENDPOINT_OPERATIONS: Readonly<Record<string, Operation>> = {
  checkout: 'payment.create',
  cardPayment: 'payment.create',
  paymentQuery: 'payment.query',
  refundCreate: 'refund.create',
  refundQuery: 'refund.query',
  payoutCreate: 'payout.create',
  payoutQuery: 'payout.query',
  payoutCancel: 'payout.cancel',
};

/** A path template's placeholders (`{order_no}`) match one path segment. */
function pathPattern(template: string): RegExp {
  const parts = template.split(/\{[^}/]+\}/).map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[^/]+')}$`);
}

/**
 * What a request to `path` is, from the profile's endpoint paths (templates allowed) and its sandbox controls' paths:
 * made once per target (`classifier(...)`), then one lookup per request.
 */
export function operationClassifier(
  endpoints: Readonly<Record<string, string | undefined>>,
  sandboxPaths: readonly string[],
): (path: string) => Operation {
  const exact = new Map<string, Operation>();
  const templated: [RegExp, Operation][] = [];
  for (const [name, p] of Object.entries(endpoints)) {
    const op = ENDPOINT_OPERATIONS[name];
    if (p === undefined || op === undefined) continue;
    if (p.includes('{')) templated.push([pathPattern(p), op]);
    else if (!exact.has(p)) exact.set(p, op);
  }
  for (const p of sandboxPaths) if (!exact.has(p)) exact.set(p, 'sandbox');
  return (path) => {
    const bare = path.split('?', 1)[0]!;
    const hit = exact.get(bare);
    if (hit !== undefined) return hit;
    for (const [re, op] of templated) if (re.test(bare)) return op;
    return 'other';
  };
}

/** A section in the book: granted, or waiting for what it overlaps to end. */
interface BookSection<O> {
  owner: O;
  id: string;
  spec: SectionSpec;
  holds: readonly string[];
  granted: boolean;
  grant: () => void;
}

/**
 * The sections of one run and the requests in flight, for each owner (a worker's connection to the pool, or one
 * process): who may send now, and which section may open. Pure bookkeeping: the pool and `GatedPacer` hold one each.
 */
export class SectionBook<O> {
  private readonly sections: BookSection<O>[] = [];
  private readonly inFlight = new Map<O, Map<number, RequestClass>>();

  /** Whether a request of this class, from `owner` holding the sections `tag.holds`, must wait. */
  blocked(owner: O, tag: RequestTag): boolean {
    if (this.sections.length === 0) return false;
    let holder: boolean | undefined;
    for (const s of this.sections) {
      if (!covers(s.spec, tag)) continue;
      if (s.owner === owner && tag.holds.includes(s.id)) continue;
      if (s.granted) return true;
      // A section still opening holds new requests back, but never those of another section's holder: that one must
      // end, and the opening one may be waiting for it.
      holder ??= tag.holds.some((id) => this.sections.some((h) => h.owner === owner && h.id === id && h.granted));
      if (!holder) return true;
    }
    return false;
  }

  /** A request went (admitted by `blocked`): in flight until `done`. */
  sent(owner: O, rid: number, cls: RequestClass): void {
    let m = this.inFlight.get(owner);
    if (!m) {
      m = new Map();
      this.inFlight.set(owner, m);
    }
    m.set(rid, { merchant: cls.merchant, operation: cls.operation });
  }

  /** A request's answer came (or it ended without one); true when a section may open now. */
  done(owner: O, rid: number): boolean {
    const m = this.inFlight.get(owner);
    if (!m?.delete(rid)) return false;
    return this.settle();
  }

  /** Asks for a section; `grant` is called once it is held (maybe at once). */
  open(owner: O, id: string, spec: SectionSpec, holds: readonly string[], grant: () => void): void {
    this.sections.push({ owner, id, spec, holds, granted: false, grant });
    this.settle();
  }

  /** Closes a section, or withdraws one still opening; true when something may go now. */
  close(owner: O, id: string): boolean {
    const at = this.sections.findIndex((s) => s.owner === owner && s.id === id);
    if (at < 0) return false;
    this.sections.splice(at, 1);
    this.settle();
    return true;
  }

  /** Everything of an owner that went away: its sections and its requests in flight. */
  drop(owner: O): void {
    this.inFlight.delete(owner);
    for (let i = this.sections.length - 1; i >= 0; i -= 1) if (this.sections[i]!.owner === owner) this.sections.splice(i, 1);
    this.settle();
  }

  /** The label of what holds a section back (for a wait's error). */
  holding(owner: O, id: string): string {
    const me = this.sections.find((s) => s.owner === owner && s.id === id);
    if (!me) return 'nothing';
    const by = this.sections.find((s) => s !== me && s.granted && overlap(s.spec, me.spec));
    return by ? `the section "${by.spec.label ?? by.spec.scope}"` : 'requests in flight';
  }

  get size(): number {
    return this.sections.length;
  }

  /** Grants every section that may open now, in order of asking; true when one was. */
  private settle(): boolean {
    let any = false;
    for (let i = 0; i < this.sections.length; i += 1) {
      const p = this.sections[i]!;
      if (p.granted || !this.mayOpen(p, i)) continue;
      p.granted = true;
      any = true;
      p.grant();
    }
    return any;
  }

  private mayOpen(p: BookSection<O>, at: number): boolean {
    for (let i = 0; i < this.sections.length; i += 1) {
      const s = this.sections[i]!;
      if (s === p || !overlap(s.spec, p.spec)) continue;
      // Its opener's own sections (nested) never hold it back.
      if (s.owner === p.owner && p.holds.includes(s.id)) continue;
      if (s.granted || i < at) return false;
    }
    for (const m of this.inFlight.values()) for (const cls of m.values()) if (covers(p.spec, cls)) return false;
    return true;
  }
}
