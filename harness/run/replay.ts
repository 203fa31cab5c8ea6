/**
 * How to run a conformance run again, as a command that works pasted into a shell from any folder.
 * The CLI records it in run.json (the certificate prints it); the Allure report prints it per check.
 */
import { kitBin } from '../invocation.js';
import { maskUrl } from '../report/mask.js';
import { shellQuote } from '../report/repro.js';
import type { RunConfig } from './config.js';

/** The published bin, absolute (the kit's package.json `bin` entry): what `npx mpsi-conformance` runs, usable from any folder. */
const BIN = kitBin();

export interface Replay {
  bin: string;
  args: string[];
  note?: string;
}

/**
 * The run again, as a command that works pasted from any folder: the kit's bin by absolute path, and
 * every flag that changes what runs or how it is judged (files absolute). The reports directory is
 * left to the reader (default ./reports where it is pasted). A target URL whose credentials were masked
 * cannot be pasted as it is: the note says so.
 */
export function replayOf(cfg: RunConfig, shard: string | undefined, only?: { suite: string }): Replay {
  const args = ['run', '--profile', cfg.profilePath];
  let note: string | undefined;
  if (cfg.targetUrl) {
    const shown = maskUrl(cfg.targetUrl);
    args.push('--target', shown);
    if (shown !== cfg.targetUrl) note = 'the target URL held credentials, shown masked: put them back before running';
  }
  args.push('--seed', String(cfg.seed), '--runs', String(cfg.numRuns), '--webhooks', cfg.webhooks);
  for (const s of only ? [only.suite] : cfg.suites) args.push('--suite', s);
  for (const c of cfg.clauses) args.push('--clause', c);
  for (const f of cfg.faults) args.push('--fault', f);
  if (cfg.expectationsPath) args.push('--expectations', cfg.expectationsPath);
  if (shard) args.push('--shard', shard);
  return { bin: BIN, args, ...(note ? { note } : {}) };
}

/** The replay as one shell line. */
export function replayLine(r: Replay): string {
  return `node ${shellQuote(r.bin)} ${r.args.map(shellQuote).join(' ')}`;
}
