/** The stateful model's `expire` command: what it is called, when it applies, and what it sends, judges and records. */
import { expectSuccess } from '../../../../harness/check/expect.js';
import { sandboxControl } from '../sandbox.js';
import { type Model, paymentOf } from '../state.js';
import { type CommandKind, type Op, type Real, send } from '../real.js';

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
  const ex = await send(
    r,
    sandboxControl(r.target, 'expireCheckout', { orderNo: p.orderNo, merchantOrderNo: p.merchantOrderNo }, { label: what }),
  );
  expectSuccess(ex, 'state.no-webhook.expiry-chargeback', `the sandbox control to ${what}`);
  p.base = 'expired';
}

export const expireCommand: CommandKind<'expire'> = { describe, applicable, run: expireCmd };
