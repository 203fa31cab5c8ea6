import type { SuiteDef, CheckDef } from '../check/define.js';
import { runCheck, type CheckResult, type RunSettings } from '../check/run.js';
import type { LoadedProfile } from '../profile/load.js';
import { openSession } from './session.js';
import { openRunReceiver } from './open-receiver.js';

export interface InProcessOptions {
  loaded: LoadedProfile;
  baseUrl: string;
  suites: SuiteDef[];
  settings: RunSettings;
  /** Checks run at once; they are I/O-bound, so more than the core count pays. */
  concurrency?: number;
  filter?: (suite: SuiteDef, check: CheckDef) => boolean;
  onResult?: (suite: SuiteDef, result: CheckResult) => void;
}

export interface SuiteResult {
  suite: string;
  result: CheckResult;
}

/**
 * Runs checks without vitest: the kill matrix and parity runs need hundreds of runs of the same
 * checks, and a vitest process per run would cost seconds each.
 */
export async function runInProcess(opts: InProcessOptions): Promise<SuiteResult[]> {
  const receiver = await openRunReceiver(opts.loaded, opts.settings.webhooks);
  const session = openSession({ loaded: opts.loaded, baseUrl: opts.baseUrl, receiver });
  const queue: { suite: SuiteDef; check: CheckDef }[] = [];
  for (const suite of opts.suites)
    for (const check of suite.checks) if (!opts.filter || opts.filter(suite, check)) queue.push({ suite, check });
  const out: SuiteResult[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < queue.length) {
      const { suite, check } = queue[next++]!;
      const result = await runCheck(check, session.target, opts.settings);
      out.push({ suite: suite.name, result });
      opts.onResult?.(suite, result);
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
  } finally {
    await session.close();
  }
  return out;
}
