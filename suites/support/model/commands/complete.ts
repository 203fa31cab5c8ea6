/** The stateful model's `complete` command: what it is called, when it applies, and what it sends, judges and records. */
import { CONTROL_MARGIN_MS, checkoutMayHaveExpired, type Model, paymentOf } from '../state.js';
import { type CommandKind, type Op, type Real, STATUS, controlStep } from '../real.js';

function describe(s: Op<'complete'>): string {
  return `complete the checkout of ${s.order} as ${STATUS[s.outcome]}`;
}

function applicable(m: Readonly<Model>, s: Op<'complete'>): boolean {
  const p = paymentOf(m, s.order);
  // A checkout that may expire by itself before the control reaches it is left to time (sandbox.autoSettle.checkouts).
  return p?.base === 'pending' && p.orderNo !== undefined && !checkoutMayHaveExpired(m, p, Date.now() + CONTROL_MARGIN_MS);
}

async function completeCmd(m: Model, r: Real, s: Op<'complete'>): Promise<void> {
  const p = paymentOf(m, s.order)!;
  const what = describe(s);
  await controlStep(
    r,
    'completeCheckout',
    { orderNo: p.orderNo, merchantOrderNo: p.merchantOrderNo },
    { outcome: s.outcome, label: what },
    'state.payment.values',
  );
  p.base = s.outcome === 'success' ? 'SUCCESS' : 'FAILED';
}

export const completeCommand: CommandKind<'complete'> = { describe, applicable, run: completeCmd };
