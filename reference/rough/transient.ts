/**
 * `rough.transient`: the transient answers the document allows, at a seeded rate — `500 queryFailed`
 * on a payment query ("Transient failure ... (try again)") and `422 systemBusy` on a payment create,
 * half the time after the order was recorded ("use a new order number if the first request may have
 * created an order"). Transient means it clears: a lookup that just failed is answered genuinely
 * next time, and a merchant's create after a busy one is too, so a client that retries gets through.
 */
import { seededRandom } from './tamper.js';

export interface RoughOptions {
  seed: number;
  /** Share of eligible requests answered with a transient failure, 0..1. */
  rate: number;
}

const QUERY = '/api/v1/payments/query';
const CREATES: ReadonlySet<string> = new Set(['/api/v1/payments/card', '/api/v1/payments/checkout']);

/** What a request gets instead of (or after) its genuine handling. */
export type Transient = 'query-failed' | 'busy-not-created' | 'busy-created';

export class TransientFailures {
  private readonly random: () => number;
  /** Lookups answered queryFailed last time, per merchant: answered genuinely next time. */
  private readonly failedLookups = new Set<string>();
  /** Merchants whose last create was answered busy. */
  private readonly busyMerchants = new Set<string>();

  constructor(private readonly opts: RoughOptions) {
    if (!Number.isFinite(opts.rate) || opts.rate < 0 || opts.rate > 1) throw new Error(`rough rate must be 0..1, got ${String(opts.rate)}`);
    this.random = seededRandom(opts.seed ^ 0x5bd1e995);
  }

  /** The transient answer for this request, if it gets one. `route` is the internal route, `body` the parsed request. */
  pick(route: string, merchantId: string, body: unknown): Transient | undefined {
    const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    if (route === QUERY) {
      const key = `${merchantId} ${String(b['merchant_order_no'] ?? '')} ${String(b['order_no'] ?? '')}`;
      if (this.failedLookups.delete(key)) return undefined;
      if (this.random() >= this.opts.rate) return undefined;
      this.failedLookups.add(key);
      return 'query-failed';
    }
    if (CREATES.has(route)) {
      if (this.busyMerchants.delete(merchantId)) return undefined;
      if (this.random() >= this.opts.rate) return undefined;
      this.busyMerchants.add(merchantId);
      return this.random() < 0.5 ? 'busy-created' : 'busy-not-created';
    }
    return undefined;
  }
}
