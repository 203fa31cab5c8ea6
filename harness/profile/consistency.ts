/**
 * Cross-field rules of the profile a JSON Schema cannot express: every name one section gives must
 * be declared where it belongs (a method limited, tiered, given extras or enabled for a merchant is a
 * declared method; a payout method of a merchant is a key of payouts.methods), channel lists agree
 * with their overall bounds and do not overlap, a production profile holds no production key beside
 * its key, version-2 fields are not used under an explicit "profileVersion": 1.
 *
 * One line per problem, naming the JSON path. Values under `merchants` are shown only when they look
 * like method names and are no secret (a key pasted in the wrong place is never echoed).
 */
import { dotted, echo } from './schema.js';
import { centsOf, isShownValue, valueOfCents } from '../facts/money.js';
import { armFailureProblems } from './arm-failure.js';
import { overlay } from '../facts/overlay.js';
import { triggerProblems } from './triggers.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const ROLES = ['primary', 'second', 'frozen', 'lowBalance'] as const;
const METHOD_LIKE = /^[A-Za-z][A-Za-z0-9_.-]{0,40}$/;

/** Fields that exist only from profile format version 2 on (dotted paths; "*" stands for any key). */
const V2_FIELDS = [
  'merchants.*.paymentMethods',
  'merchants.*.payoutMethods',
  'merchants.*.productionSecret',
  'merchants.*.productionSecretEnv',
  'methods.noChannel',
  'limits.payments.*.channels',
  'limits.payouts.*.channels',
  'pricePoints.maxDistance',
  'pricePoints.tie',
  'pricePoints.tiersByMethod',
  'checkout.extrasByMethod',
  'cardPayment.cards.pending',
  'payouts.methods.*.payee',
  'payouts.sharedBalance',
  'merchants.lowBalance.payoutBalances',
  'sandbox.settlePayout.reason',
  'sandbox.completeCard',
  'sandbox.armFailure',
];

/** Fields of format version 3 (docs/PROFILE.md): facts of a target a version-2 profile cannot say. */
const V3_FIELDS = [
  'merchants.*.name',
  'merchants.*.login',
  'merchants.primary.payoutBalances',
  'merchants.second.payoutBalances',
  'merchants.frozen.payoutBalances',
  'cardPayment.declines',
  'refunds.createdStatus',
  'pricePoints.ruleByMethod',
  'sandbox.armFailure.refundSubject',
];

/**
 * Fields of format version 4 (docs/PROFILE.md): facts of services written apart from the kit that a version-3 profile
 * cannot say. One dotted path a line; every field a version-4 change adds is listed here, so that an older profile
 * naming it is refused with the version to set.
 */
const V4_FIELDS: string[] = [
  'http.tls',
  'fees',
  'balances',
  'limits.payouts.*.byCurrency',
  'sandbox.armFailure.scope',
  'sandbox.armFailure.count',
  'refunds.supportByMerchant',
  'cardPayment.pendingStatus',
];

/**
 * Fields of format version 5 (docs/PROFILE.md): the open world (sandbox triggers, time the vendor keeps, every method-level
 * fact per merchant, currency sets, a fee's bounds).
 */
const V5_FIELDS: string[] = [
  'sandbox.triggers',
  'sandbox.autoSettle',
  'merchants.*.facts',
  'payouts.methods.*.currencies',
  'fees.payments.*.min',
  'fees.payments.*.max',
  'fees.refunds.*.min',
  'fees.refunds.*.max',
  'fees.payouts.*.min',
  'fees.payouts.*.max',
  'queryParams',
  'lengths',
  'balances.proceeds',
  'balances.chargeback',
];

function has(value: Obj, pattern: string): string[] {
  const out: string[] = [];
  const walk = (node: unknown, segs: string[], at: string[]) => {
    if (segs.length === 0) {
      out.push(dotted(at));
      return;
    }
    if (!isObj(node)) return;
    const [head, ...rest] = segs;
    const keys = head === '*' ? Object.keys(node) : [head!];
    for (const k of keys) if (k in node) walk(node[k], rest, [...at, k]);
  };
  walk(value, pattern.split('.'), []);
  return out;
}

export function consistencyProblems(value: unknown, secrets: readonly string[]): string[] {
  const out: string[] = [];
  if (!isObj(value)) return out;
  const show = (v: string, segs: string[]): string => {
    if (segs[0] !== 'merchants') return echo(v, segs, secrets) ?? 'a value';
    return METHOD_LIKE.test(v) && !secrets.includes(v) && !/^(sk|rk|pk|whsec)_/i.test(v) ? JSON.stringify(v) : 'a value';
  };
  const methods = isObj(value['methods']) ? value['methods'] : {};
  const merchants = isObj(value['merchants']) ? value['merchants'] : {};
  const payouts = isObj(value['payouts']) ? value['payouts'] : undefined;
  const payoutMethods = new Set(isObj(payouts?.['methods']) ? Object.keys(payouts['methods'] as Obj) : []);
  const checkout = strings(methods['checkout']);
  const card = typeof methods['card'] === 'string' ? [methods['card']] : [];
  const merchantMethods = ROLES.flatMap((r) => (isObj(merchants[r]) ? strings((merchants[r] as Obj)['paymentMethods']) : []));
  /** Every payment method the profile declares somewhere. */
  const declared = new Set([...checkout, ...card, ...merchantMethods, ...strings(methods['pricePoint'])]);
  for (const k of ['notEnabled', 'noChannel'] as const) if (typeof methods[k] === 'string') declared.add(methods[k] as string);
  const enabledForPrimary = new Set([...checkout, ...card]);
  const v3 = typeof value['profileVersion'] === 'number' && value['profileVersion'] >= 3;
  // Version 3: another merchant may have a method of its own (one the primary lacks), and a method whose channel is down.
  if (v3 && typeof methods['noChannel'] === 'string') enabledForPrimary.add(methods['noChannel']);

  // Methods per merchant.
  for (const role of ROLES) {
    const m = merchants[role];
    if (!isObj(m)) continue;
    strings(m['paymentMethods']).forEach((method, i) => {
      if (!enabledForPrimary.has(method) && !(v3 && role !== 'primary'))
        out.push(
          `merchants.${role}.paymentMethods[${i}]: ${show(method, ['merchants'])} ` +
            `is not a method the profile declares (methods.checkout or methods.card)`,
        );
    });
    if (m['payoutMethods'] !== undefined && !payouts)
      out.push(`merchants.${role}.payoutMethods: the profile declares no payouts section (payouts.methods)`);
    else {
      strings(m['payoutMethods']).forEach((method, i) => {
        if (!payoutMethods.has(method))
          out.push(`merchants.${role}.payoutMethods[${i}]: ${show(method, ['merchants'])} is not a key of payouts.methods`);
      });
    }
    if (m['productionSecret'] !== undefined && m['productionSecretEnv'] !== undefined)
      out.push(`merchants.${role}: must have at most one of "productionSecret" or "productionSecretEnv"`);
    if ((m['productionSecret'] !== undefined || m['productionSecretEnv'] !== undefined) && value['environment'] === 'production') {
      out.push(
        `merchants.${role}.${m['productionSecret'] !== undefined ? 'productionSecret' : 'productionSecretEnv'}: ` +
          `a production profile's key is its secret; productionSecret belongs in a sandbox profile only (remove it)`,
      );
    }
    if (typeof m['productionSecret'] === 'string' && m['productionSecret'] === m['secret'])
      out.push(
        `merchants.${role}.secret: is the same key as merchants.${role}.productionSecret ` +
          `(test and production keys differ: the secret of a sandbox profile is the test key)`,
      );
  }
  const low = isObj(merchants['lowBalance']) ? merchants['lowBalance'] : {};
  const usdEntry = isObj(low['payoutBalances']) ? low['payoutBalances']['USD'] : undefined;
  if (isShownValue(usdEntry) && isShownValue(low['payoutBalance']) && centsOf(usdEntry) !== centsOf(low['payoutBalance'])) {
    out.push(
      `merchants.lowBalance.payoutBalances.USD: is ${JSON.stringify(usdEntry)} but merchants.lowBalance.payoutBalance ` +
        `is ${JSON.stringify(low['payoutBalance'])} (the USD balance is given twice: give it once, or the same in both)`,
    );
  }
  if (typeof methods['noChannel'] === 'string' && checkout.includes(methods['noChannel']))
    out.push(
      `methods.noChannel: must not be one of methods.checkout (` +
        `${echo(methods['noChannel'], ['methods', 'noChannel'], secrets) ?? 'it'} is listed there)`,
    );

  // Limits.
  const limits = isObj(value['limits']) ? value['limits'] : {};
  for (const kind of ['payments', 'payouts'] as const) {
    const table = limits[kind];
    if (!isObj(table)) continue;
    for (const [method, range] of Object.entries(table)) {
      const at = ['limits', kind, method];
      if (kind === 'payouts' && !payoutMethods.has(method))
        out.push(
          `${dotted(at)}: ${echo(method, at, secrets) ?? 'this method'} is not a key ` +
            `of payouts.methods${payouts ? '' : ' (the profile declares no payouts)'}`,
        );
      if (kind === 'payments' && !declared.has(method))
        out.push(
          `${dotted(at)}: ${echo(method, at, secrets) ?? 'this method'} is not ` +
            `a payment method the profile declares (methods.checkout, methods.card)`,
        );
      if (isObj(range)) out.push(...channelProblems(range, at, v3));
      if (kind === 'payouts' && isObj(range) && isObj(range['byCurrency']))
        for (const [currency, r] of Object.entries(range['byCurrency'])) {
          const rat = [...at, 'byCurrency', currency];
          if (currency === 'USD') out.push(`${dotted(rat)}: USD is the method's own min and max; byCurrency names other currencies`);
          if (isObj(r)) out.push(...channelProblems(r, rat, v3));
        }
    }
  }

  // Fees: every method named is one the profile declares for that kind of operation ("*" is every other).
  const fees = isObj(value['fees']) ? value['fees'] : {};
  out.push(...feeProblems(fees, ['fees'], declared, payoutMethods, secrets));
  out.push(...currencyProblems(payouts?.['methods'], isObj(limits['payouts']) ? limits['payouts'] : {}, ['payouts', 'methods'], secrets));
  for (const role of ROLES) {
    const m = merchants[role];
    if (isObj(m) && isObj(m['facts'])) out.push(...merchantFactsProblems(value, role, m['facts'], declared, secrets));
  }

  // Price points.
  const pp = value['pricePoints'];
  if (isObj(pp)) {
    const ppMethods = new Set(strings(methods['pricePoint']));
    if (isObj(pp['tiersByMethod'])) {
      for (const [method, tiers] of Object.entries(pp['tiersByMethod'])) {
        const at = ['pricePoints', 'tiersByMethod', method];
        if (!ppMethods.has(method))
          out.push(`${dotted(at)}: ${echo(method, at, secrets) ?? 'this method'} is not one of methods.pricePoint`);
        out.push(...ascending(strings(tiers), at));
      }
    }
    if (pp['tie'] !== undefined && pp['rounding'] !== 'nearest')
      out.push(`pricePoints.tie: applies only with "rounding": "nearest" (rounding is ${JSON.stringify(pp['rounding'])})`);
    if (isObj(pp['ruleByMethod'])) {
      for (const [method, rule] of Object.entries(pp['ruleByMethod'])) {
        const at = ['pricePoints', 'ruleByMethod', method];
        if (!ppMethods.has(method))
          out.push(`${dotted(at)}: ${echo(method, at, secrets) ?? 'this method'} is not one of methods.pricePoint`);
        if (isObj(rule) && rule['tie'] !== undefined && rule['rounding'] !== 'nearest')
          out.push(`${dotted([...at, 'tie'])}: applies only with "rounding": "nearest" (rounding is ${JSON.stringify(rule['rounding'])})`);
      }
    }
  }

  // Per-method extras.
  const co = value['checkout'];
  if (isObj(co) && isObj(co['extrasByMethod'])) {
    for (const method of Object.keys(co['extrasByMethod'])) {
      const at = ['checkout', 'extrasByMethod', method];
      if (!declared.has(method))
        out.push(
          `${dotted(at)}: ${echo(method, at, secrets) ?? 'this method'} is not a payment method ` +
            `the profile declares (methods.checkout, methods.card, a merchant's paymentMethods)`,
        );
    }
  }

  // The failure switch: every variable its template uses is one the kit fills (harness/profile/arm-failure.ts).
  const sandbox = isObj(value['sandbox']) ? value['sandbox'] : {};
  out.push(...armFailureProblems(sandbox['armFailure'], 'sandbox.armFailure', value['profileVersion']));
  // The ways the sandbox causes failures: each way complete, and no value the kit sends by default one of them.
  out.push(...triggerProblems(value, secrets));

  // Version.
  if (value['profileVersion'] === 1) {
    for (const pattern of V2_FIELDS)
      for (const path of has(value, pattern))
        out.push(`${path}: is a profile format version 2 field, but the profile says "profileVersion": 1 (set it to 2)`);
  }
  if (value['profileVersion'] === 1 || value['profileVersion'] === 2) {
    for (const pattern of V3_FIELDS)
      for (const path of has(value, pattern))
        out.push(
          `${path}: is a profile format version 3 field, but the profile says ` +
            `"profileVersion": ${String(value['profileVersion'])} (set it to 3)`,
        );
  }
  if (value['profileVersion'] === 1 || value['profileVersion'] === 2 || value['profileVersion'] === 3) {
    for (const pattern of V4_FIELDS)
      for (const path of has(value, pattern))
        out.push(
          `${path}: is a profile format version 4 field, but the profile says ` +
            `"profileVersion": ${String(value['profileVersion'])} (set it to 4)`,
        );
  }
  if (typeof value['profileVersion'] === 'number' && value['profileVersion'] < 5) {
    for (const pattern of V5_FIELDS)
      for (const path of has(value, pattern))
        out.push(
          `${path}: is a profile format version 5 field, but the profile says ` +
            `"profileVersion": ${String(value['profileVersion'])} (set it to 5)`,
        );
  }
  return out;
}

/** Every method a fee table names is one the profile declares for its kind; a fee's minimum is not above its maximum. */
function feeProblems(
  fees: Obj,
  at: string[],
  declared: ReadonlySet<string>,
  payoutMethods: ReadonlySet<string>,
  secrets: readonly string[],
) {
  const out: string[] = [];
  for (const kind of ['payments', 'refunds', 'payouts'] as const) {
    const table = fees[kind];
    if (!isObj(table)) continue;
    for (const [method, model] of Object.entries(table)) {
      const mat = [...at, kind, method];
      if (method !== '*' && !(kind === 'payouts' ? payoutMethods.has(method) : declared.has(method)))
        out.push(
          `${dotted(mat)}: ${echo(method, mat, secrets) ?? 'this method'} is not a ` +
            (kind === 'payouts' ? 'key of payouts.methods' : 'payment method the profile declares (methods.checkout, methods.card)'),
        );
      if (isObj(model) && isShownValue(model['min']) && isShownValue(model['max']) && centsOf(model['min']) > centsOf(model['max']))
        out.push(`${dotted([...mat, 'min'])}: a fee's minimum (${model['min']}) must not be above its maximum (${model['max']})`);
    }
  }
  return out;
}

/**
 * A payout method's currency set agrees with its older spelling (`usdOnly`), and every currency it has a range of its own
 * in (`limits.payouts.<method>.byCurrency`) is one it takes.
 */
function currencyProblems(methods: unknown, limits: Obj, at: string[], secrets: readonly string[], spellings = true): string[] {
  const out: string[] = [];
  if (!isObj(methods)) return out;
  for (const [method, m] of Object.entries(methods)) {
    if (!isObj(m) || !Array.isArray(m['currencies'])) continue;
    const set = strings(m['currencies']);
    const mat = [...at, method];
    const shown = METHOD_LIKE.test(method) && !secrets.includes(method) && !/^(sk|rk|pk|whsec)_/i.test(method);
    const name = (at[0] === 'merchants' ? (shown ? JSON.stringify(method) : undefined) : echo(method, mat, secrets)) ?? 'this method';
    const onlyUsd = set.length === 1 && set[0] === 'USD';
    if (spellings && m['usdOnly'] === true && !onlyUsd)
      out.push(`${dotted([...mat, 'currencies'])}: ${name} says "usdOnly": true, which is currencies ["USD"] (give one of the two)`);
    if (spellings && m['usdOnly'] === false && onlyUsd)
      out.push(`${dotted([...mat, 'currencies'])}: ${name} says "usdOnly": false, but its currencies are USD only (give one of the two)`);
    const lim = limits[method];
    if (isObj(lim) && isObj(lim['byCurrency']))
      for (const currency of Object.keys(lim['byCurrency']))
        if (lim['byCurrency'][currency] !== null && !set.includes(currency))
          out.push(
            `${dotted([...mat, 'currencies'])}: ${name} has a range in ${currency} (limits.payouts.${method}.byCurrency) ` +
              `but ${currency} is not one of its currencies`,
          );
  }
  return out;
}

/**
 * A merchant's facts (`merchants.<role>.facts`, version 5), laid over the shared sections, make a whole the shared rules
 * hold for: every method it names is declared, a payout method it adds says whether it cancels, its ranges and channels
 * agree, its currencies and fees are coherent. Each problem names the merchant's path.
 */
function merchantFactsProblems(value: Obj, role: string, facts: Obj, declared: ReadonlySet<string>, secrets: readonly string[]): string[] {
  const out: string[] = [];
  const base = ['merchants', role, 'facts'];
  // A method name under merchants is shown when it looks like one and is no secret (never a key pasted there).
  const named = (m: string) =>
    METHOD_LIKE.test(m) && !secrets.includes(m) && !/^(sk|rk|pk|whsec)_/i.test(m) ? JSON.stringify(m) : 'this method';
  const shared = (k: string): Obj => (isObj(value[k]) ? (value[k] as Obj) : {});
  const methods = overlay(shared('methods'), facts['methods']) as Obj;
  const known = new Set([...declared, ...strings(methods['checkout']), ...strings(methods['pricePoint'])]);
  for (const k of ['card', 'notEnabled', 'noChannel']) if (typeof methods[k] === 'string') known.add(methods[k] as string);
  const payoutsOwn = isObj(facts['payouts']) ? facts['payouts'] : {};
  const sharedPayoutMethods = isObj(shared('payouts')['methods']) ? (shared('payouts')['methods'] as Obj) : {};
  const payoutMethods = overlay(sharedPayoutMethods, payoutsOwn['methods']) as Obj;
  const payoutNames = new Set(Object.keys(payoutMethods));
  if (isObj(payoutsOwn['methods']) && Object.keys(payoutMethods).length > 0 && !isObj(value['payouts']))
    out.push(`${dotted([...base, 'payouts'])}: the profile declares no payouts section (payouts.template, queryBy, …)`);
  for (const [method, m] of Object.entries(isObj(payoutsOwn['methods']) ? payoutsOwn['methods'] : {})) {
    const merged = payoutMethods[method];
    if (m !== null && isObj(merged) && typeof merged['cancel'] !== 'boolean')
      out.push(
        `${dotted([...base, 'payouts', 'methods', method])}: ${named(method)} is not a shared ` +
          'payout method, so the merchant\'s entry must say "cancel"',
      );
  }
  const limitsOwn = isObj(facts['limits']) ? facts['limits'] : {};
  const sharedLimits = shared('limits');
  for (const kind of ['payments', 'payouts'] as const) {
    const own = limitsOwn[kind];
    if (!isObj(own)) continue;
    const merged = overlay(isObj(sharedLimits[kind]) ? sharedLimits[kind] : {}, own) as Obj;
    for (const method of Object.keys(own)) {
      const at = [...base, 'limits', kind, method];
      const range = merged[method];
      if (range === undefined) continue;
      const ok = kind === 'payouts' ? payoutNames.has(method) : known.has(method);
      if (!ok)
        out.push(
          `${dotted(at)}: ${named(method)} is not ` +
            (kind === 'payouts' ? "one of the merchant's payout methods (payouts.methods)" : 'a payment method the profile declares'),
        );
      if (!isObj(range)) continue;
      if (!isShownValue(range['min']) || !isShownValue(range['max']))
        out.push(`${dotted(at)}: with the shared entry, the merchant's range has no min and max (give both)`);
      else if (centsOf(range['min']) > centsOf(range['max']))
        out.push(`${dotted(at)}: with the shared entry, the merchant's range has its min above its max (give both)`);
      else out.push(...channelProblems(range, at, true));
      if (kind === 'payouts' && isObj(range['byCurrency']))
        for (const [currency, r] of Object.entries(range['byCurrency']))
          if (isObj(r)) out.push(...channelProblems(r, [...at, 'byCurrency', currency], true));
    }
  }
  const mergedPayoutLimits = overlay(isObj(sharedLimits['payouts']) ? sharedLimits['payouts'] : {}, limitsOwn['payouts']) as Obj;
  const touched = new Set([
    ...Object.keys(isObj(payoutsOwn['methods']) ? payoutsOwn['methods'] : {}),
    ...Object.keys(isObj(limitsOwn['payouts']) ? limitsOwn['payouts'] : {}),
  ]);
  // Its own spellings agree with each other (its own currencies replace a shared usdOnly); its ranges with its currencies.
  out.push(...currencyProblems(payoutsOwn['methods'], {}, [...base, 'payouts', 'methods'], secrets));
  const merged = Object.fromEntries(Object.entries(payoutMethods).filter(([m]) => touched.has(m)));
  out.push(...currencyProblems(merged, mergedPayoutLimits, [...base, 'payouts', 'methods'], secrets, false));
  if (isObj(facts['fees'])) out.push(...feeProblems(facts['fees'], [...base, 'fees'], known, payoutNames, secrets));
  const refunds = isObj(facts['refunds']) ? facts['refunds'] : {};
  for (const k of ['support', 'createdStatus'] as const)
    for (const method of Object.keys(isObj(refunds[k]) ? (refunds[k] as Obj) : {})) {
      const at = [...base, 'refunds', k, method];
      if (!known.has(method)) out.push(`${dotted(at)}: ${named(method)} is not a payment method the profile declares`);
    }
  const co = isObj(facts['checkout']) ? facts['checkout'] : {};
  for (const method of Object.keys(isObj(co['extrasByMethod']) ? co['extrasByMethod'] : {})) {
    const at = [...base, 'checkout', 'extrasByMethod', method];
    if (!known.has(method)) out.push(`${dotted(at)}: ${named(method)} is not a payment method the profile declares`);
  }
  return out;
}

function ascending(tiers: string[], at: string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < tiers.length; i++) {
    const a = tiers[i - 1]!;
    const b = tiers[i]!;
    if (isShownValue(a) && isShownValue(b) && centsOf(a) >= centsOf(b))
      out.push(`${dotted([...at, String(i)])}: tiers must be in ascending order (${b} follows ${a})`);
  }
  return out;
}

/**
 * channels: each min <= max, in ascending order without overlap (version 3: by minimum, overlapping allowed: a target may
 * run channels whose ranges overlap), the smallest min and largest max equal to the entry's.
 */
function channelProblems(range: Obj, at: string[], overlapAllowed = false): string[] {
  const out: string[] = [];
  const list = range['channels'];
  if (!Array.isArray(list)) return out;
  const ok = isShownValue;
  const chans = list.filter(isObj);
  if (chans.length !== list.length || !chans.every((c) => ok(c['min']) && ok(c['max'])) || !ok(range['min']) || !ok(range['max']))
    return out; // the schema reports the shapes
  const c = chans as { min: string; max: string }[];
  c.forEach((ch, i) => {
    if (centsOf(ch.min) > centsOf(ch.max))
      out.push(`${dotted([...at, 'channels', String(i)])}: min (${ch.min}) must not be greater than max (${ch.max})`);
    const prev = c[i - 1];
    if (prev && overlapAllowed && centsOf(ch.min) < centsOf(prev.min))
      out.push(
        `${dotted([...at, 'channels', String(i)])}: channels must be listed in ascending order of min (${ch.min} follows ${prev.min})`,
      );
    if (prev && !overlapAllowed && centsOf(ch.min) <= centsOf(prev.max)) {
      out.push(
        `${dotted([...at, 'channels', String(i)])}: channels must be listed in ascending order without overlap (min ` +
          `${ch.min} is not above the previous channel's max ${prev.max}); one range covering both is one channel`,
      );
    }
  });
  const lo = c.reduce((m, ch) => (centsOf(ch.min) < m ? centsOf(ch.min) : m), centsOf(c[0]!.min));
  const hi = c.reduce((m, ch) => (centsOf(ch.max) > m ? centsOf(ch.max) : m), centsOf(c[0]!.max));
  if (lo !== centsOf(range['min'] as string))
    out.push(
      `${dotted([...at, 'min'])}: must be the smallest channel minimum (` +
        `${dotted([...at, 'channels'])} starts at ${valueOfCents(lo)}, min says ${String(range['min'])})`,
    );
  if (hi !== centsOf(range['max'] as string))
    out.push(
      `${dotted([...at, 'max'])}: must be the largest channel maximum (` +
        `${dotted([...at, 'channels'])} ends at ${valueOfCents(hi)}, max says ${String(range['max'])})`,
    );
  return out;
}

/** The fields each format version added (dotted, `*` any key), for the generated profile reference. */
export const FIELDS_BY_VERSION: Readonly<Record<number, readonly string[]>> = {
  2: V2_FIELDS,
  3: V3_FIELDS,
  4: V4_FIELDS,
  5: V5_FIELDS,
};
