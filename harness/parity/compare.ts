/**
 * Compares the two outcomes of one check. A difference is charged to a clause: a finding that
 * only one side has is charged to the finding's own clause (the check's judgement of what broke);
 * any other difference of the same check (status, exchanges, readings) to the first such clause,
 * and, when the check judged both sides alike, to the check's main clause.
 */
import type { CheckResult } from '../check/run.js';
import type { Outcome } from './normalise.js';

export type Aspect =
  | 'status'
  | 'findings'
  | 'readings'
  | 'exchanges'
  | 'http-status'
  | 'body'
  | 'envelope'
  | 'code'
  | 'key'
  | 'key-form'
  | 'data'
  | 'signature'
  | 'webhooks';

export const ASPECTS: readonly Aspect[] = [
  'status',
  'findings',
  'readings',
  'exchanges',
  'http-status',
  'body',
  'envelope',
  'code',
  'key',
  'key-form',
  'data',
  'signature',
  'webhooks',
];

export interface Difference {
  checkId: string;
  clause: string;
  aspect: Aspect;
  detail: string;
  /** What each side showed, normalised. */
  a?: string;
  b?: string;
  /** Positions of the exchanges concerned in each side's exchange list. */
  exchange?: { a?: number; b?: number };
  /** The declared-differences entry's reason, when this difference is declared. */
  declared?: string;
  /**
   * How the clause was found: "finding" (a finding one side only has), "check" (another difference of
   * a check that judged the sides apart), "same difference" (judged so in check `via`), "main clause"
   * (no check judged it: the check's own main clause).
   */
  chargedBy: 'finding' | 'check' | 'same difference' | 'main clause';
  via?: string;
  /** The difference itself, without the check: the same behaviour seen by several checks has one. */
  signature?: string;
}

export type CheckVerdict = 'equal' | 'different' | 'one side skipped' | 'both skipped';

export interface Side {
  result: CheckResult;
  outcomes: Outcome[];
  /** The result's readings, normalised. */
  readings: Record<string, string>;
}

export interface CheckComparison {
  checkId: string;
  title: string;
  clauses: string[];
  verdict: CheckVerdict;
  status: { a: string; b: string };
  skipReason?: { a?: string; b?: string };
  differences: Difference[];
  /** Exchange differences beyond those listed (kept short for the report). */
  moreExchangeDifferences: number;
  /**
   * Set when the first run differed but a confirmation run of the pair compared equal: a timing- or
   * interleaving-dependent check (parallel lanes on one balance, webhook timing), not a behaviour
   * the targets reliably differ in. The first run's differences are kept here, not counted.
   */
  unstable?: { runs: number; differentRuns: number; differences: Difference[] };
}

const MAX_EXCHANGE_DIFFS = 6;
const SKIPPED = (r: CheckResult) => r.status === 'skipped';

function show(v: unknown): string {
  return v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v);
}

/** Paths where two normalised JSON values differ: type, key set or value. */
export function jsonDiffs(a: unknown, b: unknown, path = 'data', out: string[] = [], limit = 5): string[] {
  if (out.length >= limit) return out;
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(a) !== kind(b)) {
    out.push(`${path}: ${kind(a)} ${show(a)} vs ${kind(b)} ${show(b)}`);
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} items vs ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) jsonDiffs(a[i], b[i], `${path}[${i}]`, out, limit);
    return out;
  }
  if (a && b && typeof a === 'object') {
    const x = a as Record<string, unknown>;
    const y = b as Record<string, unknown>;
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (!(k in y)) out.push(`${path}.${k}: present vs absent`);
      else if (!(k in x)) out.push(`${path}.${k}: absent vs present`);
      else jsonDiffs(x[k], y[k], `${path}.${k}`, out, limit);
      if (out.length >= limit) break;
    }
    return out;
  }
  if (a !== b) out.push(`${path}: ${show(a)} vs ${show(b)}`);
  return out;
}

const key = (o: Outcome) => JSON.stringify({ ...o, label: undefined });

/** Field-by-field differences of two paired outcomes. */
export function outcomeDiffs(a: Outcome, b: Outcome): { aspect: Aspect; detail: string; a: string; b: string }[] {
  const out: { aspect: Aspect; detail: string; a: string; b: string }[] = [];
  const field = (aspect: Aspect, name: string, x: unknown, y: unknown) => {
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push({ aspect, detail: `${name}: ${show(x)} vs ${show(y)}`, a: show(x), b: show(y) });
  };
  field('exchanges', 'request', a.request, b.request);
  field('http-status', 'HTTP status', a.http, b.http);
  field('body', 'body', a.body, b.body);
  field('envelope', 'envelope fields', a.envelope, b.envelope);
  field('code', 'code', a.code, b.code);
  field('key', 'key', a.key, b.key);
  field('key-form', 'msg in "message|key" form', a.keyForm, b.keyForm);
  field('signature', 'signing headers', a.signed, b.signed);
  field('signature', 'signature', a.signature, b.signature);
  if (a.kind === 'webhook') field('webhooks', 'event and status', [a.event, a.status], [b.event, b.status]);
  const data = jsonDiffs(a.data, b.data);
  if (data.length) out.push({ aspect: 'data', detail: data.join('; '), a: show(a.data), b: show(b.data) });
  return out;
}

/** Pairs two outcome lists: identical ones first (order aside: parallel lanes interleave), the rest in order. */
export function pairOutcomes(
  a: readonly Outcome[],
  b: readonly Outcome[],
): { rest: [number | undefined, number | undefined][]; reordered: boolean } {
  const usedB = new Set<number>();
  const unmatchedA: number[] = [];
  let reordered = false;
  const keysB = b.map(key);
  a.forEach((o, i) => {
    const k = key(o);
    if (i < b.length && !usedB.has(i) && keysB[i] === k) {
      usedB.add(i);
      return;
    }
    const j = keysB.findIndex((kb, jj) => kb === k && !usedB.has(jj));
    if (j >= 0) {
      usedB.add(j);
      reordered = true;
    } else unmatchedA.push(i);
  });
  const unmatchedB = b.map((_, j) => j).filter((j) => !usedB.has(j));
  const rest: [number | undefined, number | undefined][] = [];
  for (let i = 0; i < Math.max(unmatchedA.length, unmatchedB.length); i++) rest.push([unmatchedA[i], unmatchedB[i]]);
  return { rest, reordered };
}

function findingKeys(r: CheckResult): Map<string, string> {
  return new Map(r.findings.map((f) => [`${f.clause} ${f.code}`, f.clause]));
}

export function compareCheck(a: Side, b: Side): CheckComparison {
  const r = a.result;
  const base: CheckComparison = {
    checkId: r.checkId,
    title: r.title,
    clauses: r.clauses,
    verdict: 'equal',
    status: { a: a.result.status, b: b.result.status },
    differences: [],
    moreExchangeDifferences: 0,
  };
  if (SKIPPED(a.result) || SKIPPED(b.result)) {
    return {
      ...base,
      verdict: SKIPPED(a.result) && SKIPPED(b.result) ? 'both skipped' : 'one side skipped',
      skipReason: {
        a: a.result.status === 'skipped' ? a.result.reason : undefined,
        b: b.result.status === 'skipped' ? b.result.reason : undefined,
      },
    };
  }
  const diffs: Omit<Difference, 'clause' | 'chargedBy'>[] = [];
  const fa = findingKeys(a.result);
  const fb = findingKeys(b.result);
  const judged: string[] = [];
  const findingDiffs: Difference[] = [];
  for (const [k, clause] of fa)
    if (!fb.has(k))
      findingDiffs.push({
        checkId: r.checkId,
        clause,
        chargedBy: 'finding',
        aspect: 'findings',
        detail: `finding ${k} on side A only`,
        a: k,
        b: '(none)',
      });
  for (const [k, clause] of fb)
    if (!fa.has(k))
      findingDiffs.push({
        checkId: r.checkId,
        clause,
        chargedBy: 'finding',
        aspect: 'findings',
        detail: `finding ${k} on side B only`,
        a: '(none)',
        b: k,
      });
  for (const d of findingDiffs) if (!judged.includes(d.clause)) judged.push(d.clause);

  if (a.result.status !== b.result.status) {
    diffs.push({
      checkId: r.checkId,
      aspect: 'status',
      detail: `check ${a.result.status} vs ${b.result.status}`,
      a: `${a.result.status}${a.result.reason ? `: ${a.result.reason}` : ''}`,
      b: `${b.result.status}${b.result.reason ? `: ${b.result.reason}` : ''}`,
    });
  }
  for (const topic of new Set([...Object.keys(a.readings), ...Object.keys(b.readings)])) {
    const x = a.readings[topic];
    const y = b.readings[topic];
    if (x !== y)
      diffs.push({
        checkId: r.checkId,
        aspect: 'readings',
        detail: `reading of ${topic}: ${show(x)} vs ${show(y)}`,
        a: show(x),
        b: show(y),
      });
  }

  const seq = (o: Outcome[]) => o.filter((x) => x.kind === 'webhook').map((x) => `${show(x.event)} ${show(x.status)}`);
  const wa = seq(a.outcomes);
  const wb = seq(b.outcomes);
  if (wa.join(',') !== wb.join(','))
    diffs.push({
      checkId: r.checkId,
      aspect: 'webhooks',
      detail: `webhook events: [${wa.join(', ')}] vs [${wb.join(', ')}]`,
      a: wa.join(', ') || '(none)',
      b: wb.join(', ') || '(none)',
    });

  let exchangeDiffs = 0;
  const { rest } = pairOutcomes(a.outcomes, b.outcomes);
  for (const [i, j] of rest) {
    const found: Omit<Difference, 'clause' | 'chargedBy'>[] = [];
    if (i === undefined || j === undefined) {
      const o = i !== undefined ? a.outcomes[i]! : b.outcomes[j!]!;
      found.push({
        checkId: r.checkId,
        aspect: 'exchanges',
        detail: `${o.request} (${o.label}) on side ${i !== undefined ? 'A' : 'B'} only`,
        a: i !== undefined ? o.request : '(none)',
        b: j !== undefined ? o.request : '(none)',
        exchange: { a: i, b: j },
      });
    } else {
      const req = a.outcomes[i]!.request;
      for (const d of outcomeDiffs(a.outcomes[i]!, b.outcomes[j]!))
        found.push({ checkId: r.checkId, ...d, exchange: { a: i, b: j }, signature: `${req} ${d.aspect} ${d.detail}` });
    }
    for (const d of found) {
      exchangeDiffs += 1;
      if (exchangeDiffs <= MAX_EXCHANGE_DIFFS) diffs.push(d);
    }
  }
  const charged = judged[0] ?? r.clauses[0]!;
  const chargedBy = judged.length ? 'check' : 'main clause';
  const differences = [...findingDiffs, ...diffs.map((d): Difference => ({ ...d, clause: charged, chargedBy }))];
  return {
    ...base,
    verdict: differences.length ? 'different' : 'equal',
    differences,
    moreExchangeDifferences: Math.max(0, exchangeDiffs - MAX_EXCHANGE_DIFFS),
  };
}

/**
 * A difference no check judged (both sides passed it alike) is charged to the clause of a check
 * that did judge the very same difference, when one did: the behaviour belongs to that clause,
 * not to every check that happened to pass through it.
 */
export function chargeUnjudged(comparisons: readonly CheckComparison[]): void {
  const judgedBy = new Map<string, Difference>();
  for (const c of comparisons)
    for (const d of c.differences) if (d.chargedBy === 'check' && d.signature && !judgedBy.has(d.signature)) judgedBy.set(d.signature, d);
  for (const c of comparisons) {
    for (const d of c.differences) {
      const j = d.chargedBy === 'main clause' && d.signature ? judgedBy.get(d.signature) : undefined;
      if (j) Object.assign(d, { clause: j.clause, chargedBy: 'same difference', via: j.checkId });
    }
    // A reading or status that moved with those exchanges is the same behaviour seen once more.
    const moved = c.differences.filter((d) => d.signature);
    const to = moved[0];
    if (to?.chargedBy === 'same difference' && moved.every((d) => d.chargedBy === 'same difference' && d.clause === to.clause)) {
      for (const d of c.differences)
        if (d.chargedBy === 'main clause') Object.assign(d, { clause: to.clause, chargedBy: 'same difference', via: to.via });
    }
  }
}

export type ClauseVerdict = 'equal' | 'different' | 'declared' | 'one side skipped' | 'both skipped';

export interface ClauseRow {
  clause: string;
  verdict: ClauseVerdict;
  /** Checks naming the clause. */
  checks: string[];
  differences: Difference[];
  /** Checks of the clause skipped on one side only. */
  oneSideSkipped: string[];
}

/** Per clause: every check naming it, plus every clause a difference was charged to. */
export function clauseRows(comparisons: readonly CheckComparison[]): ClauseRow[] {
  const rows = new Map<string, ClauseRow>();
  const row = (clause: string) => {
    const x = rows.get(clause) ?? { clause, verdict: 'equal', checks: [], differences: [], oneSideSkipped: [] };
    rows.set(clause, x);
    return x;
  };
  for (const c of comparisons) {
    for (const cl of c.clauses) {
      const x = row(cl);
      x.checks.push(c.checkId);
      if (c.verdict === 'one side skipped') x.oneSideSkipped.push(c.checkId);
    }
    for (const d of c.differences) row(d.clause).differences.push(d);
  }
  for (const x of rows.values()) {
    const verdicts = comparisons.filter((c) => x.checks.includes(c.checkId)).map((c) => c.verdict);
    if (x.differences.some((d) => !d.declared)) x.verdict = 'different';
    else if (x.differences.length) x.verdict = 'declared';
    else if (x.oneSideSkipped.length) x.verdict = 'one side skipped';
    else if (verdicts.length && verdicts.every((v) => v === 'both skipped')) x.verdict = 'both skipped';
    else x.verdict = 'equal';
  }
  return [...rows.values()].sort((p, q) => (p.clause < q.clause ? -1 : p.clause > q.clause ? 1 : 0));
}

export interface ParityFigures {
  clauses: Record<ClauseVerdict, number>;
  checks: Record<CheckVerdict, number>;
  /** equal / (equal + different + declared), over clauses. */
  ratio: number;
  /** (equal + declared) / compared: what remains once declared differences are accepted. */
  ratioAcceptingDeclared: number;
  undeclared: number;
  /** Checks that differed in a run but compared equal in a confirmation run. */
  unstable: number;
}

export function figures(rows: readonly ClauseRow[], comparisons: readonly CheckComparison[]): ParityFigures {
  const clauses: Record<ClauseVerdict, number> = { equal: 0, different: 0, declared: 0, 'one side skipped': 0, 'both skipped': 0 };
  for (const r of rows) clauses[r.verdict] += 1;
  const checks: Record<CheckVerdict, number> = { equal: 0, different: 0, 'one side skipped': 0, 'both skipped': 0 };
  for (const c of comparisons) checks[c.verdict] += 1;
  const compared = clauses.equal + clauses.different + clauses.declared;
  return {
    clauses,
    checks,
    ratio: compared ? clauses.equal / compared : 1,
    ratioAcceptingDeclared: compared ? (clauses.equal + clauses.declared) / compared : 1,
    undeclared: comparisons.flatMap((c) => c.differences).filter((d) => !d.declared).length,
    unstable: comparisons.filter((c) => c.unstable).length,
  };
}
