/** The stateful model's `cancel-payout` command: what it is called, when it applies, and what it sends, judges and records. */
import { expectEqual, failCheck, held, pick } from '../../../../harness/check/expect.js';
import { splitMsg } from '../../../../harness/http/envelope.js';
import { cancelPayout } from '../../../../harness/ops.js';
import { predictPayoutCancel } from '../predict.js';
import { lookupVia, mayHaveEnded, type Model, payoutSlotOf } from '../state.js';
import { judge } from '../verdict.js';
import { type CommandKind, type Op, type Real, lb, payoutSlot, send } from '../real.js';

function describe(s: Op<'cancel-payout'>): string {
  return `cancel the payout ${s.payout}${lb(s.merchant)}`;
}

function applicable(m: Readonly<Model>, s: Op<'cancel-payout'>): boolean {
  const slot = payoutSlotOf(m, s.merchant, s.payout);
  return (
    slot !== undefined &&
    lookupVia(m.caps.lookupPaths?.payoutCancel, 'merchant', { service: slot.payout?.payoutNo, merchant: slot.no }) !== undefined
  );
}

async function cancelPayoutCmd(m: Model, r: Real, s: Op<'cancel-payout'>): Promise<void> {
  const t = r.target;
  const slot = payoutSlot(m, r, s.merchant, s.payout);
  const pred = predictPayoutCancel(m, s);
  const what = describe(s);
  const by = lookupVia(m.caps.lookupPaths?.payoutCancel, 'merchant', { service: slot.payout?.payoutNo, merchant: slot.no })!;
  const ex = await send(r, cancelPayout(t, by, { label: what, as: s.merchant }));
  const verdict = judge(ex, pred, what);
  const po = slot.payout;
  // Read once the answer came: by then the target has handled the cancel, so a delay not passed now had not then.
  const ended = po ? mayHaveEnded(m, po) : undefined;
  if (!po) return;
  if (verdict.accepted) {
    const seen = pick(verdict.data, t.profile.payouts!.data.status);
    if (seen !== undefined)
      expectEqual(seen, 'CANCELED', 'state.payout.values', {
        code: 'WRONG_STATUS',
        title: `${what}: a cancelled payout shows CANCELED`,
        exchange: ex,
      });
    po.status = 'CANCELED';
    return;
  }
  // Refused as not cancelable while the model had it open: it ended by itself (time the vendor keeps).
  if (verdict.outcome.key === 'payoutNotCancelable' && po.status === 'open' && ended !== undefined) po.status = ended;
  if (verdict.outcome.key === 'payoutNotCancelable' && po.status !== 'open') {
    const msg = (ex.response?.json as { msg?: unknown } | undefined)?.msg;
    const message = typeof msg === 'string' ? splitMsg(msg).message : '';
    if (!message.toUpperCase().includes(po.status)) {
      failCheck('state.payout.not-cancelable', {
        code: 'STATUS_NOT_NAMED',
        title: `${what}: the payoutNotCancelable message names the current status`,
        expected: `a message naming ${po.status}`,
        seen: JSON.stringify(msg),
        exchange: ex,
      });
    }
    held('state.payout.not-cancelable');
  }
}

export const cancelPayoutCommand: CommandKind<'cancel-payout'> = { describe, applicable, run: cancelPayoutCmd };
