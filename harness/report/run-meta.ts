import { readFileSync, writeFileSync } from 'node:fs';
import type { Expectations } from './expectations.js';
import type { RunStatus, UnverifiedFact } from './verdict.js';
import type { Replay } from '../run/replay.js';
import type { Traffic } from './traffic.js';
import type { RunFloor } from './floor.js';
import type { LoosenedAllowance } from '../webhooks/schedule.js';

/**
 * An answer against the profile where the document fixes the answer: the profile or the target is
 * wrong. The certificate shows it beside its clauses when they fail.
 */
export interface DoctorDoubt {
  path: string;
  assumption: string;
  /** The clauses the answer breaks if the profile is right. */
  clauses: string[];
  answered: string;
  /** "if the profile is right, …; if not, …". */
  fix: string;
}

/** What the CLI knew when it started a run: written to <reports>/run.json, read back to build reports. */
export interface RunMeta {
  kit: { name: string; version: string };
  startedAt: string;
  finishedAt?: string;
  seed: number;
  numRuns: number;
  webhooks: 'quick' | 'full' | 'off';
  profile: { name: string; file: string; environment: string };
  /** The target as configured: a (masked) URL, or "embedded" for the kit's reference. */
  target: string;
  /** Webhook time scale of the target (profile webhooks.timeScale). */
  timeScale?: number;
  /**
   * The kit's allowances the profile widens (harness/webhooks/schedule.ts `loosenedAllowances`): the checks that judged
   * with them are loosened, and the certificate names them. Absent when the profile keeps the kit's readings.
   */
  loosened?: LoosenedAllowance[];
  /**
   * The target's round trip, ms, as the CLI measured it before vitest started (the fewest of 3 HEADs,
   * harness/run/round-trip.ts): 40 ms or more kept four workers. Absent when the target did not answer them.
   */
  roundTripMs?: number;
  filters: { suites: string[]; clauses: string[] };
  /** Faults switched on in the embedded reference. */
  faults: string[];
  /** The set of readings the embedded reference took (profile embedded.readings), when not the default. */
  readings?: string;
  /** vitest --shard, when this run is one shard of several. */
  shard?: string;
  /** The profile doctor's outcome before the checks ran (absent in runs made before the doctor existed). */
  doctor?:
    | { ran: false }
    | {
        ran: true;
        verified: number;
        wrong: number;
        notVerifiable: number;
        warnings: number;
        requests: number;
        durationMs: number;
        report: string;
        doubts?: DoctorDoubt[];
        /** Facts a verdict depends on that the doctor could not verify: a failure reached only through one gets no verdict. */
        unverified?: UnverifiedFact[];
      };
  /** The known deviations applied (a copy, so a report can be rebuilt from the reports directory alone). */
  expectations?: Expectations;
  /**
   * How to run this again from any folder: the kit's bin (absolute) and every flag that changes the run,
   * files as absolute paths. Absent in runs made before it was recorded.
   */
  replay?: Replay;
  /** The reports directory, absolute: where the certificate's reproduction commands point. */
  reportsDir?: string;
  /** What the run cost the target, summed from the checks and the receivers when the reports are made. */
  traffic?: Traffic;
  /** How short the run could have been and how far its wall time was from it (harness/report/floor.ts). */
  floor?: RunFloor;
}

export function writeRunMeta(file: string, meta: RunMeta): void {
  writeFileSync(file, `${JSON.stringify(meta, null, 2)}\n`);
}

export function readRunMeta(file: string): RunMeta {
  return JSON.parse(readFileSync(file, 'utf8')) as RunMeta;
}

export function readRunStatus(file: string): RunStatus | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as RunStatus;
  } catch {
    return undefined;
  }
}
