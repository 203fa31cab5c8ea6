/** The stateful model's `settle-payout` command: what it is called, when it applies, and what it sends, judges and records. */
import { expectSuccess } from '../../../../harness/check/expect.js';
import { sandboxControl } from '../sandbox.js';
import { type Model, payoutSlotOf } from '../state.js';
import { type CommandKind, type Op, type Real, lb, send, STATUS } from '../real.js';

function describe(s: Op<'settle-payout'>): string {
  return `settle the payout ${s.payout}${lb(s.merchant)} as ${STATUS[s.outcome]}`;
}

function applicable(m: Readonly<Model>, s: Op<'settle-payout'>): boolean {
  return payoutSlotOf(m, s.merchant, s.payout)?.payout?.status === 'open';
}

async function settlePayoutCmd(m: Model, r: Real, s: Op<'settle-payout'>): Promise<void> {
  const po = payoutSlotOf(m, s.merchant, s.payout)!.payout!;
  const what = describe(s);
  const ex = await send(
    r,
    sandboxControl(
      r.target,
      'settlePayout',
      { payoutNo: po.payoutNo, merchantPayoutNo: po.merchantPayoutNo },
      { outcome: s.outcome, label: what, as: s.merchant },
    ),
  );
  expectSuccess(ex, 'state.payout.values', `the sandbox control to ${what}`);
  po.status = STATUS[s.outcome];
}

export const settlePayoutCommand: CommandKind<'settle-payout'> = { describe, applicable, run: settlePayoutCmd };
