/** The stateful model's `settle-refund` command: what it is called, when it applies, and what it sends, judges and records. */
import { CONTROL_MARGIN_MS, type Model, refundMayHaveEnded, refundOf } from '../state.js';
import { type CommandKind, type Op, type Real, STATUS, controlStep } from '../real.js';

function describe(s: Op<'settle-refund'>): string {
  return `settle the refund ${s.refund} as ${STATUS[s.outcome]}`;
}

function applicable(m: Readonly<Model>, s: Op<'settle-refund'>): boolean {
  const r = refundOf(m, s.refund);
  // A refund that may settle by itself before the control reaches it is left to time (sandbox.autoSettle.refunds).
  return r?.status === 'PENDING' && r.refundNo !== undefined && refundMayHaveEnded(m, r, Date.now() + CONTROL_MARGIN_MS) === undefined;
}

async function settleRefundCmd(m: Model, r: Real, s: Op<'settle-refund'>): Promise<void> {
  const rec = refundOf(m, s.refund)!;
  const what = describe(s);
  await controlStep(
    r,
    'settleRefund',
    { refundNo: rec.refundNo, merchantRefundNo: rec.merchantRefundNo },
    { outcome: s.outcome, label: what },
    'state.refund.values',
  );
  rec.status = STATUS[s.outcome];
}

export const settleRefundCommand: CommandKind<'settle-refund'> = { describe, applicable, run: settleRefundCmd };
