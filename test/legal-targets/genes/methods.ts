/**
 * The version-5 method genes (fixtures/arbitraries/genes/methods.ts) as the reference is given them and as the true
 * profile says them: renamed methods (every place either names a method, keys and values alike), the optional checkout
 * fields each method requires (the profile's `checkout.extras` and `extrasByMethod`), the method not for payouts, and a
 * merchant's own payment ranges (its `merchants.<role>.facts.limits.payments`).
 */
import { valueOfCents } from '../../../harness/facts/money.js';
import type { ChannelLimits, Profile } from '../../../harness/profile/types.js';
import type { TargetDescription } from '../../../reference/index.js';
import type { TargetGenes } from '../../../fixtures/arbitraries/genome.js';
import { OWN_PAYMENT_ROLES, type RequirableField } from '../../../fixtures/arbitraries/genes/methods.js';

/** reference/fixtures.ts: the merchant of each role the gene gives own ranges. */
const FIXTURE_IDS = { second: 'M100002', lowBalance: 'M100003' } as const;
/** The reference's payee fields (reference/methods.ts PAYEE_FIELDS), said outright where a payout method is renamed. */
const REFERENCE_PAYEES = { BANK_TRANSFER: ['name', 'account'], PAYPAL: ['email'] } as const;
/** What the profile sends for a field a method requires. */
const FIELD_VALUES: Readonly<Record<RequirableField, string>> = {
  return_url: 'https://merchant.invalid/return',
  metadata: 'conformance-order',
};

/** The payment methods a merchant of the gene's target has. */
function methodsOf(t: TargetGenes, role: (typeof OWN_PAYMENT_ROLES)[number]): readonly string[] {
  const enabled = ['CARD', ...t.methods];
  return role === 'second' ? enabled : t.lowBalance.paymentMethods;
}

/** Every key and string value equal to a renamed method, renamed, at any depth. */
export function renamed<T>(v: T, names: Readonly<Record<string, string>>): T {
  const to = (s: string) => (Object.hasOwn(names, s) ? names[s]! : s);
  if (typeof v === 'string') return to(v) as T;
  if (Array.isArray(v)) return v.map((x) => renamed(x, names)) as T;
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [to(k), renamed(x, names)])) as T;
  return v;
}

/** The checkout fields required per method on the gene's target (`*`: every method), or undefined for the reference's. */
function requiredOf(t: TargetGenes): Record<string, RequirableField[]> | undefined {
  const g = t.requiredFields;
  if (!g) return t.methodNames ? { PAYPAL: ['return_url'] } : undefined;
  const enabled = ['CARD', ...t.methods];
  const byMethod = Object.entries(g.byMethod).filter(([m, f]) => enabled.includes(m) && f && f.length > 0);
  return { ...(g.every.length > 0 ? { '*': [...g.every] } : {}), ...Object.fromEntries(byMethod.map(([m, f]) => [m, [...f!]])) };
}

/** A merchant's own ranges the gene draws, of methods it has. */
function ownRanges(t: TargetGenes, role: (typeof OWN_PAYMENT_ROLES)[number]): [string, { minCents: number; maxCents: number }][] {
  const has = methodsOf(t, role);
  return Object.entries(t.merchantPayments?.[role] ?? {}).filter(([m, r]) => r && has.includes(m)) as [
    string,
    { minCents: number; maxCents: number },
  ][];
}

/** The target description with the method genes laid in: own ranges, required fields, then every renamed method. */
export function describeMethods(d: TargetDescription, t: TargetGenes): TargetDescription {
  const merchants = [...(d.merchants ?? [])];
  for (const role of OWN_PAYMENT_ROLES) {
    const own = ownRanges(t, role);
    if (own.length === 0) continue;
    const paymentChannels = Object.fromEntries(own.map(([m, r]) => [m, { ranges: [{ minCents: r.minCents, maxCents: r.maxCents }] }]));
    const i = merchants.findIndex((m) => m.id === FIXTURE_IDS[role]);
    if (i >= 0) merchants[i] = { ...merchants[i]!, paymentChannels };
    else merchants.push({ id: FIXTURE_IDS[role], paymentChannels });
  }
  const required = requiredOf(t);
  const names = t.methodNames ?? {};
  const renaming = Object.keys(names).length > 0;
  const out: TargetDescription = {
    ...d,
    ...(merchants.length > 0 ? { merchants } : {}),
    ...(required ? { checkoutRequiredFields: required } : {}),
    ...(renaming && !d.payeeFields ? { payeeFields: REFERENCE_PAYEES } : {}),
  };
  return renaming ? { ...renamed(out, names), otherMethodNames: Object.values(names) } : out;
}

/** The true profile's edits for the method genes: run last, as the renaming covers every section but `embedded`. */
export function editMethods(p: Profile, t: TargetGenes): void {
  let wrote = false;
  const enabled = ['CARD', ...t.methods];
  if (t.notForPayouts && (t.notForPayouts === 'CARD' || t.notForPayouts === 'VENMO' || enabled.includes(t.notForPayouts))) {
    p.payouts!.notForPayouts = t.notForPayouts;
    wrote = true;
  }
  if (t.requiredFields) {
    const required = requiredOf(t)!;
    // A vendor's own value fits its own limit (lengths.maxLength.metadata): told as the limit allows.
    const told = (f: RequirableField) => (f === 'metadata' ? FIELD_VALUES[f].slice(0, t.lengths?.maxLength.metadata) : FIELD_VALUES[f]);
    const values = (fields: readonly RequirableField[]) => Object.fromEntries(fields.map((f) => [f, told(f)]));
    const { '*': every = [], ...byMethod } = required;
    p.checkout!.extras = { notify_url: `\${notifyUrl}`, ...values(every) };
    if (Object.keys(byMethod).length > 0)
      p.checkout!.extrasByMethod = Object.fromEntries(Object.entries(byMethod).map(([m, f]) => [m, values(f)]));
    else delete p.checkout!.extrasByMethod;
    wrote = true;
  }
  for (const role of OWN_PAYMENT_ROLES) {
    const own = ownRanges(t, role);
    const ref = p.merchants[role];
    if (own.length === 0 || !ref) continue;
    const payments: Record<string, ChannelLimits> = {};
    for (const [m, r] of own) {
      const range = { min: valueOfCents(r.minCents), max: valueOfCents(r.maxCents) };
      // A shared list of channels is replaced by the merchant's one.
      payments[m] = p.limits?.payments?.[m]?.channels ? { ...range, channels: [range] } : range;
    }
    ref.facts = { ...ref.facts, limits: { ...ref.facts?.limits, payments } };
    wrote = true;
  }
  const names = t.methodNames ?? {};
  if (Object.keys(names).length > 0) {
    for (const k of Object.keys(p) as (keyof Profile)[])
      if (k !== 'embedded' && k !== 'name' && k !== 'description') (p as unknown as Record<string, unknown>)[k] = renamed(p[k], names);
    wrote = true;
  }
  if (wrote) p.profileVersion = 5;
}
