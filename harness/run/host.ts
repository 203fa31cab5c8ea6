/**
 * What a CLI run hosts in its own process (each Node process costs 0.3–0.6 s of CPU to start): the embedded
 * reference, which the doctor and the checks then meet as one target, and the run-wide request pool. The CLI's process
 * only waits while vitest runs the checks (the Allure generator loads in a child of its own), so neither shares an event
 * loop with the work that made each move out of vitest's main process (module transforms for the workers, reporters).
 * The reference still writes its own stalls to a lag file (reference/lag.ts): any lateness of this process is
 * excused as the machine's, never charged to the target.
 *
 * vitest's global setup (harness/run/global-setup.ts) takes what the CLI hosts through the run config (`hosted`);
 * run on its own, it starts both in processes of their own as before.
 */
import type { Profile } from '../profile/types.js';
import type { PoolFacts } from '../report/floor.js';
import { type EmbeddedProcess, startEmbeddedReferenceHere } from './embedded.js';
import { type PoolOptions, type PoolServer, startPoolServer } from './pool.js';

/** The in-flight budget of a profile that declares none: the client's own default width (harness/http/throttle.ts). */
const DEFAULT_CONCURRENCY = 8;

/** The run-wide pool's budget from the profile's `http` section. */
export function poolBudget(profile: Profile): PoolOptions {
  return {
    concurrency: profile.http?.concurrency ?? DEFAULT_CONCURRENCY,
    ...(profile.http?.rateLimit ? { rateLimit: profile.http.rateLimit } : {}),
  };
}

/** What the CLI passes to vitest's global setup (RunConfig.hosted). */
export interface HostedFacts {
  /** The embedded reference's URL; absent when the run has a target of its own. */
  referenceUrl?: string;
  /** The reference's stall file (reference/lag.ts); '' without an embedded reference. */
  lagFile: string;
  poolPort: number;
}

export interface RunHost {
  facts: HostedFacts;
  /** Stops the reference and the pool; resolves with the pool's facts for the run's floor (harness/report/floor.ts). Idempotent. */
  close(): Promise<PoolFacts>;
  /** The rate the doctor learnt from the target's throttling, handed to the run-wide pool before the checks start. */
  seedRate(ratePerSecond: number): void;
}

/** Starts the pool, and the embedded reference when `embedded`; on a failure, what started is stopped again. */
export async function startRunHost(o: { profile: Profile; faults: string[]; embedded: boolean }): Promise<RunHost> {
  const budget = poolBudget(o.profile);
  const [reference, pool] = await Promise.allSettled([
    o.embedded ? startEmbeddedReferenceHere(o.profile, o.faults) : Promise.resolve(undefined),
    startPoolServer(budget),
  ]);
  if (reference.status === 'rejected' || pool.status === 'rejected') {
    if (reference.status === 'fulfilled') await reference.value?.close();
    if (pool.status === 'fulfilled') await pool.value.close();
    throw reference.status === 'rejected' ? reference.reason : (pool as PromiseRejectedResult).reason;
  }
  const ref: EmbeddedProcess | undefined = reference.value;
  const server: PoolServer = pool.value;
  let closing: Promise<PoolFacts> | undefined;
  return {
    facts: { ...(ref ? { referenceUrl: ref.url } : {}), lagFile: ref?.lagFile ?? '', poolPort: server.port },
    seedRate: (rate) => server.seedRate(rate),
    close() {
      closing ??= (async () => {
        const learnt = server.learntRate();
        const facts: PoolFacts = {
          ...budget,
          granted: server.granted(),
          maxInFlight: server.maxInFlight(),
          firstGrantAt: server.firstGrantAt(),
          lastReleaseAt: server.lastReleaseAt(),
          ...(learnt ? { learntRate: learnt } : {}),
        };
        await Promise.all([server.close(), ref?.close()]);
        return facts;
      })();
      return closing;
    },
  };
}
