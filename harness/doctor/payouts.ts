/**
 * Payout methods per merchant, payout limits, the payout answer's data paths, the query and cancel
 * fields, each method's cancel flag, the method not for payouts, and the settle control. Every
 * payout the doctor makes is released again (cancelled, or settled as failed through sandbox.settlePayout when the
 * cancel is not possible or refused) before the checks start, and one it could not release is named in a warning with
 * the reason. Money discipline: every probe stays inside the declared ranges (in its currency) and balances, its fee
 * (profile `fees`) included. Strict reading: a refusal is evidence only for the fact its key names — an
 * `amountOutOfRange` never shows a method not enabled or a currency refused, a cancel's `notFound` never shows a
 * method that cannot cancel — and where a fact the profile cannot say could explain an answer, the item is not
 * verifiable, never wrong.
 */
import type { Exchange } from '../http/exchange.js';
import { outsideKinds } from './budget.js';
import { kind } from './kinds.js';
import { cancelPayout, createPayout, lookupFor, PAYOUT_NUMBERS, queryPayout, sentAtOf, usd } from '../ops.js';
import { carriedBy } from '../profile/endpoint-path.js';
import type { MerchantRef } from '../profile/types.js';
import type { MerchantRole } from '../target.js';
import { actingRoles, add, doubt, flushInto, lookupItem, ownContext, pool, sideBySide, unanswered, type DoctorContext } from './context.js';
import { accepted, answerOf, describeAnswer, refused, unknownPath } from './model.js';
import { pathItem } from './basics.js';
import { dataPathItem, readPath } from './payments.js';
import { control, controlItem } from './control.js';
import { centsOf, valueOfCents } from '../facts/money.js';
import { amountInside } from '../facts/limits.js';
import { balanceMoves, chargebacksMove, largestWithin, payoutCost, smallestAbove } from '../facts/fees.js';
import { factsOf, whereSaid } from '../facts/index.js';
import type { DoctorContext as Ctx } from './context.js';

/** Keys of a refusal that name the payout method (unknown, not available for payouts, not enabled for the merchant). */
const METHOD_KEYS = new Set(['unsupportedPayoutMethod', 'unsupportedPaymentMethod', 'paymentMethodUnavailable']);

/** Payouts the doctor could not give back, per doctor run (its contexts share one list of exchanges), with why. */
const keptBack = new WeakMap<object, string[]>();
function kept(ctx: Ctx): string[] {
  const list = keptBack.get(ctx.exchanges) ?? [];
  keptBack.set(ctx.exchanges, list);
  return list;
}

/** What a `method` payout of `value` in `currency` takes from the balance: the amount and its fee; undefined when unknown. */
function costCents(ctx: Ctx, method: string, value: string, currency = 'USD', role: MerchantRole = 'primary'): bigint | undefined {
  return payoutCost(ctx.loaded.profile, method, centsOf(value), currency, role);
}

/** The declared USD (or `currency`) payout balance of a role, where the profile gives one. */
function declaredBalance(ctx: Ctx, role: MerchantRole, currency = 'USD'): string | undefined {
  return factsOf(ctx.loaded.profile, role).payoutBalance(currency);
}

/** Whether the role's declared balance covers the payout and its fee (true when none is declared: nothing to stay inside). */
function balanceCovers(ctx: Ctx, role: MerchantRole, method: string, value: string, currency = 'USD'): boolean {
  const balance = declaredBalance(ctx, role, currency);
  if (balance === undefined) return true;
  const cost = costCents(ctx, method, value, currency, role);
  return cost !== undefined && cost <= centsOf(balance);
}

/** The role's payout methods (its facts: harness/facts/), each with the path that says it is the role's. */
export function payoutMethodsOf(ctx: DoctorContext, role: MerchantRole): { method: string; path: string; declared: boolean }[] {
  const p = ctx.loaded.profile;
  const ref = p.merchants[role] as MerchantRef;
  const facts = factsOf(p, role);
  if (ref.payoutMethods)
    return ref.payoutMethods
      .filter((method) => facts.payoutMethods.includes(method))
      .map((method) => ({ method, path: `merchants.${role}.payoutMethods[${ref.payoutMethods!.indexOf(method)}]`, declared: true }));
  return facts.payoutMethods.map((method) => {
    const own = whereSaid(p, role, ['payouts', 'methods', method]);
    return {
      method,
      path: own !== `payouts.methods.${method}` || role === 'primary' ? own : `merchants.${role}.payoutMethods`,
      declared: own.startsWith('merchants.'),
    };
  });
}

/**
 * The currency and amount the doctor pays a role's method out in: USD where the method takes it for that role, else the
 * first currency of its set; at the minimum of the role's own range in it (1.00 where none is stated).
 */
function probeOf(ctx: Ctx, role: MerchantRole, method: string): { currency: string; value: string; limited: boolean } {
  const facts = factsOf(ctx.loaded.profile, role);
  const currency = facts.takesCurrency(method, 'USD') === false ? (facts.payoutCurrencies(method)?.[0] ?? 'USD') : 'USD';
  const lim = facts.payoutLimits(method, currency);
  return { currency, value: lim ? lim.min : '1.00', limited: lim !== undefined };
}

interface Made {
  payoutNo?: string;
  merchantPayoutNo: string;
  method: string;
  role: MerchantRole;
  ex: Exchange;
  /** What it moved: its amount, in its currency. */
  value: string;
  currency: string;
}

async function payout(
  ctx: DoctorContext,
  role: MerchantRole,
  method: string,
  value: string,
  label: string,
  currency = 'USD',
): Promise<{ made?: Made; ex: Exchange }> {
  const merchantPayoutNo = ctx.t.newNo('payout');
  const ex = await createPayout(
    ctx.t,
    { payoutNo: merchantPayoutNo, method, amount: currency === 'USD' ? usd(value) : { currency, value } },
    { as: role, label },
  );
  const a = answerOf(ex);
  if (!accepted(a)) return { ex };
  const no = readPath(a.data, ctx.loaded.profile.payouts!.data.payoutNo);
  return { made: { payoutNo: typeof no === 'string' ? no : undefined, merchantPayoutNo, method, role, ex, value, currency }, ex };
}

/**
 * Gives the money back: cancel where the method cancels, else (or when the cancel is refused) settle as failed through
 * sandbox.settlePayout. False when neither gave it back; the reason is then kept for the doctor's warning.
 */
async function release(ctx: DoctorContext, m: Made, verify: boolean): Promise<boolean> {
  const p = ctx.loaded.profile;
  const why: string[] = [];
  if (p.payouts!.methods[m.method]?.cancel && ctx.t.has('payoutCancel')) {
    const by = lookupFor(ctx.t, 'payoutCancel', PAYOUT_NUMBERS, { serviceNo: m.payoutNo, merchantNo: m.merchantPayoutNo });
    // A path carrying the service number the create answer did not give: no cancel can be sent, settle it instead.
    if (Object.values(by).some((v) => v === undefined)) return settleToRelease(ctx, m, verify, why);
    const ex = await cancelPayout(ctx.t, by, { as: m.role, label: 'doctor: release the payout (cancel)' });
    const a = answerOf(ex);
    if (verify) {
      if (accepted(a))
        add(ctx, 'verified', `payouts.methods.${m.method}.cancel`, `a ${m.method} payout can be cancelled (cancelBy fields included)`, {
          answered: describeAnswer(a),
          ex: [ex],
        });
      else if (unknownPath(a)) pathItem(ctx, 'payoutCancel', a, ex);
      else if (a.key === 'notSupported')
        add(ctx, 'wrong', `payouts.methods.${m.method}.cancel`, `a ${m.method} payout can be cancelled`, {
          expected: 'code 0',
          answered: describeAnswer(a),
          fix: `set payouts.methods.${m.method}.cancel to false if the method does not cancel`,
          ex: [ex],
        });
      // Only notSupported says the channel does not cancel; notFound is about the number sent (payouts.cancelBy), any
      // other refusal about something else again.
      else
        add(ctx, 'not-verifiable', `payouts.methods.${m.method}.cancel`, `a ${m.method} payout can be cancelled`, {
          answered:
            `${describeAnswer(a)}: a refusal that does not say the channel ` +
            `cannot cancel (check payouts.cancelBy and endpoints.payoutCancel)`,
          ex: [ex],
        });
    }
    if (accepted(a)) return true;
    why.push(`its cancel was answered ${describeAnswer(a)}`);
  }
  return settleToRelease(ctx, m, verify, why);
}

/**
 * Gives the money back through sandbox.settlePayout (as failed). False when it could not: `why` (what was tried before)
 * gets the reason, kept for the doctor's warning.
 */
async function settleToRelease(ctx: DoctorContext, m: Made, verify: boolean, why: string[]): Promise<boolean> {
  const p = ctx.loaded.profile;
  const settle = p.sandbox?.settlePayout;
  const needsServiceNo = settle !== undefined && JSON.stringify(settle.template).includes(`\${payoutNo}`);
  if (settle && (m.payoutNo || !needsServiceNo)) {
    const ex = await control(
      ctx,
      'settlePayout',
      { payoutNo: m.payoutNo, merchantPayoutNo: m.merchantPayoutNo, outcome: settle.outcomes.failed, reason: settle.reason ?? 'doctor' },
      m.role,
    );
    if (verify) controlItem(ctx, 'settlePayout', `settles a fresh payout as ${settle.outcomes.failed}`, ex, [], sentAtOf(m.ex));
    if (accepted(answerOf(ex))) return true;
    why.push(`sandbox.settlePayout (${settle.outcomes.failed}) was answered ${describeAnswer(answerOf(ex))}`);
  } else if (settle) why.push('sandbox.settlePayout needs the payout_no, which the creation answer did not show at payouts.data.payoutNo');
  else why.push('the profile declares no sandbox.settlePayout');
  if (!p.payouts!.methods[m.method]?.cancel) why.unshift(`${m.method} does not cancel (payouts.methods.${m.method}.cancel)`);
  kept(ctx).push(`${m.role}'s ${m.method} payout ${m.payoutNo ?? m.merchantPayoutNo} of ${m.value} ${m.currency}: ${why.join('; ')}`);
  return false;
}

/** Says, before the checks start, every payout the doctor made and could not give back (and why). */
function sayKeptBack(ctx: DoctorContext): void {
  const list = kept(ctx);
  if (list.length === 0) return;
  add(ctx, 'warning', 'sandbox.settlePayout', 'every payout the doctor made is given back before the checks start', {
    answered: `not given back: ${list.join(' | ')}`,
    fix:
      'declare a way to give a payout back (payouts.methods.<method>.cancel with ' +
      'payouts.cancelBy, or sandbox.settlePayout), or reset the balances on the target',
  });
}

export async function checkPayouts(ctx: DoctorContext): Promise<void> {
  const p = ctx.loaded.profile;
  if (!p.payouts || !ctx.t.has('payoutCreate')) return;
  ctx.progress('payout methods per merchant, limits');
  const made: Made[] = [];
  let pathSeen = false;
  const tasks: (() => Promise<void>)[] = [];
  for (const role of actingRoles(ctx)) {
    for (const m of payoutMethodsOf(ctx, role)) {
      tasks.push(async () => {
        // The role's own facts: its currency and range for the method, never the primary's.
        const { currency, value, limited } = probeOf(ctx, role, m.method);
        const what = `${m.method} payouts are enabled for ${role} (${value} ${currency})`;
        // A payout the role's balance does not cover with its fee is refused by a correct target (insufficientFunds, after
        // the method check: nothing moves); one let through is given back like any other.
        const r = await payout(ctx, role, m.method, value, `doctor: ${m.method} payout for ${role}`, currency);
        const a = answerOf(r.ex);
        if (unknownPath(a)) {
          if (!pathSeen) pathItem(ctx, 'payoutCreate', a, r.ex);
          pathSeen = true;
          return;
        }
        if (r.made) {
          made.push(r.made);
          add(ctx, 'verified', m.path, what, { answered: describeAnswer(a), ex: [r.ex] });
        } else if (a.key === 'insufficientFunds') {
          // The balance is checked after the method: a merchant short of funds has the method enabled.
          add(ctx, 'verified', m.path, `${m.method} payouts are enabled for ${role}`, {
            answered: `${describeAnswer(a)}: a refusal that comes after the method check (${role}'s balance is below ${value})`,
            ex: [r.ex],
          });
        } else if (!METHOD_KEYS.has(a.key ?? '')) {
          // A refusal that names no method (the amount out of range, a currency, a field) says nothing of the method
          // being enabled: an undeclared minimum above the probe's amount explains an amountOutOfRange.
          add(ctx, 'not-verifiable', m.path, what, {
            answered:
              `${describeAnswer(a)}: a refusal whose key does not name the method` +
              `${limited ? '' : ` (the profile declares no limits.payouts.${m.method}: the method's minimum may be above ${value})`}`,
            ex: [r.ex],
          });
        } else {
          const fix = m.declared
            ? `remove ${m.method} from merchants.${role}.payoutMethods (or enable it for this merchant on the target)`
            : `declare merchants.${role}.payoutMethods: the payout methods the target enables for ${role} (without ${m.method})`;
          add(ctx, 'wrong', m.path, what, { expected: 'the payout accepted (code 0)', answered: describeAnswer(a), fix, ex: [r.ex] });
        }
      });
    }
  }
  tasks.push(() => checkNotForPayouts(ctx));
  await pool(tasks, 6);
  const first = made.find((m) => m.role === 'primary');
  // Behind a 100 ms round trip this stage was one chain of about 25 round trips. The primary's limit probes
  // now run beside the record and the releases (themselves side by side); what needs money given back starts after its
  // release (the low-balance probes, the EUR payouts, the payout settled as success), so the primary never holds more
  // at once than when every payout made above was still held during the limit probes. Items keep their former order.
  const own = () => ownContext(ctx);
  const parts = { record: own(), limits: own(), usdOnly: own(), releases: own(), lowBalance: own(), success: own() };
  try {
    // Each part a kind of fact of its own (budget.ts): the budget refusing one part's depth ends that part alone. Giving
    // the payouts back is never refused: money the doctor moved goes back whatever the budget.
    await Promise.all([
      kind(parts.limits, 'limits.payouts', () => checkPayoutLimits(parts.limits)),
      (async () => {
        if (first) await kind(parts.record, 'payouts.data', () => checkPayoutRecord(parts.record, first));
        const lowBalanceKept = await outsideKinds(() => releaseAll(parts.releases, made));
        await Promise.all([
          kind(parts.lowBalance, 'merchants.lowBalance.payouts', () => checkLowBalanceAfter(parts.lowBalance, lowBalanceKept)),
          (async () => {
            await kind(parts.usdOnly, 'payouts.methods.usdOnly', () => checkUsdOnly(parts.usdOnly));
            await kind(parts.success, 'sandbox.settlePayout', () => settleAsSuccess(parts.success, first));
          })(),
        ]);
      })(),
    ]);
  } finally {
    flushInto(ctx, Object.values(parts));
  }
  sayKeptBack(ctx);
}

/**
 * Gives back every payout made per merchant, side by side (each its own cancel or settle); the first of the primary of
 * each method verifies its cancel flag, or the settle control. Its items read in the payouts' order. False when a
 * payout of the low-balance merchant could not be given back.
 */
async function releaseAll(ctx: DoctorContext, made: readonly Made[]): Promise<boolean> {
  const p = ctx.loaded.profile;
  const verified = new Set<string>();
  let settleVerified = false;
  let lowBalanceKept = true;
  const chains: ((own: DoctorContext) => Promise<void>)[] = [];
  for (const m of made) {
    const cancels = p.payouts!.methods[m.method]?.cancel === true;
    const verify = m.role === 'primary' && (cancels ? !verified.has(m.method) : !settleVerified);
    if (verify) {
      if (cancels) verified.add(m.method);
      else settleVerified = true;
    }
    const refuse = !cancels && m.role === 'primary' && !verified.has(`no-cancel:${m.method}`) && ctx.t.has('payoutCancel');
    if (refuse) verified.add(`no-cancel:${m.method}`);
    chains.push(async (own) => {
      if (refuse && !(await refusesCancel(own, m))) return;
      if (!(await release(own, m, verify)) && m.role === 'lowBalance') lowBalanceKept = false;
    });
  }
  const side = sideBySide(ctx, chains);
  try {
    await pool(side.tasks, 6);
  } finally {
    side.flush();
  }
  return lowBalanceKept;
}

/** A payout of a method that does not cancel, cancelled: false when the target cancelled it (nothing left to release). */
async function refusesCancel(ctx: DoctorContext, m: Made): Promise<boolean> {
  const by = lookupFor(ctx.t, 'payoutCancel', PAYOUT_NUMBERS, { serviceNo: m.payoutNo, merchantNo: m.merchantPayoutNo }, 'merchantNo');
  if (Object.values(by).some((v) => v === undefined)) return true;
  const ex = await cancelPayout(ctx.t, by, { as: m.role, label: `doctor: a ${m.method} payout cannot be cancelled` });
  const a = answerOf(ex);
  // A moved cancel path's "no such path" is no refusal (refused): run.ts names the path, nothing is said of the method.
  // Only notSupported ("Payout channel does not support cancel") shows it; notFound is about the number sent.
  if (refused(a) && a.key === 'notSupported')
    add(ctx, 'verified', `payouts.methods.${m.method}.cancel`, `a ${m.method} payout cannot be cancelled`, {
      answered: describeAnswer(a),
      ex: [ex],
    });
  else if (refused(a))
    add(ctx, 'not-verifiable', `payouts.methods.${m.method}.cancel`, `a ${m.method} payout cannot be cancelled`, {
      answered: `${describeAnswer(a)}: a refusal whose key does not say the channel cannot cancel (422 notSupported does)`,
      ex: [ex],
    });
  else if (accepted(a)) {
    // A channel without cancel must refuse it (422 notSupported): a cancel let through may be the target's violation.
    doubt(ctx, `payouts.methods.${m.method}.cancel`, `a ${m.method} payout cannot be cancelled`, ['err.po.cancel-unsupported'], {
      expected: 'a refusal',
      answered: `${describeAnswer(a)}: the target cancelled it`,
      fix: `set payouts.methods.${m.method}.cancel to true`,
      ex: [ex],
    });
    return false;
  }
  return true;
}

async function checkLowBalanceAfter(ctx: DoctorContext, lowBalanceKept: boolean): Promise<void> {
  const p = ctx.loaded.profile;
  if (lowBalanceKept) await checkLowBalance(ctx);
  else if (p.merchants.lowBalance?.payoutBalance !== undefined)
    add(ctx, 'not-verifiable', 'merchants.lowBalance.payoutBalance', "the low-balance merchant's payout balance", {
      answered: `a payout the doctor made for lowBalance could not be given back, so its balance is no longer whole: ${kept(ctx)
        .filter((k) => k.startsWith('lowBalance'))
        .join(' | ')}`,
    });
}

/** The settle control's success outcome on a payout of its own: the smallest amount leaves the primary's sandbox balance. */
async function settleAsSuccess(ctx: DoctorContext, first: Made | undefined): Promise<void> {
  const p = ctx.loaded.profile;
  if (!p.sandbox?.settlePayout || !first?.payoutNo) return;
  const { currency, value } = probeOf(ctx, 'primary', first.method);
  if (currency !== 'USD') return;
  const r = await payout(ctx, 'primary', first.method, value, 'doctor: a payout to settle as success');
  if (!r.made?.payoutNo) return;
  const s = p.sandbox.settlePayout;
  // The one payout the doctor spends on purpose: no other answer shows that this outcome is the control's. Said here.
  const cost = costCents(ctx, first.method, value);
  const spent = cost === undefined ? `${value} USD and its fee, if any` : `${valueOfCents(cost)} USD, its fee included`;
  controlItem(
    ctx,
    'settlePayout',
    `settles a fresh payout as ${s.outcomes.success} (it is spent: ${spent}, leaves the primary's payout balance)`,
    await control(ctx, 'settlePayout', {
      payoutNo: r.made.payoutNo,
      merchantPayoutNo: r.made.merchantPayoutNo,
      outcome: s.outcomes.success,
      reason: s.reason ?? 'doctor',
    }),
    [r.ex],
    sentAtOf(r.ex),
  );
}

/**
 * merchants.lowBalance.payoutBalance: the smallest payout whose fee takes it above the balance is refused, and the largest
 * the balance covers with its fee accepted (then released). Run after every other payout is released, so the balance is
 * whole. A balance the profile says payments credit is not asked: it is only where it started.
 */
async function checkLowBalance(ctx: DoctorContext): Promise<void> {
  const p = ctx.loaded.profile;
  const balance = p.merchants.lowBalance?.payoutBalance;
  if (!ctx.loaded.merchants.lowBalance || balance === undefined) return;
  const path = 'merchants.lowBalance.payoutBalance';
  if (balanceMoves(p, 'payout', 'USD')) {
    add(ctx, 'not-verifiable', path, "the low-balance merchant's payout balance", {
      answered: chargebacksMove(p, 'payout')
        ? 'not asked: the profile says chargebacks debit it (balances.chargeback), so it is only where it started'
        : 'not asked: the profile says successful payments credit it (balances.paymentsCredit), so it is only where it started',
    });
    return;
  }
  // The low-balance merchant's own facts: its USD methods and ranges, its fees.
  const low = factsOf(p, 'lowBalance');
  const fits = (method: string, v: string) => {
    const lim = low.payoutLimits(method, 'USD');
    return !lim || (centsOf(lim.min) <= centsOf(v) && centsOf(v) <= centsOf(lim.max));
  };
  const cost = (m: string) => (c: bigint) => payoutCost(p, m, c, 'USD', 'lowBalance');
  const aboveOf = (m: string): string | undefined => {
    const c = smallestAbove(cost(m), centsOf(balance));
    return c === undefined ? undefined : valueOfCents(c);
  };
  const wholeOf = (m: string): string | undefined => {
    const c = largestWithin(cost(m), centsOf(balance));
    return c === undefined ? undefined : valueOfCents(c);
  };
  const releasable = (m: string) => (low.payoutMethod(m)?.cancel && ctx.t.has('payoutCancel')) || p.sandbox?.settlePayout !== undefined;
  // A balance above a method's maximum is still shown by a payout of that maximum, which it covers (a random genome of
  // test/legal-targets/doctor-changed.test.ts: a balance declared 100 times too high went unnoticed there).
  const within = (m: string): string | undefined => {
    const whole = wholeOf(m);
    if (whole === undefined) return undefined;
    if (fits(m, whole)) return whole;
    const max = low.payoutLimits(m, 'USD')?.max;
    return max !== undefined && centsOf(max) < centsOf(whole) && fits(m, max) ? max : undefined;
  };
  const candidates = payoutMethodsOf(ctx, 'lowBalance')
    .map((m) => m.method)
    .filter((m) => low.takesCurrency(m, 'USD') === true && releasable(m) && within(m) !== undefined);
  const method = candidates.find((m) => aboveOf(m) !== undefined && fits(m, aboveOf(m)!) && within(m) === wholeOf(m)) ?? candidates[0];
  if (!method) {
    add(ctx, 'not-verifiable', path, `the low-balance merchant can pay out ${balance} and no more`, {
      answered:
        'no payout method of lowBalance holds the amount its balance covers (its fee ' +
        'included) in its limits and can be given back (cancel, or sandbox.settlePayout)',
    });
    return;
  }
  const covered = within(method)!;
  const above = aboveOf(method);
  const feeSaid = (v: string) => {
    const c = payoutCost(p, method, centsOf(v), 'USD', 'lowBalance');
    return c === undefined || c === centsOf(v) ? '' : ` (${valueOfCents(c)} with its fee)`;
  };
  const probes: [string, 'refused' | 'accepted'][] = [
    ...(above !== undefined && fits(method, above) ? [[above, 'refused'] as [string, 'refused']] : []),
    [covered, 'accepted'],
  ];
  for (const [value, want] of probes) {
    const claim =
      want === 'refused'
        ? `a payout of ${value}${feeSaid(value)}, above the low-balance merchant's ${balance}, is refused`
        : covered === wholeOf(method)
          ? `the low-balance merchant can pay out ${covered}${feeSaid(covered)} of its ${balance}`
          : `the low-balance merchant can pay out ${covered} (${method}'s maximum), which its ${balance} covers`;
    const r = await payout(ctx, 'lowBalance', method, value, `doctor: ${claim}`);
    const a = answerOf(r.ex);
    if (unanswered(ctx, path, claim, a, r.ex)) continue;
    const fix =
      "give in merchants.lowBalance.payoutBalance the merchant's payout balance on the target (a sandbox may need it reset), " +
      'and in fees.payouts the fee it takes with a payout';
    if (want === 'refused') {
      if (refused(a) && a.key === 'insufficientFunds') add(ctx, 'verified', path, claim, { answered: describeAnswer(a), ex: [r.ex] });
      else if (refused(a))
        add(ctx, 'not-verifiable', path, claim, { answered: `${describeAnswer(a)}: a refusal whose key is not about funds`, ex: [r.ex] });
      // A payout above the balance must be refused (insufficientFunds): letting it through may be the target's violation.
      else doubt(ctx, path, claim, ['err.po.insufficient-funds'], { expected: 'a refusal', answered: describeAnswer(a), fix, ex: [r.ex] });
    } else if (accepted(a)) add(ctx, 'verified', path, claim, { answered: describeAnswer(a), ex: [r.ex] });
    else if (a.key === 'insufficientFunds')
      add(ctx, 'wrong', path, claim, { expected: 'the payout accepted', answered: describeAnswer(a), fix, ex: [r.ex] });
    else
      add(ctx, 'not-verifiable', path, claim, {
        answered: `${describeAnswer(a)}: a refusal whose key is not about funds says nothing of the balance`,
        ex: [r.ex],
      });
    if (r.made) await release(ctx, r.made, false);
  }
}

/**
 * payouts.methods.*.usdOnly: a EUR payout of the primary at the method's minimum. A USD-only method
 * must refuse it (the document fixes the refusal: a doubt if it is let through); a method that takes
 * other currencies refusing it with an amount or currency answer shows the profile wrong.
 */
async function checkUsdOnly(ctx: DoctorContext): Promise<void> {
  const p = ctx.loaded.profile;
  const facts = factsOf(p, 'primary');
  const primary = new Set(payoutMethodsOf(ctx, 'primary').map((m) => m.method));
  const releasable = (method: string) =>
    (facts.payoutMethod(method)?.cancel && ctx.t.has('payoutCancel')) || p.sandbox?.settlePayout !== undefined;
  for (const method of facts.payoutMethods) {
    // The primary's facts: whether the method takes EUR (its currency set, or the older usdOnly), where it is said.
    const takesEur = facts.takesCurrency(method, 'EUR');
    if (takesEur === undefined || !primary.has(method)) continue;
    const m = { usdOnly: !takesEur };
    const said = facts.payoutMethod(method)?.currencies ? 'currencies' : 'usdOnly';
    const path = whereSaid(p, 'primary', ['payouts', 'methods', method, said]);
    // The method's minimum in EUR (its own EUR range where the profile gives one): inside every declared range.
    const lim = facts.payoutLimitsDeclared(method);
    const value = lim ? facts.payoutLimits(method, 'EUR')!.min : '1.00';
    if (!m.usdOnly && !balanceCovers(ctx, 'primary', method, value, 'EUR')) {
      add(ctx, 'not-verifiable', path, `${method} pays out in other currencies than USD`, {
        answered: `not asked: the primary's declared EUR payout balance does not cover ${value} EUR and its fee`,
      });
      continue;
    }
    if (!m.usdOnly && !releasable(method)) {
      add(ctx, 'not-verifiable', path, `${method} pays out in other currencies than USD`, {
        answered: 'not asked: a EUR payout could not be given back (no cancel, no sandbox.settlePayout)',
      });
      continue;
    }
    const claim = m.usdOnly
      ? `${method} pays out in USD only: a EUR payout is refused`
      : `${method} pays out in other currencies than USD: a EUR payout is accepted`;
    const r = await payout(ctx, 'primary', method, value, `doctor: ${claim}`, 'EUR');
    const a = answerOf(r.ex);
    if (unanswered(ctx, path, claim, a, r.ex)) continue;
    if (r.made) await release(ctx, r.made, false);
    const fix = `set ${path} to what the vendor documents for ${method}`;
    // A USD-only method refuses with one of the payout rows that name a currency (5008 amountOutOfRange, "for example a
    // non-USD payout where only USD is accepted", or notSupported); another refusal says nothing of the currency.
    const currencyKey = a.key === 'amountOutOfRange' || a.key === 'notSupported';
    if (m.usdOnly ? refused(a) && currencyKey : accepted(a) || a.key === 'insufficientFunds')
      add(ctx, 'verified', path, claim, { answered: describeAnswer(a), ex: [r.ex] });
    else if (m.usdOnly && refused(a))
      add(ctx, 'not-verifiable', path, claim, { answered: `${describeAnswer(a)}: a refusal that does not name the currency`, ex: [r.ex] });
    else if (m.usdOnly)
      doubt(ctx, path, claim, ['payout.usd-only-methods'], {
        expected: 'a refusal',
        answered: `${describeAnswer(a)}: the target accepted it`,
        fix,
        ex: [r.ex],
      });
    else if (a.key === 'notSupported')
      add(ctx, 'wrong', path, claim, {
        expected: 'the payout accepted',
        answered: `${describeAnswer(a)}: the payout currency is not supported`,
        fix,
        ex: [r.ex],
      });
    else if (a.key === 'amountOutOfRange' && lim && (await eurRangeIsolated(ctx, method, value, claim, path, r.ex))) return;
    else if (a.key === 'amountOutOfRange' && lim)
      // "Amount or currency not accepted", at the minimum of the range the profile declares for EUR, and again inside it
      // (or no second amount could be asked): one of the two declared facts is wrong, and the answers do not say which.
      add(ctx, 'wrong', path, claim, {
        expected: 'the payout accepted',
        answered:
          `${describeAnswer(a)}: amount or currency refused at ${value} EUR, the minimum the profile declares for EUR — ` +
          `either the method takes USD only, or its EUR range is another (limits.payouts.${method}.byCurrency.EUR)`,
        fix: `${fix}, or give in limits.payouts.${method}.byCurrency.EUR the method's EUR range`,
        ex: [r.ex],
      });
    else if (a.key === 'amountOutOfRange')
      // No declared range: an undeclared minimum above the probe's amount explains the refusal as well as the currency.
      add(ctx, 'not-verifiable', path, claim, {
        answered:
          `${describeAnswer(a)}: amount or currency refused, and the profile ` +
          `declares no limits.payouts.${method} (its minimum may be above ${value})`,
        ex: [r.ex],
      });
    else
      add(ctx, 'not-verifiable', path, claim, { answered: `${describeAnswer(a)}: a refusal that does not name the currency`, ex: [r.ex] });
  }
}

/**
 * A EUR payout refused for its amount or currency at the minimum the profile declares for EUR: a second one inside that
 * range tells the two facts apart. Taken, the currency is verified and the declared EUR range is WRONG on its own (true
 * when so answered, and the items are added); refused too, or not asked (a balance that does not cover it), nothing is
 * isolated (false). Asked only where a EUR payout can be given back (checkUsdOnly's condition for its first).
 */
async function eurRangeIsolated(
  ctx: DoctorContext,
  method: string,
  refusedAt: string,
  claim: string,
  path: string,
  first: Exchange,
): Promise<boolean> {
  const facts = factsOf(ctx.loaded.profile, 'primary');
  const inside = amountInside(facts.payoutLimits(method, 'EUR')!);
  if (inside === refusedAt || !balanceCovers(ctx, 'primary', method, inside, 'EUR')) return false;
  const r = await payout(ctx, 'primary', method, inside, `doctor: ${claim} (inside the declared EUR range)`, 'EUR');
  if (r.made) await release(ctx, r.made, false);
  if (!accepted(answerOf(r.ex))) return false;
  add(ctx, 'verified', path, claim, { answered: `${describeAnswer(answerOf(r.ex))} at ${inside} EUR`, ex: [r.ex] });
  const range = whereSaid(ctx.loaded.profile, 'primary', ['limits', 'payouts', method, 'byCurrency', 'EUR']);
  add(ctx, 'wrong', range, `${method} pays out in EUR from ${refusedAt}`, {
    expected: `a payout of ${refusedAt} EUR accepted`,
    answered: `${describeAnswer(answerOf(first))} at ${refusedAt} EUR, the minimum the profile declares, and ${inside} EUR accepted`,
    fix: `give in ${range} the method's EUR range (its minimum is above ${refusedAt})`,
    ex: [first, r.ex],
  });
  return true;
}

async function checkNotForPayouts(ctx: DoctorContext): Promise<void> {
  const method = ctx.loaded.profile.payouts!.notForPayouts;
  if (method === undefined) return;
  const r = await payout(ctx, 'primary', method, '10.00', 'doctor: payouts.notForPayouts');
  const a = answerOf(r.ex);
  const what = `${method} is not available for payouts: a payout with it is refused`;
  if (unanswered(ctx, 'payouts.notForPayouts', what, a, r.ex)) return;
  if (refused(a)) add(ctx, 'verified', 'payouts.notForPayouts', what, { answered: describeAnswer(a), ex: [r.ex] });
  else {
    // The document fixes the refusal of a method not available for payouts (5007, e.g. CASH_APP).
    doubt(ctx, 'payouts.notForPayouts', what, ['err.po.unsupported-payout-method'], {
      expected: 'a refusal',
      answered: `${describeAnswer(a)}: the target accepted it`,
      fix: 'choose for payouts.notForPayouts a payment method the target refuses for payouts',
      ex: [r.ex],
    });
    if (r.made) await release(ctx, r.made, false);
  }
}

async function checkPayoutRecord(ctx: DoctorContext, m: Made): Promise<void> {
  const p = ctx.loaded.profile.payouts!;
  const a = answerOf(m.ex);
  const no = dataPathItem(ctx, 'payouts.data.payoutNo', 'a payout answer', a.data, p.data.payoutNo, m.ex) as string | undefined;
  dataPathItem(ctx, 'payouts.data.status', 'a payout answer', a.data, p.data.status, m.ex, 'any');
  if (!ctx.t.has('payoutQuery')) return;
  for (const [field, by] of [
    ['serviceNo', { serviceNo: no }],
    ['merchantNo', { merchantNo: m.merchantPayoutNo }],
  ] as const) {
    if (field === 'serviceNo' && no === undefined) continue;
    // A path carrying the payout's number says how it is found: a body field it leaves out is not asked about.
    const carried = carriedBy(ctx.t.pathTemplate('payoutQuery'));
    if (carried.size > 0 && !carried.has(PAYOUT_NUMBERS[field])) continue;
    const ex = await queryPayout(ctx.t, by, { label: `doctor: query the payout by ${field}` });
    const q = answerOf(ex);
    // A wrong query path is its own item (basics): the fields cannot be judged through it.
    if (unknownPath(q)) continue;
    const found = accepted(q) && (no === undefined || readPath(q.data, p.data.payoutNo) === no);
    const item = {
      path: carried.size > 0 ? 'endpoints.payoutQuery' : `payouts.queryBy.${field}`,
      assumption:
        carried.size > 0 ? `a payout is found by its ${PAYOUT_NUMBERS[field]} in the path` : `a payout is found by ${p.queryBy[field]}`,
      record: 'payout',
      clauses: ['payout.ids'],
    };
    const notFound = q.key === 'notFound' || q.key === 'orderNotFound';
    lookupItem(ctx, item, found ? 'found' : notFound ? 'not-found' : 'other', describeAnswer(q), ex);
  }
}

/** The primary's payouts at each declared maximum are accepted, one cent outside refused; accepted ones released. */
async function checkPayoutLimits(ctx: DoctorContext): Promise<void> {
  const p = ctx.loaded.profile;
  // The primary's own facts: its USD range of each method that takes USD for it, said where its facts say it.
  const facts = factsOf(p, 'primary');
  const primary = new Set(payoutMethodsOf(ctx, 'primary').map((m) => m.method));
  const releasable = (method: string) =>
    (facts.payoutMethod(method)?.cancel && ctx.t.has('payoutCancel')) || p.sandbox?.settlePayout !== undefined;
  for (const method of facts.payoutMethods) {
    const lim = facts.payoutLimits(method, 'USD');
    if (!lim || !primary.has(method) || facts.takesCurrency(method, 'USD') !== true) continue;
    const base = whereSaid(p, 'primary', ['limits', 'payouts', method]);
    const probes: { value: string; want: 'accepted' | 'refused'; path: string; claim: string }[] = [];
    // The minimum was paid out per merchant above; the maximum only where the doctor can give it back and the primary's
    // declared balance covers it with its fee.
    if (releasable(method) && balanceCovers(ctx, 'primary', method, lim.max))
      probes.push({ value: lim.max, want: 'accepted', path: `${base}.max`, claim: `${method} pays out its maximum ${lim.max}` });
    else if (releasable(method))
      add(ctx, 'not-verifiable', `${base}.max`, `${method} pays out its maximum ${lim.max}`, {
        answered: "not asked: the primary's declared payout balance does not cover the maximum and its fee (fees.payouts)",
      });
    if (centsOf(lim.min) > 1n)
      probes.push({
        value: valueOfCents(centsOf(lim.min) - 1n),
        want: 'refused',
        path: `${base}.min`,
        claim: `${method} refuses a payout of ${valueOfCents(centsOf(lim.min) - 1n)}, below its minimum`,
      });
    probes.push({
      value: valueOfCents(centsOf(lim.max) + 1n),
      want: 'refused',
      path: `${base}.max`,
      claim: `${method} refuses a payout of ${valueOfCents(centsOf(lim.max) + 1n)}, above its maximum`,
    });
    for (const pr of probes) {
      const r = await payout(ctx, 'primary', method, pr.value, `doctor: ${pr.claim}`);
      const a = answerOf(r.ex);
      if (unanswered(ctx, pr.path, pr.claim, a, r.ex)) continue;
      // A range is shown by 5008 amountOutOfRange only: a refusal for funds or anything else says nothing of it.
      const ok = pr.want === 'accepted' ? accepted(a) : refused(a) && a.key === 'amountOutOfRange';
      if (ok) add(ctx, 'verified', pr.path, pr.claim, { answered: describeAnswer(a), ex: [r.ex] });
      else if (refused(a) && a.key !== 'amountOutOfRange')
        add(ctx, 'not-verifiable', pr.path, pr.claim, {
          answered:
            `${describeAnswer(a)}: a refusal whose key is not about the range` +
            (a.key === 'insufficientFunds'
              ? ' (the balance does not cover the amount and its fee: fees.payouts, payouts.balances.primary)'
              : ''),
          ex: [r.ex],
        });
      else if (pr.want === 'refused')
        doubt(ctx, pr.path, pr.claim, ['limit.amount.channel-range', 'err.po.amount-out-of-range'], {
          expected: 'a refusal',
          answered: describeAnswer(a),
          fix: `give in ${base} the range the vendor documents for ${method} payouts`,
          ex: [r.ex],
        });
      else
        add(ctx, 'wrong', pr.path, pr.claim, {
          expected: 'the payout accepted',
          answered: describeAnswer(a),
          fix: `give in ${base} the range the vendor documents for ${method} payouts`,
          ex: [r.ex],
        });
      if (r.made) await release(ctx, r.made, false);
    }
  }
}
