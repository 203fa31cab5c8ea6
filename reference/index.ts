/**
 * The reference implementation of the Merchant Payment Service Interface: the embedded default
 * target of the conformance kit and the base every fault mutant is derived from.
 */
import { defaultBehaviour } from './behaviour.js';
import { createGateway } from './gateway.js';
import type { AddressInfo } from 'node:net';
import { behaviourWith, faultCatalogue as catalogue } from './faults/index.js';
import { behaviourWithReadings, readingCatalogue as readings, readingNames } from './readings/index.js';
import { NONCE_WINDOW_MS } from './http/auth.js';
import { createReferenceServer, type ObservedExchange } from './http/server.js';
import { NonceCache } from './nonce-cache.js';
import { type TamperOptions, Tamperer } from './rough/tamper.js';
import { type RoughOptions, TransientFailures } from './rough/transient.js';
import type { Service } from './service.js';
import { Store } from './store.js';
import { releaseDueProceeds } from './fees.js';
import { resolveTarget, type TargetDescription } from './sandbox-data.js';
import { type ObservedDelivery, Outbox, type WritePlan } from './webhooks/outbox.js';
import { seededRandom } from './rough/tamper.js';

export interface ReferenceOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 1; multiplies every webhook delay (retry waits, ack limit with a 1 s floor). */
  timeScale?: number;
  /** Fault names; an unknown name throws an Error listing the known ones. */
  faults?: string[];
  /**
   * Readings the server takes where the document allows more than one answer: a set name ("default",
   * "alt") or reading names (reference/readings/). Default: none. Faults are laid over them.
   */
  readings?: string | string[];
  /** What this sandbox has (merchants, methods, channels, balances, cards): default, the README's (reference/sandbox-data.ts). */
  target?: TargetDescription;
  log?: (line: string) => void;
  /**
   * Longest pause while reading a request body before it counts as unreadable (HTTP 500).
   * Default 2000 ms. Not time-scaled: it protects the server, it is not a rule of the interface.
   */
  readTimeoutMs?: number;
  /**
   * Called after each answered request with its raw bytes, headers and a summary of the answer
   * (`serve --audit` diagnoses clients from it). A throwing observer is ignored.
   */
  onExchange?: (x: ObservedExchange) => void;
  /** Field conditions (serve --latency): one-way delay, ms, on every exchange and every webhook delivery. */
  latencyMs?: number;
  /** Told when each webhook attempt was written whole, and when it was due (reference/lag.ts, logWrites). */
  onWebhookWritten?: (nonce: string, at: number, plan: WritePlan) => void;
  /** Field conditions (serve --rate-limit): a gateway in front answers HTTP 429 beyond this many requests per second. */
  rateLimit?: number;
  /**
   * Now and then (seeded, `rate` of the eligible answers) a successful answer carrying a service
   * number is sent with that number and its status altered and a signature that does not verify
   * (`serve --audit --tamper-responses`); `onExchange` is told what was altered.
   */
  tamperResponses?: TamperOptions;
  /**
   * The sandbox plays rough within the document (`serve --audit --rough`): transient `queryFailed` and
   * `systemBusy` answers at the seeded `rate`; every webhook sent a second time, later (built again, so
   * it shows the status at that moment), and `rate` of them held back so later ones overtake them.
   */
  rough?: RoughOptions;
  /** Called after each webhook attempt (what was sent, whether it was acknowledged). A throwing observer is ignored. */
  onDelivery?: (d: ObservedDelivery) => void;
}

export type { ObservedDelivery, ObservedExchange, RoughOptions, TamperOptions, WritePlan };
export type { TargetDescription } from './sandbox-data.js';

export interface RunningReference {
  /** e.g. http://127.0.0.1:PORT, no trailing slash (with the target's base path: http://127.0.0.1:PORT/mpsi). */
  url: string;
  /** Stops the server and every webhook timer; resolves once both are fully stopped. */
  close(): Promise<void>;
  /** How many records exist (read-only): lets a test prove that a run created none. */
  counts(): { payments: number; refunds: number; payouts: number };
  /**
   * Each merchant's balances now, by its X-MerchantID, in cents (read-only): the payout balance per currency and the
   * balance refunds draw on. Lets a test hold an account of the money a client moved to what this sandbox recorded.
   */
  balances(): Record<string, MerchantBalances>;
}

/** One merchant's balances in cents: payout balance per currency (USD always present), and the refund balance. */
export interface MerchantBalances {
  payout: Record<string, bigint>;
  refund: bigint;
}

export const faultCatalogue: ReadonlyArray<{ name: string; clause: string; doc: string }> = catalogue;

export const readingCatalogue: ReadonlyArray<{ name: string; doc: string }> = readings;

export async function startReference(opts: ReferenceOptions = {}): Promise<RunningReference> {
  const timeScale = opts.timeScale ?? 1;
  if (!Number.isFinite(timeScale) || timeScale <= 0) throw new Error(`timeScale must be a positive number, got ${String(opts.timeScale)}`);
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port must be an integer 0..65535, got ${String(opts.port)}`);
  const readTimeoutMs = opts.readTimeoutMs ?? 2000;
  if (!Number.isFinite(readTimeoutMs) || readTimeoutMs <= 0) throw new Error('readTimeoutMs must be a positive number');
  const host = opts.host ?? '127.0.0.1';
  const target = resolveTarget(opts.target);
  // The target's own retry schedule is its correct behaviour; a reading or a fault that sets another one wins.
  const base = target.retryWaitsMs ? { ...defaultBehaviour, retryWaitsMs: target.retryWaitsMs } : defaultBehaviour;
  const behaviour = behaviourWith(opts.faults ?? [], behaviourWithReadings(readingNames(opts.readings), base));
  const userLog = opts.log;
  // A throwing log callback must never take a request or a webhook delivery down with it.
  const log = (line: string): void => {
    try {
      userLog?.(line);
    } catch {
      // ignored on purpose
    }
  };

  const rough = opts.rough ? { random: seededRandom(opts.rough.seed ^ 0x27d4eb2d), holdRate: opts.rough.rate } : undefined;
  const outbox = new Outbox({
    behaviour,
    timeScale,
    log,
    latencyMs: opts.latencyMs,
    rough,
    observe: opts.onDelivery,
    ...(opts.onWebhookWritten ? { onWritten: opts.onWebhookWritten } : {}),
  });
  let baseUrl = '';
  const svc: Service = { store: new Store(behaviour.formatServiceNo, target.merchants), behaviour, outbox, target, baseUrl: () => baseUrl };
  const gateway =
    opts.rateLimit !== undefined || (opts.latencyMs ?? 0) > 0
      ? createGateway({ rateLimit: opts.rateLimit, latencyMs: opts.latencyMs })
      : undefined;
  const server = createReferenceServer({
    svc,
    nonces: new NonceCache(NONCE_WINDOW_MS),
    log,
    readIdleMs: readTimeoutMs,
    observe: opts.onExchange,
    gateway,
    tamper: opts.tamperResponses ? new Tamperer(opts.tamperResponses) : undefined,
    transient: opts.rough ? new TransientFailures(opts.rough) : undefined,
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // A service under a base path is reached there: the address every client is given ends with it.
  baseUrl = `${urlFor(host, (server.address() as AddressInfo).port)}${target.basePath}`;

  let closing: Promise<void> | undefined;
  return {
    url: baseUrl,
    counts: () => ({ payments: svc.store.payments.size, refunds: svc.store.refunds.size, payouts: svc.store.payouts.size }),
    balances: () =>
      Object.fromEntries(
        target.merchants.map((m) => {
          releaseDueProceeds(svc, Date.now());
          const b = svc.store.balancesOf(m.id);
          return [m.id, { payout: { USD: b.payoutCents, ...Object.fromEntries(b.otherPayoutCents) }, refund: b.refundCoverCents }];
        }),
      ),
    close(): Promise<void> {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await Promise.all([outbox.close(), stopped]);
      })();
      return closing;
    },
  };
}

/** A wildcard listen address is reached through loopback; IPv6 literals need brackets. */
function urlFor(host: string, port: number): string {
  if (host === '0.0.0.0' || host === '') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}
