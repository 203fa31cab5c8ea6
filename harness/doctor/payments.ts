/**
 * Payment methods per merchant, the method lists' other entries (not enabled, unknown, no channel),
 * the declared limits and price points, the checkout's data paths, the pending status and the
 * payment record's paths, and the frozen merchant: checkouts only, which move no money.
 */
import { factsOf, whereSaid } from '../facts/index.js';
import type { Exchange } from '../http/exchange.js';
import { cardFixture, cardPayment, checkout, magicOf, pick, queryPayment, usd } from '../ops.js';
import type { ChannelLimits, MerchantRef } from '../profile/types.js';
import type { MerchantRole } from '../target.js';
import { actingRoles, add, doubt, pool, sideBySide, unanswered, type DoctorContext } from './context.js';
import { accepted, answerOf, describeAnswer, refused, unknownPath, type Answer } from './model.js';
import { centsOf, tryCentsOf, valueOfCents } from '../facts/money.js';
import { DepthRefused, sampleOf } from './budget.js';
import { kind } from './kinds.js';

/** A merchant's payment methods as the profile states them, each with the JSON path that states it. */
export function paymentMethodsOf(ctx: DoctorContext, role: MerchantRole): { method: string; path: string; declared: boolean }[] {
  const p = ctx.loaded.profile;
  const ref = p.merchants[role] as MerchantRef;
  if (ref.paymentMethods)
    return ref.paymentMethods.map((method, i) => ({ method, path: `merchants.${role}.paymentMethods[${i}]`, declared: true }));
  // Its methods (harness/facts/): its own facts.methods where they say them, else the shared ones.
  const m = factsOf(p, role).sections.methods;
  const pathOf = (key: string, at: string) => {
    const said = whereSaid(p, role, ['methods', key]);
    return said.startsWith('merchants.') ? `${said}${at}` : role === 'primary' ? `methods.${key}${at}` : `merchants.${role}.paymentMethods`;
  };
  const checkout = m.checkout ?? [];
  const out = checkout.map((method, i) => ({
    method,
    path: pathOf('checkout', `[${i}]`),
    declared: pathOf('checkout', '').startsWith('merchants.'),
  }));
  if (m.card && !checkout.includes(m.card))
    out.push({ method: m.card, path: pathOf('card', ''), declared: pathOf('card', '').startsWith('merchants.') });
  return out;
}

export function tiersOf(ctx: DoctorContext, method: string): string[] {
  const pp = ctx.loaded.profile.pricePoints;
  return pp?.tiersByMethod?.[method] ?? pp?.tiers ?? [];
}

/** An amount the profile says the method accepts: its first tier, or 10.00 / the range's minimum. */
export function amountFor(ctx: DoctorContext, method: string, role: MerchantRole = 'primary'): string {
  const p = ctx.loaded.profile;
  // Never an amount a declared failure trigger fails (sandbox.triggers): the doctor's own payments must succeed.
  const magic = magicOf(ctx.t);
  if (p.methods.pricePoint?.includes(method)) {
    const tiers = tiersOf(ctx, method);
    return tiers.find((v) => !magic.amount(centsOf(v))) ?? tiers[0] ?? '0.99';
  }
  // The paying merchant's own range (harness/facts/), never another merchant's.
  const lim = factsOf(p, role).paymentLimits(method);
  const range = lim?.channels?.[0] ?? lim;
  if (range && (centsOf(range.min) > 1000n || centsOf(range.max) < 1000n))
    return valueOfCents(magic.avoidAmount(centsOf(range.min), centsOf(range.min), centsOf(range.max)));
  return valueOfCents(magic.avoidAmount(1000n, range ? centsOf(range.min) : 1n, range ? centsOf(range.max) : 2000n));
}

/** A checkout (or, for a card-only method, a card payment) by one merchant. */
export async function pay(
  ctx: DoctorContext,
  role: MerchantRole,
  method: string,
  value: string,
  label: string,
  merchantOrderNo = ctx.t.newNo('order'),
): Promise<{ a: Answer; ex: Exchange; merchantOrderNo: string; endpoint: 'checkout' | 'cardPayment' }> {
  const p = ctx.loaded.profile;
  if (!p.methods.checkout.includes(method) && method === p.methods.card && p.cardPayment) {
    const ex = await cardPayment(ctx.t, { merchantOrderNo, amount: usd(value), card: cardFixture(ctx.t, 'success') }, { as: role, label });
    return { a: answerOf(ex), ex, merchantOrderNo, endpoint: 'cardPayment' };
  }
  const ex = await checkout(ctx.t, { merchantOrderNo, method, amount: usd(value) }, { as: role, label });
  return { a: answerOf(ex), ex, merchantOrderNo, endpoint: 'checkout' };
}

export async function checkPayments(ctx: DoctorContext): Promise<void> {
  ctx.progress('payment methods per merchant, limits, data paths');
  let checkoutPathSeen = false;
  const checkoutPath = (a: Answer, ex: Exchange): boolean => {
    if (!unknownPath(a) || checkoutPathSeen) return unknownPath(a);
    checkoutPathSeen = true;
    add(ctx, 'wrong', 'endpoints.checkout', `${ctx.t.path('checkout')} answers with the interface's envelope`, {
      expected: 'a JSON envelope {code, msg}',
      answered: `${describeAnswer(a)}: the target has no such path`,
      fix: 'set endpoints.checkout to the path the vendor documents',
      ex: [ex],
    });
    return true;
  };
  const tasks: (() => Promise<void>)[] = [];
  let first: { orderNo?: string; merchantOrderNo: string; ex: Exchange; a: Answer } | undefined;
  for (const role of actingRoles(ctx)) {
    for (const m of paymentMethodsOf(ctx, role)) {
      tasks.push(async () => {
        const ranged = role === 'primary' && declaredRanged(ctx, m.method);
        const value = ranged ? unevenAmountFor(ctx, m.method, role) : amountFor(ctx, m.method, role);
        const r = await pay(ctx, role, m.method, value, `doctor: ${m.method} for ${role}`);
        if (checkoutPath(r.a, r.ex)) return;
        const what = `${m.method} is enabled for ${role} (${value} USD)`;
        if (accepted(r.a)) {
          add(ctx, 'verified', m.path, what, { answered: describeAnswer(r.a), ex: [r.ex] });
          if (ranged && r.endpoint === 'checkout') await judgeRangedCharge(ctx, m.method, value, r.a, r.ex);
          if (role === 'primary' && r.endpoint === 'checkout' && m.method === ctx.loaded.profile.methods.checkout[0])
            first = { merchantOrderNo: r.merchantOrderNo, ex: r.ex, a: r.a };
        } else if (m.method === ctx.loaded.profile.methods.noChannel && noChannelAnswer(r.a)) {
          // Version 3: the no-channel method in a merchant's list is enabled with every channel down; "no payment channel
          // available" (not 3003) is the answer that shows it enabled (the doctor called this true fact wrong). "No
          // available channel accepts the amount" (2006) holds at once for a method without a channel: either passes.
          add(ctx, 'verified', m.path, `${m.method} is enabled for ${role}, every channel down`, {
            answered: describeAnswer(r.a),
            ex: [r.ex],
          });
        } else if (
          m.method === ctx.loaded.profile.methods.noChannel &&
          refused(r.a) &&
          r.a.key !== 'paymentMethodUnavailable' &&
          r.a.key !== 'unsupportedPaymentMethod'
        ) {
          // Refused, but not as a method the merchant lacks: the document fixes the no-channel answer, so another one is
          // first of all the target's (bench --kill 3 --seed 13: no-channel-as-system-busy was stopped as a profile error).
          doubt(ctx, m.path, `${m.method} is enabled for ${role}, every channel down`, ['err.pay.no-channel'], {
            expected: 'HTTP 200, code 422 validationFailed (no payment channel available), or 2006 amountOutOfRange',
            answered: describeAnswer(r.a),
            fix: `remove ${m.method} from the merchant's list if the target does not enable it`,
            ex: [r.ex],
          });
        } else if (refusesTheAmount(ctx, m.method, r.a, role)) {
          // The amount refused (2006, or 422 notSupported: "cannot be rounded to a price point"), not the method: the amount
          // was the profile's guess for a method it calls ranged with no declared range, so what is wrong is that method's
          // kind (or its missing limits), not the merchant's list (the doctor-changed sweep: a price-point
          // method left out of methods.pricePoint was called not enabled for every merchant).
          add(ctx, 'wrong', 'methods.pricePoint', `${m.method} takes any amount (not a price-point method): ${value} is accepted`, {
            expected: 'the payment accepted (code 0)',
            answered: `${describeAnswer(r.a)}: the amount is refused, as one no channel takes or no price point rounds to`,
            fix: `add ${m.method} to methods.pricePoint (and give its tiers in pricePoints), or give limits.payments.${m.method}`,
            ex: [r.ex],
          });
          add(ctx, 'not-verifiable', m.path, what, {
            answered: `${describeAnswer(r.a)}: the amount was refused, not the method`,
            ex: [r.ex],
          });
        } else if (r.endpoint === 'checkout' && r.a.code === 400 && r.a.key === 'invalidRequest') {
          await judgeMissingFields(ctx, role, m, value, r);
        } else if (refused(r.a) && r.a.key !== 'paymentMethodUnavailable' && r.a.key !== 'unsupportedPaymentMethod') {
          // A refusal whose key does not name the method (a decline, a risk check, a busy system, a field) says nothing of
          // the method being enabled for the merchant: only 3003 does.
          add(ctx, 'not-verifiable', m.path, what, {
            answered: `${describeAnswer(r.a)}: a refusal whose key does not name the method`,
            ex: [r.ex],
          });
        } else {
          const fix = m.declared
            ? `remove ${m.method} from merchants.${role}.paymentMethods (or enable it for this merchant on the target)`
            : role === 'primary'
              ? `remove ${m.method} from ${m.path.startsWith('methods.card') ? 'methods.card' : 'methods.checkout'}` +
                `, or give merchants.primary.paymentMethods`
              : `declare merchants.${role}.paymentMethods: the methods the target enables for ${role} (without ${m.method})`;
          add(ctx, 'wrong', m.path, what, { expected: 'the payment accepted (code 0)', answered: describeAnswer(r.a), fix, ex: [r.ex] });
        }
      });
    }
  }
  tasks.push(() => checkRefusedMethods(ctx));
  tasks.push(() => checkFrozen(ctx));
  // The longest chains (each price-point method's tiers, each ranged method's limits) start first, side by side.
  const chains = sideBySide(ctx, [...pricePointChains(ctx), ...limitChains(ctx)]);
  try {
    await pool([...chains.tasks, ...tasks], 6);
  } finally {
    chains.flush();
  }
  await checkCheckoutData(ctx, first);
}

/** What the doctor sends for an optional checkout field the profile's extras leave out, to see whether the method requires it. */
const REQUIRABLE_FIELDS: Readonly<Record<string, string>> = {
  notify_url: 'https://merchant.invalid/notify',
  return_url: 'https://merchant.invalid/return',
  metadata: 'doctor',
};

/** The methods whose missing checkout fields a doctor run has judged already. */
const JUDGED_EXTRAS = new WeakMap<DoctorContext, Set<string>>();

/**
 * A checkout refused 400 invalidRequest ("A field is missing…"): the same checkout again with each optional field the
 * document lists ("Which of `notify_url`, `return_url`, … `metadata` are required for each payment method: not shown")
 * that the profile's extras do not send. Accepted so, the method is enabled and the fields it then lacked alone are what
 * the profile leaves out (checkout.extras / extrasByMethod): that fact, isolated, is WRONG; still refused, nothing is shown.
 */
async function judgeMissingFields(
  ctx: DoctorContext,
  role: MerchantRole,
  m: { method: string; path: string },
  value: string,
  r: { a: Answer; ex: Exchange },
): Promise<void> {
  const what = `${m.method} is enabled for ${role} (${value} USD)`;
  const sent = factsOf(ctx.loaded.profile, role).extrasFor(m.method);
  const missing = Object.keys(REQUIRABLE_FIELDS).filter((f) => sent[f] === undefined);
  const send = (fields: readonly string[]) =>
    checkout(
      ctx.t,
      { method: m.method, amount: usd(value), extra: Object.fromEntries(fields.map((f) => [f, REQUIRABLE_FIELDS[f]])) },
      { as: role, label: `doctor: ${m.method} for ${role} with ${fields.join(', ')}` },
    );
  const all = missing.length > 0 ? await send(missing) : undefined;
  if (!all || !accepted(answerOf(all))) {
    add(ctx, 'not-verifiable', m.path, what, {
      answered: `${describeAnswer(r.a)}: a refusal whose key does not name the method`,
      ex: all ? [r.ex, all] : [r.ex],
    });
    return;
  }
  add(ctx, 'verified', m.path, what, { answered: describeAnswer(answerOf(all)), ex: [all] });
  // Each field left out in turn: the ones whose absence is refused are the ones the method requires.
  const required: string[] = [];
  const exs: Exchange[] = [r.ex, all];
  for (const f of missing) {
    const ex = missing.length === 1 ? r.ex : await send(missing.filter((x) => x !== f));
    if (ex !== r.ex) exs.push(ex);
    if (!accepted(answerOf(ex))) required.push(f);
  }
  const fields = required.length > 0 ? required : missing;
  // One item per method, whichever merchant paid it first.
  const judged = JUDGED_EXTRAS.get(ctx) ?? new Set<string>();
  JUDGED_EXTRAS.set(ctx, judged);
  if (judged.has(m.method)) return;
  judged.add(m.method);
  add(ctx, 'wrong', `checkout.extrasByMethod.${m.method}`, `a ${m.method} checkout carries every field it requires`, {
    expected: 'the checkout accepted with the fields of checkout.extras and checkout.extrasByMethod',
    answered: `${describeAnswer(r.a)}; accepted with ${fields.join(', ')} added`,
    fix:
      `add ${fields.map((f) => `"${f}"`).join(', ')} to checkout.extrasByMethod.${m.method} ` +
      '(or to checkout.extras if every method requires it)',
    ex: exs,
  });
}

/**
 * The answers the document gives a method whose every channel is down: 422 validationFailed "No payment channel available",
 * and 2006 amountOutOfRange "No available channel accepts the amount", which holds at once (no channel accepts any amount).
 */
function noChannelAnswer(a: Answer): boolean {
  return a.envelope && ((a.code === 422 && a.key === 'validationFailed') || a.code === 2006 || a.key === 'amountOutOfRange');
}

/** A refusal that names the amount: 2006 amountOutOfRange (no channel takes it). Only it shows a channel's range. */
const rangeRefusal = (a: Answer): boolean => refused(a) && (a.code === 2006 || a.key === 'amountOutOfRange');

/** A refusal that names a price-point amount: 2006, or 422 notSupported ("cannot be rounded to a fixed tier"); both hold at once. */
const tierRefusal = (a: Answer): boolean => rangeRefusal(a) || (refused(a) && a.code === 422 && a.key === 'notSupported');

/**
 * A refusal of the amount (2006 amountOutOfRange, or 422 notSupported: an amount no price point rounds to) for a method the
 * profile calls ranged but gives no range: the doctor guessed the amount, so the refusal shows nothing of the method's
 * being enabled. With a declared range the amount is the profile's own, and its refusal is judged as before.
 */
function refusesTheAmount(ctx: DoctorContext, method: string, a: Answer, role: MerchantRole): boolean {
  const p = ctx.loaded.profile;
  if (
    (p.methods.pricePoint ?? []).includes(method) ||
    factsOf(p, role).paymentLimits(method) !== undefined ||
    method === p.methods.noChannel
  )
    return false;
  return a.envelope && (a.key === 'amountOutOfRange' || (a.code === 422 && a.key === 'notSupported') || a.code === 2006);
}

/** A checkout method the profile does not call a price-point method (methods.pricePoint), paid by the checkout. */
function declaredRanged(ctx: DoctorContext, method: string): boolean {
  const m = ctx.loaded.profile.methods;
  return m.checkout.includes(method) && !(m.pricePoint ?? []).includes(method) && method !== m.noChannel;
}

/**
 * An amount inside the method's declared channels that is no usual price point (37 cents past the amount the doctor
 * would pay), so that a method which rounds shows it by its charge; the plain amount when that falls outside.
 */
function unevenAmountFor(ctx: DoctorContext, method: string, role: MerchantRole): string {
  const plain = amountFor(ctx, method, role);
  const lim = factsOf(ctx.loaded.profile, role).paymentLimits(method);
  const inside = (c: bigint) => (lim?.channels ?? (lim ? [lim] : [])).some((r) => centsOf(r.min) <= c && c <= centsOf(r.max));
  // Uneven, inside a channel, and no declared magic amount (a queryFailed ending .37 would fail the doctor's own query).
  const magic = magicOf(ctx.t);
  const uneven = [37n, 41n, 43n, 47n, 53n, 59n, 61n, 67n]
    .map((d) => centsOf(plain) + d)
    .find((c) => (lim === undefined || inside(c)) && !magic.amount(c));
  return uneven !== undefined ? valueOfCents(uneven) : plain;
}

/**
 * A method the profile calls ranged (not in methods.pricePoint) charged another amount than asked rounds to price points:
 * the document lets a method round (Apple Pay and Google Pay "accept only fixed amount tiers"), and the checks of a
 * ranged method would read every such charge as wrong, so only the profile can be wrong here (dropping a
 * price-point method from methods.pricePoint went unnoticed).
 */
async function judgeRangedCharge(ctx: DoctorContext, method: string, value: string, a: Answer, ex: Exchange): Promise<void> {
  const p = ctx.loaded.profile;
  const orderNo = readPath(a.data, p.checkout?.data.orderNo ?? 'order_no');
  const transAmount = p.paymentRecord?.transAmount;
  if (typeof orderNo !== 'string' || transAmount === undefined) return;
  const qex = await queryPayment(ctx.t, { order_no: orderNo }, { label: `doctor: the record of a ${method} payment of ${value}` });
  const q = answerOf(qex);
  const charged = accepted(q) ? (readPath(q.data, transAmount) as { value?: unknown } | undefined)?.value : undefined;
  const claim = `${method} takes any amount in its range (not a price-point method): ${value} is charged as asked`;
  if (typeof charged !== 'string' || tryCentsOf(charged) === undefined) return;
  if (tryCentsOf(charged) === centsOf(value))
    add(ctx, 'verified', 'methods.pricePoint', claim, { answered: `charged ${charged}`, ex: [ex, qex] });
  else
    add(ctx, 'wrong', 'methods.pricePoint', claim, {
      expected: `charged ${value}`,
      answered: `charged ${charged}: the target rounded it to a price point`,
      fix: `add ${method} to methods.pricePoint (and give its tiers in pricePoints)`,
      ex: [ex, qex],
    });
}

/** methods.notEnabled, methods.unknown, methods.noChannel: a checkout with each is refused. */
async function checkRefusedMethods(ctx: DoctorContext): Promise<void> {
  const m = ctx.loaded.profile.methods;
  const list: [string, string | undefined, string, string[]][] = [
    ['methods.notEnabled', m.notEnabled, 'is known to the target but not enabled for primary', ['err.pay.method-unavailable']],
    ['methods.unknown', m.unknown, 'is a method the target does not know', ['payment.method.unknown']],
    ['methods.noChannel', m.noChannel, 'has no channel available', ['err.pay.no-channel']],
  ];
  for (const [path, method, claim, clauses] of list) {
    if (method === undefined) continue;
    const r = await pay(ctx, 'primary', method, '10.00', `doctor: ${path}`);
    const what = `${method} ${claim}: a checkout with it is refused`;
    if (unanswered(ctx, path, what, r.a, r.ex)) continue;
    if (refused(r.a)) add(ctx, 'verified', path, what, { answered: describeAnswer(r.a), ex: [r.ex] });
    // The document fixes the refusal for such a method: an acceptance may be the target's violation.
    else
      doubt(ctx, path, what, clauses, {
        expected: 'a refusal',
        answered: `${describeAnswer(r.a)}: the target accepted it`,
        fix: `choose for ${path} a method the target refuses as described`,
        ex: [r.ex],
      });
  }
}

async function checkFrozen(ctx: DoctorContext): Promise<void> {
  if (!ctx.loaded.merchants.frozen) return;
  const method = paymentMethodsOf(ctx, 'frozen')[0]?.method ?? ctx.loaded.profile.methods.checkout[0]!;
  const r = await pay(ctx, 'frozen', method, amountFor(ctx, method), 'doctor: the frozen merchant');
  const what = 'merchants.frozen is a disabled merchant: its checkout is refused';
  if (unanswered(ctx, 'merchants.frozen', what, r.a, r.ex)) return;
  if (refused(r.a)) add(ctx, 'verified', 'merchants.frozen', what, { answered: describeAnswer(r.a), ex: [r.ex] });
  else
    doubt(ctx, 'merchants.frozen', what, ['err.pay.merchant-frozen'], {
      expected: 'a refusal',
      answered: `${describeAnswer(r.a)}: the target accepted it`,
      fix: 'give in merchants.frozen a merchant whose account is disabled (suspended) on the target',
      ex: [r.ex],
    });
}

/**
 * Each ranged method a merchant has: its limits, one chain per method, paid by the first merchant (primary, second,
 * low-balance) that has it. A method only another merchant has (version 3: KLARNA of the second merchant only) is
 * paid as that merchant: its declared limits are facts like the primary's (LEGAL_TARGETS_SEED=1001 in
 * doctor-changed: a narrower limit of the second merchant's only method went unnoticed, the doctor paying as the primary).
 */
function limitChains(ctx: DoctorContext): ((own: DoctorContext) => Promise<void>)[] {
  const p = ctx.loaded.profile;
  const chains: ((own: DoctorContext) => Promise<void>)[] = [];
  for (const [method, lim] of Object.entries(p.limits?.payments ?? {}) as [string, ChannelLimits][]) {
    if (p.methods.pricePoint?.includes(method)) continue;
    // The shared range, by the first merchant that has the method and no range of its own for it.
    const role = actingRoles(ctx).find(
      (r) =>
        paymentMethodsOf(ctx, r).some((m) => m.method === method) &&
        !whereSaid(p, r, ['limits', 'payments', method]).startsWith('merchants.'),
    );
    if (role === undefined) continue;
    if (method === p.methods.noChannel) {
      // Every channel down: every payment of it is refused whatever its amount, so no probe isolates a range (the doctor
      // paid it at its minimum, met "no payment channel available" and called the vendor's documented ranges WRONG).
      chains.push(async (own) => {
        add(own, 'not-verifiable', `limits.payments.${method}`, `the channel ranges of ${method}`, {
          answered:
            `not asked: ${method} has every channel down (methods.noChannel), so every payment of it is refused ` +
            'whatever its amount and none shows a range',
        });
      });
      continue;
    }
    chains.push((own) => kind(own, `limits.payments.${method}`, () => checkLimitsOf(own, method, lim, role, `limits.payments.${method}`)));
  }
  // A merchant's own range (merchants.<role>.facts.limits.payments): paid as that merchant, a fact of its own.
  for (const role of actingRoles(ctx)) {
    const facts = factsOf(p, role);
    for (const { method } of paymentMethodsOf(ctx, role)) {
      const base = whereSaid(p, role, ['limits', 'payments', method]);
      const lim = facts.paymentLimits(method);
      if (!lim || !base.startsWith('merchants.') || p.methods.pricePoint?.includes(method) || method === p.methods.noChannel) continue;
      chains.push((own) => kind(own, base, () => checkLimitsOf(own, method, lim, role, base)));
    }
  }
  return chains;
}

/** Each channel's bounds are accepted; one cent outside the overall bounds, and a gap between channels, refused. */
async function checkLimitsOf(ctx: DoctorContext, method: string, lim: ChannelLimits, role: MerchantRole, base: string): Promise<void> {
  const probes: CheckoutProbe[] = [];
  const channels = lim.channels ?? [lim];
  const of = role === 'primary' ? method : `${method} (for ${role})`;
  channels.forEach((c, i) => {
    const at = lim.channels ? `${base}.channels[${i}]` : base;
    probes.push({ value: c.min, want: 'accepted', path: `${at}.min`, claim: `${of} accepts its minimum ${c.min}` });
    probes.push({ value: c.max, want: 'accepted', path: `${at}.max`, claim: `${of} accepts its maximum ${c.max}` });
    const next = channels[i + 1];
    if (next && centsOf(c.max) + 1n < centsOf(next.min)) {
      const gap = valueOfCents(centsOf(c.max) + 1n);
      probes.push({
        value: gap,
        want: 'refused',
        path: `${base}.channels`,
        claim: `${of} has no channel for ${gap} (between ${c.max} and ${next.min})`,
      });
    }
  });
  if (centsOf(lim.min) > 1n)
    probes.push({
      value: valueOfCents(centsOf(lim.min) - 1n),
      want: 'refused',
      path: `${base}.min`,
      claim: `${of} refuses ${valueOfCents(centsOf(lim.min) - 1n)}, below its minimum`,
    });
  probes.push({
    value: valueOfCents(centsOf(lim.max) + 1n),
    want: 'refused',
    path: `${base}.max`,
    claim: `${of} refuses ${valueOfCents(centsOf(lim.max) + 1n)}, above its maximum`,
  });
  await judgeCheckoutProbes(
    ctx,
    method,
    probes,
    {
      // An amount outside every channel must be refused (2006): accepting it may be the target's violation.
      clauses: ['limit.amount.channel-range'],
      fix: () => `give in ${base} the ranges the vendor documents for ${method}`,
      namesAmount: rangeRefusal,
    },
    role,
  );
}

interface CheckoutProbe {
  value: string;
  want: 'accepted' | 'refused';
  path: string;
  claim: string;
  /** A tier: accepted is not enough, the record must show it charged as asked (every rule charges a tier as itself). */
  chargedAsAsked?: boolean;
}

/** How a method's probes are judged: the clauses of a doubt, the fixes, and which refusals name the amount. */
interface ProbeJudgement {
  clauses: string[];
  fix: (pr: CheckoutProbe) => string;
  doubtFix?: string;
  /**
   * A refusal that is about the amount: only it shows the fact a probe is about. Another (no channel available, a risk
   * check, a busy system, the method) is explained as well by a fact the probe did not isolate: not verifiable.
   */
  namesAmount: (a: Answer) => boolean;
}

/**
 * Each amount paid by `method` on a checkout, judged against what the profile predicts: kept, the entry is verified;
 * accepted where the profile says refused, a doubt on `clauses` (the document fixes that refusal); refused for the amount
 * where the profile says accepted, the entry is wrong; refused for another reason, not verifiable. `doubtFix` is the
 * doubt's fix when it differs from the wrong entry's.
 */
async function judgeCheckoutProbes(
  ctx: DoctorContext,
  method: string,
  probes: readonly CheckoutProbe[],
  on: ProbeJudgement,
  role: MerchantRole = 'primary',
): Promise<void> {
  // Each probe is a checkout of its own (no balance, no order between them): side by side, their items in the probes'
  // order. One method's seven tiers, each accepted then its record read, were a chain of 20 round trips.
  const side = sideBySide(
    ctx,
    probes.map((pr) => (own: DoctorContext) => judgeCheckoutProbe(own, method, pr, on, role)),
  );
  try {
    await pool(side.tasks, PROBES_AT_ONCE);
  } finally {
    side.flush();
  }
}

/** Probes of one method in flight at once: beside the stage's other chains, within the target's in-flight budget. */
const PROBES_AT_ONCE = 4;

async function judgeCheckoutProbe(
  ctx: DoctorContext,
  method: string,
  pr: CheckoutProbe,
  on: ProbeJudgement,
  role: MerchantRole,
): Promise<void> {
  try {
    await judgeOneProbe(ctx, method, pr, on, role);
  } catch (err) {
    // Depth the budget keeps for other kinds' first probes: this entry is not asked (or not read to its end), said so.
    if (!(err instanceof DepthRefused)) throw err;
    add(ctx, 'not-verifiable', pr.path, pr.claim, { answered: err.message });
  }
}

async function judgeOneProbe(ctx: DoctorContext, method: string, pr: CheckoutProbe, on: ProbeJudgement, role: MerchantRole): Promise<void> {
  const r = await pay(ctx, role, method, pr.value, `doctor: ${pr.claim}`);
  if (unanswered(ctx, pr.path, pr.claim, r.a, r.ex)) return;
  const answered = describeAnswer(r.a);
  if (refused(r.a) && !on.namesAmount(r.a)) {
    add(ctx, 'not-verifiable', pr.path, pr.claim, {
      answered:
        `${answered}: a refusal whose key does not name the amount, which another fact explains as well ` +
        '(every channel down, a risk check, a transient failure, the method)',
      ex: [r.ex],
    });
    return;
  }
  const ok = pr.want === 'accepted' ? accepted(r.a) : refused(r.a);
  if (ok && pr.chargedAsAsked) await judgeTierCharge(ctx, method, pr, r.a, r.ex, on.fix(pr));
  else if (ok) add(ctx, 'verified', pr.path, pr.claim, { answered, ex: [r.ex] });
  else if (pr.want === 'refused')
    doubt(ctx, pr.path, pr.claim, on.clauses, { expected: 'a refusal', answered, fix: on.doubtFix ?? on.fix(pr), ex: [r.ex] });
  // A documented tier refused: the profile's tier list may be wrong, or the target refuses one of its own price points.
  else if (pr.chargedAsAsked)
    doubt(ctx, pr.path, pr.claim, TIER_CLAUSES, { expected: 'the checkout accepted', answered, fix: on.fix(pr), ex: [r.ex] });
  else add(ctx, 'wrong', pr.path, pr.claim, { expected: 'the checkout accepted', answered, fix: on.fix(pr), ex: [r.ex] });
}

/** What a target breaks when it refuses, or charges otherwise, an amount that is one of its price points. */
const TIER_CLAUSES = ['limit.price-points', 'payment.price-point.round'];

/** A declared tier the target accepted: its record shows what was charged, which must be the tier itself. */
async function judgeTierCharge(
  ctx: DoctorContext,
  method: string,
  pr: CheckoutProbe,
  a: Answer,
  ex: Exchange | undefined,
  fix: string,
): Promise<void> {
  const p = ctx.loaded.profile;
  const orderNo = readPath(a.data, p.checkout?.data.orderNo ?? 'order_no');
  const transAmount = p.paymentRecord?.transAmount;
  if (typeof orderNo !== 'string' || transAmount === undefined) {
    add(ctx, 'verified', pr.path, pr.claim, { answered: describeAnswer(a), ex: [ex] });
    return;
  }
  const qex = await queryPayment(
    ctx.t,
    { order_no: orderNo },
    { label: `doctor: the record of a ${method} payment of the tier ${pr.value}` },
  );
  const q = answerOf(qex);
  const charged = accepted(q) ? (readPath(q.data, transAmount) as { value?: unknown } | undefined)?.value : undefined;
  if (typeof charged !== 'string') {
    add(ctx, 'verified', pr.path, pr.claim, {
      answered: `${describeAnswer(a)} (its record shows no charged amount to compare)`,
      ex: [ex, qex],
    });
    return;
  }
  const chargedCents = tryCentsOf(charged);
  if (chargedCents !== undefined && chargedCents === tryCentsOf(pr.value))
    add(ctx, 'verified', pr.path, `${pr.claim}, charged as asked`, { answered: `charged ${charged}`, ex: [ex, qex] });
  // A documented tier charged as another amount: the profile's tier list may be wrong, or the target rounds one of its
  // own tiers away (a price-point violation the checks judge): a doubt, never a stop.
  else
    doubt(ctx, pr.path, `${pr.claim}, charged as asked`, TIER_CLAUSES, {
      expected: `charged ${pr.value}`,
      answered: `charged ${charged}: the target rounded it`,
      fix,
      ex: [ex, qex],
    });
}

/** On every price-point method the primary has: each tier is accepted, each unroundable amount refused; the rounding (and tie) rule. */
function pricePointChains(ctx: DoctorContext): ((own: DoctorContext) => Promise<void>)[] {
  const p = ctx.loaded.profile;
  const pp = p.pricePoints;
  const primary = new Set(paymentMethodsOf(ctx, 'primary').map((m) => m.method));
  const methods = (p.methods.pricePoint ?? []).filter((m) => primary.has(m) && p.methods.checkout.includes(m));
  if (!pp) return [];
  // The record's paths are judged once, on the first method's rounded payment, as when the methods ran in turn.
  return methods.map((method, i) => (own) => kind(own, `pricePoints.${method}`, () => checkPricePointsOf(own, pp, method, i === 0)));
}

async function checkPricePointsOf(
  ctx: DoctorContext,
  pp: NonNullable<DoctorContext['loaded']['profile']['pricePoints']>,
  method: string,
  recordPaths: boolean,
): Promise<void> {
  const tiers = tiersOf(ctx, method);
  const tierBase = pp.tiersByMethod?.[method] ? `pricePoints.tiersByMethod.${method}` : 'pricePoints.tiers';
  // A long list is probed by a sample (budget.ts): the rest is said, never counted as verified.
  const tierIdx = sampledList(ctx, tierBase, method, tiers, 'tiers');
  const unroundableIdx = sampledList(ctx, 'pricePoints.unroundable', method, pp.unroundable, 'amounts that round to no tier');
  const probes = [
    ...tierIdx.map((i) => ({
      value: tiers[i]!,
      want: 'accepted' as const,
      path: `${tierBase}[${i}]`,
      claim: `${method} accepts the tier ${tiers[i]!}`,
      chargedAsAsked: true,
    })),
    ...unroundableIdx.map((i) => ({
      value: pp.unroundable[i]!,
      want: 'refused' as const,
      path: `pricePoints.unroundable[${i}]`,
      claim: `${method} refuses ${pp.unroundable[i]!}, which rounds to no tier`,
    })),
  ];
  // The rounding probes are payments of their own too: beside the tiers, their items after the tiers' as before.
  const side = sideBySide(ctx, [
    (own) =>
      judgeCheckoutProbes(own, method, probes, {
        // An amount that rounds to no tier must be refused: an acceptance may be the target's violation.
        clauses: ['payment.price-point.refuse'],
        doubtFix: `give in pricePoints.unroundable amounts that round to no tier of ${method}`,
        fix: (pr) => `give in ${pr.path.replace(/\[\d+\]$/, '')} what the vendor documents for ${method}`,
        namesAmount: tierRefusal,
      }),
    (own) => checkRequestedAmount(own, method, tiers, recordPaths),
  ]);
  try {
    await Promise.all(side.tasks.map((task) => task()));
  } finally {
    side.flush();
  }
}

/**
 * The indices of a list to probe for `method` (budget.ts `sampleOf`, seeded by the doctor's seed and the list's path);
 * the entries left out are one not-verifiable line, with how they were chosen.
 */
function sampledList(ctx: DoctorContext, path: string, method: string, list: readonly string[], what: string): number[] {
  const idx = sampleOf(list.length, `${path} ${method}`, ctx.seed);
  if (idx.length < list.length)
    add(ctx, 'not-verifiable', path, `${method}: the ${list.length - idx.length} ${what} not probed`, {
      answered:
        `not asked: a list of ${list.length} is probed by a sample of ${idx.length} (both ends, the middle and a spread drawn ` +
        `with seed ${ctx.seed ?? 0}: entries ${idx.join(', ')}), so that every other kind of fact keeps its share of the ` +
        "doctor's budget; the checks draw from the whole list",
    });
  return idx;
}

/** The rounding rule the profile gives a method (its own in pricePoints.ruleByMethod, else the shared one), and where. */
export function ruleOf(ctx: DoctorContext, method: string): Rule {
  const pp = ctx.loaded.profile.pricePoints!;
  const own = pp.ruleByMethod?.[method];
  if (own)
    return {
      rounding: own.rounding,
      tie: own.tie,
      at: `pricePoints.ruleByMethod.${method}.rounding`,
      tieAt: `pricePoints.ruleByMethod.${method}.tie`,
    };
  return { rounding: pp.rounding, tie: pp.tie, at: 'pricePoints.rounding', tieAt: 'pricePoints.tie' };
}

interface Rule {
  rounding: 'up' | 'down' | 'nearest';
  tie: 'up' | 'down' | undefined;
  /** The item's path for the rounding, and for the tie. */
  at: string;
  tieAt: string;
}

/**
 * paymentRecord.requestedAmount resolves in the record of a payment rounded to a tier; the method's rounding (its own
 * rule where pricePoints.ruleByMethod gives one, version 3) and tie.
 */
async function checkRequestedAmount(ctx: DoctorContext, method: string, tiers: string[], recordPaths: boolean): Promise<void> {
  const p = ctx.loaded.profile;
  const rec = p.paymentRecord;
  if (!rec || tiers.length < 2) return;
  const rule = ruleOf(ctx, method);
  const value = rule.rounding === 'down' ? valueOfCents(centsOf(tiers[1]!) - 1n) : valueOfCents(centsOf(tiers[0]!) + 1n);
  await roundingProbe(ctx, method, tiers, value, recordPaths ? rec.requestedAmount : undefined, rule);
  if (rule.rounding !== 'nearest') return;
  // The tie rule: an amount exactly between two tiers whose distance is an even number of cents.
  const pair = tiers.findIndex((t, i) => i + 1 < tiers.length && (centsOf(tiers[i + 1]!) - centsOf(t)) % 2n === 0n);
  if (pair >= 0)
    await roundingProbe(ctx, method, tiers, valueOfCents((centsOf(tiers[pair]!) + centsOf(tiers[pair + 1]!)) / 2n), undefined, rule, true);
}

/** One rounded checkout of a price-point method and its record: the charged tier against the profile's rule. */
async function roundingProbe(
  ctx: DoctorContext,
  method: string,
  tiers: string[],
  value: string,
  requestedPath: string | undefined,
  rule: Rule,
  tieProbe = false,
): Promise<void> {
  const p = ctx.loaded.profile;
  const rulePath = tieProbe ? rule.tieAt : rule.at;
  const rec = p.paymentRecord!;
  const r = await pay(ctx, 'primary', method, value, `doctor: ${method} ${value}, rounded to a tier`);
  const orderNo = readPath(r.a.data, p.checkout?.data.orderNo ?? 'order_no');
  if (!accepted(r.a) || typeof orderNo !== 'string') {
    add(
      ctx,
      'not-verifiable',
      requestedPath !== undefined ? 'paymentRecord.requestedAmount' : rulePath,
      'a rounded payment and its record',
      { answered: `a ${method} checkout of ${value} was not accepted: ${describeAnswer(r.a)}`, ex: [r.ex] },
    );
    return;
  }
  const qex = await queryPayment(ctx.t, { order_no: orderNo }, { label: 'doctor: the record of a rounded payment' });
  const q = answerOf(qex);
  if (!accepted(q)) {
    add(ctx, 'not-verifiable', rulePath, 'the record of a rounded payment', {
      answered: `its query was refused: ${describeAnswer(q)}`,
      ex: [r.ex, qex],
    });
    return;
  }
  const data = q.data;
  if (requestedPath !== undefined) {
    // requested_amount is fixed by the document for a rounded payment: its absence may be the target's.
    if (pick(data, requestedPath) === undefined && findPath(data, requestedPath) === undefined)
      doubt(
        ctx,
        'paymentRecord.requestedAmount',
        `the record of a ${method} payment of ${value} (rounded) holds data.${requestedPath}`,
        ['payment.requested-amount.only-rounded'],
        {
          expected: 'a value',
          answered: `data.${requestedPath} is absent (${keysOf(data)})`,
          fix: "set paymentRecord.requestedAmount to the field's path in the record",
          ex: [qex],
        },
      );
    else
      dataPathItem(
        ctx,
        'paymentRecord.requestedAmount',
        `the record of a ${method} payment of ${value} (rounded)`,
        data,
        requestedPath,
        qex,
        'any',
      );
  }
  const charged = (readPath(data, rec.transAmount) as { value?: unknown } | undefined)?.value;
  const want = roundedTier(tiers, value, rule.rounding, rule.tie);
  if (typeof charged !== 'string' || want === undefined) return;
  const claim = tieProbe
    ? `${method}: ${value}, half-way between two tiers, is rounded ${rule.tie ?? 'up'} to ${want}`
    : `${method}: ${value} is rounded ${rule.rounding} to ${want}`;
  if (tryCentsOf(charged) === centsOf(want)) add(ctx, 'verified', rulePath, claim, { answered: `charged ${charged}`, ex: [r.ex, qex] });
  // The charge of a rounded payment is what the document's rounding clauses judge: a doubt, not the profile's fault alone.
  else
    doubt(ctx, rulePath, claim, ['payment.price-point.round', 'payment.trans-amount.usd-charged'], {
      expected: want,
      answered: `charged ${charged}`,
      fix: `give in ${rule.at} (and its tie) the rule the vendor documents for ${method}`,
      ex: [r.ex, qex],
    });
}

/** The tier the profile's rule rounds an amount to. */
function roundedTier(tiers: string[], value: string, rounding: 'up' | 'down' | 'nearest', tie: 'up' | 'down' = 'up'): string | undefined {
  const v = centsOf(value);
  const up = tiers.find((t) => centsOf(t) >= v);
  const down = [...tiers].reverse().find((t) => centsOf(t) <= v);
  if (rounding === 'up') return up;
  if (rounding === 'down') return down;
  if (up === undefined || down === undefined) return up ?? down;
  const du = centsOf(up) - v;
  const dd = v - centsOf(down);
  return du < dd ? up : dd < du ? down : tie === 'down' ? down : up;
}

function keysOf(data: Record<string, unknown> | undefined): string {
  return data ? `data has ${Object.keys(data).slice(0, 12).join(', ') || 'no fields'}` : 'no data object';
}

const camel = (seg: string) => seg.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/**
 * Where a data path the profile gives resolves only as the document forbids: in camelCase (the
 * document fixes snake_case), or under one wrapper object (the payment query's data is the record).
 */
export function findPath(
  data: Record<string, unknown> | undefined,
  dotted: string,
): { value: unknown; how: string; clause: string } | undefined {
  if (!data) return undefined;
  const cc = dotted.split('.').map(camel).join('.');
  if (cc !== dotted && pick(data, cc) !== undefined)
    return { value: pick(data, cc), how: `found as data.${cc} (camelCase)`, clause: 'conv.snake-case' };
  const keys = Object.keys(data);
  const inner = keys.length === 1 ? data[keys[0]!] : undefined;
  if (inner !== null && typeof inner === 'object' && !Array.isArray(inner) && pick(inner, dotted) !== undefined) {
    return {
      value: pick(inner, dotted),
      how: `found as data.${keys[0]}.${dotted}: the answer's data wraps the record`,
      clause: 'query.returns-record',
    };
  }
  return undefined;
}

/** A data path's value, read leniently (findPath) so the doctor goes on where a doubt was recorded. */
export function readPath(data: Record<string, unknown> | undefined, dotted: string): unknown {
  return pick(data, dotted) ?? findPath(data, dotted)?.value;
}

/** A data path resolves: a non-empty string (numbers) or any value (status, amounts). */
export function dataPathItem(
  ctx: DoctorContext,
  path: string,
  where: string,
  data: Record<string, unknown> | undefined,
  dotted: string,
  ex: Exchange,
  want: 'string' | 'any' = 'string',
): unknown {
  const v = pick(data, dotted);
  const good = (x: unknown) => (want === 'string' ? typeof x === 'string' && x !== '' : x !== undefined && x !== null);
  const ok = good(v);
  const near = ok ? undefined : findPath(data, dotted);
  if (ok)
    add(ctx, 'verified', path, `${where} holds data.${dotted}`, {
      answered: `data.${dotted} = ${JSON.stringify(v).slice(0, 80)}`,
      ex: [ex],
    });
  else if (near && good(near.value)) {
    doubt(ctx, path, `${where} holds data.${dotted}`, [near.clause], {
      expected: 'a value at that path',
      answered: near.how,
      fix: `set ${path} to the field's path in that answer's data`,
      ex: [ex],
    });
    return near.value;
  } else
    add(ctx, 'wrong', path, `${where} holds data.${dotted}`, {
      expected: want === 'string' ? 'a non-empty string' : 'a value',
      answered: `data.${dotted} is ${JSON.stringify(v) ?? 'absent'} (${keysOf(data)})`,
      fix: `set ${path} to the field's path in that answer's data`,
      ex: [ex],
    });
  return ok ? v : undefined;
}

/** checkout.data, checkout.pendingStatus and paymentRecord, from the first checkout of the primary and its query. */
async function checkCheckoutData(
  ctx: DoctorContext,
  first: { merchantOrderNo: string; ex: Exchange; a: Answer } | undefined,
): Promise<void> {
  const p = ctx.loaded.profile;
  if (!first) {
    add(ctx, 'not-verifiable', 'checkout.data', 'the checkout answer holds the order number', {
      answered: `no checkout with ${p.methods.checkout[0]} was accepted for primary (see above)`,
    });
    return;
  }
  const d = p.checkout?.data ?? { orderNo: 'order_no' };
  const orderNo = dataPathItem(ctx, 'checkout.data.orderNo', 'a checkout answer', first.a.data, d.orderNo, first.ex) as string | undefined;
  let createdStatus: unknown;
  if (d.status !== undefined)
    createdStatus = dataPathItem(ctx, 'checkout.data.status', 'a checkout answer', first.a.data, d.status, first.ex, 'any');
  const rec = p.paymentRecord;
  let recordStatus: unknown;
  let qex: Exchange | undefined;
  if (rec) {
    qex = await queryPayment(ctx.t, orderNo ? { order_no: orderNo } : { merchant_order_no: first.merchantOrderNo }, {
      label: 'doctor: query the new checkout',
    });
    const q = answerOf(qex);
    if (!accepted(q)) {
      // A checkout creates a payment with the service's number: when that number finds nothing, either the
      // profile points at another field, or the checkout answers a number no payment has (checkout.creates).
      const by = orderNo
        ? answerOf(
            await queryPayment(
              ctx.t,
              { merchant_order_no: first.merchantOrderNo },
              { label: "doctor: query the new checkout by the merchant's number" },
            ),
          )
        : undefined;
      const real = by && accepted(by) ? readPath(by.data, rec.orderNo) : undefined;
      const holder = real !== undefined ? Object.entries(first.a.data ?? {}).find(([, v]) => v === real)?.[0] : undefined;
      if (orderNo && real !== undefined && holder === undefined)
        doubt(ctx, 'checkout.data.orderNo', 'the new checkout can be queried by its order number', ['checkout.creates'], {
          expected: 'the payment record (code 0)',
          answered:
            `${describeAnswer(q)}; the payment, found by its merchant_order_no, has ` +
            `the number ${JSON.stringify(real)}, which the checkout answer does not hold`,
          fix: "checkout.data.orderNo must point at the service's order number (order_no), not another field",
          ex: [qex],
        });
      else
        add(ctx, 'wrong', orderNo ? 'checkout.data.orderNo' : 'paymentRecord', 'the new checkout can be queried by its order number', {
          expected: 'the payment record (code 0)',
          answered: describeAnswer(q),
          fix: orderNo
            ? `checkout.data.orderNo must point at the service's order number` +
              `${holder ? ` (data.${holder} holds it)` : ''}, not another field`
            : undefined,
          ex: [qex],
        });
    } else {
      dataPathItem(ctx, 'paymentRecord.orderNo', 'a payment record', q.data, rec.orderNo, qex);
      const mo = dataPathItem(ctx, 'paymentRecord.merchantOrderNo', 'a payment record', q.data, rec.merchantOrderNo, qex);
      if (mo !== undefined && mo !== first.merchantOrderNo)
        add(ctx, 'wrong', 'paymentRecord.merchantOrderNo', "the record's merchantOrderNo is the merchant's number", {
          expected: first.merchantOrderNo,
          answered: String(mo),
          fix: 'point paymentRecord.merchantOrderNo at merchant_order_no',
          ex: [qex],
        });
      recordStatus = dataPathItem(ctx, 'paymentRecord.status', 'a payment record', q.data, rec.status, qex, 'any');
      dataPathItem(ctx, 'paymentRecord.transAmount', 'a payment record', q.data, rec.transAmount, qex, 'any');
    }
  }
  const pending = p.checkout?.pendingStatus;
  if (pending !== undefined) {
    const seen = createdStatus ?? recordStatus;
    if (seen === undefined)
      add(ctx, 'not-verifiable', 'checkout.pendingStatus', `an unpaid checkout has status ${pending}`, {
        answered: 'no status path resolved (checkout.data.status, paymentRecord.status)',
      });
    else if (seen === pending)
      add(ctx, 'verified', 'checkout.pendingStatus', `an unpaid checkout has status ${pending}`, {
        answered: `status ${JSON.stringify(seen)}`,
        ex: [first.ex, qex],
      });
    else
      add(ctx, 'wrong', 'checkout.pendingStatus', `an unpaid checkout has status ${pending}`, {
        expected: JSON.stringify(pending),
        answered: `status ${JSON.stringify(seen)}`,
        fix: `set checkout.pendingStatus to ${JSON.stringify(seen)}`,
        ex: [first.ex, qex],
      });
  }
}
