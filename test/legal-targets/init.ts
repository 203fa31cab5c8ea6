/**
 * `init` over one generated target, as a user runs it: the CLI (in process) against the
 * reference built from the genome, then its draft and `.todo.md` judged against the genome's true profile,
 * fact by fact. Shared by test/legal-targets/init.test.ts and bench/legal-targets.ts.
 *
 * A *fact* is a leaf of the true profile that says something about the target. Leaves that are the
 * user's or the kit's choice (names, secrets, the kit's tolerances, a card holder's name, a payee's
 * account) are not facts; where the document lets several values be true (an unknown merchant id, an
 * unroundable amount, a failing card number, a measured time scale) the drafted value is judged by what
 * it must be, not by equality with the one the true profile happens to hold.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPTIONAL_METHODS, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import type { Todo } from '../../harness/init/evidence.js';
import { COARSE_RATIO, FINE_RATIO } from '../../harness/init/limits.js';
import { centsNumberOf } from '../../harness/facts/money.js';
import { isTemplated } from '../../harness/profile/endpoint-path.js';
import { parseProfile } from '../../harness/profile/load.js';
import { decidePricePoint, pricePointRule } from '../../harness/profile/price-points.js';
import type { ChannelLimits, Profile } from '../../harness/profile/types.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { callMain } from '../cli/helpers.js';
import { completeAtTodos } from '../init/complete.js';
import { discoveredShare } from '../init/share.js';
import { trueProfile } from './genome.js';
import { learnable, unlearnable } from './learnable.js';
import { stringify } from 'yaml';
import { describeOpenApi } from '../../harness/openapi/write.js';
import { type GalleryStyle, vendorDescription } from '../../fixtures/openapi-gallery/vendor.js';

const SECRET_ENV = 'LEGAL_TARGETS_INIT_SECRET';

/** Leaves that are a choice of the user or the kit, not a fact about the target. */
const CHOICE = [
  /^(name|description|\$schema|baseUrl|environment)$/,
  /^embedded\./,
  /^http\./,
  /^merchants\.\w+\.(secret|secretEnv)$/,
  // The kit's own allowances for waiting, not the target's.
  /^webhooks\.(receiver\.|deliveryWaitMs$|tolerance$|jitterMs$)/,
  // A test card's holder, expiry and cvv are the merchant's to choose; its number is the fact.
  /^cardPayment\.cards\.\w+\.(?!card_number$)/,
  // Values a card request carries (billing address, device): the body's keys are judged apart (cardTemplate).
  /^cardPayment\.template\./,
  // A payee's values are the merchant's; its fields are judged apart (payeeFields).
  /^payouts\.methods\.\w+\.payee\./,
];

/**
 * Request field names a target built from these readings takes besides the true profile's own (the reading
 * renames the alternative names to the internal ones, so both reach it; init writes the one its messages name).
 * Restated from reference/readings/requests.ts, as test/init/configurations.ts does.
 */
function requestAlternates(g: TargetGenome): Record<string, string[]> {
  if (!g.readings.includes('other-request-field-names')) return {};
  return {
    amount: ['refund_amount', 'trans_amount'],
    refund_reason: ['reason'],
    beneficiary: ['payee'],
    payout_method: ['payment_method'],
    refund_order_no: ['refund_no'],
    payout_order_no: ['payout_no'],
  };
}

type Leaf = [string, unknown];

function leaves(v: unknown, path: string[] = []): Leaf[] {
  if (v && typeof v === 'object' && !Array.isArray(v))
    return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => leaves(x, [...path, k]));
  return path.length === 0 ? [] : [[path.join('.'), v]];
}

function get(o: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined), o);
}

function luhnValid(n: string): boolean {
  let sum = 0;
  [...n].reverse().forEach((ch, i) => {
    let d = Number(ch);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  });
  return sum % 10 === 0;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const sameSet = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) && same([...a].map(String).sort(), [...b].map(String).sort());
const unnamedChannels = (v: unknown) => (Array.isArray(v) ? v.map((c: { min: string; max: string }) => ({ min: c.min, max: c.max })) : v);

/**
 * Where the document (or the target) lets more than one value be true: whether the drafted value is one.
 * `undefined` for a leaf judged by equality.
 */
function judgeSpecial(
  path: string,
  drafted: unknown,
  truth: Profile,
  alternates: Record<string, string[]>,
  draft: Profile,
): boolean | undefined {
  // A lookup's request field: the true name or another spelling the target takes. Where the lookup's path carries the
  // record's number, the body carries none (harness/ops.ts lookupRequest): the names are never sent, and none is false.
  if (/^(refunds|payouts)\.(queryBy|cancelBy)\./.test(path)) {
    const endpoint = path.startsWith('refunds.') ? 'refundQuery' : path.includes('cancelBy') ? 'payoutCancel' : 'payoutQuery';
    if (isTemplated(truth.endpoints[endpoint])) return typeof drafted === 'string' && drafted !== '';
    const v = get(truth, path);
    return drafted === v || (typeof v === 'string' && (alternates[v] ?? []).includes(String(drafted)));
  }
  const knownMethods = new Set([
    ...truth.methods.checkout,
    ...(truth.methods.pricePoint ?? []),
    truth.methods.card,
    truth.methods.notEnabled,
    truth.methods.noChannel,
    ...Object.keys(truth.payouts?.methods ?? {}),
  ]);
  if (path === 'merchants.unknownId')
    return !Object.values(truth.merchants).some((m) => m && typeof m === 'object' && (m as { id: string }).id === drafted);
  if (path === 'methods.unknown') return typeof drafted === 'string' && !knownMethods.has(drafted);
  const extra = /^checkout\.(extras|extrasByMethod\.[^.]+)\.(return_url|metadata)$/.exec(path);
  if (extra) return takesRequiredExtra(extra[2] as 'return_url' | 'metadata', drafted, truth);
  if (path === 'methods.notEnabled') {
    // Any method of the target that the primary merchant has not enabled is one (a genome may leave PAYPAL off too).
    const primary = truth.merchants.primary.paymentMethods ?? [...truth.methods.checkout, truth.methods.card];
    const catalogue = new Set<string>([...OPTIONAL_METHODS, 'KLARNA', ...[...knownMethods].filter((m) => m !== undefined)]);
    return typeof drafted === 'string' && catalogue.has(drafted) && !primary.includes(drafted) && drafted !== truth.methods.noChannel;
  }
  if (path === 'methods.checkout' || path === 'methods.pricePoint') return sameSet(drafted, get(truth, path));
  if (path === 'payouts.notForPayouts') return typeof drafted === 'string' && !(drafted in (truth.payouts?.methods ?? {}));
  if (path === 'cardPayment.cards.invalid.card_number') return typeof drafted === 'string' && !luhnValid(drafted);
  // A decline card's number is the fact; its holder, expiry and cvc are the merchant's choice (as for cards.*).
  if (path === 'cardPayment.declines')
    return (
      Array.isArray(drafted) &&
      sameSet(
        drafted.map((c: { card_number: string }) => c.card_number),
        declineNumbers(truth),
      )
    );
  if (/^limits\.\w+\.\w+\.channels$/.test(path)) return same(unnamedChannels(drafted), unnamedChannels(get(truth, path)));
  if (path === 'pricePoints.unroundable') {
    // Every amount listed must be refused by the true rule, for every price-point method the draft lists. One it leaves out
    // (refused at every probe, asked about in its TODOs) has no rule in the draft for these amounts to contradict: the loader
    // refuses the completed profile if the user's rule for it rounds one (bench/legal-targets.ts --seed 4013, 1st genome:
    // Apple Pay, 99.99 within 0.10, left out; the draft's 100.00 is unroundable for Google Pay, the method it lists).
    const pp = truth.pricePoints;
    if (!pp || !Array.isArray(drafted)) return false;
    const listed = draft.methods.pricePoint ?? [];
    const truthList = truth.methods.pricePoint ?? [];
    const both = truthList.filter((m) => listed.includes(m));
    const methods = both.length > 0 ? both : truthList;
    return drafted.every((a) =>
      methods.every((m) => decidePricePoint(Math.round(Number(a) * 100), pricePointRule(pp, m)).kind === 'refused'),
    );
  }
  if (path === 'webhooks.timeScale') {
    // As test/init/init.test.ts: the first retry wait (about 15 s) on both scales differs by no more than a check allows.
    const w = truth.webhooks!;
    return Math.abs(15_000 * Number(drafted) - 15_000 * w.timeScale) <= w.tolerance * 15_000 * w.timeScale + (w.jitterMs ?? 250);
  }
  if (path === 'webhooks.ackTimeoutMs') {
    // A delay the target was seen to wait (no more than the true limit: the kit's "in time" reply, half of it, keeps half
    // the limit as margin), and its "slow" reply (3× + 200 ms) comes after the true limit.
    const t = truth.webhooks!.ackTimeoutMs;
    return Number(drafted) <= t && 3 * Number(drafted) + 200 > t;
  }
  return undefined;
}

/**
 * A checkout field a target requires but whose value is the merchant's (reference/handlers/payment-input.ts reads any
 * URL as return_url and any string within the target's length as metadata; the true profile's literal is one merchant's
 * choice): the drafted value is right when the target takes it.
 */
function takesRequiredExtra(field: 'return_url' | 'metadata', drafted: unknown, truth: Profile): boolean {
  if (typeof drafted !== 'string' || drafted === '') return false;
  if (field === 'return_url') return URL.canParse(drafted) && /^https?:$/.test(new URL(drafted).protocol);
  return drafted.length <= (truth.lengths?.maxLength?.metadata ?? 4096);
}

/**
 * What the draft's checkout of a method carries in a field: its own extras (extrasByMethod), else the extras every
 * checkout carries. A true profile may say a field a method requires twice (in extras and in the method's own); the kit
 * sends a method's checkout the two merged, so a draft that sends the field with every checkout states the method's.
 */
function draftedCheckoutField(draft: Profile, path: string): unknown {
  const own = get(draft, path);
  const m = /^checkout\.extrasByMethod\.[^.]+\.(.+)$/.exec(path);
  return own !== undefined || !m ? own : get(draft, `checkout.extras.${m[1]}`);
}

function declineNumbers(truth: Profile): string[] {
  return (truth.cardPayment?.declines ?? []).map((c) => c.card_number);
}

export interface InitJudgement {
  /** The CLI's exit code, and whether it wrote the draft and its TODO file. */
  exit: number;
  wroteDraft: boolean;
  wroteTodo: boolean;
  /** init found a part of its own draft invalid, left it out as a TODO and wrote `.init-report.json` (a bug in init). */
  selfReported: boolean;
  /** Facts the draft states otherwise than the target is: each is a false statement of init. */
  wrong: string[];
  /**
   * Limits the draft states otherwise than the target only because a true accepted range is narrower than the spacing
   * of init's probes there (onlyUnseenRanges): neither written nor wrong, counted apart.
   */
  unseen: string[];
  /** Facts the draft leaves out with no TODO naming them. */
  untold: string[];
  /** Leaves the draft writes that the true profile does not state (not judged: the truth is silent). */
  beyond: string[];
  /** Facts of the true profile, and those the draft states truly. */
  facts: number;
  written: number;
  /** The facts a probe as the primary can learn (learnable.ts), and those of them the draft states truly. */
  learnable: { facts: number; written: number };
  /** Facts the draft does not state, by path (for the bench's "what init misses most"). */
  missing: string[];
  /** The measure the 55 % was taken with (test/init/share.ts): every leaf of the truth, choices included. */
  leafShare: { equal: number; total: number };
  todos: Todo[];
  /** With the vendor's hints: what init did with each value told. */
  hints?: HintsKept;
  draft?: Profile;
  probes?: number;
  stdout: string;
  /** The draft completed from the true profile at its TODOs, run (quick) against the very target init probed. */
  run?: {
    passed: number;
    failed: string[];
    skipped: number;
    inconclusive: string[];
    /** Checks the true profile itself passes on this target, and those of them the completed draft skipped. */
    truthPassed: number;
    skippedTruthPassed: string[];
  };
}

/** The `.todo.md` items: "- [ ] `path` — what". */
export function parseTodoFile(text: string): Todo[] {
  return [...text.matchAll(/^- \[ \] `([^`]+)` — (.*)$/gm)].map((m) => ({ path: m[1]!, what: m[2]! }));
}

function covered(path: string, todos: Todo[]): boolean {
  return todos.some((t) => {
    const p = t.path.split(' ')[0]!;
    if (p === '(budget)') return true;
    // The production key is asked for as the variable holding it.
    const q = /^merchants\.\w+\.productionSecretEnv$/.test(p) ? p.replace(/Env$/, '') : p;
    return path === q || path.startsWith(`${q}.`);
  });
}

/**
 * Whether a method is named as none of those init tried at checkout, as its TODO of other names lists them
 * (harness/init/run.ts methodsTodos): no answer names such a method, and the TODO asks the vendor for it. False for every
 * method where the TODO is absent.
 */
function namedOtherwise(todos: Todo[]): (method: string) => boolean {
  const t = todos.find((x) => x.path === 'methods.checkout (other names)');
  const tried = /\(names tried: ([^)]*)\)$/.exec(t?.what ?? '')?.[1]?.split(', ');
  return (m) => tried !== undefined && !tried.includes(m);
}

/** The amounts a method accepts, as disjoint ranges in cents: overlapping or touching channels are one range. */
function acceptedRanges(lim: ChannelLimits): { min: number; max: number }[] {
  const raw = (lim.channels ?? [lim]).map((c) => ({ min: centsNumberOf(c.min), max: centsNumberOf(c.max) })).sort((a, b) => a.min - b.min);
  const out: { min: number; max: number }[] = [];
  for (const r of raw) {
    const last = out.at(-1);
    if (last && r.min <= last.max + 1) last.max = Math.max(last.max, r.max);
    else out.push({ ...r });
  }
  return out;
}

/**
 * Whether a drafted method's limits differ from the truth only by accepted ranges no probe of init's could reach: every
 * drafted range is a true one, and every true range the draft lacks is narrower than the spacing init's search states
 * between its probes there (harness/init/limits.ts: COARSE_RATIO, FINE_RATIO within a decade of what it found). init
 * says in its evidence that such a range would not be seen; a wider one missed is a wrong value.
 */
export function onlyUnseenRanges(drafted: ChannelLimits, truth: ChannelLimits): boolean {
  const d = acceptedRanges(drafted);
  const t = acceptedRanges(truth);
  const key = (r: { min: number; max: number }) => `${r.min}-${r.max}`;
  const trueKeys = new Set(t.map(key));
  if (!d.every((r) => trueKeys.has(key(r)))) return false;
  const lo = d[0]!.min;
  const hi = d.at(-1)!.max;
  const draftedKeys = new Set(d.map(key));
  return t
    .filter((r) => !draftedKeys.has(key(r)))
    .every((r) => {
      const ratio = r.min >= lo / 10 && r.max <= hi * 10 ? FINE_RATIO : COARSE_RATIO;
      return r.max - r.min + 1 < r.min * (ratio - 1);
    });
}

/** Judges a draft against the true profile: wrong values, facts left out without a TODO, the share written. */
export function judgeDraft(
  draft: Profile,
  todos: Todo[],
  truth: Profile,
  g: TargetGenome,
): Pick<InitJudgement, 'wrong' | 'untold' | 'beyond' | 'facts' | 'written' | 'missing' | 'unseen' | 'learnable'> {
  const wrong: string[] = [];
  const unseen: string[] = [];
  const missing: string[] = [];
  let facts = 0;
  let written = 0;
  // Each fact by the path it is judged at, and those written: the share of the learnable ones is counted from them.
  const factPaths: string[] = [];
  const writtenPaths: string[] = [];
  const fact = (path: string) => {
    facts += 1;
    factPaths.push(path);
  };
  const wrote = (path: string) => {
    written += 1;
    writtenPaths.push(path);
  };
  const isChoice = (p: string) => CHOICE.some((r) => r.test(p));
  const alternates = requestAlternates(g);
  const templateKeys = new Set<string>();
  for (const section of ['refunds', 'payouts'] as const) {
    const t = truth[section]?.template as Record<string, unknown> | undefined;
    const d = draft[section]?.template as Record<string, unknown> | undefined;
    if (!t) continue;
    // A request field is a fact: the draft names it (or a spelling the target also takes) with the same value.
    for (const [k, v] of Object.entries(t)) {
      templateKeys.add(`${section}.template.${k}`);
      fact(`${section}.template.${k}`);
      if (!d) {
        missing.push(`${section}.template.${k}`);
        continue;
      }
      const hit = [k, ...(alternates[k] ?? [])].find((a) => a in d);
      if (hit === undefined) missing.push(`${section}.template.${k}`);
      else if (!same(d[hit], v)) wrong.push(`${section}.template.${hit}: drafted ${JSON.stringify(d[hit])}, true ${JSON.stringify(v)}`);
      else wrote(`${section}.template.${k}`);
    }
    for (const k of Object.keys(d ?? {}))
      if (!(k in t) && !Object.entries(alternates).some(([tk, alts]) => tk in t && alts.includes(k)))
        wrong.push(`${section}.template.${k}: a request field the target does not take`);
  }
  // A card request's keys: those init writes are fields the target takes (the true body may have more, optional ones).
  const cardKeys = new Set(leaves(truth.cardPayment?.template).map(([p]) => p));
  for (const [p] of leaves(draft.cardPayment?.template))
    if (!cardKeys.has(p)) wrong.push(`cardPayment.template.${p}: a card request field the target does not take`);
  // A payee's fields per payout method are a fact; its values are the merchant's.
  for (const [m, v] of Object.entries(truth.payouts?.methods ?? {})) {
    fact(`payouts.methods.${m}.payee`);
    const d = draft.payouts?.methods[m]?.payee;
    if (d === undefined) missing.push(`payouts.methods.${m}.payee`);
    else if (!sameSet(Object.keys(d), Object.keys(v.payee ?? {})))
      wrong.push(`payouts.methods.${m}.payee: fields ${Object.keys(d).join(', ')}, true ${Object.keys(v.payee ?? {}).join(', ')}`);
    else wrote(`payouts.methods.${m}.payee`);
  }
  const isTemplate = (p: string) => [...templateKeys].some((k) => p === k || p.startsWith(`${k}.`));
  const drafted = new Map(leaves(draft));
  const otherName = namedOtherwise(todos);
  // Methods whose drafted limits differ from the truth only by ranges too narrow for init's probes (onlyUnseenRanges).
  const unseenLimits = new Set<string>();
  for (const kind of ['payments', 'payouts'] as const)
    for (const [m, t] of Object.entries(truth.limits?.[kind] ?? {})) {
      const d = draft.limits?.[kind]?.[m];
      if (d && !same(acceptedRanges(d), acceptedRanges(t)) && onlyUnseenRanges(d, t)) unseenLimits.add(`limits.${kind}.${m}.`);
    }
  // Price points are judged per price-point method, by the tiers it rounds to (tiersByMethod[m], else tiers): where every
  // such method has its own, the profile's global `tiers` describes no method and no answer can show it.
  // A method the draft does not list as a price-point one has no tiers or rule in it: the shared ones are another method's
  // (bench/legal-targets.ts --seed 3002, its 5th genome: Apple Pay refused at every probe, Google Pay's tiers drafted as the shared ones).
  // Whether leaving it out is right is judged on methods.pricePoint.
  const drafts = (m: string) => (draft.methods.pricePoint ?? []).includes(m);
  const tiersOf = (pr: Profile, m: string) => pr.pricePoints?.tiersByMethod?.[m] ?? pr.pricePoints?.tiers;
  for (const m of truth.methods.pricePoint ?? []) {
    fact(`pricePoints.tiersByMethod.${m}`);
    const d = drafts(m) ? tiersOf(draft, m) : undefined;
    if (d === undefined) missing.push(`pricePoints.tiersByMethod.${m}`);
    else if (same(d, tiersOf(truth, m))) wrote(`pricePoints.tiersByMethod.${m}`);
    else wrong.push(`pricePoints (${m}'s tiers): drafted ${JSON.stringify(d)}, true ${JSON.stringify(tiersOf(truth, m))}`);
  }
  // So is each method's rule (ruleByMethod[m], else the shared rounding, distance and tie): whether the draft says it
  // shared or per method is its choice, what it says of each method is the fact.
  for (const m of truth.methods.pricePoint ?? []) {
    const t = pricePointRule(truth.pricePoints!, m);
    const d = draft.pricePoints && drafts(m) ? pricePointRule(draft.pricePoints, m) : undefined;
    for (const k of ['rounding', 'maxDistance', 'tie'] as const) {
      if (k === 'tie' && t.rounding !== 'nearest') continue;
      const path = k === 'rounding' ? 'pricePoints.rounding' : `pricePoints.${k}`;
      if (t[k] === undefined && d?.[k] === undefined) continue;
      fact(`${path}.${m}`);
      if (d?.[k] === undefined) missing.push(`${path}.${m}`);
      else if (d[k] === t[k]) wrote(`${path}.${m}`);
      else wrong.push(`pricePoints (${m}'s ${k}): drafted ${JSON.stringify(d[k])}, true ${JSON.stringify(t[k])}`);
    }
  }
  for (const [p, v] of leaves(truth)) {
    if (isChoice(p) || isTemplate(p) || /^pricePoints\.(tiers$|tiersByMethod\.|rounding$|maxDistance$|tie$|ruleByMethod\.)/.test(p))
      continue;
    // The draft's format version is no fact of the target: the loader holds it to the fields the draft writes, and a
    // fact of a newer format left to a TODO raises it when the user writes that fact (test/init/complete.ts).
    if (p === 'profileVersion') continue;
    fact(p);
    const d = p.startsWith('checkout.extrasByMethod.') ? draftedCheckoutField(draft, p) : drafted.get(p);
    if (d === undefined) {
      missing.push(p);
      continue;
    }
    const ok = judgeSpecial(p, d, truth, alternates, draft) ?? same(d, v);
    // A price-point list init could not finish: every method it lists is one, and each it left out has a TODO of its own
    // (a method refused for its amount at every probe may be a price-point one): not wrong, left out with a TODO.
    const partialList =
      p === 'methods.pricePoint' &&
      Array.isArray(d) &&
      Array.isArray(v) &&
      d.every((m) => v.includes(m)) &&
      v.filter((m) => !d.includes(m)).every((m) => todos.some((t) => t.path === `methods.pricePoint (${m})`));
    // A checkout list without the methods the target names as none of the names init tried, which its TODO says it may lack,
    // or that no answer placed, each under a TODO of its own.
    const partialCheckout =
      p === 'methods.checkout' &&
      Array.isArray(d) &&
      Array.isArray(v) &&
      d.every((m) => v.includes(m)) &&
      v.filter((m) => !d.includes(m)).every((m) => otherName(m) || todos.some((t) => t.path === `methods.checkout (${m})`));
    // A required field init could not probe (a payout method's cancel: the schema requires it) is written as a
    // placeholder under a TODO of its exact path: not a fact the draft asserts, left out with a TODO.
    const placeholder = /^payouts\.methods\.[^.]+\.cancel$/.test(p) && todos.some((t) => t.path === p);
    if (ok) wrote(p);
    else if (partialList || partialCheckout || placeholder) missing.push(p);
    else if ([...unseenLimits].some((u) => p.startsWith(u))) unseen.push(`${p}: drafted ${JSON.stringify(d)}, true ${JSON.stringify(v)}`);
    else wrong.push(`${p}: drafted ${JSON.stringify(d)}, true ${JSON.stringify(v)}`);
  }
  const truthPaths = new Set(leaves(truth).map(([p]) => p));
  const beyond = [...drafted.keys()].filter(
    (p) =>
      !truthPaths.has(p) &&
      !isChoice(p) &&
      !/^(refunds|payouts)\.template\./.test(p) &&
      !/^payouts\.methods\.\w+\.payee\./.test(p) &&
      !/^pricePoints\.(tiersByMethod|ruleByMethod)\./.test(p),
  );
  // A fact of a method the draft does not name, where the TODO of other names says init never tried that name.
  const ofOtherName = (p: string) => {
    const m = /^(limits\.payments|checkout\.extrasByMethod|refunds\.support|refunds\.createdStatus)\.([^.]+)/.exec(p)?.[2];
    return m !== undefined && otherName(m) && !(draft.methods.checkout as string[]).includes(m);
  };
  const untold = missing.filter((p) => !covered(p, todos) && !ofOtherName(p));
  const learnableShare = {
    facts: factPaths.filter((p) => learnable(p, truth)).length,
    written: writtenPaths.filter((p) => learnable(p, truth)).length,
  };
  return { wrong, untold, beyond, facts, written, missing, unseen, learnable: learnableShare };
}

/**
 * What a vendor's documentation says, in the forms init takes as hints: every fact no probe as the primary can learn
 * (learnable.ts: other merchants, the primary's name, login, production key and balances, fees and how balances move,
 * the refund fee and failing reason, the limits of methods the primary cannot use), and what vendors document though a
 * probe may find it too: the paths, the primary's method lists, the sandbox controls, the test cards, the refund
 * support and created status of each method, the refund record's fields and lookup names, the price points, a query's
 * parameters beside its lookup number, a refund request whose fields sit under a key. Not in it:
 * other request and record field names, internal names, the limits of the primary's methods, the webhooks' timing:
 * init learns those from answers. Given to init as `--hints FILE`: the share init writes with them is
 * the measure "with hints".
 */
export function vendorHints(truth: Profile): Record<string, unknown> {
  const pick = (o: unknown, keys: string[]) =>
    Object.fromEntries(
      keys.flatMap((k) => ((o as Record<string, unknown>)?.[k] === undefined ? [] : [[k, (o as Record<string, unknown>)[k]]])),
    );
  const out: Record<string, unknown> = {
    endpoints: truth.endpoints,
    merchants: {
      ...pick(truth.merchants, ['second', 'frozen', 'lowBalance']),
      primary: pick(truth.merchants.primary, ['name', 'login', 'productionSecret', 'paymentMethods', 'payoutMethods']),
    },
  };
  if (truth.sandbox) out['sandbox'] = truth.sandbox;
  if (truth.cardPayment) out['cardPayment'] = pick(truth.cardPayment, ['cards', 'declines']);
  // The refund record's fields and lookup names are in every vendor's refund reference; init sees them only in a refund
  // of its own card payment, so where the card takes no refund the refunds part would otherwise be left out whole.
  if (truth.refunds) out['refunds'] = pick(truth.refunds, ['support', 'createdStatus', 'failingReason', 'fee', 'data', 'queryBy']);
  // A refund request that keeps its own fields under a key ({ "refund": { … } }) is shown in the vendor's refund reference;
  // no answer names the key (the target asks for the fields it lacks by their own names).
  const nested = Object.values(truth.refunds?.template ?? {}).some((v) => v !== null && typeof v === 'object' && !Array.isArray(v));
  if (truth.refunds && nested) (out['refunds'] as Record<string, unknown>)['template'] = truth.refunds.template;
  if (truth.payouts?.balances) out['payouts'] = { balances: truth.payouts.balances };
  // A query's parameters beside its lookup number (a store id) are in the vendor's query reference, with their values.
  if (truth.queryParams) out['queryParams'] = truth.queryParams;
  // A wallet's tiers are in the vendor's price list; a walk proves them only where their windows are wide enough.
  if (truth.pricePoints) out['pricePoints'] = truth.pricePoints;
  // And every other fact no probe as the primary learns (learnable.ts): fees and how balances move, the primary's balances,
  // other merchants' refund support, the limits of methods the primary cannot use.
  for (const [p, v] of leaves(truth)) {
    if (CHOICE.some((r) => r.test(p)) || unlearnable(p, truth) === undefined || get(out, p) !== undefined) continue;
    const keys = p.split('.');
    let cur = out;
    for (const k of keys.slice(0, -1)) {
      if (cur[k] === undefined) cur[k] = {};
      cur = cur[k] as Record<string, unknown>;
    }
    cur[keys.at(-1)!] = v;
  }
  return structuredClone(out);
}

/** What init did with each value the vendor told: written as told, left out under a TODO naming an answer against it, or lost. */
export interface HintsKept {
  told: number;
  asTold: number;
  /** Told values init left out or replaced, each under a TODO that names the answer it read against the vendor's. */
  contradicted: string[];
  /**
   * Told values init could not write because the part they belong to is not drafted (a payout fee of a method the draft
   * lacks, a balance of a payouts part left out), each quoted whole in a TODO saying so: kept for the user, not contradicted.
   */
  held: string[];
  /** Told values neither written as told nor under such a TODO (goal 0). */
  lost: string[];
}

/** Judges each leaf of the hints given (a list is one leaf) against the draft and its TODOs. */
export function judgeHints(draft: Profile, todos: Todo[], hints: Record<string, unknown>): HintsKept {
  const out: HintsKept = { told: 0, asTold: 0, contradicted: [], held: [], lost: [] };
  for (const [p, v] of leaves(hints)) {
    out.told += 1;
    const d = get(draft, p);
    const at = (t: Todo) => p === t.path || p.startsWith(`${t.path}.`);
    // The TODO quotes this value whole (told.ts at its own path; cli/init.ts validParts as "path = value" in its part's).
    const quotes = (t: Todo) => t.what.includes(t.path === p ? JSON.stringify(v) : `${p} = ${JSON.stringify(v)}`);
    if (same(d, v) || sameSet(d, v)) out.asTold += 1;
    else if (todos.some((t) => at(t) && quotes(t) && /does not fit the draft|do not make a valid part/.test(t.what)))
      out.held.push(`${p}: told ${JSON.stringify(v)}, drafted ${JSON.stringify(d)}`);
    else if (todos.some((t) => at(t) && /the vendor says/.test(t.what)))
      out.contradicted.push(`${p}: told ${JSON.stringify(v)}, drafted ${JSON.stringify(d)}`);
    else out.lost.push(`${p}: told ${JSON.stringify(v)}, drafted ${JSON.stringify(d)}`);
  }
  return out;
}

export interface InitOverGenomeOptions {
  budget?: number;
  /** Give init the vendor's documentation of what no probe learns (vendorHints) as --hints. */
  hints?: boolean;
  /**
   * Give init the target's own OpenAPI description as --openapi: `describe --openapi` of its true profile (true), or
   * the vendor's own in one of the gallery's styles (fixtures/openapi-gallery/vendor.ts: no x-mpsi extension).
   */
  openapi?: boolean | GalleryStyle;
  /** Complete the draft at its TODOs and run the checks (quick webhooks) against the target init probed. */
  run?: { suites: SuiteDef[]; seed: number; numRuns: number };
}

/** The target's own description: `describe --openapi` of its true profile, or the vendor's in a gallery style. */
function descriptionFile(dir: string, truth: Profile, url: string, style: true | GalleryStyle): string {
  const file = join(dir, 'openapi.yaml');
  const doc = style === true ? describeOpenApi(truth, url) : vendorDescription(truth, style, url);
  writeFileSync(file, stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 }));
  return file;
}

function hintsFile(dir: string, hints: Record<string, unknown>): string {
  const file = join(dir, 'vendor-hints.json');
  writeFileSync(file, JSON.stringify(hints));
  return file;
}

/** Runs `init` against the target built from `g` and judges what it wrote. */
export async function initOverGenome(g: TargetGenome, opts: InitOverGenomeOptions = {}): Promise<InitJudgement> {
  const truth = trueProfile(g);
  const secret = truth.merchants.primary.secret!;
  const dir = mkdtempSync(join(tmpdir(), 'mpsi-legal-init-'));
  const out = join(dir, 'draft.json');
  const hints = opts.hints ? vendorHints(truth) : undefined;
  const ref = await startEmbeddedReference(truth);
  const before = process.env[SECRET_ENV];
  process.env[SECRET_ENV] = secret;
  try {
    const cli = await callMain([
      'init',
      '--target',
      ref.url,
      '--merchant',
      truth.merchants.primary.id,
      '--secret-env',
      SECRET_ENV,
      '--out',
      out,
      '--budget',
      String(opts.budget ?? 3000),
      '--time-limit',
      '120',
      ...(hints ? ['--hints', hintsFile(dir, hints)] : []),
      ...(opts.openapi ? ['--openapi', descriptionFile(dir, truth, ref.url, opts.openapi)] : []),
    ]);
    const read = (f: string) => {
      try {
        return readFileSync(f, 'utf8');
      } catch {
        return undefined;
      }
    };
    const draftText = read(out);
    const todoText = read(`${out}.todo.md`);
    const base = {
      exit: cli.code ?? -1,
      wroteDraft: draftText !== undefined,
      wroteTodo: todoText !== undefined,
      selfReported: read(`${out}.init-report.json`) !== undefined,
      stdout: cli.stdout,
    };
    if (draftText === undefined || todoText === undefined)
      return {
        ...base,
        wrong: [],
        unseen: [],
        untold: [],
        beyond: [],
        facts: 0,
        written: 0,
        learnable: { facts: 0, written: 0 },
        missing: [],
        leafShare: { equal: 0, total: 0 },
        todos: [],
      };
    const draft = JSON.parse(draftText) as Profile;
    const todos = parseTodoFile(todoText);
    const judged = judgeDraft(draft, todos, truth, g);
    const probes = Number(/(\d+) requests in/.exec(cli.stdout)?.[1] ?? Number.NaN);
    const { equal, total } = discoveredShare(draft, truth);
    const result: InitJudgement = {
      ...base,
      ...judged,
      leafShare: { equal, total },
      todos,
      draft,
      probes,
      ...(hints ? { hints: judgeHints(draft, todos, hints) } : {}),
    };
    if (opts.run) {
      const { profile } = completeAtTodos(draft, todos, truth);
      const loaded = parseProfile(JSON.stringify(profile), 'completed.json', { [SECRET_ENV]: secret });
      const settings = { seed: opts.run.seed, numRuns: opts.run.numRuns, webhooks: 'quick' as const };
      const res = await runInProcess({ loaded, baseUrl: ref.url, suites: opts.run.suites, settings });
      // What the true profile itself runs on this target: a genome with few methods or features skips many checks whoever
      // wrote the profile, so the completed draft is measured against it, not against a fixed count.
      const truthLoaded = parseProfile(JSON.stringify(truth), 'truth.json', { [SECRET_ENV]: secret });
      const truthRes = await runInProcess({ loaded: truthLoaded, baseUrl: ref.url, suites: opts.run.suites, settings });
      result.run = {
        passed: res.filter((r) => r.result.status === 'passed').length,
        failed: res
          .filter((r) => r.result.status === 'failed' || r.result.status === 'broken')
          .map((r) => `${r.result.checkId} (${r.result.reason ?? r.result.findings.map(findingLine).join(', ')})`),
        skipped: res.filter((r) => r.result.status === 'skipped').length,
        inconclusive: res.filter((r) => r.result.status === 'inconclusive').map((r) => r.result.checkId),
        truthPassed: truthRes.filter((r) => r.result.status === 'passed').length,
        skippedTruthPassed: truthRes
          .filter((r) => r.result.status === 'passed')
          .map((r) => r.result.checkId)
          .filter((id) => res.some((r) => r.result.checkId === id && r.result.status === 'skipped')),
      };
    }
    return result;
  } finally {
    if (before === undefined) delete process.env[SECRET_ENV];
    else process.env[SECRET_ENV] = before;
    await ref.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A finding of a completed draft's run, with what the target answered (so a failure names its cause). */
function findingLine(f: { clause: string; code: string; title: string; seen?: string }): string {
  return `${f.clause} ${f.code}: ${f.title}; seen ${String(f.seen ?? '').slice(0, 300)}`;
}
