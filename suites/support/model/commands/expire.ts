/** The stateful model's `expire` command: what it is called, when it applies, and what it sends, judges and records. */
import { CONTROL_MARGIN_MS, checkoutMayHaveExpired, type Model, paymentOf } from '../state.js';
import { type CommandKind, type Op, type Real, controlStep } from '../real.js';

function describe(s: Op<'expire'>): string {
  return `expire the checkout of ${s.order}`;
}

function applicable(m: Readonly<Model>, s: Op<'expire'>): boolean {
  const p = paymentOf(m, s.order);
  // A checkout that may expire by itself before the control reaches it is left to time (sandbox.autoSettle.checkouts).
  return p?.base === 'pending' && p.orderNo !== undefined && !checkoutMayHaveExpired(m, p, Date.now() + CONTROL_MARGIN_MS);
}

async function expireCmd(m: Model, r: Real, s: Op<'expire'>): Promise<void> {
  const p = paymentOf(m, s.order)!;
  const what = describe(s);
  await controlStep(
    r,
    'expireCheckout',
    { orderNo: p.orderNo, merchantOrderNo: p.merchantOrderNo },
    { label: what },
    'state.no-webhook.expiry-chargeback',
  );
  p.base = 'expired';
}

export const expireCommand: CommandKind<'expire'> = { describe, applicable, run: expireCmd };
