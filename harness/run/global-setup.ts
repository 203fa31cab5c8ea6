import type { TestProject } from 'vitest/node';
import { type EmbeddedProcess, startEmbeddedReferenceProcess } from './embedded.js';
import { loadProfile } from '../profile/load.js';
import { readRunConfig } from './config.js';

declare module 'vitest' {
  export interface ProvidedContext {
    mpsiBaseUrl: string;
    mpsiSeed: number;
  }
}

let reference: EmbeddedProcess | undefined;

/**
 * Runs once per conformance run, in vitest's main process: starts the embedded reference (in a process of its own) when
 * the profile says "embedded" and no --target was given, and fixes the seed every worker uses.
 */
export async function setup(project: TestProject): Promise<void> {
  const cfg = readRunConfig();
  const { profile } = loadProfile(cfg.profilePath, process.env, { schemaPassedSha256: cfg.profileSha256 });
  let baseUrl = cfg.targetUrl ?? profile.baseUrl;
  if (baseUrl === 'embedded') {
    reference = await startEmbeddedReferenceProcess(profile, cfg.faults);
    baseUrl = reference.url;
  }
  project.provide('mpsiBaseUrl', baseUrl);
  project.provide('mpsiSeed', cfg.seed);
  process.stdout.write(`mpsi-conformance: target ${baseUrl} (profile ${profile.name}), seed ${cfg.seed} — replay with --seed ${cfg.seed}\n`);
}

export async function teardown(): Promise<void> {
  await reference?.close();
  reference = undefined;
}
