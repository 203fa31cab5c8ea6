import { createClient, type Client } from '../http/client.js';
import { makeNetwork } from '../http/network.js';
import type { LoadedProfile } from '../profile/load.js';
import { createTarget, type Target } from '../target.js';
import { GatedPacer } from '../http/gated-pacer.js';
import { Pacer, type RequestPacer } from '../http/throttle.js';
import { connectPool } from './pool.js';
import type { Receiver } from '../webhooks/types.js';

/** One process's connection to a target: the client, the target facade, and (later) the webhook receiver. */
export interface Session {
  target: Target;
  close(): Promise<void>;
}

export interface SessionOptions {
  loaded: LoadedProfile;
  baseUrl: string;
  /** The webhook receiver for this session; closed with it. */
  receiver?: Receiver;
  /**
   * Wraps the session's only client, so whatever it adds sees every request a check sends: parity's
   * safe-mode guard and request log. Absent: the plain client.
   */
  wrapClient?: (client: Client) => Client;
  /** The run-wide request pool's port (harness/run/pool.ts); absent: this process paces itself with its share. */
  poolPort?: number;
  /**
   * How many processes share the profile's rate while this session sends, without the pool: 1 for a session that
   * sends alone (the doctor: a run's checks are held until it is done). Absent: `runProcesses()`.
   */
  rateShares?: number;
}

/** One connection to the pool per worker process, shared by the sessions of all its suite files. */
const pools = new Map<number, RequestPacer>();

function poolPacer(port: number, local: RequestPacer): RequestPacer {
  let p = pools.get(port);
  if (!p) {
    p = connectPool(port, local);
    pools.set(port, p);
  }
  return p;
}

/**
 * Without the run-wide pool (doctor, parity, a vitest run whose main process gave none): how many processes share the
 * profile's rate: vitest's workers (at most 3, vitest.config.ts), each with its own
 * client. The rate is divided evenly, so the run stays under it whatever number of them is busy.
 */
function runProcesses(): number {
  const n = Number(process.env.MPSI_RATE_SHARES ?? 3);
  return Number.isFinite(n) && n >= 1 ? n : 3;
}

export function openSession(opts: SessionOptions): Session {
  const http = opts.loaded.profile.http ?? {};
  const local = {
    ...(http.concurrency ? { concurrency: http.concurrency } : {}),
    ...(http.rateLimit ? { rateLimit: http.rateLimit / (opts.rateShares ?? runProcesses()) } : {}),
  };
  const plain: Client = createClient({
    // The profile's TLS and this process's proxies: every request of the session goes over them.
    network: makeNetwork(opts.loaded.tls),
    deadlineMs: http.deadlineMs ?? 10_000,
    maxResponseBytes: http.maxResponseBytes ?? 1_048_576,
    ...local,
    ...(opts.poolPort !== undefined
      ? {
          pacer: poolPacer(opts.poolPort, new GatedPacer(new Pacer({ ratePerSecond: local.rateLimit, concurrency: local.concurrency }))),
        }
      : {}),
  });
  const client = opts.wrapClient ? opts.wrapClient(plain) : plain;
  const target = createTarget({ loaded: opts.loaded, baseUrl: opts.baseUrl, client, receiver: opts.receiver });
  return {
    target,
    async close() {
      await client.close();
      await opts.receiver?.close();
    },
  };
}
