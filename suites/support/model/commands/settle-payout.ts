/** The stateful model's `settle-payout` command: what it is called, when it applies, and what it sends, judges and records. */
import { type Model, payoutSlotOf } from '../state.js';
import { type CommandKind, type Op, type Real, STATUS, controlStep, lb } from '../real.js';

function describe(s: Op<'settle-payout'>): string {
  return `settle the payout ${s.payout}${lb(s.merchant)} as ${STATUS[s.outcome]}`;
}

function applicable(m: Readonly<Model>, s: Op<'settle-payout'>): boolean {
  return payoutSlotOf(m, s.merchant, s.payout)?.payout?.status === 'open';
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
