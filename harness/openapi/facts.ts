/**
 * What a vendor's API description says of the profile's facts (`init --openapi`): each matched operation's path, its
 * request fields as a profile template (a field's variable read from its name, shape and description, a literal from its
 * example), where its answer's `data` puts the record's fields, the method names of its enums (names init then tries),
 * the amount limits and price points where the description states them, and the `x-mpsi-*` facts `describe` writes.
 * Each fact is told with its JSON pointer. What contradicts the interface (a camelCase field, an amount as a JSON
 * number, a method other than POST) is reported and its part is not told.
 */
import type { Told } from '../init/told.js';
import { feeKindOf } from './describe.js';
import type { Operation } from './errors.js';
import { type DocOperation, matchOperations, requestSchemaOf } from './match.js';
import type { Doc } from './read.js';

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

const props = (s: S | undefined): Record<string, S> => (s?.['properties'] as Record<string, S> | undefined) ?? {};
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
  if ('card_number' in props(s)) return 'card';
  if (/^(payment|payout)_method$|^method$/.test(name) || /the payment method/.test(t)) return 'method';
  if (/notify|callback|webhook/.test(name)) return 'notifyUrl';
  if (/merchant's refund number/.test(t) || name === 'merchant_refund_no') return 'refundNo';
  if (/merchant's payout number/.test(t) || name === 'merchant_payout_no') return 'payoutNo';
  if (/merchant's order number/.test(t) || /merchant_order_no$/.test(name)) return 'merchantOrderNo';
  if (/service's order number/.test(t) || /^(original_)?order_no$/.test(name)) return 'orderNo';
  if (/reason/.test(name) && ctx === 'refund') return 'reason';
  if (name === 'goods_name') return 'goodsName';
  if (name === 'metadata') return 'metadata';
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
      for (const alt of alts) {
        const method = /^(\S+) payee$/.exec(String(alt['title'] ?? ''))?.[1];
        if (method && example(alt) !== undefined) payees[method] = example(alt);
      }
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

/** The success answer's `data` schema of an operation. */
function dataSchemaOf(o: DocOperation): { schema: S; pointer: string } | undefined {
  const ok = ((o.op['responses'] as S | undefined)?.['200'] ?? (o.op['responses'] as S | undefined)?.['default']) as S | undefined;
  const content = (ok?.['content'] ?? {}) as Record<string, S>;
  const schema = (content['application/json'] ?? Object.values(content)[0])?.['schema'] as S | undefined;
  if (!schema) return undefined;
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
  new RegExp(`service's ${kind} number`).test(text(name, s)) || name === `${kind === 'order' ? 'order' : kind}_no`;
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

function enumOf(s: S | undefined, field: string): string[] {
  const f = props(s)[field];
  return Array.isArray(f?.['enum']) ? (f['enum'] as unknown[]).map(String) : [];
}

export function factsOfDescription(doc: Doc, source: string): DescriptionFacts {
  const told: Told[] = [];
  const contradictions: string[] = [];
  const { matched, doubts } = matchOperations(doc);
  const tell = (path: string, value: unknown, pointer: string) => told.push({ path, value, source: `${source}#${pointer}` });
  const methods: string[] = [];
  const payoutMethods: string[] = [];
  for (const [op, o] of Object.entries(matched) as [Operation, DocOperation][]) {
    if (o.method !== 'post') {
      contradictions.push(`${op}: ${o.method.toUpperCase()} ${o.path} (#${o.pointer}); every endpoint of the interface is POST`);
      continue;
    }
    tell(`endpoints.${op}`, o.path, o.pointer);
    const req = requestSchemaOf(o);
    const reqPointer = `${o.pointer}/requestBody/content/application~1json/schema`;
    const against = contradictionsOf(req, reqPointer, `${op} request`);
    contradictions.push(...against);
    if (op === 'checkout' || op === 'cardPayment') methods.push(...enumOf(req, 'payment_method'));
    if (op === 'payoutCreate') for (const f of Object.keys(props(req))) if (/method/.test(f)) payoutMethods.push(...enumOf(req, f));
    if (against.length === 0 && req) {
      const payees: Record<string, unknown> = {};
      if (op === 'cardPayment') tell('cardPayment.template', templateOf(req, 'card', payees, doubts, reqPointer), reqPointer);
      if (op === 'refundCreate') tell('refunds.template', templateOf(req, 'refund', payees, doubts, reqPointer), reqPointer);
      if (op === 'payoutCreate') {
        tell('payouts.template', templateOf(req, 'payout', payees, doubts, reqPointer), reqPointer);
        for (const [m, payee] of Object.entries(payees)) tell(`payouts.methods.${m}.payee`, payee, `${reqPointer}/properties`);
      }
      if (op === 'checkout') {
        const fixed = new Set(['payment_method', 'merchant_order_no', 'trans_amount', 'trade_info']);
        const extras = Object.fromEntries(
          Object.entries(templateOf(req, 'card', payees, doubts, reqPointer)).filter(([k]) => !fixed.has(k)),
        );
        if (Object.keys(extras).length) tell('checkout.extras', extras, reqPointer);
        const byMethod = req['x-mpsi-extras-by-method'];
        if (byMethod && typeof byMethod === 'object') tell('checkout.extrasByMethod', byMethod, `${reqPointer}/x-mpsi-extras-by-method`);
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
            ? /a new checkout is ([A-Z_]+)/.exec(String(fieldAt(dataSchemaOf(o)?.schema, f['status'])?.['description'] ?? ''))?.[1]
            : undefined;
        if (pending) tell('checkout.pendingStatus', pending, `${at('status')}/description`);
      }
    }
    extensions(op, o, tell);
  }
  for (const [name, control] of sandboxControls(doc)) tell(`sandbox.${name}`, control.value, control.pointer);
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

function webhookContradictions(doc: Doc, out: string[]): void {
  for (const [event, item] of Object.entries((doc['webhooks'] ?? {}) as Record<string, S>)) {
    const content = (((item['post'] as S | undefined)?.['requestBody'] as S | undefined)?.['content'] ?? {}) as Record<string, S>;
    const schema = (content['application/json'] ?? Object.values(content)[0])?.['schema'] as S | undefined;
    out.push(...contradictionsOf(schema, `/webhooks/${event}/post/requestBody/content/application~1json/schema`, `webhook ${event}`));
  }
}
