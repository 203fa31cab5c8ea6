import { resolve } from 'node:path';
import { kitFile } from '../kit/kit-files.js';
import type { HostedFacts } from './host.js';

/**
 * The settings of one conformance run. The CLI writes them into MPSI_RUN_CONFIG (JSON) for the
 * vitest processes; this module is the only reader of that variable — suites never see it.
 */
export interface RunConfig {
  /** Path of the target profile. */
  profilePath: string;
  /** Overrides the profile's baseUrl (the CLI's --target). */
  targetUrl?: string;
  seed: number;
  /** fast-check runs per property check. */
  numRuns: number;
  webhooks: 'quick' | 'full' | 'off';
  /** Faults switched on in the embedded reference (kill-matrix and demos). */
  faults: string[];
  reportsDir: string;
  /** Only these suites / clauses (empty = all). */
  suites: string[];
  clauses: string[];
  expectationsPath?: string;
  /** When the CLI started the run (ISO 8601, UTC): expectation expiry is judged on its day. */
  startedAt?: string;
  /**
   * Where the reports directory will be published (e.g. a CI artifact or pages URL): the report's clause
   * links point to <reportUrl>/clauses.html#clause-<id>, its repro links to <reportUrl>/repro/<file>.
   * Default: relative links (..), which the report shows as text; http(s) links are clickable.
   */
  reportUrl?: string;
  /** SHA-256 of the profile file the CLI loaded and validated: the vitest processes skip its JSON Schema while the file is unchanged. */
  profileSha256?: string;
  /** The CLI's run: global setup waits for "go" on fd 3 before any check starts (the doctor runs meanwhile). */
  holdUntilGo?: boolean;
  /** The CLI's run: the embedded reference (if any) and the request pool are in the CLI's process (harness/run/host.ts). */
  hosted?: HostedFacts;
  /** The target's round trip, ms, as the CLI measured it before vitest started (harness/run/round-trip.ts): sets the workers. */
  roundTripMs?: number;
  /**
   * The CLI's run: this run's own folder for vitest's transformed modules (harness/run/module-cache.ts), seeded from
   * the shared store. Without it (vitest started by hand) nothing is cached on disk.
   */
  moduleCacheDir?: string;
}

export const REFERENCE_PROFILE = kitFile('fixtures', 'profiles', 'reference.json');
export const DEFAULT_NUM_RUNS = 20;

export function defaultRunConfig(): RunConfig {
  return {
    profilePath: REFERENCE_PROFILE,
    seed: Math.floor(Math.random() * 0x7fffffff),
    numRuns: DEFAULT_NUM_RUNS,
    webhooks: 'quick',
    faults: [],
    // The user's working directory, never the kit's folder (it may be read-only under node_modules).
    reportsDir: resolve('reports'),
    suites: [],
    clauses: [],
  };
}

export const RUN_CONFIG_ENV = 'MPSI_RUN_CONFIG';

export function readRunConfig(env: NodeJS.ProcessEnv = process.env): RunConfig {
  const raw = env[RUN_CONFIG_ENV];
  if (!raw) return defaultRunConfig();
  try {
    return { ...defaultRunConfig(), ...(JSON.parse(raw) as Partial<RunConfig>) };
  } catch (err) {
    throw new Error(`${RUN_CONFIG_ENV} is not valid JSON: ${(err as Error).message}`);
  }
}
