/**
 * What must differ between two targets answering the same check is taken out before comparing:
 * service and merchant numbers, times, base and notify URLs, merchant ids, the run's random
 * prefix, the profile's endpoint paths. Within one exchange, numbers become tokens in order of first
 * appearance, so identity survives (an answer naming another order than the one asked for differs
 * from one naming it); tokens restart with each exchange, so checks that run lanes in parallel,
 * interleaving their requests differently on each side, still compare exchange by exchange.
 * Signing headers (timestamps, nonces, signatures) are reduced to "present / verifies".
 */
import type { Exchange } from '../http/exchange.js';
import { headerValue, SIGNING_HEADERS } from '../http/signing.js';
import { matchesTemplate } from '../profile/endpoint-path.js';

/** One side of one check: what identifies this side's run, to be replaced by neutral tokens. */
export interface SideContext {
  baseUrl: string;
  receiverUrl?: string;
  /** Prefix of every merchant number the side's target generated (Target.runPrefix). */
  runPrefix?: string;
  /** Merchant id → role (primary, second, …, unknownId). */
  merchantIds: Record<string, string>;
  /** Endpoint path → endpoint name, from the side's profile. */
  endpoints: Record<string, string>;
}

export interface Outcome {
  kind: 'request' | 'webhook';
  /** "POST <checkout>": method and endpoint name (or the normalised path). */
  request: string;
  /** What the check meant (shown, not compared: checks write volatile details into it). */
  label: string;
  /** HTTP status, or "no response (kind)". */
  http: number | string;
  body: 'json-object' | 'json-other' | 'text' | 'empty' | 'none';
  /** Top-level keys of a JSON object body, sorted. */
  envelope?: string[];
  /** The envelope code as sent (a JSON value: 0 and "0" differ). */
  code?: unknown;
  /** The part of msg after the last "|"; a one-word msg ("success") itself; null for a sentence. */
  key?: string | null;
  /** msg is "message|key" with a key of letters only. */
  keyForm?: boolean;
  /** data (or, for a webhook, the body) with volatile values replaced; undefined when absent. */
  data?: unknown;
  /** Signing headers on the response (webhook: on the delivery). */
  signed: 'all four' | 'some' | 'none';
  signature: 'verifies' | 'does not verify' | 'not checked';
  event?: unknown;
  status?: unknown;
}

const NUMBER_KEY = /(^|_)no$|[a-z]No$|(^|_)id$|[a-z]Id$/;
const EPOCH_KEY = /(_at|_time|timestamp|At|Time)$/;
const TIME = /\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(?<off>[Zz]|[+-]\d{2}:?\d{2})?/g;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function parse(b: Buffer | undefined): unknown {
  if (!b || b.length === 0) return undefined;
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Builds the token table of one side of one check, then normalises its exchanges with it. */
export class Normaliser {
  private tokens = new Map<string, string>();
  private readonly fixed: [string, string][];
  private readonly numberPattern?: RegExp;

  /** classOnly: every number becomes "<no>" (for text that spans exchanges, such as readings). */
  constructor(
    private readonly ctx: SideContext,
    private readonly classOnly = false,
  ) {
    const fixed: [string, string][] = [[ctx.baseUrl.replace(/\/+$/, ''), '<base-url>']];
    if (ctx.receiverUrl) fixed.push([ctx.receiverUrl.replace(/\/+$/, ''), '<notify-url>']);
    for (const [id, role] of Object.entries(ctx.merchantIds)) fixed.push([id, `<merchant:${role}>`]);
    this.fixed = fixed.filter(([s]) => s.length > 0).sort((a, b) => b[0].length - a[0].length);
    if (ctx.runPrefix) this.numberPattern = new RegExp(`${escapeRegExp(ctx.runPrefix)}[A-Z]\\d+`, 'g');
  }

  private learnText(s: string): void {
    if (!this.numberPattern) return;
    for (const m of s.matchAll(this.numberPattern)) this.token(m[0]);
  }

  private token(value: string): void {
    if (value.length < 3 || this.tokens.has(value) || this.fixed.some(([s]) => s === value)) return;
    this.tokens.set(value, this.classOnly ? '<no>' : `<no#${this.tokens.size + 1}>`);
  }

  private learnJson(v: unknown, key?: string): void {
    if (typeof v === 'string') {
      if (key !== undefined && NUMBER_KEY.test(key)) this.token(v);
      this.learnText(v);
    } else if (Array.isArray(v)) for (const x of v) this.learnJson(x);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) this.learnJson(x, k);
  }

  /** Numbers of these exchanges get tokens by first appearance (request before response). */
  learn(exchanges: readonly Exchange[]): void {
    for (const ex of exchanges) {
      this.learnJson(parse(ex.request.body));
      this.learnText(ex.request.body.toString('utf8'));
      this.learnJson(parse(ex.response?.body));
    }
  }

  text(s: string): string {
    let out = s;
    for (const [value, token] of [...this.tokens].sort((a, b) => b[0].length - a[0].length)) out = out.split(value).join(token);
    for (const [value, token] of this.fixed) out = out.split(value).join(token);
    if (this.ctx.runPrefix) out = out.split(this.ctx.runPrefix).join('<run>');
    return out.replace(TIME, (...args) => ((args.at(-1) as { off?: string }).off ? '<time>' : '<time without offset>'));
  }

  json(v: unknown, key?: string): unknown {
    if (typeof v === 'string') return this.text(v);
    if (typeof v === 'number' && key !== undefined && EPOCH_KEY.test(key)) return '<epoch>';
    if (Array.isArray(v)) return v.map((x) => this.json(x));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) out[k] = this.json((v as Record<string, unknown>)[k], k);
      return out;
    }
    return v;
  }

  private requestLine(ex: Exchange): string {
    let path = ex.request.url;
    const base = this.ctx.baseUrl.replace(/\/+$/, '');
    if (path.startsWith(base)) path = path.slice(base.length);
    // A templated path ({payout_no}, …) names its endpoint too: the numbers in it differ between the sides.
    const name = this.ctx.endpoints[path] ?? Object.entries(this.ctx.endpoints).find(([template]) => matchesTemplate(template, path))?.[1];
    return `${ex.request.method} ${name ? `<${name}>` : this.text(path)}`;
  }

  /** One exchange, with tokens of its own. */
  outcome(ex: Exchange): Outcome {
    this.tokens = new Map();
    this.learn([ex]);
    const webhook = ex.id.startsWith('wh-');
    const label = this.text(ex.label).replace(/#\d+/g, '#n');
    const sig = (headers: Record<string, string | string[]>): Outcome['signed'] => {
      const n = SIGNING_HEADERS.filter((h) => (headerValue(headers, h) ?? '') !== '').length;
      return n === 4 ? 'all four' : n === 0 ? 'none' : 'some';
    };
    const signature: Outcome['signature'] = ex.signature === undefined ? 'not checked' : ex.signature.ok ? 'verifies' : 'does not verify';
    if (webhook) {
      const body = parse(ex.request.body);
      const obj = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
      return {
        kind: 'webhook',
        request: `${ex.request.method} <notify-url>`,
        label,
        http: ex.response?.status ?? `no response (${ex.error?.kind ?? 'unknown'})`,
        body: obj ? 'json-object' : body !== undefined ? 'json-other' : ex.request.body.length ? 'text' : 'empty',
        ...(obj ? { envelope: Object.keys(obj).sort(), data: this.json(obj), event: obj['event'], status: obj['status'] } : {}),
        signed: sig(ex.request.headers),
        signature,
      };
    }
    const res = ex.response;
    const base: Outcome = {
      kind: 'request',
      request: this.requestLine(ex),
      label,
      http: res ? res.status : `no response (${ex.error?.kind ?? 'unknown'})`,
      body: 'none',
      signed: res ? sig(res.headers) : 'none',
      signature,
    };
    if (!res) return base;
    const body = res.json !== undefined ? res.json : parse(res.body);
    if (body === undefined) return { ...base, body: res.body.length ? 'text' : 'empty' };
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { ...base, body: 'json-other' };
    const env = body as Record<string, unknown>;
    const msg = env['msg'];
    const bar = typeof msg === 'string' ? msg.lastIndexOf('|') : -1;
    const key = typeof msg !== 'string' ? null : bar >= 0 ? msg.slice(bar + 1) : /^[A-Za-z]+$/.test(msg) ? msg : null;
    return {
      ...base,
      body: 'json-object',
      envelope: Object.keys(env).sort(),
      code: env['code'],
      key,
      keyForm: bar >= 0 && key !== null && /^[A-Za-z]+$/.test(key),
      ...('data' in env ? { data: this.json(env['data']) } : {}),
    };
  }
}

const DURATION = /\d+(\.\d+)?\s*(ms|milliseconds?|s|seconds?|min|minutes?)\b/g;

/** The outcomes and readings of one side of one check; measured durations in readings are timing, not behaviour. */
export function normaliseSide(
  exchanges: readonly Exchange[],
  readings: Record<string, string>,
  ctx: SideContext,
): { outcomes: Outcome[]; readings: Record<string, string> } {
  const all = new Normaliser(ctx, true);
  all.learn(exchanges);
  const out: Record<string, string> = {};
  for (const [topic, text] of Object.entries(readings)) out[topic] = all.text(text).replace(DURATION, '<duration>');
  const each = new Normaliser(ctx);
  return { outcomes: exchanges.map((ex) => each.outcome(ex)), readings: out };
}
