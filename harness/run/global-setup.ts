import { createReadStream } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { type EmbeddedProcess, startEmbeddedReferenceProcess } from './embedded.js';
import { loadProfile } from '../profile/load.js';
import { readRunConfig } from './config.js';
import { type PoolOptions, type PoolProcess, startPoolProcess } from './pool.js';
import { writePoolFacts } from '../report/floor.js';
import { reportPaths } from '../report/paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mpsiBaseUrl: string;
    mpsiSeed: number;
    /** The embedded reference's stall file (harness/check/lag.ts stallFile); '' for a target of its own. */
    mpsiTargetLagFile: string;
    /** The run-wide request pool (harness/run/pool.ts) every worker's client takes its slots from. */
    mpsiPoolPort: number;
  }
}

let reference: EmbeddedProcess | undefined;
let pool: { process: PoolProcess; budget: PoolOptions; factsFile: string } | undefined;

/** The in-flight budget of a profile that declares none: the client's own default width (harness/throttle.ts). */
const DEFAULT_CONCURRENCY = 8;

/**
 * Runs once per conformance run, in vitest's main process: starts the embedded reference (in a process of its own) when
 * the profile says "embedded" and no --target was given, and fixes the seed every worker uses.
 */
export async function setup(project: TestProject): Promise<void> {
  const cfg = readRunConfig();
  const { profile } = loadProfile(cfg.profilePath, process.env, { schemaPassedSha256: cfg.profileSha256 });
  let baseUrl = cfg.targetUrl ?? profile.baseUrl;
  const starting = baseUrl === 'embedded' ? startEmbeddedReferenceProcess(profile, cfg.faults) : undefined;
  const budget: PoolOptions = {
    concurrency: profile.http?.concurrency ?? DEFAULT_CONCURRENCY,
    ...(profile.http?.rateLimit ? { rateLimit: profile.http.rateLimit } : {}),
  };
  const pooling = startPoolProcess(budget);
  // The reference starts while the CLI's doctor runs; no check starts before the CLI says go.
  const [started, poolProcess] = await Promise.all([starting, pooling, cfg.holdUntilGo ? goAhead() : undefined]);
  if (started) {
    reference = started;
    baseUrl = started.url;
  }
  pool = { process: poolProcess, budget, factsFile: reportPaths(cfg.reportsDir).pool };
  project.provide('mpsiPoolPort', pool.process.port);
  project.provide('mpsiBaseUrl', baseUrl);
  project.provide('mpsiSeed', cfg.seed);
  project.provide('mpsiTargetLagFile', started?.lagFile ?? '');
  process.stdout.write(
    `mpsi-conformance: target ${baseUrl} (profile ${profile.name}), seed ${cfg.seed} — replay with --seed ${cfg.seed}\n`,
  );
}

/** Resolves on "go" from the CLI (fd 3); a pipe that closes without it means the CLI stopped the run. */
function goAhead(): Promise<void> {
  return new Promise((resolve, reject) => {
    const control = createReadStream('', { fd: 3, encoding: 'utf8' });
    let text = '';
    let done = false;
    control.on('data', (chunk) => {
      text += chunk;
      if (!done && text.includes('go\n')) {
        done = true;
        control.destroy();
        resolve();
      }
    });
    const stopped = (why: string) => () => {
      if (done) return;
      done = true;
      reject(new Error(`the CLI stopped the run before any check started (${why})`));
    };
    control.on('end', stopped('its control pipe closed'));
    control.on('error', (err) => stopped(err.message)());
  });
}

export async function teardown(): Promise<void> {
  try {
    // The floor of the run (harness/report/floor.ts) is computed from these when the reports are made.
    if (pool) writePoolFacts(pool.factsFile, { ...pool.budget, ...(await pool.process.close()) });
  } finally {
    pool = undefined;
    await reference?.close();
    reference = undefined;
  }
}
