/**
 * The client audit: every request the sandbox answered, as its observer saw it, diagnosed
 * request by request (signing, headers, body) and as a sequence (numbers, creates), then judged
 * per clause that binds the client. The sandbox's own answers are untouched: diagnoses go to the
 * audit report and the log only.
 */
import { clause as lookupClause } from '../../clauses/registry.js';
import type { Finding } from '../../check/failure.js';
import type { MerchantResult } from '../check.js';
import { bodyMistakes, parsedBody } from './body.js';
import { reserialisationText } from './families.js';
import { classify, type Operation, sequenceMistakes, transientMistakes } from './sequence.js';
import { header, headerMistakes, signatureMistakes, timestampMistakes } from './signature.js';
import type { Diagnosis, MerchantKeys, SeenDelivery, SeenRequest } from './types.js';

/** One check per clause the audit judges, in the troubleshooting order, then the body and sequence rules. */
type Scope = 'all' | 'json' | 'creates' | 'tampered' | 'query-failed' | 'deliveries' | 'copies';
export const AUDIT_CHECKS: { clause: string; title: string; scope: Scope }[] = [
  { clause: 'client.sign.merchant-id', title: 'sends the merchant id the service assigned', scope: 'all' },
  { clause: 'client.sign.secret-key', title: 'signs with its own sandbox secret key', scope: 'all' },
  { clause: 'client.sign.verifies', title: 'sends a signature that verifies', scope: 'all' },
  { clause: 'client.sign.string', title: 'signs merchant id, timestamp, nonce and body joined by single line feeds', scope: 'all' },
  { clause: 'client.fields.snake-case', title: 'sends snake_case field names', scope: 'json' },
  { clause: 'client.sign.raw-body', title: 'signs exactly the bytes it sends', scope: 'all' },
  { clause: 'client.sign.timestamp-seconds', title: 'sends X-Timestamp in Unix seconds', scope: 'all' },
  { clause: 'client.sign.headers', title: 'sends the four signing headers, none empty', scope: 'all' },
  { clause: 'client.sign.lower-hex', title: 'sends X-Sign as lower-case hex HMAC-SHA256', scope: 'all' },
  { clause: 'client.content-type', title: 'sends Content-Type application/json', scope: 'all' },
  { clause: 'client.amount.string', title: 'sends amount values as decimal strings', scope: 'json' },
  { clause: 'client.amount.two-decimals', title: 'sends amount values with at most two decimals', scope: 'json' },
  { clause: 'client.numbers.distinct', title: 'uses different numbers for payments and refunds', scope: 'creates' },
  {
    clause: 'idem.create-once',
    title: 'sends each create once (never two in flight with one number) and queries by its number before a new one',
    scope: 'creates',
  },
  { clause: 'client.query.retry', title: 'tries a query again after a transient queryFailed', scope: 'query-failed' },
  { clause: 'auth.response.verify', title: 'does not act on a response whose signature does not verify', scope: 'tampered' },
  { clause: 'merchant.ack.success-body', title: 'acknowledges each genuine webhook with success', scope: 'deliveries' },
  { clause: 'webhook.dup.may-repeat', title: 'acknowledges a webhook that arrives again with success', scope: 'copies' },
  { clause: 'auth.nonce.length', title: 'sends nonces of 16 to 32 characters', scope: 'all' },
];

const AUTH_REFUSALS = new Set(['unauthorized', 'merchantNotFound', 'forbidden']);

export class ClientAudit {
  private readonly seen: SeenRequest[] = [];
  private readonly perRequest: Diagnosis[] = [];
  private readonly warned = new Set<string>();
  /** Values only a tampered answer carried, per merchant: the value, the request it answered, the field. */
  private readonly untrusted = new Map<string, Map<string, { n: number; field: string; genuine: string }>>();
  private tamperedCount = 0;
  /** Each tampered answer: the merchant, the numbers that name its order, and whether a later request concerned that order. */
  private readonly alteredOrders: { n: number; merchant: string; names: Set<string>; chance: boolean }[] = [];
  private readonly deliveries: SeenDelivery[] = [];

  constructor(
    private readonly keys: readonly MerchantKeys[],
    private readonly ops: ReadonlyMap<string, Operation>,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** The reference's observer: diagnoses the request at once (and logs each mistake). */
  record(r: SeenRequest): void {
    this.seen.push(r);
    const n = this.seen.length;
    const found: (Omit<Diagnosis, 'requests'> & { requests?: number[] })[] = [
      ...timestampMistakes(r),
      ...bodyMistakes(r),
      ...this.trustMistakes(r, n),
    ];
    if (r.http === 401 && r.key === 'unauthorized') found.unshift(...headerMistakes(r));
    else if ((r.http === 401 || r.http === 403) && AUTH_REFUSALS.has(r.key ?? '')) found.unshift(...signatureMistakes(r, this.keys));
    for (const d of found) {
      this.perRequest.push({ ...d, requests: d.requests ?? [n] });
      // A should-level warning is logged once per kind; the report counts every request it concerns.
      if (lookupClause(d.clause).level === 'should') {
        if (this.warned.has(d.name)) continue;
        this.warned.add(d.name);
      }
      this.log(
        `audit: request #${n} ${r.method} ${r.path} (${header(r, 'X-MerchantID') ?? 'no merchant id'}` +
          `) -> HTTP ${r.http}${r.key ? ` ${r.key}` : ''} — ${named(d)} [${d.clause}]: ${d.detail}`,
      );
    }
  }

  /** A request that sends a value only a tampered answer carried: the client trusted that answer. */
  private trustMistakes(r: SeenRequest, n: number): Diagnosis[] {
    const merchant = header(r, 'X-MerchantID') ?? '';
    const known = this.untrusted.get(merchant);
    const out: Diagnosis[] = [];
    if (known?.size) {
      const used = new Set<string>();
      walkStrings(parsedBody(r), '', (path, v) => {
        const t = known.get(v);
        if (!t || used.has(v)) return;
        used.add(v);
        out.push({
          name: 'trusted-unverified-response',
          clause: 'auth.response.verify',
          detail:
            `${path} ${v} came only from the answer to request #${t.n}, whose signature did not verify (the sandbox ` +
            `had altered its ${t.field}, genuinely ${t.genuine}); a response that does not verify is untrustworthy`,
          requests: [t.n, n],
        });
      });
    }
    const referred = referencedNumbers(r);
    for (const a of this.alteredOrders)
      if (!a.chance && a.merchant === merchant && [...a.names].some((x) => referred.has(x) || (x.length >= 6 && r.path.includes(x))))
        a.chance = true;
    if (r.tampered?.length) {
      this.tamperedCount += 1;
      // The order the answer was about: the request's own numbers for it, and the answer's numbers, genuine and altered.
      const names = new Set([...ownNumbers(r), ...r.tampered.flatMap((t) => (/status|state/.test(t.field) ? [] : [t.genuine, t.sent]))]);
      this.alteredOrders.push({ n, merchant, names, chance: false });
      const mine = known ?? new Map();
      this.untrusted.set(merchant, mine);
      // Numbers only: a status is not a value a later request can be seen to carry.
      for (const t of r.tampered)
        if (t.sent !== t.genuine && !/status|state/.test(t.field)) mine.set(t.sent, { n, field: t.field, genuine: t.genuine });
    }
    return out;
  }

  /** The sandbox's delivery observer: webhooks sent to the merchant's receiver and how they were answered. */
  recordDelivery(d: SeenDelivery): void {
    this.deliveries.push(d);
  }

  /** Webhook attempts the receiver answered but did not acknowledge; a copy of one it acknowledged is a duplicate refused. */
  private deliveryMistakes(): Diagnosis[] {
    const out: Diagnosis[] = [];
    const key = (d: SeenDelivery) => `${d.merchantId} ${d.event} ${d.orderNo} ${d.status}`;
    const acked = new Set(this.deliveries.filter((d) => d.acked && !d.copy).map(key));
    for (const d of this.deliveries) {
      if (!d.replied || d.acked) continue;
      const what =
        `${d.event} ${d.orderNo} ${d.status}` + `${d.copy ? ' (sent again)' : d.attempt > 1 ? ` (attempt ${d.attempt})` : ''} to ${d.url}`;
      if (d.copy && acked.has(key(d)))
        out.push({
          name: 'duplicate-not-acknowledged',
          clause: 'webhook.dup.may-repeat',
          detail:
            `${what} was answered ${d.summary}, after the first copy was acknowledged; the same ` +
            `webhook can arrive more than once: acknowledge it with success (and process it once)`,
          requests: [],
        });
      else
        out.push({
          name: 'webhook-not-acknowledged',
          clause: 'merchant.ack.success-body',
          detail: `${what}, genuinely signed, was answered ${d.summary}; a receiver replies with a body of exactly success`,
          requests: [],
        });
    }
    return out;
  }

  get count(): number {
    return this.seen.length;
  }

  /** Answers tampered with (`--tamper-responses`), and how many of them a later request of the client concerned. */
  get tampered(): { altered: number; chance: number } {
    return { altered: this.tamperedCount, chance: this.tamperedActedOn() };
  }

  private tamperedActedOn(): number {
    return this.alteredOrders.filter((a) => a.chance).length;
  }

  diagnoses(): Diagnosis[] {
    const classified = classify(this.seen, this.ops);
    return [
      ...this.perRequest,
      ...sequenceMistakes(classified),
      ...transientMistakes(this.seen, classified, this.ops),
      ...this.deliveryMistakes(),
    ];
  }

  /** Must-level mistakes, and should-level warnings grouped by kind, for the summary line. */
  summary(): string {
    const all = this.diagnoses();
    const should = all.filter((d) => lookupClause(d.clause).level === 'should');
    const must = all.length - should.length;
    const kinds = new Map<string, number>();
    for (const d of should) kinds.set(d.name, (kinds.get(d.name) ?? 0) + d.requests.length);
    const warnings = [...kinds].map(([name, k]) => `${name} on ${k} request${k === 1 ? '' : 's'}`);
    return (
      `${this.count} request${this.count === 1 ? '' : 's'}, ${must} must-level mistake` +
      `${must === 1 ? '' : 's'}${warnings.length ? `, should-level warnings: ${warnings.join(', ')}` : ''}`
    );
  }

  /** Should-level diagnoses of one kind become one, naming every request they concern. */
  private grouped(list: Diagnosis[]): Diagnosis[] {
    const out: Diagnosis[] = [];
    const byName = new Map<string, Diagnosis & { details: Set<string> }>();
    for (const d of list) {
      if (lookupClause(d.clause).level !== 'should') {
        out.push(d);
        continue;
      }
      const g = byName.get(d.name);
      if (g) {
        g.requests.push(...d.requests);
        g.details.add(d.detail);
        continue;
      }
      const first = { ...d, requests: [...d.requests], details: new Set([d.detail]) };
      byName.set(d.name, first);
      out.push(first);
    }
    return out.map((d) => {
      const g = byName.get(d.name);
      if (!g || g !== d) return d;
      const details = [...g.details];
      const detail =
        details.length > 3 ? `${details.slice(0, 3).join('; ')}; and ${details.length - 3} more like these` : details.join('; ');
      return { name: g.name, clause: g.clause, detail, requests: g.requests };
    });
  }

  results(): MerchantResult[] {
    const all = this.grouped(this.diagnoses());
    const creates = classify(this.seen, this.ops).filter((c) => c.op.endsWith('-create')).length;
    // Creates refused at authentication reached no order: say so rather than "none observed".
    const refusedCreates = this.seen.filter((r) => this.ops.get(r.path)?.endsWith('-create') && r.http !== 200).length;
    const json = this.seen.filter((r) => r.body && r.body.length > 0).length;
    return AUDIT_CHECKS.map(({ clause, title, scope }): MerchantResult => {
      const c = lookupClause(clause);
      const level: 'must' | 'should' = c.level === 'should' ? 'should' : 'must';
      const mine = all.filter((d) => d.clause === clause);
      const failedQueries = this.seen.filter((r) => r.key === 'queryFailed').length;
      const answered = this.deliveries.filter((d) => d.replied);
      const counts: Record<Scope, number> = {
        all: this.seen.length,
        json,
        creates,
        tampered: this.tamperedActedOn(),
        'query-failed': failedQueries,
        deliveries: answered.length,
        copies: answered.filter((d) => d.copy).length,
      };
      const relevant = counts[scope];
      const findings: Finding[] = mine.map((d) => {
        const message =
          `${d.requests.length ? `request${d.requests.length > 1 ? 's' : ''} #${d.requests.join(', #')}` : 'webhook'}` +
          `: ${named(d)} — ${d.detail}`;
        return { code: d.name.toUpperCase().replace(/-/g, '_'), clause, level, title: message, message };
      });
      // A webhook's diagnosis is about no request of the client's.
      const evidence = mine.map((d) =>
        d.requests.length
          ? `#${d.requests.join(', #')} ${d.requests
              .map(
                (i) =>
                  `${this.seen[i - 1]!.path} -> HTTP ${this.seen[i - 1]!.http}` +
                  `${this.seen[i - 1]!.key ? ` ${this.seen[i - 1]!.key}` : ''}`,
              )
              .join('; ')}: ${named(d)}: ${d.detail}`
          : `webhook: ${d.name}: ${d.detail}`,
      );
      const base = { checkId: `client-audit/${clause}`, title, clauses: [clause], level, evidence, durationMs: 0 };
      if (findings.length) {
        // How many altered answers the client had the chance to act on, beside the ones it did act on.
        const chances =
          scope === 'tampered'
            ? [
                `${this.tamperedCount} tampered answer${this.tamperedCount === 1 ? '' : 's'}, ${this.tamperedActedOn()} of them ` +
                  'followed by a request about the same order (the chance to act on it)',
              ]
            : [];
        return { ...base, evidence: [...chances, ...evidence], status: 'failed', findings };
      }
      if (relevant === 0) {
        if (scope === 'deliveries' || scope === 'copies') {
          const why =
            scope === 'deliveries'
              ? 'no webhook reached a receiver that answered (notify_url unreachable, or no change of status)'
              : 'no webhook was sent again to a receiver that answered (serve --audit --rough sends every webhook twice)';
          return { ...base, status: 'skipped', reason: `precondition: ${why}`, findings: [] };
        }
        if (scope === 'query-failed') {
          return {
            ...base,
            status: 'skipped',
            reason: 'precondition: no query was answered queryFailed (serve --audit --rough answers some)',
            findings: [],
          };
        }
        if (scope === 'tampered' && this.tamperedCount > 0) {
          const why =
            `${this.tamperedCount} answer${this.tamperedCount === 1 ? ' was' : 's were'} tampered with, but no later request ` +
            'of the client concerned the order of one (by its number or the service number), so whether it trusts an ' +
            'answer that does not verify could not be observed';
          return { ...base, status: 'skipped', reason: `precondition: ${why}`, findings: [] };
        }
        if (scope === 'tampered') {
          const why =
            'no answer was tampered with (serve --audit --tamper-responses alters some; without ' +
            'it, what a client does with a response that does not verify cannot be observed)';
          return { ...base, status: 'skipped', reason: `precondition: ${why}`, findings: [] };
        }
        const reason =
          scope === 'creates' && refusedCreates
            ? `no create request passed authentication (${refusedCreates} ${refusedCreates === 1 ? 'was' : 'were'}` +
              ` refused before reaching an order, so the sequence of numbers could not be judged)`
            : `no ${scope === 'creates' ? 'create request' : scope === 'json' ? 'request with a body' : 'request'} was observed`;
        return { ...base, status: 'skipped', reason: `precondition: ${reason}`, findings: [] };
      }
      const observed =
        scope === 'deliveries' || scope === 'copies'
          ? `${relevant} webhook attempt${relevant === 1 ? '' : 's'}${scope === 'copies' ? ' sent again' : ''} answered, each acknowledged`
          : scope === 'query-failed'
            ? `${relevant} queryFailed answer${relevant === 1 ? '' : 's'}, each query sent again`
            : scope === 'tampered'
              ? `${this.tamperedCount} tampered answer${this.tamperedCount === 1 ? '' : 's'}, ${relevant} of them followed by a ` +
                'request about the same order (the chance to act on it), none of their altered numbers sent back'
              : `${relevant} request${relevant === 1 ? '' : 's'} observed, no mistake`;
      return { ...base, status: 'passed', findings: [], evidence: [observed] };
    });
  }
}

/** A diagnosis's name as shown: a re-serialised body with its family, e.g. `re-serialised-body: keys sorted at every depth (…)`. */
function named(d: Omit<Diagnosis, 'requests'>): string {
  return d.reserialisation ? `${d.name}: ${reserialisationText(d.reserialisation)}` : d.name;
}

const ORDER_NUMBER = /(^|_)(order|refund|payout)_no$/;

/** Every order, refund or payout number a request names (its own, an original's, a query's), by any field of that name. */
function referencedNumbers(r: SeenRequest): Set<string> {
  const out = new Set<string>();
  walkStrings(parsedBody(r), '', (path, v) => {
    if (ORDER_NUMBER.test(path.slice(path.lastIndexOf('.') + 1)) && v !== '') out.add(v);
  });
  return out;
}

/** The numbers a request names its own order by (not an original's): `merchant_order_no`, `order_no`, `merchant_refund_no`, … */
function ownNumbers(r: SeenRequest): string[] {
  const b = parsedBody(r);
  if (!b || typeof b !== 'object' || Array.isArray(b)) return [];
  return Object.entries(b as Record<string, unknown>)
    .filter(([k, v]) => /^(merchant_)?(order|refund|payout)_no$/.test(k) && typeof v === 'string' && v !== '')
    .map(([, v]) => v as string);
}

function walkStrings(v: unknown, path: string, visit: (path: string, value: string) => void): void {
  if (typeof v === 'string') visit(path || 'body', v);
  else if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) walkStrings(x, `${path}[${i}]`, visit);
  } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walkStrings(x, path ? `${path}.${k}` : k, visit);
}
