/** The stateful model's `expire` command: what it is called, when it applies, and what it sends, judges and records. */
import { type Model, paymentOf } from '../state.js';
import { type CommandKind, type Op, type Real, controlStep } from '../real.js';

function describe(s: Op<'expire'>): string {
  return `expire the checkout of ${s.order}`;
}

function applicable(m: Readonly<Model>, s: Op<'expire'>): boolean {
  const p = paymentOf(m, s.order);
  return p?.base === 'pending' && p.orderNo !== undefined;
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
