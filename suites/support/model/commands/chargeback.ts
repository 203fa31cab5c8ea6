/** The stateful model's `chargeback` command: what it is called, when it applies, and what it sends, judges and records. */
import { expectSuccess } from '../../../../harness/check/expect.js';
import { sandboxControl } from '../sandbox.js';
import { type Model, paymentOf } from '../state.js';
import { type CommandKind, type Op, type Real, send } from '../real.js';

function describe(s: Op<'chargeback'>): string {
  return `charge back ${s.order}`;
}

function applicable(m: Readonly<Model>, s: Op<'chargeback'>): boolean {
  const p = paymentOf(m, s.order);
  return p?.base === 'SUCCESS' && !p.chargedBack && p.refunds.length === 0 && p.orderNo !== undefined;
}

async function chargebackCmd(m: Model, r: Real, s: Op<'chargeback'>): Promise<void> {
  const p = paymentOf(m, s.order)!;
  const what = describe(s);
  const ex = await send(
    r,
    sandboxControl(r.target, 'chargeback', { orderNo: p.orderNo, merchantOrderNo: p.merchantOrderNo }, { label: what }),
  );
  expectSuccess(ex, 'state.refund.charged-back', `the sandbox control to ${what}`);
  p.chargedBack = true;
}

export const chargebackCommand: CommandKind<'chargeback'> = { describe, applicable, run: chargebackCmd };
