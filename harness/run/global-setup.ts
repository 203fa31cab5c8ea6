import { createReadStream } from 'node:fs';
import type { TestProject } from 'vitest/node';
import type { EmbeddedProcess } from './embedded.js';
import { loadProfile } from '../profile/load.js';
import { readRunConfig } from './config.js';
import type { PoolOptions, PoolProcess } from './pool.js';
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

/**
 * Runs once per conformance run, in vitest's main process, and fixes the seed every worker uses. The CLI's run hosts
 * the embedded reference and the request pool itself (harness/run/host.ts) and says where they are; run otherwise, this
 * starts each in a process of its own: the reference when the profile says "embedded" and no --target was given.
 */
export async function setup(project: TestProject): Promise<void> {
  const cfg = readRunConfig();
  const { profile } = loadProfile(cfg.profilePath, process.env, { schemaPassedSha256: cfg.profileSha256, baseUrl: cfg.targetUrl });
  let baseUrl = cfg.targetUrl ?? profile.baseUrl;
  const hosted = cfg.hosted;
  if (hosted) {
    if (baseUrl === 'embedded') {
      if (hosted.referenceUrl === undefined)
        throw new Error('the CLI hosts no embedded reference for a profile whose baseUrl is "embedded"');
      baseUrl = hosted.referenceUrl;
    }
    if (cfg.holdUntilGo) await goAhead();
    provideAll(project, baseUrl, cfg.seed, hosted.lagFile, hosted.poolPort);
    announce(baseUrl, profile.name, cfg.seed);
    return;
  }
  // Imported only here: a CLI run's vitest main process never loads the reference's modules (about 0.2 s of CPU).
  const [{ startEmbeddedReferenceProcess }, { startPoolProcess }, { poolBudget }] = await Promise.all([
    import('./embedded.js'),
    import('./pool.js'),
    import('./host.js'),
  ]);
  const starting = baseUrl === 'embedded' ? startEmbeddedReferenceProcess(profile, cfg.faults) : undefined;
  const budget = poolBudget(profile);
  const pooling = startPoolProcess(budget);
  // The reference starts while the CLI's doctor runs; no check starts before the CLI says go.
  const [started, poolProcess] = await Promise.all([starting, pooling, cfg.holdUntilGo ? goAhead() : undefined]);
  if (started) {
    reference = started;
    baseUrl = started.url;
  }
  pool = { process: poolProcess, budget, factsFile: reportPaths(cfg.reportsDir).pool };
  provideAll(project, baseUrl, cfg.seed, started?.lagFile ?? '', pool.process.port);
  announce(baseUrl, profile.name, cfg.seed);
}

function provideAll(project: TestProject, baseUrl: string, seed: number, lagFile: string, poolPort: number): void {
  project.provide('mpsiPoolPort', poolPort);
  project.provide('mpsiBaseUrl', baseUrl);
  project.provide('mpsiSeed', seed);
  project.provide('mpsiTargetLagFile', lagFile);
}

function announce(baseUrl: string, profileName: string, seed: number): void {
  process.stdout.write(`mpsi-conformance: target ${baseUrl} (profile ${profileName}), seed ${seed} — replay with --seed ${seed}\n`);
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
