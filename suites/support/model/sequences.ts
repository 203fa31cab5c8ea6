/**
 * Runs random command sequences against the target, each with its own model and its own
 * numbers (target.newNo), several lanes in parallel. A failing sequence is shrunk by fast-check
 * to the shortest one that still fails and reported as a numbered list of requests and
 * responses, with the seed and path that replay it.
 */
import fc from 'fast-check';
import type { CommandSpec } from '../../../fixtures/arbitraries/commands.js';
import { type CheckRecorder, currentRecorder, mergeRecorder, newRecorder, note, withRecorder } from '../../../harness/check/context.js';
import type { CheckContext } from '../../../harness/check/define.js';
import { CheckFailure, PreconditionSkip } from '../../../harness/check/failure.js';
import type { Exchange } from '../../../harness/http/exchange.js';
import { cancelPayout } from '../../../harness/ops.js';
import type { Target } from '../../../harness/target.js';
import { newReal, type Real, SpecCommand, type Step } from './commands.js';
import { sandboxControl } from './sandbox.js';
import { lookupVia, type Model, type ModelCaps, newModel } from './state.js';

/** Sequences of one check run in at most this many lanes at once. */
export const MAX_LANES = 4;
/**
 * Most commands a sequence runs (fast-check generates up to three times as many; those that make no sense in the state reached are
 * skipped).
 */
export const MAX_COMMANDS = 12;

export interface SequencePlan {
  /** Suite name, for the replay line. */
  suite: string;
  /** Command generators with weights; undefined generators (not declared by the profile) are left out. */
  commands: { arbitrary: fc.Arbitrary<CommandSpec> | undefined; weight: number }[];
  caps: ModelCaps;
  maxCommands?: number;
}

interface LaneFailure {
  lane: number;
  seed: number;
  path: string;
  counterexample: string;
  steps: Step[];
  failure: CheckFailure;
}

type LaneOutcome = { kind: 'passed' } | { kind: 'failed'; f: LaneFailure } | { kind: 'error'; error: unknown };

/** Lane seeds follow from the check seed (lane 1 uses it as is) and differ from each other. */
export function laneSeed(checkSeed: number, lane: number): number {
  return (checkSeed + Math.imul(lane, 0x9e3779b1)) | 0;
}

/** How `total` sequences are split over `lanes` lanes. */
export function laneRuns(total: number, lanes: number): number[] {
  return Array.from({ length: lanes }, (_, lane) => Math.floor(total / lanes) + (lane < total % lanes ? 1 : 0));
}

export async function runSequences(ctx: CheckContext, plan: SequencePlan): Promise<void> {
  const weighted = plan.commands.filter((c): c is { arbitrary: fc.Arbitrary<CommandSpec>; weight: number } => c.arbitrary !== undefined);
  if (weighted.length === 0) throw new PreconditionSkip('the profile declares none of the operations this sequence drives');
  const total = Math.max(1, ctx.numRuns);
  const lanes = Math.min(MAX_LANES, total);
  const runs = laneRuns(total, lanes);
  const outcomes = await inLaneOrder(runs.map((n, lane) => () => runLane(ctx, plan, weighted, lane, n)));
  note(`${total} sequences of up to ${plan.maxCommands ?? MAX_COMMANDS} commands, in ${lanes} parallel lanes`);
  const error = outcomes.find((o): o is { kind: 'error'; error: unknown } => o.kind === 'error');
  if (error) throw error.error;
  const failures = outcomes
    .filter((o): o is { kind: 'failed'; f: LaneFailure } => o.kind === 'failed')
    .map((o) => o.f)
    .sort((a, b) => a.steps.length - b.steps.length);
  if (failures.length > 0) throw sequenceFailure(failures[0]!, failures.length, lanes, plan.suite);
}

/**
 * Runs the lanes side by side, each recording into a recorder of its own, joined to the check's in lane order once all
 * have finished. In one shared recorder, the reading a topic ends with (the last one written) would be that of whichever
 * lane happened to answer last: our scheduling, not the target (a parity run compared 422 duplicateRefundOrder with
 * 422 validationFailed for stateful.refund-open-outcome, each side's lanes having finished in another order).
 */
export async function inLaneOrder<T>(lanes: (() => Promise<T>)[]): Promise<T[]> {
  const parent = currentRecorder();
  if (!parent) return Promise.all(lanes.map((run) => run()));
  const recorders: CheckRecorder[] = lanes.map(() => {
    const rec = newRecorder(parent.clauses, parent.startedAt, parent.checkId);
    if (parent.holds) rec.holds = parent.holds;
    return rec;
  });
  try {
    return await Promise.all(lanes.map((run, lane) => withRecorder(recorders[lane]!, run)));
  } finally {
    for (const rec of recorders) mergeRecorder(parent, rec);
  }
}

async function runLane(
  ctx: CheckContext,
  plan: SequencePlan,
  weighted: { arbitrary: fc.Arbitrary<CommandSpec>; weight: number }[],
  lane: number,
  numRuns: number,
): Promise<LaneOutcome> {
  const seed = laneSeed(ctx.seed, lane);
  const limit = plan.maxCommands ?? MAX_COMMANDS;
  const command = fc.oneof(...weighted).map((spec) => new SpecCommand(spec, limit));
  const sequences = fc.commands<Model, Real, false>([command], { maxCommands: 3 * limit, size: 'max' });
  // The last failing run is the shrunk counterexample: fast-check only keeps shrinks that still fail.
  let lastFailing: Step[] = [];
  const caps = laneCaps(plan.caps, lane);
  const property = fc.asyncProperty(sequences, async (cmds) => {
    const real = newReal(ctx.target);
    const model = newModel(caps);
    try {
      await fc.asyncModelRun(() => ({ model, real }), cmds);
    } catch (err) {
      lastFailing = real.steps;
      throw err;
    } finally {
      await releaseLowBalance(model, ctx.target);
    }
  });
  const details = await fc.check(property, { seed, numRuns });
  if (!details.failed) return { kind: 'passed' };
  const err = details.errorInstance;
  if (!(err instanceof CheckFailure)) {
    return {
      kind: 'error',
      error: err ?? new Error(`fast-check stopped lane ${lane + 1} without a counterexample (interrupted: ${details.interrupted})`),
    };
  }
  return {
    kind: 'failed',
    f: {
      lane,
      seed,
      path: details.counterexamplePath ?? '',
      counterexample: String(details.counterexample?.[0]),
      steps: lastFailing,
      failure: err,
    },
  };
}

/**
 * Only the first lane drives the low-balance merchant. Its few dollars cannot serve lanes running side by side: whose
 * payout was refused for funds would follow the order in which the lanes' requests reached the target, which our
 * scheduling decides (a loaded machine, a slower side of a parity run), not the target. In one lane, the sequences
 * spend it one after another, in the order the seed gives. The other lanes pay out as the primary merchant only.
 */
export function laneCaps(caps: ModelCaps, lane: number): ModelCaps {
  if (lane === 0) return caps;
  return { ...caps, payoutMethods: { ...caps.payoutMethods, lowBalance: [] } };
}

/**
 * The low-balance merchant's few dollars are shared by every sequence and check of the run:
 * a sequence gives back what its open payouts hold (settled as failed, or cancelled) so later
 * sequences can still be accepted. Not part of the verdict: answers are not checked.
 */
async function releaseLowBalance(m: Model, t: Target): Promise<void> {
  for (const slot of m.payoutNumbers.values()) {
    const p = slot.payout;
    if (p?.merchant !== 'lowBalance' || p.status !== 'open') continue;
    try {
      if (t.profile.sandbox?.settlePayout) {
        await sandboxControl(
          t,
          'settlePayout',
          { payoutNo: p.payoutNo, merchantPayoutNo: p.merchantPayoutNo },
          { outcome: 'failed', as: 'lowBalance', label: 'release: settle an open payout as failed' },
        );
      } else if (m.caps.payoutCancel[p.method]) {
        const by = lookupVia(m.caps.lookupPaths?.payoutCancel, 'merchant', { service: p.payoutNo, merchant: p.merchantPayoutNo });
        if (by) await cancelPayout(t, by, { as: 'lowBalance', label: 'release: cancel an open payout' });
      }
    } catch {
      // Best effort: a sequence that cannot give the money back leaves later ones to read a refusal.
    }
  }
}

const BODY_CHARS = 500;

function clip(text: string): string {
  return text.length > BODY_CHARS ? `${text.slice(0, BODY_CHARS)}… (${text.length} chars)` : text;
}

function exchangeLines(ex: Exchange): string[] {
  let path = ex.request.url;
  try {
    path = new URL(ex.request.url).pathname;
  } catch {
    // keep the URL as sent
  }
  const out = [`     → ${ex.request.method} ${path} ${clip(ex.request.body.toString('utf8'))}`];
  if (ex.response) out.push(`     ← HTTP ${ex.response.status} ${clip(ex.response.body.toString('utf8'))}`);
  if (ex.error) out.push(`     ✗ ${ex.error.kind}: ${ex.error.message}`);
  return out;
}

/** The numbered list of a sequence: each command, its requests and the responses. */
export function formatSteps(steps: Step[]): string {
  const lines: string[] = [];
  steps.forEach((s, i) => {
    lines.push(`  ${i + 1}. ${s.command}${i === steps.length - 1 ? '   ← fails here' : ''}`);
    for (const ex of s.exchanges) lines.push(...exchangeLines(ex));
  });
  return lines.join('\n');
}

export function sequenceFailure(f: LaneFailure, failedLanes: number, lanes: number, suite: string): CheckFailure {
  const finding = f.failure.finding;
  // The failing exchange is in the list below; keep the finding's own words and expected/seen.
  const head = finding.message.split('\nexchange ')[0]!;
  const message = [
    head,
    '',
    `shrunk sequence, ${f.steps.length} command${f.steps.length === 1 ? '' : 's'} (lane ${f.lane + 1}` +
      ` of ${lanes}${failedLanes > 1 ? `; ${failedLanes} lanes failed, the shortest is shown` : ''}):`,
    formatSteps(f.steps),
    '',
    `fast-check: seed ${f.seed}, path "${f.path}"`,
    `fast-check counterexample: ${f.counterexample}`,
    `replay: npx mpsi-conformance run --suite ${suite} --seed S   (S = the run seed printed at the start of this ` +
      `run; it regenerates lane ${f.lane + 1}'s seed ${f.seed}, and the path above points at this counterexample)`,
  ].join('\n');
  return new CheckFailure({ ...finding, message });
}
