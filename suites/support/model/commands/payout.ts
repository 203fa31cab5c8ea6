/** The stateful model's `payout` command: what it is called, when it applies, and what it sends, judges and records. */
import { recordReading } from '../../../../harness/check/context.js';
import { expectString, pick } from '../../../../harness/check/expect.js';
import { createPayout, sentAtOf, usd } from '../../../../harness/ops.js';
import { predictPayout } from '../predict.js';
import type { Model, PayoutRec } from '../state.js';
import { judge } from '../verdict.js';
import { type CommandKind, type Op, type Real, FINAL_PAYOUT, lb, payoutSlot, send } from '../real.js';
import { valueOfCents } from '../../../../harness/facts/money.js';

function describe(s: Op<'payout'>): string {
  return `create a ${s.method} payout of ${valueOfCents(s.cents)} as ${s.as}${lb(s.merchant)}`;
}

function applicable(m: Readonly<Model>, s: Op<'payout'>): boolean {
  const lim = m.caps.payoutLimitsBy?.[s.merchant]?.[s.method] ?? m.caps.payoutLimits[s.method];
  const own = m.caps.payoutMethods[s.merchant];
  return (!own || own.includes(s.method)) && (!lim || lim.some((c) => s.cents >= c.min && s.cents <= c.max));
}

async function payout(m: Model, r: Real, s: Op<'payout'>): Promise<void> {
  const t = r.target;
  const pred = predictPayout(m, s);
  const slot = payoutSlot(m, r, s.merchant, s.as);
  const what = describe(s);
  const ex = await send(
    r,
    createPayout(t, { payoutNo: slot.no, method: s.method, amount: usd(valueOfCents(s.cents)) }, { label: what, as: s.merchant }),
  );
  const paths = t.profile.payouts!.data;
  const original = slot.payout;
  const verdict = judge(ex, pred, what, (data) =>
    original && pick(data, paths.payoutNo) === original.payoutNo ? `payout ${original.payoutNo}` : undefined,
  );
  if (!verdict.accepted) {
    if (!slot.payout) slot.maybe = true;
    return;
  }
  const payoutNo = expectString(verdict.data, paths.payoutNo, 'payout.ids', ex);
  const seen = pick(verdict.data, paths.status);
  recordReading('stateful.payout-status-on-creation', String(seen));
  slot.payout = {
    name: s.as,
    merchant: s.merchant,
    merchantPayoutNo: slot.no,
    payoutNo,
    method: s.method,
    cents: s.cents,
    sentAt: sentAtOf(ex),
    ...payoutStatusOf(seen),
  };
}

function payoutStatusOf(seen: unknown): { status: PayoutRec['status']; openSeen?: string } {
  if (typeof seen === 'string' && FINAL_PAYOUT.has(seen)) return { status: seen as PayoutRec['status'] };
  return typeof seen === 'string' ? { status: 'open', openSeen: seen } : { status: 'open' };
}

export const payoutCommand: CommandKind<'payout'> = { describe, applicable, run: payout };
