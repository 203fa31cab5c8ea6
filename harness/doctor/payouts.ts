/**
 * Payout methods per merchant, payout limits, the payout answer's data paths, the query and cancel
 * fields, each method's cancel flag, the method not for payouts, and the settle control. Every
 * payout the doctor makes is released again (cancelled, or settled as failed) where the profile
 * gives a way, so merchant balances stay as they were.
 */
import type { Exchange } from '../exchange.js';
import { cancelPayout, createPayout, queryPayout, usd } from '../ops.js';
import type { MerchantRef } from '../profile/types.js';
import type { MerchantRole } from '../target.js';
import { actingRoles, add, doubt, flushInto, lookupItem, ownContext, pool, sideBySide, unanswered, type DoctorContext } from './context.js';
import { accepted, answerOf, describeAnswer, refused, unknownPath } from './model.js';
import { pathItem } from './basics.js';
import { dataPathItem, readPath } from './payments.js';
import { control, controlItem } from './control.js';
import { centsOf, valueOfCents } from '../money.js';

export function payoutMethodsOf(ctx: DoctorContext, role: MerchantRole): { method: string; path: string; declared: boolean }[] {
  const p = ctx.loaded.profile;
  const ref = p.merchants[role] as MerchantRef;
  if (ref.payoutMethods)
    return ref.payoutMethods.map((method, i) => ({ method, path: `merchants.${role}.payoutMethods[${i}]`, declared: true }));
  return Object.keys(p.payouts?.methods ?? {}).map((method) => ({
    method,
    path: role === 'primary' ? `payouts.methods.${method}` : `merchants.${role}.payoutMethods`,
    declared: false,
  }));
}

interface Made {
  payoutNo?: string;
  merchantPayoutNo: string;
  method: string;
  role: MerchantRole;
  ex: Exchange;
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
  return { made: { payoutNo: typeof no === 'string' ? no : undefined, merchantPayoutNo, method, role, ex }, ex };
}

/** Gives the money back: cancel where the method cancels, else settle as failed. False when neither is possible. */
async function release(ctx: DoctorContext, m: Made, verify: boolean): Promise<boolean> {
  const p = ctx.loaded.profile;
  if (p.payouts!.methods[m.method]?.cancel && ctx.t.has('payoutCancel')) {
    const ex = await cancelPayout(
      ctx.t,
      p.payouts!.cancelBy.serviceNo && m.payoutNo ? { serviceNo: m.payoutNo } : { merchantNo: m.merchantPayoutNo },
      { as: m.role, label: 'doctor: release the payout (cancel)' },
    );
    if (verify) {
      const a = answerOf(ex);
      if (accepted(a))
        add(ctx, 'verified', `payouts.methods.${m.method}.cancel`, `a ${m.method} payout can be cancelled (cancelBy fields included)`, {
          answered: describeAnswer(a),
          ex: [ex],
        });
      else if (unknownPath(a)) pathItem(ctx, 'payoutCancel', a, ex);
      else
        add(ctx, 'wrong', `payouts.methods.${m.method}.cancel`, `a ${m.method} payout can be cancelled`, {
          expected: 'code 0',
          answered: describeAnswer(a),
          fix: `set payouts.methods.${m.method}.cancel to false if the method does not cancel, or check payouts.cancelBy`,
          ex: [ex],
        });
    }
    return accepted(answerOf(ex));
  }
  const settle = p.sandbox?.settlePayout;
  if (settle && m.payoutNo) {
    const ex = await control(
      ctx,
      'settlePayout',
      { payoutNo: m.payoutNo, merchantPayoutNo: m.merchantPayoutNo, outcome: settle.outcomes.failed, reason: settle.reason ?? 'doctor' },
      m.role,
    );
    if (verify) controlItem(ctx, 'settlePayout', `settles a fresh payout as ${settle.outcomes.failed}`, ex);
    return accepted(answerOf(ex));
  }
  return false;
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
        const lim = p.limits?.payouts?.[m.method];
        const value = lim ? lim.min : '1.00';
        const r = await payout(ctx, role, m.method, value, `doctor: ${m.method} payout for ${role}`);
        const a = answerOf(r.ex);
        if (unknownPath(a)) {
          if (!pathSeen) pathItem(ctx, 'payoutCreate', a, r.ex);
          pathSeen = true;
          return;
        }
        const what = `${m.method} payouts are enabled for ${role} (${value} USD)`;
        if (r.made) {
          made.push(r.made);
          add(ctx, 'verified', m.path, what, { answered: describeAnswer(a), ex: [r.ex] });
        } else if (a.key === 'insufficientFunds') {
          // The balance is checked after the method: a merchant short of funds has the method enabled.
          add(ctx, 'verified', m.path, `${m.method} payouts are enabled for ${role}`, {
            answered: `${describeAnswer(a)}: a refusal that comes after the method check (${role}'s balance is below ${value})`,
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
    await Promise.all([
      checkPayoutLimits(parts.limits),
      (async () => {
        if (first) await checkPayoutRecord(parts.record, first);
        const lowBalanceKept = await releaseAll(parts.releases, made);
        await Promise.all([
          checkLowBalanceAfter(parts.lowBalance, lowBalanceKept),
          (async () => {
            await checkUsdOnly(parts.usdOnly);
            await settleAsSuccess(parts.success, first);
          })(),
        ]);
      })(),
    ]);
  } finally {
    flushInto(ctx, Object.values(parts));
  }
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
  const ex = await cancelPayout(ctx.t, { merchantNo: m.merchantPayoutNo }, { label: `doctor: a ${m.method} payout cannot be cancelled` });
  const a = answerOf(ex);
  // A moved cancel path's "no such path" is no refusal (refused): run.ts names the path, nothing is said of the method.
  if (refused(a))
    add(ctx, 'verified', `payouts.methods.${m.method}.cancel`, `a ${m.method} payout cannot be cancelled`, {
      answered: describeAnswer(a),
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
      answered:
        'a payout the doctor made for lowBalance could not be given back (no ' +
        'cancel, no sandbox.settlePayout), so its balance is no longer whole',
    });
}

/** The settle control's success outcome on a payout of its own: the smallest amount leaves the primary's sandbox balance. */
async function settleAsSuccess(ctx: DoctorContext, first: Made | undefined): Promise<void> {
  const p = ctx.loaded.profile;
  if (!p.sandbox?.settlePayout || !first?.payoutNo) return;
  const lim = p.limits?.payouts?.[first.method];
  const r = await payout(ctx, 'primary', first.method, lim ? lim.min : '1.00', 'doctor: a payout to settle as success');
  if (!r.made?.payoutNo) return;
  const s = p.sandbox.settlePayout;
  controlItem(
    ctx,
    'settlePayout',
    `settles a fresh payout as ${s.outcomes.success}`,
    await control(ctx, 'settlePayout', {
      payoutNo: r.made.payoutNo,
      merchantPayoutNo: r.made.merchantPayoutNo,
      outcome: s.outcomes.success,
      reason: s.reason ?? 'doctor',
    }),
    [r.ex],
  );
}

/**
 * merchants.lowBalance.payoutBalance: a payout one cent above it is refused and one of exactly it
 * accepted (then released). Run after every other payout is released, so the balance is whole.
 */
async function checkLowBalance(ctx: DoctorContext): Promise<void> {
  const p = ctx.loaded.profile;
  const balance = p.merchants.lowBalance?.payoutBalance;
  if (!ctx.loaded.merchants.lowBalance || balance === undefined) return;
  const fits = (method: string, v: string) => {
    const lim = p.limits?.payouts?.[method];
    return !lim || (centsOf(lim.min) <= centsOf(v) && centsOf(v) <= centsOf(lim.max));
  };
  const above = valueOfCents(centsOf(balance) + 1n);
  const releasable = (m: string) => (p.payouts!.methods[m]?.cancel && ctx.t.has('payoutCancel')) || p.sandbox?.settlePayout !== undefined;
  // A balance above a method's maximum is still shown by a payout of that maximum, which it covers (a random genome of
  // test/legal-targets/doctor-changed.test.ts: a balance declared 100 times too high went unnoticed there).
  const within = (m: string): string | undefined => {
    if (fits(m, balance)) return balance;
    const max = p.limits?.payouts?.[m]?.max;
    return max !== undefined && centsOf(max) < centsOf(balance) && fits(m, max) ? max : undefined;
  };
  const candidates = payoutMethodsOf(ctx, 'lowBalance')
    .map((m) => m.method)
    .filter((m) => releasable(m) && within(m) !== undefined);
  const method = candidates.find((m) => fits(m, above) && within(m) === balance) ?? candidates[0];
  const path = 'merchants.lowBalance.payoutBalance';
  if (!method) {
    add(ctx, 'not-verifiable', path, `the low-balance merchant can pay out ${balance} and no more`, {
      answered: 'no payout method of lowBalance holds the amount in its limits and can be given back (cancel, or sandbox.settlePayout)',
    });
    return;
  }
  const covered = within(method)!;
  const probes: [string, 'refused' | 'accepted'][] = [
    ...(fits(method, above) ? [[above, 'refused'] as [string, 'refused']] : []),
    [covered, 'accepted'],
  ];
  for (const [value, want] of probes) {
    const claim =
      want === 'refused'
        ? `a payout of ${above}, above the low-balance merchant's ${balance}, is refused`
        : covered === balance
          ? `the low-balance merchant can pay out its whole ${balance}`
          : `the low-balance merchant can pay out ${covered} (${method}'s maximum), which its ${balance} covers`;
    const r = await payout(ctx, 'lowBalance', method, value, `doctor: ${claim}`);
    const a = answerOf(r.ex);
    if (unanswered(ctx, path, claim, a, r.ex)) continue;
    const ok = want === 'accepted' ? accepted(a) : refused(a);
    if (ok) add(ctx, 'verified', path, claim, { answered: describeAnswer(a), ex: [r.ex] });
    else {
      const fix = "give in merchants.lowBalance.payoutBalance the merchant's payout balance on the target (a sandbox may need it reset)";
      // A payout above the balance must be refused (insufficientFunds): letting it through may be the target's violation.
      if (want === 'refused')
        doubt(ctx, path, claim, ['err.po.insufficient-funds'], { expected: 'a refusal', answered: describeAnswer(a), fix, ex: [r.ex] });
      else add(ctx, 'wrong', path, claim, { expected: 'the payout accepted', answered: describeAnswer(a), fix, ex: [r.ex] });
    }
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
  const primary = new Set(payoutMethodsOf(ctx, 'primary').map((m) => m.method));
  const releasable = (method: string) =>
    (p.payouts!.methods[method]?.cancel && ctx.t.has('payoutCancel')) || p.sandbox?.settlePayout !== undefined;
  for (const [method, m] of Object.entries(p.payouts!.methods)) {
    if (m.usdOnly === undefined || !primary.has(method)) continue;
    const path = `payouts.methods.${method}.usdOnly`;
    const value = p.limits?.payouts?.[method]?.min ?? '1.00';
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
    if (m.usdOnly ? refused(a) : accepted(a) || a.key === 'insufficientFunds')
      add(ctx, 'verified', path, claim, { answered: describeAnswer(a), ex: [r.ex] });
    else if (m.usdOnly)
      doubt(ctx, path, claim, ['payout.usd-only-methods'], {
        expected: 'a refusal',
        answered: `${describeAnswer(a)}: the target accepted it`,
        fix,
        ex: [r.ex],
      });
    else if (a.key === 'amountOutOfRange' || a.key === 'notSupported')
      add(ctx, 'wrong', path, claim, {
        expected: 'the payout accepted',
        answered: `${describeAnswer(a)}: the method takes USD only`,
        fix,
        ex: [r.ex],
      });
    else
      add(ctx, 'not-verifiable', path, claim, { answered: `${describeAnswer(a)}: a refusal that does not name the currency`, ex: [r.ex] });
  }
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
    const ex = await queryPayout(ctx.t, by, { label: `doctor: query the payout by ${field}` });
    const q = answerOf(ex);
    // A wrong query path is its own item (basics): the fields cannot be judged through it.
    if (unknownPath(q)) continue;
    const found = accepted(q) && (no === undefined || readPath(q.data, p.data.payoutNo) === no);
    const item = {
      path: `payouts.queryBy.${field}`,
      assumption: `a payout is found by ${p.queryBy[field]}`,
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
  const primary = new Set(payoutMethodsOf(ctx, 'primary').map((m) => m.method));
  const releasable = (method: string) =>
    (p.payouts!.methods[method]?.cancel && ctx.t.has('payoutCancel')) || p.sandbox?.settlePayout !== undefined;
  for (const [method, lim] of Object.entries(p.limits?.payouts ?? {})) {
    if (!primary.has(method)) continue;
    const base = `limits.payouts.${method}`;
    const probes: { value: string; want: 'accepted' | 'refused'; path: string; claim: string }[] = [];
    // The minimum was paid out per merchant above; the maximum only where the doctor can give it back.
    if (releasable(method))
      probes.push({ value: lim.max, want: 'accepted', path: `${base}.max`, claim: `${method} pays out its maximum ${lim.max}` });
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
      const ok = pr.want === 'accepted' ? accepted(a) : refused(a);
      if (ok) add(ctx, 'verified', pr.path, pr.claim, { answered: describeAnswer(a), ex: [r.ex] });
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
