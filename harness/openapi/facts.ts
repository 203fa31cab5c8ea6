/**
 * What a vendor's API description says of the profile's facts (`init --openapi`): each matched operation's path, its
 * request fields as a profile template (a field's variable read from its name, shape and description, a literal from its
 * example), where its answer's `data` puts the record's fields, the method names of its enums (names init then tries),
 * the amount limits and price points where the description states them, and the `x-mpsi-*` facts `describe` writes.
 * Each fact is told with its JSON pointer. What contradicts the interface (a camelCase field, an amount as a JSON
 * number, a method other than POST) is reported and its part is not told.
 */
import type { Told } from '../init/told.js';
import { feeKindOf } from './write.js';
import type { Operation } from './errors.js';
import { vendorControls } from './controls.js';
import { type DocOperation, matchOperations, operationsOf, requestSchemaOf } from './match.js';
import { payeeFieldsTable, type Prose, proseFacts } from './prose.js';
import { type Doc, seg } from './read.js';
import { basePathOf, flat, propsOf, variantsOf } from './shapes.js';

type S = Record<string, unknown>;

export interface DescriptionFacts {
  told: Told[];
  /** Payment and payout method names the description's enums list: tried first, proved by probes. */
  methods: string[];
  payoutMethods: string[];
  /** Where the description contradicts the interface: never copied into the profile. */
  contradictions: string[];
  /** Operations and fields init could not place. */
  doubts: string[];
}

const props = propsOf;
const isAmount = (s: S | undefined): boolean => !!s && 'currency' in props(s) && 'value' in props(s);
const text = (name: string, s: S) => `${name} ${String(s['description'] ?? '')}`.toLowerCase();
const example = (s: S): unknown =>
  Array.isArray(s['examples']) ? (s['examples'] as unknown[])[0] : (s['example'] ?? s['default'] ?? s['const']);
const v = (name: string) => `\${${name}}`;

/** Snake case: lower-case letters, digits and underscores (INTERFACE.md Conventions). */
const SNAKE = /^[a-z][a-z0-9_]*$/;

/** Every property of a schema (nested objects, each alternative of oneOf/anyOf/allOf), with its pointer. */
function walk(s: S | undefined, pointer: string, visit: (name: string, sub: S, pointer: string) => void, depth = 0): void {
  if (!s || depth > 8) return;
  for (const [name, sub] of Object.entries(props(s))) {
    const at = `${pointer}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    visit(name, sub, at);
    walk(sub, at, visit, depth + 1);
  }
  for (const k of ['oneOf', 'anyOf', 'allOf'])
    ((s[k] as S[] | undefined) ?? []).forEach((alt, i) => {
      walk(alt, `${pointer}/${k}/${i}`, visit, depth + 1);
    });
}

/** The contradictions of a schema: camelCase names and amounts as JSON numbers. */
function contradictionsOf(s: S | undefined, pointer: string, what: string): string[] {
  const out: string[] = [];
  walk(s, pointer, (name, sub, at) => {
    if (!SNAKE.test(name) && /[A-Z]/.test(name))
      out.push(`${what}: the field ${name} (#${at}) is camelCase; the interface takes snake_case names only`);
    const type = sub['type'];
    const numeric =
      type === 'number' || type === 'integer' || (Array.isArray(type) && (type.includes('number') || type.includes('integer')));
    if (numeric && (name === 'value' || /amount/.test(name)))
      out.push(`${what}: ${name} (#${at}) is a JSON number; an amount's value is a decimal string`);
  });
  return out;
}

type Context = 'card' | 'refund' | 'payout' | 'sandbox';

/** The variable a request field stands for, from its name, shape and description; undefined for a literal. */
function variableOf(name: string, s: S, ctx: Context): string | undefined {
  const t = text(name, s);
  if (isAmount(s)) return 'amount';
  if ('card_number' in props(s) && ctx !== 'payout') return 'card';
  if (/^(payment|payout)_method$|^method$/.test(name) || /the payment method|^\S+ (payment|payout) method( code)?\b/.test(t))
    return 'method';
  if (/notify|callback|webhook/.test(name) || /receives status notifications/.test(t)) return 'notifyUrl';
  if (/merchant's refund number|your unique refund number/.test(t) || name === 'merchant_refund_no') return 'refundNo';
  if (/merchant's payout number|your unique payout number/.test(t) || name === 'merchant_payout_no') return 'payoutNo';
  if (/merchant's order number|your own order number/.test(t) || /merchant_order_no$/.test(name)) return 'merchantOrderNo';
  if (/service's order number|order number assigned by the (platform|service)/.test(t) || /^(original_)?order_no$/.test(name))
    return 'orderNo';
  if (/reason/.test(name) && ctx === 'refund') return 'reason';
  if (name === 'goods_name') return 'goodsName';
  // A metadata field with an example of its own and no words, or a const, is a value the vendor gives (a method that
  // requires it).
  if (name === 'metadata' && s['const'] === undefined && !(Array.isArray(s['examples']) && s['description'] === undefined))
    return 'metadata';
  return undefined;
}

/** A request schema as a profile template; `payees` collects each payout method's own payee fields. */
function templateOf(s: S, ctx: Context, payees: Record<string, unknown>, doubts: string[], pointer: string): S {
  const out: S = {};
  const required = new Set((s['required'] as string[] | undefined) ?? Object.keys(props(s)));
  for (const [name, sub] of Object.entries(props(s))) {
    if (!required.has(name)) continue;
    const alts = (sub['oneOf'] ?? sub['anyOf']) as S[] | undefined;
    if (ctx === 'payout' && alts?.length) {
      // One object per payout method: the payee, each method's own fields.
      for (const { schema: alt, method: named } of variantsOf(sub, payoutMethodsOf(s))) {
        const method = /^(\S+) payee$/.exec(String(alt['title'] ?? ''))?.[1] ?? named;
        const value = payeeValue(alt);
        if (method && value) payees[method] = value;
      }
      out[name] = v('payee');
      continue;
    }
    if (ctx === 'payout' && /payee|beneficiary|recipient/.test(name) && (sub['type'] === 'object' || Object.keys(props(sub)).length)) {
      // One object for every payout method (never the card variable, even when it holds a card number): the fields each
      // method takes in a table of its description.
      const perMethod = Object.entries(payeeFieldsTable(String(sub['description'] ?? '')));
      for (const [method, fields] of perMethod) {
        const value = Object.fromEntries(fields.map((f) => [f, example(props(sub)[f] ?? {})]));
        if (fields.length && Object.values(value).every((x) => typeof x === 'string')) payees[method] = value;
      }
      if (perMethod.length === 0)
        doubts.push(`the payee ${name} (#${pointer}/properties/${name}) does not say which fields each payout method takes: none is told`);
      out[name] = v('payee');
      continue;
    }
    const variable = variableOf(name, sub, ctx);
    if (variable) out[name] = v(variable);
    else if (sub['type'] === 'object' && Object.keys(props(sub)).length)
      out[name] = templateOf(sub, ctx, payees, doubts, `${pointer}/properties/${name}`);
    else if (example(sub) !== undefined) out[name] = example(sub);
    else
      doubts.push(`the required field ${name} (#${pointer}/properties/${name}) has no example value and no meaning init knows: left out`);
  }
  return out;
}

/** A payee's values: its example, else its required fields' examples (undefined when one has none). */
function payeeValue(s: S): S | undefined {
  const ex = example(s);
  if (ex && typeof ex === 'object' && !Array.isArray(ex)) return ex as S;
  const fields = (s['required'] as string[] | undefined) ?? Object.keys(props(s));
  const out = Object.fromEntries(fields.map((f) => [f, example(props(s)[f] ?? {})]));
  return fields.length && Object.values(out).every((x) => typeof x === 'string') ? out : undefined;
}

/** The payout method names a payout request lists (its method field's enum, or each variant's). */
function payoutMethodsOf(s: S | undefined): string[] {
  for (const [k, f] of Object.entries(props(s)))
    if (/method/.test(k) && Array.isArray(f['enum'])) return (f['enum'] as unknown[]).map(String);
  return variantsOf(s).flatMap((x) => (x.method ? [x.method] : []));
}

/** The success answer's `data` schema of an operation. */
function dataSchemaOf(o: DocOperation): { schema: S; pointer: string } | undefined {
  const ok = ((o.op['responses'] as S | undefined)?.['200'] ?? (o.op['responses'] as S | undefined)?.['default']) as S | undefined;
  const content = (ok?.['content'] ?? {}) as Record<string, S>;
  const raw = (content['application/json'] ?? Object.values(content)[0])?.['schema'] as S | undefined;
  if (!raw) return undefined;
  const schema = flat(raw);
  const base = `${o.pointer}/responses/200/content/application~1json/schema`;
  if (props(schema)['data']) return { schema: props(schema)['data']!, pointer: `${base}/properties/data` };
  for (const k of ['oneOf', 'anyOf']) {
    const alts = (schema[k] as S[] | undefined) ?? [];
    const i = alts.findIndex((a) => props(a)['data']);
    if (i >= 0) return { schema: props(alts[i])['data']!, pointer: `${base}/${k}/${i}/properties/data` };
  }
  return undefined;
}

/** Dotted paths of a record's fields that answer each question (description phrase first, then name). */
function recordPaths(s: S, want: Record<string, (name: string, sub: S) => boolean>): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (node: S, path: string[]) => {
    for (const [name, sub] of Object.entries(props(node))) {
      for (const [k, test] of Object.entries(want)) if (found[k] === undefined && test(name, sub)) found[k] = [...path, name].join('.');
      if (!isAmount(sub)) visit(sub, [...path, name]);
    }
  };
  visit(s, []);
  return found;
}

const serviceNo = (kind: string) => (name: string, s: S) =>
  new RegExp(`service's ${kind} number|${kind} number assigned by the (platform|service)`).test(text(name, s)) ||
  name === `${kind === 'order' ? 'order' : kind}_no`;
const status = (name: string) => /^(status|state)$|_status$/.test(name);

function dataFacts(op: Operation, o: DocOperation): { fields: Record<string, string>; pointer: string } | undefined {
  const d = dataSchemaOf(o);
  if (!d) return undefined;
  const q: Record<string, (name: string, s: S) => boolean> =
    op === 'checkout' || op === 'cardPayment'
      ? { orderNo: serviceNo('order'), status }
      : op === 'paymentQuery'
        ? {
            orderNo: serviceNo('order'),
            merchantOrderNo: (n, s) => /merchant's order number/.test(text(n, s)) || n === 'merchant_order_no',
            status,
            transAmount: (n, s) => isAmount(s) && (/amount charged/.test(text(n, s)) || n === 'trans_amount'),
            requestedAmount: (n, s) => isAmount(s) && (/amount asked/.test(text(n, s)) || n === 'requested_amount'),
          }
        : op === 'refundCreate' || op === 'refundQuery'
          ? { refundNo: serviceNo('refund'), status, amount: (n, s) => isAmount(s) && /refund|amount/.test(n) }
          : { payoutNo: serviceNo('payout'), status };
  return { fields: recordPaths(d.schema, q), pointer: d.pointer };
}

function fieldAt(s: S | undefined, dotted: string): S | undefined {
  return dotted.split('.').reduce<S | undefined>((cur, k) => props(cur)[k], s);
}

/** The lookup fields of a query or cancel: x-mpsi-lookup, else the service's and the merchant's number by name. */
function lookupOf(s: S | undefined, kind: 'refund' | 'payout'): { serviceNo: string; merchantNo: string } | undefined {
  const x = s?.['x-mpsi-lookup'] as { serviceNo: string; merchantNo: string } | undefined;
  if (x) return x;
  const names = Object.keys(props(s));
  const merchantNo = names.find((n) => /merchant/.test(n) && /_no$/.test(n));
  const service = names.find((n) => n !== merchantNo && /_no$|(^|_)id$/.test(n) && n.includes(kind));
  return merchantNo && service ? { serviceNo: service, merchantNo } : undefined;
}

/** "CARD 0.50–10000.00; CASH_APP 1.00–500.00 and 1000.00–2500.00" → limits. */
export function parseLimits(line: string): Record<string, { min: string; max: string; channels?: { min: string; max: string }[] }> {
  const out: Record<string, { min: string; max: string; channels?: { min: string; max: string }[] }> = {};
  for (const part of line.split(';')) {
    const m = /^\s*([A-Za-z][\w-]*)\s+(.+?)\s*\.?\s*$/.exec(part);
    if (!m) continue;
    const ranges = [...m[2]!.matchAll(/(\d+(?:\.\d{1,2})?)\s*(?:–|-|to)\s*(\d+(?:\.\d{1,2})?)/g)].map((r) => ({ min: r[1]!, max: r[2]! }));
    if (ranges.length === 0) continue;
    out[m[1]!] = { min: ranges[0]!.min, max: ranges.at(-1)!.max, ...(ranges.length > 1 ? { channels: ranges } : {}) };
  }
  return out;
}

/** The values a field may take: its enum, and each variant's one value of it (a discriminated oneOf). */
function enumOf(s: S | undefined, field: string): string[] {
  const f = props(s)[field];
  const listed = Array.isArray(f?.['enum']) ? (f['enum'] as unknown[]).map(String) : [];
  const variants = variantsOf(s).flatMap((x) => {
    const c = props(x.schema)[field];
    return typeof c?.['const'] === 'string' ? [c['const']] : Array.isArray(c?.['enum']) ? (c['enum'] as unknown[]).map(String) : [];
  });
  return [...new Set([...listed, ...variants])];
}

/**
 * A request written as one variant per method (a discriminated oneOf): the fields every variant requires, as one
 * schema, and each method's own required fields and its amount's range (minimum/maximum, per channel with anyOf).
 */
function byMethod(
  s: S | undefined,
): { common: S; own: Record<string, S>; differing: string[]; ranges: Record<string, { min: string; max: string }[]> } | undefined {
  const variants = variantsOf(s);
  if (variants.length === 0 || variants.some((x) => !x.method)) return undefined;
  const requiredOf = (x: S) => new Set((x['required'] as string[] | undefined) ?? []);
  const common = [...requiredOf(variants[0]!.schema)].filter((k) => variants.every((x) => requiredOf(x.schema).has(k)));
  const first = props(variants[0]!.schema);
  const own: Record<string, S> = {};
  const ranges: Record<string, { min: string; max: string }[]> = {};
  for (const { schema, method } of variants) {
    const ps = props(schema);
    const extra = [...requiredOf(schema)].filter((k) => !common.includes(k));
    if (extra.length) own[method!] = { type: 'object', required: extra, properties: Object.fromEntries(extra.map((k) => [k, ps[k]])) };
    const value = props(ps['trans_amount'])['value'];
    const rs = (((value?.['anyOf'] ?? value?.['oneOf']) as S[] | undefined) ?? (value ? [value] : [])).map(flat);
    const read = rs.map((r) => ({ min: r['minimum'], max: r['maximum'] }));
    if (read.length && read.every((r) => typeof r.min === 'number' && typeof r.max === 'number'))
      ranges[method!] = read.map((r) => ({ min: (r.min as number).toFixed(2), max: (r.max as number).toFixed(2) }));
  }
  const properties = Object.fromEntries(common.map((k) => [k, first[k]!]));
  // A field every variant requires with a schema of its own (a payout's payee); the method itself and the amount aside.
  const by = (flat(s)['discriminator'] as { propertyName?: string } | undefined)?.propertyName;
  const differing = common.filter(
    (k) =>
      k !== by && !/method/.test(k) && !isAmount(first[k]) && new Set(variants.map((x) => JSON.stringify(props(x.schema)[k]))).size > 1,
  );
  return { common: { type: 'object', required: common, properties }, own, differing, ranges };
}

/**
 * The facts `doc` tells; `baseUrl`, the target's base URL: a server whose path starts with the base URL's path serves
 * paths relative to that base URL, so that part is not written again before them (`https://host/gw` and a server
 * `https://host/gw/api/v1` give `/api/v1/…`).
 */
export function factsOfDescription(doc: Doc, source: string, baseUrl?: string): DescriptionFacts {
  const told: Told[] = [];
  const contradictions: string[] = [];
  const base = basePathOf(baseUrl);
  const { matched, doubts } = matchOperations(doc, base);
  const tell = (path: string, value: unknown, pointer: string) => told.push({ path, value, source: `${source}#${pointer}` });
  const methods: string[] = [];
  const payoutMethods: string[] = [];
  for (const [op, o] of Object.entries(matched) as [Operation, DocOperation][]) {
    if (o.method !== 'post') {
      contradictions.push(`${op}: ${o.method.toUpperCase()} ${o.path} (#${o.pointer}); every endpoint of the interface is POST`);
      continue;
    }
    if (o.unknownParams.length)
      doubts.push(
        `${op}: ${o.method.toUpperCase()} ${o.rawPath}: the path parameter(s) ${o.unknownParams.join(', ')} name no number init knows`,
      );
    else tell(`endpoints.${op}`, o.path, o.pointer);
    const described = requestSchemaOf(o);
    const variants = op === 'checkout' || op === 'payoutCreate' ? byMethod(described) : undefined;
    const req = variants?.common ?? described;
    const reqPointer = `${o.pointer}/requestBody/content/application~1json/schema`;
    const against = contradictionsOf(req, reqPointer, `${op} request`);
    contradictions.push(...against);
    if (op === 'checkout' || op === 'cardPayment') methods.push(...enumOf(described, 'payment_method'));
    if (op === 'payoutCreate') for (const f of Object.keys(props(req))) if (/method/.test(f)) payoutMethods.push(...enumOf(described, f));
    if (op === 'checkout' && variants)
      for (const [m, rs] of Object.entries(variants.ranges)) {
        const sorted = [...rs].sort((a, b) => Number(a.min) - Number(b.min));
        const max = sorted.reduce((a, r) => (Number(r.max) > Number(a) ? r.max : a), sorted[0]!.max);
        tell(`limits.payments.${m}`, { min: sorted[0]!.min, max, ...(sorted.length > 1 ? { channels: sorted } : {}) }, reqPointer);
      }
    if (against.length === 0 && req) {
      const payees: Record<string, unknown> = {};
      if (op === 'cardPayment') tell('cardPayment.template', templateOf(req, 'card', payees, doubts, reqPointer), reqPointer);
      if (op === 'refundCreate') tell('refunds.template', templateOf(req, 'refund', payees, doubts, reqPointer), reqPointer);
      if (op === 'payoutCreate' && variants) {
        // One variant per payout method: the field whose object differs per method is the payee.
        const payeeKeys = new Set([...variants.differing, ...Object.values(variants.own).flatMap((x) => Object.keys(props(x)))]);
        if (payeeKeys.size === 1) {
          const [key] = payeeKeys;
          const rest = { ...req, properties: Object.fromEntries(Object.entries(props(req)).filter(([k]) => k !== key)) };
          const template = { ...templateOf(rest, 'payout', payees, doubts, reqPointer), [key!]: v('payee') };
          for (const { schema, method } of variantsOf(described)) {
            const value = payeeValue(props(schema)[key!] ?? {});
            if (value && method) payees[method] = value;
          }
          tell('payouts.template', template, reqPointer);
          for (const [m, payee] of Object.entries(payees)) tell(`payouts.methods.${m}.payee`, payee, `${reqPointer}/oneOf`);
        } else
          doubts.push(
            `payoutCreate: its variants per method differ in ${[...payeeKeys].join(', ') || 'nothing'}; no payee field was placed`,
          );
      } else if (op === 'payoutCreate') {
        tell('payouts.template', templateOf(req, 'payout', payees, doubts, reqPointer), reqPointer);
        for (const [m, payee] of Object.entries(payees)) tell(`payouts.methods.${m}.payee`, payee, `${reqPointer}/properties`);
      }
      if (op === 'checkout') {
        const fixed = new Set(['payment_method', 'merchant_order_no', 'trans_amount', 'trade_info']);
        const extras = Object.fromEntries(
          Object.entries(templateOf(req, 'card', payees, doubts, reqPointer)).filter(([k]) => !fixed.has(k)),
        );
        if (Object.keys(extras).length) tell('checkout.extras', extras, reqPointer);
        const told = req['x-mpsi-extras-by-method'];
        if (told && typeof told === 'object') tell('checkout.extrasByMethod', told, `${reqPointer}/x-mpsi-extras-by-method`);
        // A method's own fields are told whole or not at all (a field without a value would be sent missing).
        const whole = (own: S) => {
          const t = templateOf(own, 'card', payees, doubts, reqPointer);
          return Object.keys(t).length > 0 && Object.keys(t).length === ((own['required'] as string[] | undefined) ?? []).length
            ? t
            : undefined;
        };
        for (const [m, own] of [...Object.entries(variants?.own ?? {}), ...Object.entries(requiredPerMethod(req))]) {
          const t = whole(own);
          if (t) tell(`checkout.extrasByMethod.${m}`, t, reqPointer);
        }
      }
      if (op === 'refundQuery' || op === 'payoutQuery' || op === 'payoutCancel') {
        const by = lookupOf(req, op === 'refundQuery' ? 'refund' : 'payout');
        const key = op === 'refundQuery' ? 'refunds.queryBy' : op === 'payoutQuery' ? 'payouts.queryBy' : 'payouts.cancelBy';
        if (by) tell(key, by, reqPointer);
      }
    }
    const data = dataFacts(op, o);
    if (data) {
      const wrong = contradictionsOf(dataSchemaOf(o)?.schema, data.pointer, `${op} answer`);
      contradictions.push(...wrong);
      const f = data.fields;
      if (wrong.length === 0) {
        const at = (k: string) => `${data.pointer}/properties/${(f[k] ?? '').split('.').join('/properties/')}`;
        const section =
          op === 'checkout'
            ? 'checkout.data'
            : op === 'cardPayment'
              ? 'cardPayment.data'
              : op === 'paymentQuery'
                ? 'paymentRecord'
                : op === 'refundCreate' || op === 'refundQuery'
                  ? 'refunds.data'
                  : 'payouts.data';
        // The create and the query of a refund or payout answer the same record: told once, from the query where there is one.
        const shared =
          (op === 'refundCreate' && matched.refundQuery) || ((op === 'payoutCreate' || op === 'payoutCancel') && matched.payoutQuery);
        if (!shared) for (const k of Object.keys(f)) tell(`${section}.${k}`, f[k], at(k));
        // "a new checkout is PENDING": the status a checkout not yet paid has, where the description says it.
        const pending =
          op === 'checkout' && f['status']
            ? /[Aa] new checkout is `?([A-Z][A-Z_]*)/.exec(
                String(fieldAt(dataSchemaOf(o)?.schema, f['status'])?.['description'] ?? ''),
              )?.[1]
            : undefined;
        if (pending) tell('checkout.pendingStatus', pending, `${at('status')}/description`);
      }
    }
    extensions(op, o, tell);
  }
  for (const [name, control] of sandboxControls(doc)) tell(`sandbox.${name}`, control.value, control.pointer);
  vendorControls(operationsOf(doc, base), tell);
  proseFacts(prosesOf(doc, matched), cardOf(matched.cardPayment), tell);
  topExtensions(doc, tell);
  webhookContradictions(doc, contradictions);
  return { told, methods: [...new Set(methods)], payoutMethods: [...new Set(payoutMethods)], contradictions, doubts };
}

/** The facts `describe` writes as x-mpsi-* (limits and price points also in words: a vendor's own description states them so). */
function extensions(op: Operation, o: DocOperation, tell: (path: string, value: unknown, pointer: string) => void): void {
  const x = (k: string) => o.op[k] as S | undefined;
  const kind = op === 'payoutCreate' ? 'payouts' : 'payments';
  if (op === 'checkout' || op === 'payoutCreate') {
    const limits = x('x-mpsi-limits');
    if (limits) for (const [m, l] of Object.entries(limits)) tell(`limits.${kind}.${m}`, l, `${o.pointer}/x-mpsi-limits/${m}`);
    else {
      const line = /Amount limits per method[^:]*:\s*([^\n]+)/.exec(String(o.op['description'] ?? ''))?.[1];
      if (line) for (const [m, l] of Object.entries(parseLimits(line))) tell(`limits.${kind}.${m}`, l, `${o.pointer}/description`);
    }
  }
  const pp = x('x-mpsi-price-points');
  if (op === 'checkout' && pp)
    for (const [k, val] of Object.entries(pp)) if (k !== 'methods') tell(`pricePoints.${k}`, val, `${o.pointer}/x-mpsi-price-points/${k}`);
  const cards = x('x-mpsi-test-cards');
  if (op === 'cardPayment' && cards)
    for (const [k, val] of Object.entries(cards)) tell(`cardPayment.${k}`, val, `${o.pointer}/x-mpsi-test-cards/${k}`);
  const fees = x('x-mpsi-fees');
  const feeKind = feeKindOf(op);
  if (fees && feeKind) for (const [m, f] of Object.entries(fees)) tell(`fees.${feeKind}.${m}`, f, `${o.pointer}/x-mpsi-fees/${m}`);
  const payoutBalances = x('x-mpsi-payout-balances');
  if (op === 'payoutCreate' && payoutBalances) tell('payouts.balances', payoutBalances, `${o.pointer}/x-mpsi-payout-balances`);
  const refunds = x('x-mpsi-refunds');
  if (op === 'refundCreate' && refunds)
    for (const [k, val] of Object.entries(refunds)) tell(`refunds.${k}`, val, `${o.pointer}/x-mpsi-refunds/${k}`);
}

/**
 * The sandbox's accounts and how its balances move, from the top-level extensions `describe` writes. The primary
 * merchant's id is the one init was given (--merchant): the description's is not told over it. A key is never read
 * from a description (the accounts carry none; one that does is not taken).
 */
function topExtensions(doc: Doc, tell: (path: string, value: unknown, pointer: string) => void): void {
  const accounts = doc['x-mpsi-sandbox-accounts'];
  if (accounts && typeof accounts === 'object')
    for (const [role, m] of Object.entries(accounts as Record<string, S>)) {
      if (!m || typeof m !== 'object' || Array.isArray(m)) continue;
      for (const [k, v] of Object.entries(m)) {
        if (/secret/i.test(k) || (role === 'primary' && k === 'id')) continue;
        tell(`merchants.${role}.${k}`, v, `/x-mpsi-sandbox-accounts/${role}/${k}`);
      }
    }
  const balances = doc['x-mpsi-balances'];
  if (balances && typeof balances === 'object')
    for (const [k, v] of Object.entries(balances as S)) tell(`balances.${k}`, v, `/x-mpsi-balances/${k}`);
  const triggers = doc['x-mpsi-sandbox-triggers'];
  if (triggers && typeof triggers === 'object')
    for (const [k, v] of Object.entries(triggers as S)) tell(`sandbox.triggers.${k}`, v, `/x-mpsi-sandbox-triggers/${k}`);
  const autoSettle = doc['x-mpsi-sandbox-auto-settle'];
  if (autoSettle && typeof autoSettle === 'object')
    for (const [k, v] of Object.entries(autoSettle as S)) tell(`sandbox.autoSettle.${k}`, v, `/x-mpsi-sandbox-auto-settle/${k}`);
}

/** The sandbox's controls: operations carrying x-mpsi-sandbox-controls, a list of { name, control }. */
function sandboxControls(doc: Doc): [string, { value: unknown; pointer: string }][] {
  const out: [string, { value: unknown; pointer: string }][] = [];
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, S>)) {
    const list = (item['post'] as S | undefined)?.['x-mpsi-sandbox-controls'];
    if (!Array.isArray(list)) continue;
    list.forEach((x: { name?: string; control?: unknown }, i) => {
      const pointer = `/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/post/x-mpsi-sandbox-controls/${i}/control`;
      if (x?.name && x.control) out.push([x.name, { value: x.control, pointer }]);
    });
  }
  return out;
}

/** What the webhook bodies a description shows contradict: OpenAPI 3.1 `webhooks`, and each operation's `callbacks`. */
function webhookContradictions(doc: Doc, out: string[]): void {
  const body = (item: S, pointer: string, what: string) => {
    const content = (((item['post'] as S | undefined)?.['requestBody'] as S | undefined)?.['content'] ?? {}) as Record<string, S>;
    const schema = (content['application/json'] ?? Object.values(content)[0])?.['schema'] as S | undefined;
    out.push(...contradictionsOf(flat(schema), `${pointer}/post/requestBody/content/application~1json/schema`, what));
  };
  for (const [event, item] of Object.entries((doc['webhooks'] ?? {}) as Record<string, S>))
    body(item, `/webhooks/${seg(event)}`, `webhook ${event}`);
  for (const o of operationsOf(doc))
    for (const [name, callback] of Object.entries((o.op['callbacks'] ?? {}) as Record<string, Record<string, S>>))
      for (const [expression, item] of Object.entries(callback ?? {}))
        body(item, `${o.pointer}/callbacks/${seg(name)}/${seg(expression)}`, `callback ${name}`);
}

/**
 * A field required only for some methods, said in its description ("Required for `KLARNA` payments."): method → fields.
 * A value the sentence gives ("Required for `CARD` payments, as `order-7`.") is that method's, whatever the field's
 * words say it is otherwise (free-form metadata a method needs a given value of).
 */
function requiredPerMethod(s: S): Record<string, S> {
  const out: Record<string, S> = {};
  for (const [k, sub] of Object.entries(props(s))) {
    if (((s['required'] as string[] | undefined) ?? []).includes(k)) continue;
    for (const said of String(sub['description'] ?? '').matchAll(/required for `([A-Z][A-Z0-9_]*)` payments(?:, as `([^`]*)`)?/gi)) {
      const m = said[1]!;
      out[m] ??= { type: 'object', required: [], properties: {} };
      const own = out[m]!;
      (own['required'] as string[]).push(k);
      (own['properties'] as S)[k] = said[2] !== undefined ? { type: 'string', examples: [said[2]] } : sub;
    }
  }
  return out;
}

/** Every Markdown text a vendor puts its terms in: the document's, each tag's, each matched operation's. */
function prosesOf(doc: Doc, matched: Partial<Record<Operation, DocOperation>>): Prose[] {
  const out: Prose[] = [];
  const info = (doc['info'] ?? {}) as S;
  if (typeof info['description'] === 'string') out.push({ text: info['description'], pointer: '/info/description' });
  ((doc['tags'] as S[] | undefined) ?? []).forEach((t, i) => {
    if (typeof t['description'] !== 'string') return;
    const name = String(t['name'] ?? '').toLowerCase();
    const about = /payout/.test(name)
      ? 'payouts'
      : /refund/.test(name)
        ? 'refunds'
        : /payment|checkout/.test(name)
          ? 'payments'
          : undefined;
    out.push({ text: t['description'], pointer: `/tags/${i}/description`, ...(about ? { about } : {}) });
  });
  const about: Partial<Record<Operation, string>> = {
    checkout: 'payments',
    cardPayment: 'payments',
    refundCreate: 'refunds',
    payoutCreate: 'payouts',
  };
  for (const [op, o] of Object.entries(matched) as [Operation, DocOperation][])
    if (typeof o.op['description'] === 'string')
      out.push({ text: o.op['description'], pointer: `${o.pointer}/description`, ...(about[op] ? { about: about[op] } : {}) });
  return out;
}

/** A test card's fields besides its number, from the card request's examples (the merchant's to choose). */
function cardOf(o: DocOperation | undefined): S {
  const card = o ? Object.values(props(requestSchemaOf(o))).find((x) => 'card_number' in props(x)) : undefined;
  const ex = (k: string, fallback: unknown) => (card ? (example(props(card)[k] ?? {}) ?? fallback) : fallback);
  return {
    cardholder_name: ex('cardholder_name', 'Test Cardholder'),
    exp_month: ex('exp_month', 12),
    exp_year: ex('exp_year', 2099),
    cvc: ex('cvc', '123'),
  };
}
