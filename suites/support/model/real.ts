/**
 * What every stateful command shares: the system under test for one sequence (`Real`), the log of what it sent,
 * the number slots a command takes its merchant numbers from, and the shape of a command (`CommandKind`).
 */
import type { CommandSpec, NumberName, PayoutMerchant, PayoutName } from '../../../fixtures/arbitraries/commands.js';
import type { ClauseId } from '../../../harness/clauses/registry.js';
import { expectControlDone } from '../../../harness/check/expect.js';
import type { Exchange } from '../../../harness/http/exchange.js';
import type { Target } from '../../../harness/target.js';
import { sandboxControl } from './sandbox.js';
import { type Model, type NumberSlot, type PayoutSlot, payoutKey } from './state.js';

/** One step of a sequence as it ran: the command and the exchanges it caused. */
export interface Step {
  command: string;
  exchanges: Exchange[];
}

/** The system under test for one sequence, and the log of what the sequence sent. */
export interface Real {
  target: Target;
  steps: Step[];
}

export function newReal(target: Target): Real {
  return { target, steps: [] };
}

export async function send(r: Real, pending: Promise<Exchange>): Promise<Exchange> {
  const ex = await pending;
  r.steps.at(-1)?.exchanges.push(ex);
  return ex;
}

export const FINAL_PAYOUT = new Set(['SUCCESS', 'FAILED', 'CANCELED']);
export const lb = (merchant: PayoutMerchant) => (merchant === 'lowBalance' ? ' of the low-balance merchant' : '');
export const STATUS = { success: 'SUCCESS', failed: 'FAILED' } as const;

export function numberSlot(m: Model, r: Real, name: NumberName): NumberSlot {
  let slot = m.numbers.get(name);
  if (!slot) {
    slot = { name, no: r.target.newNo(name.startsWith('order') ? 'order' : 'refund') };
    m.numbers.set(name, slot);
  }
  return slot;
}

export function payoutSlot(m: Model, r: Real, merchant: PayoutMerchant, name: PayoutName): PayoutSlot {
  const key = payoutKey(merchant, name);
  let slot = m.payoutNumbers.get(key);
  if (!slot) {
    slot = { name, merchant, no: r.target.newNo('payout') };
    m.payoutNumbers.set(key, slot);
  }
  return slot;
}

export type Op<K extends CommandSpec['op']> = Extract<CommandSpec, { op: K }>;

/** One kind of command, all in one place: a new command is one file and one line in commands.ts. */
export interface CommandKind<K extends CommandSpec['op']> {
  /** A readable name: "refund 12.34 of order#2 as refund#1" (`resolvedCents`: a refund of the rest, once known). */
  describe(s: Op<K>, resolvedCents?: number): string;
  /** Whether the command makes sense in this state (fast-check skips it otherwise). */
  applicable(m: Readonly<Model>, s: Op<K>): boolean;
  /** Sends the request, judges the answer against the model's prediction and updates the model. */
  run(m: Model, r: Real, s: Op<K>): Promise<void>;
}

/** A sandbox control as a step of the sequence: sent, logged, and it must be accepted (a refusal fails under `clause`). */
export async function controlStep(
  r: Real,
  control: Parameters<typeof sandboxControl>[1],
  vars: Record<string, unknown>,
  opts: Parameters<typeof sandboxControl>[3],
  clause: ClauseId,
): Promise<void> {
  const ex = await send(r, sandboxControl(r.target, control, vars, opts));
  expectControlDone(ex, clause, { what: `the sandbox control to ${opts.label}` });
}
