/** The stateful model's `settle-payout` command: what it is called, when it applies, and what it sends, judges and records. */
import { type Model, payoutSlotOf, surelyWaits } from '../state.js';
import { type CommandKind, type Op, type Real, STATUS, controlStep, lb } from '../real.js';

function describe(s: Op<'settle-payout'>): string {
  return `settle the payout ${s.payout}${lb(s.merchant)} as ${STATUS[s.outcome]}`;
}

/** How long before a payout may end by itself the control is no longer sent: it must reach the payout while it waits. */
const CONTROL_MARGIN_MS = 2_000;

function applicable(m: Readonly<Model>, s: Op<'settle-payout'>): boolean {
  const po = payoutSlotOf(m, s.merchant, s.payout)?.payout;
  return po !== undefined && surelyWaits(m, po, CONTROL_MARGIN_MS);
}

async function settlePayoutCmd(m: Model, r: Real, s: Op<'settle-payout'>): Promise<void> {
  const po = payoutSlotOf(m, s.merchant, s.payout)!.payout!;
  const what = describe(s);
  await controlStep(
    r,
    'settlePayout',
    { payoutNo: po.payoutNo, merchantPayoutNo: po.merchantPayoutNo },
    { outcome: s.outcome, label: what, as: s.merchant },
    'state.payout.values',
  );
  po.status = STATUS[s.outcome];
}

export const settlePayoutCommand: CommandKind<'settle-payout'> = { describe, applicable, run: settlePayoutCmd };
