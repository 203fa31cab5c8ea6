/**
 * The profile's sandbox controls, sent as any fixture merchant and returning the exchange
 * (harness/ops.ts signs them as the primary merchant and asserts inside; a sequence needs the
 * exchange for its report, and payouts of the low-balance merchant need that merchant).
 */
import { PreconditionSkip } from '../../../harness/check/failure.js';
import type { Exchange } from '../../../harness/http/exchange.js';
import type { MerchantRole, Target } from '../../../harness/target.js';

type WithOutcome = 'completeCheckout' | 'settleRefund' | 'settlePayout';
type Plain = 'chargeback' | 'expireCheckout';

export function sandboxControl(
  t: Target,
  control: WithOutcome | Plain,
  vars: Record<string, unknown>,
  opts: { outcome?: 'success' | 'failed'; as?: MerchantRole; label: string },
): Promise<Exchange> {
  const c = t.profile.sandbox?.[control];
  if (!c) throw new PreconditionSkip(`the profile declares no sandbox control sandbox.${control}`, { declare: [`sandbox.${control}`] });
  const all: Record<string, unknown> = { ...vars };
  // The status_reason a settled payout gets (sandbox.settlePayout.reason); absent, a "${reason}" field is left out.
  if (control === 'settlePayout') all.reason = t.profile.sandbox?.settlePayout?.reason;
  if (opts.outcome) {
    const outcomes = (c as { outcomes?: { success: string; failed: string } }).outcomes;
    if (!outcomes)
      throw new PreconditionSkip(`the profile declares no outcomes for sandbox.${control}`, { declare: [`sandbox.${control}.outcomes`] });
    all.outcome = outcomes[opts.outcome];
  }
  return t.post(c.path, t.fill(c.template, all), { label: opts.label, as: opts.as ?? 'primary' });
}

/** Whether a profile template refers to a variable (a command that cannot fill it is not run). */
export function templateUses(template: Record<string, unknown> | undefined, name: string): boolean {
  return template !== undefined && JSON.stringify(template).includes(`\${${name}}`);
}
