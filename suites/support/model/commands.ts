/**
 * fast-check commands over the model. Each kind of command lives in its own file under commands/ (its name, when
 * it applies, and what it sends, judges and records); `SpecCommand` runs one of them and then checks the money
 * invariants.
 */
import type { AsyncCommand } from 'fast-check';
import type { CommandSpec } from '../../../fixtures/arbitraries/commands.js';
import { failCheck } from '../../../harness/check/expect.js';
import { payCommand } from './commands/pay.js';
import { completeCommand } from './commands/complete.js';
import { chargebackCommand } from './commands/chargeback.js';
import { expireCommand } from './commands/expire.js';
import { queryPaymentCommand } from './commands/query-payment.js';
import { refundCommand } from './commands/refund.js';
import { settleRefundCommand } from './commands/settle-refund.js';
import { queryRefundCommand } from './commands/query-refund.js';
import { payoutCommand } from './commands/payout.js';
import { cancelPayoutCommand } from './commands/cancel-payout.js';
import { settlePayoutCommand } from './commands/settle-payout.js';
import { queryPayoutCommand } from './commands/query-payout.js';
import { moneyBreaches, refundCents } from './predict.js';
import type { CommandKind, Op, Real } from './real.js';
import type { Model } from './state.js';

export { newReal, type Real, type Step } from './real.js';

/** Every op has its kind: a CommandSpec op without one is a compile error here. */
const KINDS: { [K in CommandSpec['op']]: CommandKind<K> } = {
  pay: payCommand,
  complete: completeCommand,
  chargeback: chargebackCommand,
  expire: expireCommand,
  'query-payment': queryPaymentCommand,
  refund: refundCommand,
  'settle-refund': settleRefundCommand,
  'query-refund': queryRefundCommand,
  payout: payoutCommand,
  'cancel-payout': cancelPayoutCommand,
  'settle-payout': settlePayoutCommand,
  'query-payout': queryPayoutCommand,
};

function kindOf<K extends CommandSpec['op']>(s: Op<K>): CommandKind<K> {
  return KINDS[s.op] as CommandKind<K>;
}

/** A readable name for a command: "refund 12.34 of order#2 as refund#1". */
export function describeCommand(s: CommandSpec, resolvedCents?: number): string {
  return kindOf(s).describe(s, resolvedCents);
}

/** Whether the command makes sense in this state (fast-check skips it otherwise). */
export function applicable(m: Readonly<Model>, s: CommandSpec): boolean {
  return kindOf(s).applicable(m, s);
}

export class SpecCommand implements AsyncCommand<Model, Real> {
  /** `limit`: most commands a sequence runs; later ones are skipped. */
  constructor(
    readonly spec: CommandSpec,
    readonly limit = Number.POSITIVE_INFINITY,
  ) {}

  check(m: Readonly<Model>): boolean {
    return m.ran < this.limit && applicable(m, this.spec);
  }

  async run(m: Model, r: Real): Promise<void> {
    const s = this.spec;
    m.ran += 1;
    r.steps.push({
      command: describeCommand(s, s.op === 'refund' && s.amount.mode !== 'fixed' ? refundCents(m, s) : undefined),
      exchanges: [],
    });
    await kindOf(s).run(m, r, s);
    const breach = moneyBreaches(m)[0];
    if (breach)
      failCheck(breach.clause, {
        code: breach.code,
        title: `money invariant broken after "${this.toString()}": ${breach.message}`,
        expected: breach.expected,
        seen: breach.seen,
      });
  }

  toString(): string {
    return describeCommand(this.spec);
  }
}
