/** The stateful model's `chargeback` command: what it is called, when it applies, and what it sends, judges and records. */
import { type Model, paymentOf } from '../state.js';
import { type CommandKind, type Op, type Real, controlStep } from '../real.js';

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
  await controlStep(
    r,
    'chargeback',
    { orderNo: p.orderNo, merchantOrderNo: p.merchantOrderNo },
    { label: what },
    'state.refund.charged-back',
  );
  p.chargedBack = true;
}

export const chargebackCommand: CommandKind<'chargeback'> = { describe, applicable, run: chargebackCmd };
