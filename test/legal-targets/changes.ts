/**
 * One fact of a true profile changed (doctor): every change this profile allows, each
 * with what the doctor must do about it. Where only the profile can be wrong (a path, a data path, an
 * id, a balance the vendor states, which methods a merchant has, a payout's currency or cancel rule that
 * the target proves by accepting), the doctor exits 2 with a WRONG item naming the field. Where the
 * document fixes the answer the changed profile now predicts (an out-of-range amount is refused, a
 * partial refund on a full-only method is refused, a method not for payouts is refused, a payout that
 * cannot be cancelled is refused), the target's contrary answer could be its own violation: the doctor
 * exits 0 with a *doubt* naming the field and leaves the verdict to the checks.
 */
import type { TargetGenome } from '../../fixtures/arbitraries/genome.js';
import { isPathField } from '../../harness/doctor/model.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import { dotted } from '../../harness/profile/schema.js';
import type { Profile } from '../../harness/profile/types.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { trueProfile } from './genome.js';

export interface Change {
  /** The profile path changed, dotted as the doctor's items write it. */
  field: string;
  expect: 'wrong' | 'doubt';
  /** The changed value, for messages. */
  to: unknown;
  apply(p: Profile): void;
}

type Obj = Record<string, unknown>;

function get(o: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Obj)[k] : undefined), o);
}

function setter(path: string, to: unknown): (p: Profile) => void {
  return (p) => {
    const keys = path.split('.');
    const parent = get(p, keys.slice(0, -1).join('.')) as Obj;
    parent[keys[keys.length - 1]!] = to;
  };
}

const DATA_PATHS = [
  'checkout.data.orderNo',
  'checkout.data.status',
  'paymentRecord.orderNo',
  'paymentRecord.status',
  'refunds.data.refundNo',
  'refunds.data.status',
  'refunds.queryBy.serviceNo',
  'payouts.data.payoutNo',
  'payouts.data.status',
  'payouts.queryBy.serviceNo',
];

const money = (cents: number) => (cents / 100).toFixed(2);
const cents = (v: string) => Math.round(Number(v) * 100);

/** Every one-fact change of `p` this module knows, in a stable order (a property draws one by index). */
export function oneFactChanges(p: Profile): Change[] {
  const out: Change[] = [];
  const change = (field: string, expect: Change['expect'], to: unknown, apply: (q: Profile) => void = setter(field, to)) =>
    out.push({ field, expect, to, apply });
  // Where no method of the primary takes refunds, no refund can be made: the refund paths are not verifiable (the doctor
  // says so), so no change of them is drawn.
  const enabled = [...p.methods.checkout, ...(p.methods.card ? [p.methods.card] : [])].filter(
    (m) => p.merchants.primary.paymentMethods?.includes(m) ?? true,
  );
  const refundable = enabled.some((m) => (p.refunds?.support[m] ?? 'partial') !== 'none');
  const refundPath = (path: string): boolean => /^(refunds\.|endpoints\.refund)/.test(path);
  // A moved path is one the target does not have: a segment more, which no route of the target (templated ones included:
  // /refunds/{refund_no} takes /refunds/create-moved as a refund query) answers. A wrong path another route captures is
  // answered as that route's request, which the doctor cannot tell from a wrong template (docs/ROADMAP.md).
  for (const [k, v] of Object.entries(p.endpoints))
    if (typeof v === 'string' && (refundable || !refundPath(`endpoints.${k}`))) change(`endpoints.${k}`, 'wrong', `${v}/moved`);
  for (const path of DATA_PATHS) {
    if (!refundable && refundPath(path)) continue;
    const v = get(p, path);
    if (typeof v === 'string') change(path, 'wrong', `${v}_moved`);
  }
  const m = p.merchants;
  if (m.second) change('merchants.second.id', 'wrong', `${m.second.id}9`);
  if (m.second) change('merchants.unknownId', 'wrong', m.second.id);
  const low = m.lowBalance;
  if (low?.payoutBalance) change('merchants.lowBalance.payoutBalance', 'wrong', money(cents(low.payoutBalance) * 100));
  const payoutMethods = Object.keys(p.payouts?.methods ?? {});
  if (low?.paymentMethods) {
    const more = p.methods.checkout.find((x) => !low.paymentMethods!.includes(x));
    if (more) change('merchants.lowBalance.paymentMethods', 'wrong', [...low.paymentMethods, more]);
  }
  if (low?.payoutMethods) {
    const more = payoutMethods.find((x) => !low.payoutMethods!.includes(x));
    if (more) change('merchants.lowBalance.payoutMethods', 'wrong', [...low.payoutMethods, more]);
  }
  for (const [name, pm] of Object.entries(p.payouts?.methods ?? {})) {
    if (pm.usdOnly) change(`payouts.methods.${name}.usdOnly`, 'wrong', false);
    // Declared cancellable, the target refuses: only the profile can be wrong.
    // Declared not, the target cancels: the document fixes the refusal (a doubt).
    change(`payouts.methods.${name}.cancel`, pm.cancel ? 'doubt' : 'wrong', !pm.cancel);
  }
  for (const [k, c] of Object.entries(p.sandbox ?? {}))
    if (c && typeof c === 'object' && typeof (c as { path?: unknown }).path === 'string')
      change(`sandbox.${k}.path`, 'wrong', `${(c as { path: string }).path}-moved`);
  // The failure switch's value for one failure (one string, or one of several values): the switch refuses it, or arms
  // nothing; only the profile can be wrong about a sandbox control.
  for (const [kind, value] of Object.entries(p.sandbox?.armFailure?.failures ?? {})) {
    // A refund's failure shows only on a refund the target makes (the doctor lists it not verifiable otherwise).
    if (value === undefined || (!refundable && kind.startsWith('refund'))) continue;
    const field = `sandbox.armFailure.failures.${kind}`;
    if (typeof value === 'string') change(field, 'wrong', `${value}_MOVED`);
    else {
      const [key, v] = Object.entries(value)[0]!;
      change(field, 'wrong', { ...value, [key]: `${v}_MOVED` });
    }
  }
  // What the switch matches a refund by, where the template's ${subject} carries it (a template sending both numbers
  // arms the same either way: nothing tells them apart).
  const arm = p.sandbox?.armFailure;
  if (arm && refundable && JSON.stringify(arm.template).includes(`\${subject}`))
    change('sandbox.armFailure.refundSubject', 'wrong', arm.refundSubject === 'merchantRefundNo' ? 'merchantOrderNo' : 'merchantRefundNo');
  if (p.checkout?.pendingStatus) change('checkout.pendingStatus', 'wrong', `${p.checkout.pendingStatus}_MOVED`);
  // A tier the target does not have (half-way between two of its tiers): it rounds the amount or refuses it.
  const tiers = p.pricePoints?.tiers ?? [];
  if (tiers.length >= 2) {
    const i = Math.floor(tiers.length / 2);
    const [lo, hi] = [cents(tiers[i - 1]!), cents(tiers[i]!)];
    // Half-way may be one of the unroundable examples (rounding to the nearest tier within a distance puts them there), and
    // the loader refuses a tier the rule would round an unroundable example to: the first fraction of the way that loads
    // (the doctor-changed sweep).
    const between = [1 / 2, 1 / 3, 2 / 3, 1 / 4, 3 / 4].map((f) => Math.floor(lo + (hi - lo) * f)).filter((c) => c > lo && c < hi);
    const to = between.map((c) => tiers.with(i, money(c))).find((t) => loads(p, setter('pricePoints.tiers', t)));
    // Refused or rounded, it is a doubt: the target may refuse or round one of its own price points (limit.price-points).
    if (to) change('pricePoints.tiers', 'doubt', to);
  }
  // A narrower range than the target's: it accepts an amount the profile calls out of range, which the document says it refuses.
  for (const [method, l] of Object.entries(p.limits?.payments ?? {})) {
    if (l.channels || !l.max) continue;
    const half = Math.floor((cents(l.min) + cents(l.max)) / 2);
    if (half > cents(l.min)) change(`limits.payments.${method}.max`, 'doubt', money(half));
  }
  // Declared wider than the target's: a refund the vendor documents as taken is refused (only the profile can be wrong),
  // a partial one on a full-only method is refused as the document says a full-only method refuses it (a doubt).
  // Only for a method the primary pays with: the doctor pays as the primary, so another merchant's method (a method only
  // the second merchant has) is not verifiable there, and says so.
  for (const [method, s] of Object.entries(p.refunds?.support ?? {})) {
    if (!enabled.includes(method)) continue;
    if (s === 'none') change(`refunds.support.${method}`, 'wrong', 'full');
    if (s === 'full') change(`refunds.support.${method}`, 'doubt', 'partial');
  }
  if (p.payouts?.notForPayouts && payoutMethods[0]) change('payouts.notForPayouts', 'doubt', payoutMethods[0]);
  // A method's own rounding rule changed (version 3): its rounded payment is charged otherwise than the changed rule says.
  // A doubt, as for the shared rule: a target charging another tier than its vendor documents breaks the rounding clauses
  // (price-point faults must stay the checks' to kill). "up" becomes "nearest within a cent" (the doctor's probe, a cent
  // above the first tier, is then claimed rounded down); "nearest within d" becomes "up within d" (claimed rounded up).
  // The changed rule keeps every unroundable example refused (the loader requires it): up within d refuses what nearest
  // within d does, and nearest within a cent refuses whatever is more than a cent from a tier.
  // Drawn only where the doctor makes a rounded payment of the method (enabled for the primary, two tiers, a record).
  for (const [method, rule] of Object.entries(p.pricePoints?.ruleByMethod ?? {})) {
    const tiersOf = p.pricePoints?.tiersByMethod?.[method] ?? p.pricePoints?.tiers ?? [];
    if (!enabled.includes(method) || !p.methods.checkout.includes(method) || tiersOf.length < 2 || !p.paymentRecord) continue;
    const to =
      rule.rounding === 'up'
        ? { rounding: 'nearest' as const, maxDistance: '0.01', tie: 'up' as const }
        : { rounding: 'up' as const, ...(rule.maxDistance !== undefined ? { maxDistance: rule.maxDistance } : {}) };
    const apply = (q: Profile) => {
      q.pricePoints!.ruleByMethod![method] = to;
    };
    if (loads(p, apply)) change(`pricePoints.ruleByMethod.${method}`, 'doubt', to, apply);
  }
  // A price-point method left out: the target rounds an amount the profile calls any amount of a ranged method.
  const pricePoint = p.methods.pricePoint ?? [];
  if (pricePoint.length > 0) change('methods.pricePoint', 'wrong', pricePoint.slice(1));
  // Another internal name than the target's: its invalidRequest text, which the document says names the field by its
  // internal name, does not name the declared one (the profile's wrong name, or the target's failure: a doubt).
  for (const [key, name] of Object.entries(p.internalFieldNames ?? {}))
    change(dotted(['internalFieldNames', key]), 'doubt', `${name}Moved`, (q) => {
      q.internalFieldNames![key] = `${name}Moved`;
    });
  return out;
}

/** Whether the profile changed by `apply` still loads (a change the loader refuses is no profile a user could run). */
function loads(p: Profile, apply: (q: Profile) => void): boolean {
  const q = structuredClone(p);
  apply(q);
  try {
    parseProfile(JSON.stringify(q), 'changed.json');
    return true;
  } catch {
    return false;
  }
}

/** Whether a doctor item's path names the changed field (or an element or part of it). */
export function names(itemPath: string, field: string): boolean {
  return itemPath === field || itemPath.startsWith(`${field}.`) || itemPath.startsWith(`${field}[`);
}

/**
 * The doctor on the true profile of `g` with `c` applied, against a fresh target built from `g` (the doctor
 * moves money: a target another doctor drained is not the genome's any more). Problems, empty when it did
 * what `c.expect` says: WRONG naming the field and exit 2, or a doubt naming it, exit 0 and nothing WRONG.
 */
export async function doctorOnChange(g: TargetGenome, c: Change): Promise<string[]> {
  const truth = trueProfile(g);
  const changed = structuredClone(truth);
  c.apply(changed);
  const ref = await startEmbeddedReference(truth);
  try {
    const report = await runDoctor({ loaded: parseProfile(JSON.stringify(changed), 'changed.json'), baseUrl: ref.url, webhooks: false });
    const flagged = report.items.filter((i) => i.status === 'wrong' || i.status === 'doubt').map((i) => `${i.status} ${i.path}`);
    const named = report.items.some((i) => i.status === c.expect && names(i.path, c.field));
    const problems: string[] = [];
    const to = JSON.stringify(c.to);
    if (!named)
      problems.push(
        `${c.field} changed to ${to}: no ${c.expect.toUpperCase()} item names it (flagged: ${flagged.join(', ') || 'nothing'})`,
      );
    if (c.expect === 'wrong' && report.exitCode !== 2) problems.push(`${c.field} changed to ${to}: exit ${report.exitCode}, not 2`);
    // A moved path answers every probe "no such path": no other fact may be judged from it (refused() read that answer as
    // a refusal, so "not enabled", "not cancellable", "the armed failure happened" were verified through a missing path).
    // Exempt: the envelope at baseUrl and a merchant's credentials, which the query's first answer shows before its path is
    // known (a signed envelope past the 401/403 of authentication), and the paths themselves.
    if (isPathField(c.field) && typeof c.to === 'string') {
      const moved = new Set(report.exchanges.filter((e) => e.request.split(' ')[1] === c.to).map((e) => e.id));
      const judged = (i: (typeof report.items)[number]) =>
        i.status !== 'not-verifiable' && i.status !== 'warning' && !isPathField(i.path) && !/^merchants\.[A-Za-z]+$/.test(i.path);
      for (const i of report.items)
        if (judged(i) && i.exchanges?.some((id) => moved.has(id)))
          problems.push(
            `${c.field} changed to ${to}: ${i.status.toUpperCase()} ${i.path} judged from the moved path (${i.answered ?? ''})`,
          );
    }
    if (c.expect === 'doubt' && report.exitCode !== 0)
      problems.push(`${c.field} changed to ${to} (a doubt): exit ${report.exitCode}, not 0 (flagged: ${flagged.join(', ')})`);
    return problems;
  } finally {
    await ref.close();
  }
}
