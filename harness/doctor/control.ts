/** Sending one sandbox control, and judging its answer: shared by the probes that drive records. */
import type { Exchange } from '../http/exchange.js';
import type { Profile } from '../profile/types.js';
import type { MerchantRole } from '../target.js';
import { add, type DoctorContext } from './context.js';
import { accepted, answerOf, describeAnswer, unknownPath } from './model.js';

/** The controls the kit sends (sandbox.triggers is a list of ways, harness/profile/triggers.ts; autoSettle is time the vendor keeps). */
export type ControlName = Exclude<keyof NonNullable<Profile['sandbox']>, 'triggers' | 'autoSettle'>;

/** Sends a sandbox control as the merchant that owns the record (default primary) with the given template variables. */
export async function control(
  ctx: DoctorContext,
  name: ControlName,
  vars: Record<string, unknown>,
  as: MerchantRole = 'primary',
): Promise<Exchange> {
  const c = ctx.loaded.profile.sandbox![name]!;
  const ex = await ctx.t.post(c.path, ctx.t.fill(c.template, vars), { as, label: `doctor: sandbox.${name}` });
  ctx.ledger.control(name, vars, ex);
  return ex;
}

/** A control that answers code 0 did its work; another envelope is a refusal; no envelope, a wrong path. */
/** The kind of record a control acts on that may end by itself (sandbox.autoSettle), if any. */
const ENDS_BY_ITSELF: Partial<Record<ControlName, 'payouts' | 'refunds' | 'checkouts'>> = {
  settlePayout: 'payouts',
  settleRefund: 'refunds',
  completeCheckout: 'checkouts',
  expireCheckout: 'checkouts',
};

/**
 * `madeAt`: when the record's creation request was sent (unknown: any time). Time the vendor keeps: a control refused
 * once the record's delay may have passed (sandbox.autoSettle) says nothing of the control: the record may have ended by
 * itself before it arrived.
 */
export function controlItem(
  ctx: DoctorContext,
  name: ControlName,
  claim: string,
  ex: Exchange,
  more: Exchange[] = [],
  madeAt?: number,
): boolean {
  const a = answerOf(ex);
  const path = ctx.loaded.profile.sandbox![name]!.path;
  if (unknownPath(a)) {
    add(ctx, 'wrong', `sandbox.${name}.path`, `${path} answers with the interface's envelope`, {
      expected: 'a JSON envelope {code, msg}',
      answered: `${describeAnswer(a)}: the target has no such path`,
      fix: `set sandbox.${name}.path to the path of the vendor's sandbox control`,
      ex: [ex, ...more],
    });
    return false;
  }
  if (accepted(a)) {
    add(ctx, 'verified', `sandbox.${name}`, claim, { answered: describeAnswer(a), ex: [ex, ...more] });
    return true;
  }
  // The control names its order by the number the checkout answered: when that number is in doubt, "not found" says nothing of the control.
  if (/notFound/i.test(a.key ?? '') && ctx.items.some((i) => i.status === 'doubt' && i.path === 'checkout.data.orderNo')) {
    add(ctx, 'not-verifiable', `sandbox.${name}`, claim, {
      answered: `${describeAnswer(a)}: the checkout's order number is in doubt (checkout.data.orderNo)`,
      ex: [ex, ...more],
    });
    return false;
  }
  const kind = ENDS_BY_ITSELF[name];
  const auto = kind ? ctx.loaded.profile.sandbox?.autoSettle?.[kind] : undefined;
  if (auto && (madeAt === undefined || Date.parse(ex.timings.startedAt) - madeAt >= auto.afterMs)) {
    add(ctx, 'not-verifiable', `sandbox.${name}`, claim, {
      answered: `${describeAnswer(a)}: the record may have ended by itself (sandbox.autoSettle.${kind}) before the control reached it`,
      ex: [ex, ...more],
    });
    return false;
  }
  add(ctx, 'wrong', `sandbox.${name}`, claim, {
    expected: 'code 0',
    answered: describeAnswer(a),
    fix: `check sandbox.${name}.template (and outcomes) against the vendor's sandbox documentation`,
    ex: [ex, ...more],
  });
  return false;
}
