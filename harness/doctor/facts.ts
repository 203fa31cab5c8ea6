/**
 * Every fact a profile can state, and what the doctor does with it: the schema's leaves, each either
 * verified by an item of the doctor (test/doctor/facts.test.ts runs it and matches its items to the leaves) or listed
 * here with the reason it is not, so that a new profile field cannot slip through unseen.
 */
import { profileSchema } from '../profile/schema.js';

type Schema = Record<string, unknown>;

/** A leaf of the profile schema: segments, `*` for any key of a map, `[]` for any element of a list. */
export type Leaf = readonly string[];

function resolve(s: Schema, root: Schema): Schema {
  const ref = s['$ref'];
  if (typeof ref !== 'string') return s;
  const name = ref.replace('#/$defs/', '');
  const target = (root['$defs'] as Record<string, Schema>)[name];
  if (!target) throw new Error(`profile schema: unresolved ${ref}`);
  return resolve({ ...target, ...Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref')) }, root);
}

/** The leaves of the profile schema, in its order: scalars, lists of scalars, and open objects (templates, extras). */
export function profileLeaves(root: Schema = profileSchema()): Leaf[] {
  const out: Leaf[] = [];
  const seen = new Set<string>();
  const walk = (raw: Schema, at: string[]): void => {
    const s = resolve(raw, root);
    const alternatives = [...((s['oneOf'] as Schema[]) ?? []), ...((s['anyOf'] as Schema[]) ?? [])];
    const props = { ...((s['properties'] as Record<string, Schema>) ?? {}) };
    for (const alt of alternatives) Object.assign(props, (resolve(alt, root)['properties'] as Record<string, Schema>) ?? {});
    const extra = s['additionalProperties'];
    const items = s['items'] as Schema | undefined;
    if (Object.keys(props).length > 0 || (extra && typeof extra === 'object')) {
      for (const [k, v] of Object.entries(props)) walk(v, [...at, k]);
      if (extra && typeof extra === 'object') walk(extra as Schema, [...at, '*']);
      return;
    }
    if (items) {
      walk(items, [...at, '[]']);
      return;
    }
    const key = at.join('\u0000');
    if (!seen.has(key)) {
      seen.add(key);
      out.push(at);
    }
  };
  walk(root, []);
  return out;
}

/** A doctor item's path (`limits.payments.CARD.channels[0].min`, `internalFieldNames["a.b"]`) as segments. */
export function itemSegments(path: string): string[] {
  const out: string[] = [];
  const re = /\[("(?:[^"\\]|\\.)*")\]|\[(\d+)\]|\.?([^.[\]]+)/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) out.push(JSON.parse(m[1]) as string);
    else if (m[2] !== undefined) out.push('[]');
    else out.push(m[3]!);
  }
  return out;
}

/** Whether an item at `segs` speaks of `leaf`: the leaf itself, or a part of it (an element, a field of a template). */
export function itemNamesLeaf(segs: readonly string[], leaf: Leaf): boolean {
  // An item on a whole list (methods.pricePoint) names its elements' leaf (methods.pricePoint[]).
  if (leaf[leaf.length - 1] === '[]' && segs.length === leaf.length - 1) return itemNamesLeaf([...segs, '[]'], leaf);
  if (segs.length < leaf.length) return false;
  return leaf.every((l, i) => l === '*' || l === segs[i] || (l === '[]' && segs[i] === '[]'));
}

/** How a leaf's pattern is written in the list below: dotted, `*` and `[]` kept. */
export function leafName(leaf: Leaf): string {
  return leaf.map((s, i) => (s === '[]' ? s : i === 0 ? s : `.${s}`)).join('');
}

/**
 * What the doctor does with a leaf it names no item for: `verifiedWith` an item naming a larger part (a merchant's
 * credentials are verified as one, a card as one, a sandbox control as one), or `notVerifiable` with the reason, or
 * `choice`: not a fact about the target at all (the file's metadata, the kit's own settings and allowances, labels).
 * A pattern names the leaves it is a prefix of; `*` stands for any one key.
 */
export type LeafFate = { verifiedWith: string } | { notVerifiable: string } | { choice: string };

export const LEAF_FATES: Readonly<Record<string, LeafFate>> = {
  $schema: { choice: "the file's own metadata" },
  profileVersion: { choice: "the file's format version" },
  name: { choice: "the profile's name, shown in reports" },
  description: { choice: "the profile's description" },
  embedded: { choice: 'how the kit starts its own reference: a real target has no such section' },
  reports: { choice: 'where the kit keeps its reports' },
  environment: {
    notVerifiable:
      'sandbox or production is what the user says the target is: no answer shows it; ' +
      'production makes the doctor move no money (its parity guard), which is the point of saying it',
  },
  'merchants.*.id': { verifiedWith: 'merchants.*' },
  'merchants.*.secret': { verifiedWith: 'merchants.*' },
  'merchants.*.secretEnv': { verifiedWith: 'merchants.*' },
  'merchants.*.productionSecret': {
    notVerifiable:
      'a sandbox refuses every key but its own alike, so it cannot confirm a production key (the auth.env-keys check sends it)',
  },
  'merchants.*.productionSecretEnv': {
    notVerifiable:
      'a sandbox refuses every key but its own alike, so it cannot confirm a production key (the auth.env-keys check sends it)',
  },
  'merchants.*.name': {
    notVerifiable: "a name is shown by no answer of the interface; the auth.merchant-id check uses the primary's only",
  },
  'merchants.*.login': {
    notVerifiable: "a login is shown by no answer of the interface; the auth.merchant-id check uses the primary's only",
  },
  'merchants.*.payoutBalances': { notVerifiable: 'a balance could be shown only by spending it' },
  'merchants.frozen.payoutBalances.*': {
    notVerifiable:
      'a disabled merchant is refused merchantFrozen, which shows no balance; used by no check yet: ' +
      "err.po.merchant-frozen's check pays out its default amount; a payout within this balance would rule out a " +
      'refusal for funds (docs/ROADMAP.md)',
  },
  'merchants.frozen.paymentMethods': {
    notVerifiable: "a disabled merchant's methods are shown by nothing: every payment of it is refused",
  },
  'merchants.frozen.payoutMethods': { notVerifiable: "a disabled merchant's methods are shown by nothing: every payout of it is refused" },
  'merchants.primary.payoutMethods': { verifiedWith: 'payouts.methods.*' },
  'merchants.*.facts': {
    notVerifiable:
      "a merchant's own facts are asked where the doctor acts as that merchant: its payout methods paid in a currency of its " +
      'own set at its own minimum, its own payment ranges probed as it (items named merchants.<role>.facts.…); the rest ' +
      '(its fees, refund support, required fields) are shown by no answer the doctor asks for, as the shared ones of the same name',
  },
  'payouts.methods.*.currencies': { verifiedWith: 'payouts.methods.*' },
  http: {
    choice: "the kit's own pace and allowances (deadline, body size, requests in flight, rate); the doctor proposes a rate when throttled",
  },
  // Every connection proves it: the doctor's first request (its baseUrl item) is verified only over this TLS, and a
  // connection it refuses is WRONG on the field to fix (http.tls.ca, .cert, .servername: harness/http/network.ts).
  'http.tls': { verifiedWith: 'baseUrl' },
  'endpoints.checkout': { verifiedWith: 'methods.checkout.[]' },
  'endpoints.cardPayment': { verifiedWith: 'cardPayment.cards.success' },
  'endpoints.payoutCreate': { verifiedWith: 'payouts.methods.*' },
  'endpoints.payoutCancel': { verifiedWith: 'payouts.methods.*.cancel' },
  'methods.card': { verifiedWith: 'cardPayment.cards.success' },
  'limits.payments.*.name': { choice: "a channel's label, shown in findings" },
  'limits.payments.*.channels.[].name': { choice: "a channel's label, shown in findings" },
  'limits.payouts.*.name': { choice: "a channel's label, shown in findings" },
  'limits.payouts.*.channels': {
    notVerifiable:
      "not probed: the doctor asks a payout method's overall minimum and maximum only; a gap between payout channels is the checks'",
  },
  'limits.payouts.*.byCurrency': {
    notVerifiable:
      "not probed: the doctor pays out in USD within a method's overall range; a range in another currency is judged by " +
      "the amount-range checks (err.po.amount-out-of-range), and the doctor's probes in that currency stay inside it. " +
      'Its EUR payout at the declared EUR minimum, when refused for the amount, is asked again inside the range: taken, ' +
      'the EUR range is WRONG',
  },
  fees: {
    notVerifiable:
      'a fee is shown by no answer of the interface: only a payout or refund just above a balance less its fee shows it, ' +
      "and the doctor spends no balance to find it (the payout-errors and refund-errors balance checks judge it); the doctor's own " +
      'payouts add it to what they must fit in',
  },
  'balances.paymentsCredit': {
    notVerifiable:
      'a credit is shown by no answer: only a payout above the balance it raised would show it; ' +
      'the checks never judge a balance it moves as a constant',
  },
  'balances.proceeds': {
    notVerifiable:
      'pending proceeds are shown by no answer: only a payout above the balance they would raise shows them, which the ' +
      'doctor does not spend (err.po.insufficient-funds judges it); its account lists them as pending, never as credited',
  },
  'balances.chargeback': {
    notVerifiable:
      "what a chargeback takes is shown by no answer of the interface (the document shows no balance); the doctor's " +
      'money account sums it from this field',
  },
  'balances.payoutFee': {
    notVerifiable: 'where a fee is taken is shown only by a payout just above the balance less its fee, which the doctor does not spend',
  },
  'pricePoints.maxDistance': { notVerifiable: 'not asked: the price-point checks probe it' },
  'pricePoints.ruleByMethod': {
    notVerifiable:
      "asked where an item names it: a method's own rounding (and tie) by a rounded payment of that method; not asked " +
      'for a method the primary lacks, with fewer than two tiers, or (tie) without two tiers an even number of cents apart',
  },
  'pricePoints.ruleByMethod.*.maxDistance': { notVerifiable: 'not asked: the price-point checks probe it' },
  'checkout.extras': { verifiedWith: 'methods.checkout.[]' },
  'checkout.extrasByMethod': { verifiedWith: 'methods.checkout.[]' },
  'cardPayment.template': { verifiedWith: 'cardPayment.cards.success' },
  'cardPayment.cards.*': { verifiedWith: 'cardPayment.cards.*' },
  'cardPayment.declines': { verifiedWith: 'cardPayment.declines.[]' },
  'cardPayment.pendingStatus': { verifiedWith: 'cardPayment.cards.*' },
  'refunds.supportByMerchant': {
    notVerifiable:
      "the doctor refunds as the primary merchant only (its card, or a completed checkout); another merchant's refund " +
      'support is shown by the refund-support checks, which pay and refund as that merchant',
  },
  'refunds.template': { verifiedWith: 'refunds.support.*' },
  'payouts.template': { verifiedWith: 'payouts.methods.*' },
  'payouts.methods.*.payee': { verifiedWith: 'payouts.methods.*' },
  'payouts.cancelBy': { verifiedWith: 'payouts.methods.*.cancel' },
  'payouts.sharedBalance': { notVerifiable: 'it could be shown only by spending a balance' },
  'sandbox.*': { verifiedWith: 'sandbox.*' },
  'sandbox.autoSettle.*': {
    notVerifiable:
      'asked where declared with a delay the doctor waits (at most 10 s, harness/doctor/auto-settle.ts: a record made and ' +
      'left alone); a longer delay is not asked, and the checks accept what it allows',
  },
  'sandbox.armFailure.scope': {
    notVerifiable:
      'a switch broader than declared fails only a request the kit does not send meanwhile (harness/http/exclusive.ts); ' +
      'the doctor arms each failure inside a section of the declared scope',
  },
  // Each failure is armed and that many requests of its kind must be refused (harness/doctor/controls.ts).
  'sandbox.armFailure.count': { verifiedWith: 'sandbox.armFailure.failures.*' },
  // Where said, each query is sent with them and without them (harness/doctor/query-params.ts, items queryParams.<kind>).
  'queryParams.*': {
    notVerifiable:
      'said for no query of this profile: a query refused for its fields is WRONG on queryParams.<kind> (harness/doctor/query-params.ts)',
  },
  lengths: {
    notVerifiable:
      'a length is the longest value accepted: the kit sends none longer; a refusal an unsaid length may explain is no ' +
      'verdict (harness/profile/lengths.ts)',
  },
  'webhooks.receiver': { choice: "the kit's own receiver's address" },
  'webhooks.tolerance': { choice: "the kit's allowance on a webhook's timing" },
  'webhooks.jitterMs': { choice: "the kit's allowance on a webhook's timing" },
};

function matches(pattern: readonly string[], segs: readonly string[]): boolean {
  return pattern.length <= segs.length && pattern.every((p, i) => p === '*' || p === segs[i]);
}

/** The fate stated for a leaf (the longest pattern that is a prefix of it), if any. */
export function fateOf(leaf: Leaf): { pattern: string; fate: LeafFate } | undefined {
  let best: { pattern: string; fate: LeafFate; n: number } | undefined;
  for (const [pattern, fate] of Object.entries(LEAF_FATES)) {
    const segs = pattern.split('.');
    if (matches(segs, leaf) && (!best || segs.length > best.n)) best = { pattern, fate, n: segs.length };
  }
  return best && { pattern: best.pattern, fate: best.fate };
}

/** Whether an item path (segments) is named by a `verifiedWith` pattern: the same path, `*` any one key. */
export function itemMatches(pattern: string, segs: readonly string[]): boolean {
  const p = pattern.split('.');
  return p.length === segs.length && p.every((x, i) => x === '*' || x === segs[i]);
}

/** Each leaf with how it is covered (`line`), or why not (`problem`), given the doctor's item paths as segments. */
export function coverage(leaves: readonly Leaf[], items: readonly (readonly string[])[]): { lines: string[]; problems: string[] } {
  const lines: string[] = [];
  const problems: string[] = [];
  for (const leaf of leaves) {
    const name = leafName(leaf);
    if (items.some((segs) => itemNamesLeaf(segs, leaf))) {
      lines.push(`${name}: verified (an item names it)`);
      continue;
    }
    const f = fateOf(leaf);
    if (!f) problems.push(`${name}: no item of the doctor names it, and harness/doctor/facts.ts LEAF_FATES gives no reason`);
    else if ('verifiedWith' in f.fate) {
      const w = f.fate.verifiedWith;
      if (items.some((segs) => itemMatches(w, segs))) lines.push(`${name}: verified with ${w}`);
      else problems.push(`${name}: said verified with ${w} (${f.pattern}), but no item of the doctor names ${w}`);
    } else lines.push(`${name}: ${'choice' in f.fate ? `not a fact (${f.fate.choice})` : `not verifiable (${f.fate.notVerifiable})`}`);
  }
  return { lines, problems };
}
