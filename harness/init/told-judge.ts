/**
 * Whether the target's answers allow a value the vendor told (told.ts ToldJudge): the vendor's word is taken wherever they
 * do, since init's own figure is the rougher one (a limit it bracketed between two probes, a clock ratio it measured with
 * the load of this machine in it, a sample of a list, a test card's holder and expiry it made up), and a TODO names the
 * answer where they do not.
 */
import { centsOf, valueOfCents } from '../facts/money.js';
import { isTemplated } from '../profile/endpoint-path.js';
import { luhnValid } from './cards.js';
import type { State } from './draft.js';
import { predict, type Walked } from './price-points.js';
import type { ToldJudge, Vendor } from './told.js';

/** The kit's allowance on a measured wait (webhooks.tolerance as init drafts it). */
const TOLERANCE = 0.25;

/** A measured clock ratio is rounded to two digits (webhooks.ts) and only lengthened by load: how far above it the true one may be. */
const ROUNDING_SLACK = 1.05;

type Verdict = ReturnType<ToldJudge>;

/** `vendor`: what else was told (a method's own tiers or rule, beside the shared ones). */
export function toldJudge(st: State, vendor?: Vendor): ToldJudge {
  return (path, told, drafted) => {
    if (path === 'webhooks.ackTimeoutMs') return ackLimit(st, told);
    if (path === 'webhooks.timeScale') return timeScale(st, told);
    const tiers = /^pricePoints\.(tiers|tiersByMethod\.([^.]+))$/.exec(path);
    if (tiers) return priceTiers(st, told, tiers[2], vendor);
    const rule = /^pricePoints\.(rounding|maxDistance|tie)$/.exec(path);
    if (rule) return sharedRule(st, rule[1] as 'rounding' | 'maxDistance' | 'tie', told, vendor);
    if (path === 'methods.checkout' || path === 'methods.pricePoint') return methodList(st, path, told, drafted);
    const lookup = /^(refunds|payouts)\.(queryBy|cancelBy)\.(serviceNo|merchantNo)$/.exec(path);
    if (lookup) return lookupName(st, lookup[1] as 'refunds' | 'payouts', lookup[2] as 'queryBy' | 'cancelBy', told);
    const card = /^cardPayment\.cards\.([^.]+)\.([^.]+)$/.exec(path);
    if (card) return testCard(card[1]!, card[2]!, told);
    if (Array.isArray(told) && Array.isArray(drafted)) return sample(told, drafted);
    return undefined;
  };
}

/**
 * A lookup's field name where the endpoint's path carries the record's number: the request names the record there and
 * its body nothing (harness/ops.ts lookupRequest), so no answer bears on the name; init's was the document's, unsent.
 */
function lookupName(st: State, section: 'refunds' | 'payouts', by: 'queryBy' | 'cancelBy', told: unknown): Verdict {
  const endpoint = section === 'refunds' ? 'refundQuery' : by === 'cancelBy' ? 'payoutCancel' : 'payoutQuery';
  if (typeof told !== 'string' || !isTemplated(st.paths[endpoint])) return undefined;
  return {
    consistent: true,
    why: `${st.paths[endpoint]} carries the record's number, so a lookup never sends the field's name: no answer bears on it`,
  };
}

function ackLimit(st: State, told: unknown): Verdict {
  const b = st.webhooks?.ackBracket;
  if (typeof told !== 'number') return undefined;
  if (!b)
    return {
      consistent: true,
      why: "init did not measure the target's acknowledgement limit (its value was the document's 5 s times the time scale)",
    };
  if (b.waitedMs !== undefined && told < b.waitedMs)
    return { consistent: false, answer: `a reply after ${b.waitedMs} ms was taken as an acknowledgement` };
  if (told >= b.notWaitedMs)
    return { consistent: false, answer: `a reply after ${b.notWaitedMs} ms was not taken (the webhook came again)` };
  return {
    consistent: true,
    why:
      `init's probes put the limit between ${b.waitedMs === undefined ? '0' : `${b.waitedMs} ms (a reply taken)`} and ` +
      `${b.notWaitedMs} ms (a reply not taken)`,
  };
}

function timeScale(st: State, told: unknown): Verdict {
  const measured = st.webhooks?.timeScale;
  if (typeof told !== 'number' || measured === undefined) return undefined;
  // Load and the target's own delays only lengthen the retry waits init measured: the true ratio is at most the measured
  // one (and its two-digit rounding), and no further below it than the kit allows a wait to differ.
  if (told <= measured * ROUNDING_SLACK && told >= measured * (1 - TOLERANCE))
    return {
      consistent: true,
      why: `init measured ${measured} from the shortest retry wait, which load only lengthens; ${told} is within the kit's tolerance of it`,
    };
  return {
    consistent: false,
    answer: `the retry waits init measured give ${measured} (the shortest wait; load only lengthens one)`,
  };
}

/**
 * The walks a shared value of the vendor's price list speaks for: those of methods the vendor gave no list (or rule) of
 * their own. The draft's shared value is its first walk's, which may be such a method's.
 */
function sharedWalks(st: State, own: 'tiersByMethod' | 'ruleByMethod', vendor: Vendor | undefined): [string, Walked][] {
  return Object.entries(st.tiers).filter(([m]) => vendor?.at(`pricePoints.${own}.${m}`) === undefined);
}

/** A shared rounding rule's field: every checkout of the walks it speaks for charged as the walk's tiers with it say. */
function sharedRule(st: State, field: 'rounding' | 'maxDistance' | 'tie', told: unknown, vendor: Vendor | undefined): Verdict {
  if (Object.keys(st.tiers).length === 0) return undefined;
  const walks = sharedWalks(st, 'ruleByMethod', vendor);
  if (walks.length === 0)
    return {
      consistent: true,
      why: "every method init walked has a rule of its own in the vendor's facts: the shared one is none of theirs",
    };
  let value: Partial<Walked>;
  try {
    if (field === 'maxDistance') value = { maxDistance: centsOf(String(told)) };
    else if (field === 'rounding' && (told === 'up' || told === 'down' || told === 'nearest')) value = { rounding: told };
    else if (field === 'tie' && (told === 'up' || told === 'down')) value = { tie: told };
    else return undefined;
  } catch {
    return undefined;
  }
  const off: string[] = [];
  let asked = 0;
  for (const [m, w] of walks)
    for (const [x, charged] of w.samples) {
      asked += 1;
      if (predict({ ...w, ...value }, x) !== charged)
        off.push(`${m} ${valueOfCents(x)} was ${charged === undefined ? 'refused' : `charged ${valueOfCents(charged)}`}`);
    }
  if (off.length)
    return {
      consistent: false,
      answer: `the rule does not explain ${off.length} of init's ${asked} checkouts: ${off.slice(0, 4).join(', ')}`,
    };
  return { consistent: true, why: `every one of the ${asked} checkouts init walked was charged as this rule says` };
}

/**
 * The rule the vendor gave a method of its own (ruleByMethod), as a walk states one: a list is judged with the rule told
 * beside it, not the one init's walk inferred (a walk over tiers far apart can read a rule within a distance otherwise).
 */
function toldRule(vendor: Vendor | undefined, method: string): Partial<Walked> {
  const r = vendor?.at(`pricePoints.ruleByMethod.${method}`) as { rounding?: unknown; maxDistance?: unknown; tie?: unknown } | undefined;
  if (!r || typeof r !== 'object') return {};
  try {
    return {
      ...(r.rounding === 'up' || r.rounding === 'down' || r.rounding === 'nearest' ? { rounding: r.rounding } : {}),
      maxDistance: r.maxDistance === undefined ? undefined : centsOf(String(r.maxDistance)),
      tie: r.tie === 'up' || r.tie === 'down' ? r.tie : undefined,
    };
  } catch {
    return {};
  }
}

/** The amounts init charged for its price-point walks: every one charged as the told list (with the walked rule) says. */
function priceTiers(st: State, told: unknown, method: string | undefined, vendor?: Vendor): Verdict {
  if (!Array.isArray(told)) return undefined;
  let cents: bigint[];
  try {
    cents = told.map((t) => centsOf(String(t))).sort((a, b) => (a < b ? -1 : 1));
  } catch {
    return undefined;
  }
  const walks = method === undefined ? sharedWalks(st, 'tiersByMethod', vendor) : Object.entries(st.tiers).filter(([m]) => m === method);
  if (walks.length === 0)
    return method === undefined && Object.keys(st.tiers).length > 0
      ? { consistent: true, why: "every method init walked has a list of its own in the vendor's facts: the shared one is none of theirs" }
      : undefined;
  const off: string[] = [];
  let asked = 0;
  for (const [m, w] of walks) {
    const withTold: Walked = { ...w, ...toldRule(vendor, m), tiers: cents };
    for (const [x, charged] of w.samples) {
      asked += 1;
      const want = predict(withTold, x);
      if (want !== charged)
        off.push(`${m} ${valueOfCents(x)} was ${charged === undefined ? 'refused' : `charged ${valueOfCents(charged)}`}`);
    }
  }
  if (off.length)
    return {
      consistent: false,
      answer: `the list does not explain ${off.length} of init's ${asked} checkouts: ${off.slice(0, 4).join(', ')}`,
    };
  return {
    consistent: true,
    why: `every one of the ${asked} checkouts init walked was charged as this list says; the list is longer than any walk proves`,
  };
}

/**
 * A test card's field beside the one init paid with. Its holder, expiry and CVC are the merchant's to choose (init's were
 * its own, and no answer bears on the vendor's); an invalid card is any number that fails the Luhn check, as init's own
 * did. Another card's number is the vendor's word against the number init found for that outcome: left to the TODO.
 */
function testCard(kind: string, field: string, told: unknown): Verdict {
  if (['cardholder_name', 'exp_month', 'exp_year', 'cvc'].includes(field))
    return { consistent: true, why: `a test card's ${field} is the merchant's to choose; init's was its own, and no answer bears on it` };
  if (kind === 'invalid' && field === 'card_number' && typeof told === 'string' && /^\d{12,19}$/.test(told) && !luhnValid(told))
    return { consistent: true, why: 'it fails the Luhn check, as the invalid number init paid with did' };
  return undefined;
}

/** A method list: the vendor's may name more than the probes placed, never one the target answered otherwise. */
function methodList(st: State, path: string, told: unknown, drafted: unknown): Verdict {
  if (!Array.isArray(told)) return undefined;
  const names = told.map(String);
  const shown = Array.isArray(drafted) ? drafted.map(String) : [];
  const missing = shown.filter((m) => !names.includes(m));
  if (missing.length)
    return { consistent: false, answer: `the target accepted ${missing.join(', ')} at checkout, which the list leaves out` };
  const wantPricePoint = path === 'methods.pricePoint';
  for (const m of names) {
    const f = (st.methods ?? []).find((x) => x.method === m);
    if (!f) continue;
    if (f.cls !== 'accepted')
      return { consistent: false, answer: `a checkout of ${m} was answered otherwise than one accepted (${f.evidence})` };
    if (f.pricePoint !== wantPricePoint && f.accepted)
      return {
        consistent: false,
        answer: `a checkout of ${m} was charged ${f.pricePoint ? 'another amount than the one asked' : 'the amount asked'} (${f.evidence})`,
      };
  }
  if (drafted === undefined) return undefined;
  // In the draft's order (checks take the first method, a plain one with known limits), then the vendor's others.
  return {
    consistent: true,
    why: 'the methods the probes placed are all in it, and none it names was refused',
    value: [...shown, ...names.filter((m) => !shown.includes(m))],
  };
}

/** Any other list: the probes found a part of it (each item they found is in it); the rest is the vendor's word. */
function sample(told: unknown[], drafted: unknown[]): Verdict {
  const key = (v: unknown) => JSON.stringify(v);
  const names = new Set(told.map(key));
  const outside = drafted.filter((d) => !names.has(key(d)));
  if (outside.length) return undefined;
  return { consistent: true, why: `the ${drafted.length} item(s) the probes found are all in it: the probes confirm a sample` };
}
