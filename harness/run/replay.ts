/**
 * How to run a conformance run again, as a command that works pasted into a shell from any folder.
 * The CLI records it in run.json (the certificate prints it); the Allure report prints it per check.
 */
import { readFileSync } from 'node:fs';
import { installed, kitBin, kitCommand } from '../kit/invocation.js';
import { maskUrl } from '../report/mask.js';
import { shellQuote } from '../report/repro.js';
import type { RunConfig } from './config.js';

/** The published bin, absolute (the kit's package.json `bin` entry): what `npx mpsi-conformance` runs, usable from any folder. */
const BIN = kitBin();

export interface Replay {
  bin: string;
  args: string[];
  note?: string;
  /** The kit ran as an installed package: its commands are printed `npx mpsi-conformance …`, the way it was installed. */
  installed?: boolean;
}

/**
 * The run again, as a command that works pasted from any folder: the kit's bin by absolute path, and
 * every flag that changes what runs or how it is judged (files absolute). The reports directory is
 * left to the reader (default ./reports where it is pasted). A target URL whose credentials were masked
 * cannot be pasted as it is: the note says so.
 */
export function replayOf(
  cfg: RunConfig,
  shard: string | undefined,
  only?: { suite: string },
  /** The address the profile took from the environment ("${BASE_URL}"): a shell the line is pasted in may not have it. */
  fromEnvironment?: string,
  asInstalled = installed(),
): Replay {
  const args = ['run', '--profile', cfg.profilePath];
  let note: string | undefined;
  const target = cfg.targetUrl ?? fromEnvironment;
  if (target) {
    const shown = maskUrl(target);
    args.push('--target', shown);
    if (shown !== target) note = 'the target URL held credentials, shown masked: put them back before running';
  }
  args.push('--seed', String(cfg.seed), '--runs', String(cfg.numRuns), '--webhooks', cfg.webhooks);
  for (const s of only ? [only.suite] : cfg.suites) args.push('--suite', s);
  for (const c of cfg.clauses) args.push('--clause', c);
  for (const f of cfg.faults) args.push('--fault', f);
  if (cfg.expectationsPath) args.push('--expectations', cfg.expectationsPath);
  if (shard) args.push('--shard', shard);
  return { bin: BIN, args, ...(note ? { note } : {}), ...(asInstalled ? { installed: true } : {}) };
}

/** The replay as one shell line. */
export function replayLine(r: Replay): string {
  return kitLine(r, r.args);
}

/**
 * A command of the kit that ran `r`, as it works pasted the way the kit was installed (harness/kit/invocation.ts):
 * `npx mpsi-conformance …` for an installed package, `node <absolute bin> …` in a clone.
 */
export function kitLine(r: Pick<Replay, 'bin' | 'installed'>, args: readonly string[]): string {
  return r.installed ? kitCommand(args, true) : `node ${shellQuote(r.bin)} ${args.map(shellQuote).join(' ')}`;
}

/**
 * The address a run's profile names through environment variables (`"baseUrl": "${BASE_URL}"`) when no --target was
 * given: resolved, for the replay's --target; undefined when the profile file states its address.
 */
export function environmentTarget(cfg: RunConfig, resolvedBaseUrl: string): string | undefined {
  if (cfg.targetUrl) return undefined;
  try {
    const raw = (JSON.parse(readFileSync(cfg.profilePath, 'utf8')) as { baseUrl?: unknown }).baseUrl;
    return typeof raw === 'string' && raw.includes('${') ? resolvedBaseUrl : undefined;
  } catch {
    return undefined;
  }
}
