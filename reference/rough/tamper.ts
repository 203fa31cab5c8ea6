/**
 * `tamperResponses`: a successful answer carrying a service number goes out with that number and its
 * status altered and a signature over the genuine body, so it does not verify. A client that then
 * sends the altered number has trusted a response it should have treated as untrustworthy; the
 * observer is told what was altered, the client is not.
 *
 * Which answers: the ones whose numbers a client will send back come first. An answer that tells a
 * merchant a service number it has not yet been told by an answer that verifies (a create's, a
 * checkout's order number, a first query of an order) is fresh; each merchant's first fresh answer is
 * always altered, and at least the rate's share of its fresh answers after it (which ones, seeded);
 * every other answer carrying a number is altered at the rate, seeded. So a client that never verifies
 * and sends back a number it was told is caught in every run, whatever the seed, at any rate.
 */

export interface TamperOptions {
  /** Seeds the choice of which answers are altered and how. */
  seed: number;
  /** Share of eligible answers altered, 0..1. */
  rate: number;
}

/** One altered field of a tampered answer. */
export interface TamperedField {
  field: string;
  genuine: string;
  sent: string;
}

/** Fields that hold a service number, under every reading's names. */
const NUMBER_FIELDS: ReadonlySet<string> = new Set([
  'order_no',
  'refund_no',
  'payout_no',
  'trade_no',
  'refund_order_no',
  'payout_order_no',
]);
const STATUS_FIELDS: ReadonlySet<string> = new Set(['status', 'state', 'refund_status', 'payout_status']);

/** mulberry32: small, seeded, good enough to pick answers; not for secrets. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class Tamperer {
  private readonly random: () => number;
  private count = 0;
  /** Per merchant: the service numbers told by an answer that verifies, and its fresh answers (seen, altered). */
  private readonly merchants = new Map<string, { told: Set<string>; fresh: number; freshAltered: number }>();

  constructor(private readonly opts: TamperOptions) {
    if (!Number.isFinite(opts.rate) || opts.rate < 0 || opts.rate > 1)
      throw new Error(`tamper rate must be 0..1, got ${String(opts.rate)}`);
    this.random = seededRandom(opts.seed);
  }

  /** The altered envelope and what was altered, or undefined to answer genuinely. */
  tamper(envelope: Record<string, unknown>, merchantId = ''): { envelope: Record<string, unknown>; fields: TamperedField[] } | undefined {
    const data = envelope['data'];
    if (envelope['code'] !== 0 || !data || typeof data !== 'object' || Array.isArray(data)) return undefined;
    const d = data as Record<string, unknown>;
    const numbers = Object.keys(d)
      .filter((k) => NUMBER_FIELDS.has(k) && typeof d[k] === 'string')
      .map((k) => d[k] as string);
    if (!numbers.length) return undefined;
    const m = this.merchants.get(merchantId) ?? { told: new Set<string>(), fresh: 0, freshAltered: 0 };
    this.merchants.set(merchantId, m);
    const fresh = numbers.some((n) => !m.told.has(n));
    if (fresh) m.fresh += 1;
    const owed = fresh && m.freshAltered < Math.ceil(this.opts.rate * m.fresh);
    if (!owed && this.random() >= this.opts.rate) {
      for (const n of numbers) m.told.add(n);
      return undefined;
    }
    if (fresh) m.freshAltered += 1;
    this.count += 1;
    const fields: TamperedField[] = [];
    const out: Record<string, unknown> = { ...d };
    for (const [k, v] of Object.entries(d)) {
      if (typeof v !== 'string') continue;
      if (NUMBER_FIELDS.has(k)) {
        // Same length and shape as the genuine one, a number the service never issued.
        const tail = `T${String(this.count).padStart(3, '0')}${Math.floor(this.random() * 1e6)
          .toString()
          .padStart(6, '0')}`;
        const sent = v.length > tail.length ? `${v.slice(0, v.length - tail.length)}${tail}` : `${v}${tail}`;
        out[k] = sent;
        fields.push({ field: k, genuine: v, sent });
      } else if (STATUS_FIELDS.has(k)) {
        const sent = v === 'FAILED' ? 'SUCCESS' : 'FAILED';
        out[k] = sent;
        fields.push({ field: k, genuine: v, sent });
      }
    }
    return { envelope: { ...envelope, data: out }, fields };
  }
}
