/**
 * Known deviations of one target: checks or clauses expected to fail (or to be skipped), each with
 * a comment saying why and, optionally, a date after which the entry no longer holds.
 *
 * File format (JSON):
 *   { "profile": "acme-sandbox",                      // optional: the profile name it belongs to
 *     "entries": [
 *       { "check": "amounts/refuses-a-value-with-three-decimals", "expected": "fail",
 *         "comment": "ACME-123: rounding fix ships in 4.2", "expires": "2026-12-31" },
 *       { "clause": "webhook.retry.nine-attempts", "expected": "fail", "comment": "..." } ] }
 * A bare array of entries is accepted too.
 *
 * Semantics (documented in examples/README.md):
 * - expected "fail": a failing check whose findings are all covered (by its check entry, or by clause
 *   entries naming each finding's clause) is an expected failure: shown as such, not a red run.
 * - expected "skip": a skipped check covered by the entry is an expected skip.
 * - an entry whose check (or clause) passes is an unexpected pass: a warning and a certificate
 *   entry, not a failure (as wpt reports it).
 * - an entry past its `expires` date is not applied and fails the run (exit 1), naming the entry.
 * - a malformed file stops the run before it starts (exit 2).
 * - kind "disputed" (`{ "check" | "clause", "kind": "disputed", "reason": "...", "link": "https://..." }`):
 *   the vendor believes the CHECK is wrong, not that the target deviates. A failure it covers is neither
 *   passed nor a deviation: the check's outcome is `disputed`, its clause is `disputed`, and the verdict
 *   reads "CONFORMANT except N disputed checks" at best. Only findings against the entry's check's own
 *   clauses (or the entry's clause) are disputed; a finding against any other clause counts as usual.
 * Expectations never stop a check from running: it always runs and its result is always stored.
 */
import { readFileSync } from 'node:fs';
import { sha256Hex } from './canonical.js';

export interface ExpectationEntry {
  check?: string;
  clause?: string;
  /** `deviation` (default): the target is known to deviate; `disputed`: the vendor says the check is wrong. */
  kind?: 'deviation' | 'disputed';
  expected: 'fail' | 'skip';
  /** Why: for a dispute, its reason. */
  comment: string;
  /** A dispute's link (issue, report, discussion): required for kind `disputed`. */
  link?: string;
  /** YYYY-MM-DD: the last day the entry holds. */
  expires?: string;
}

export interface Expectations {
  /** Where the file was read from (shown in messages and the certificate). */
  source: string;
  profile?: string;
  entries: ExpectationEntry[];
  /** SHA-256 of the file's bytes. */
  sha256: string;
}

export class ExpectationsError extends Error {
  override readonly name = 'ExpectationsError';
}

export interface ValidateOptions {
  /** True when a clause id is in the registry. */
  isClause(id: string): boolean;
  /** Known check ids; when given, an entry naming another check is an error. */
  checks?: ReadonlySet<string>;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ENTRY_KEYS = new Set(['check', 'clause', 'expected', 'comment', 'expires']);
const DISPUTE_KEYS = new Set(['check', 'clause', 'kind', 'reason', 'link', 'expires']);

function validDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** A short name for an entry in messages: `check amounts/x` or `clause a.b`. */
export function entryName(e: ExpectationEntry): string {
  return e.check !== undefined ? `check ${e.check}` : `clause ${e.clause}`;
}

export function parseExpectations(text: string, source: string, opts: ValidateOptions): Expectations {
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new ExpectationsError(`${source}: not valid JSON (${(err as Error).message})`);
  }
  let profile: string | undefined;
  let list: unknown;
  if (Array.isArray(value)) list = value;
  else if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    for (const k of Object.keys(obj)) {
      if (k !== 'entries' && k !== 'profile' && k !== '$schema')
        throw new ExpectationsError(`${source}: unknown top-level field ${JSON.stringify(k)} (allowed: profile, entries)`);
    }
    if (obj.profile !== undefined && typeof obj.profile !== 'string') throw new ExpectationsError(`${source}: "profile" must be a string`);
    profile = obj.profile as string | undefined;
    list = obj.entries;
    if (!Array.isArray(list)) throw new ExpectationsError(`${source}: "entries" must be an array`);
  } else throw new ExpectationsError(`${source}: must be a JSON object with "entries", or an array of entries`);

  const problems: string[] = [];
  const entries: ExpectationEntry[] = [];
  const seen = new Map<string, number>();
  (list as unknown[]).forEach((raw, i) => {
    const at = `entries[${i}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      problems.push(`${at}: must be an object`);
      return;
    }
    const e = raw as Record<string, unknown>;
    if (e.kind !== undefined && e.kind !== 'deviation' && e.kind !== 'disputed')
      problems.push(`${at}: "kind" must be "deviation" or "disputed"`);
    const disputed = e.kind === 'disputed';
    const keys = disputed ? DISPUTE_KEYS : new Set([...ENTRY_KEYS, 'kind']);
    for (const k of Object.keys(e))
      if (!keys.has(k))
        problems.push(
          `${at}: unknown field ${JSON.stringify(k)}${disputed ? ' in a disputed entry' : ''} (allowed: ${[...keys].join(', ')})`,
        );
    const hasCheck = e.check !== undefined;
    const hasClause = e.clause !== undefined;
    if (hasCheck === hasClause) problems.push(`${at}: needs exactly one of "check" (a check id) or "clause" (a clause id)`);
    if (hasCheck && (typeof e.check !== 'string' || e.check === '')) problems.push(`${at}: "check" must be a non-empty string`);
    else if (hasCheck && opts.checks && !opts.checks.has(e.check as string))
      problems.push(`${at}: no check has the id ${JSON.stringify(e.check)}`);
    if (hasClause && (typeof e.clause !== 'string' || !opts.isClause(e.clause)))
      problems.push(`${at}: ${JSON.stringify(e.clause)} is not a clause id of harness/clauses/registry.ts`);
    if (disputed) {
      if (typeof e.reason !== 'string' || e.reason.trim() === '') problems.push(`${at}: "reason" is required: say why the check is wrong`);
      if (typeof e.link !== 'string' || !/^https?:\/\/\S+$/.test(e.link))
        problems.push(`${at}: "link" is required: an http(s) URL where the dispute is argued`);
    } else {
      if (e.expected !== 'fail' && e.expected !== 'skip') problems.push(`${at}: "expected" must be "fail" or "skip"`);
      if (typeof e.comment !== 'string' || e.comment.trim() === '')
        problems.push(`${at}: "comment" is required: say why the deviation is known`);
    }
    if (e.expires !== undefined && (typeof e.expires !== 'string' || !validDate(e.expires)))
      problems.push(`${at}: "expires" must be a date YYYY-MM-DD`);
    const key = hasCheck ? `check ${String(e.check)}` : `clause ${String(e.clause)}`;
    if (seen.has(key)) problems.push(`${at}: a second entry for ${key} (first: entries[${seen.get(key)}])`);
    seen.set(key, i);
    entries.push({
      ...(hasCheck ? { check: e.check as string } : { clause: e.clause as string }),
      ...(disputed
        ? { kind: 'disputed' as const, expected: 'fail' as const, comment: String(e.reason ?? ''), link: String(e.link ?? '') }
        : { expected: e.expected as 'fail' | 'skip', comment: String(e.comment ?? '') }),
      ...(e.expires !== undefined ? { expires: e.expires as string } : {}),
    });
  });
  if (problems.length > 0) throw new ExpectationsError(`${source}: ${problems.join('; ')}`);
  return { source, profile, entries, sha256: sha256Hex(text) };
}

export function loadExpectations(path: string, opts: ValidateOptions): Expectations {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ExpectationsError(`cannot read expectations file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'read error'}`);
  }
  return parseExpectations(text, path, opts);
}

/** True when `today` (YYYY-MM-DD) is after the entry's last day. */
export function isExpired(e: ExpectationEntry, today: string): boolean {
  return e.expires !== undefined && e.expires < today;
}

/** The run's date as YYYY-MM-DD (UTC): the day expiry is judged on. */
export function dayOf(iso: string): string {
  return iso.slice(0, 10);
}

/** Known-deviation entries still in force on `today`. */
export function activeEntries(x: Expectations | undefined, today: string): ExpectationEntry[] {
  return (x?.entries ?? []).filter((e) => !isExpired(e, today) && e.kind !== 'disputed');
}

/** Dispute entries still in force on `today`. */
export function activeDisputes(x: Expectations | undefined, today: string): ExpectationEntry[] {
  return (x?.entries ?? []).filter((e) => !isExpired(e, today) && e.kind === 'disputed');
}

/** The dispute covering a finding of a check, if any: the check's entry (for its own clauses) or the finding's clause entry. */
export function disputeFor(
  result: { checkId: string; clauses: string[] },
  findingClause: string,
  disputes: ExpectationEntry[],
): ExpectationEntry | undefined {
  return disputes.find((e) => (e.check === result.checkId && result.clauses.includes(findingClause)) || e.clause === findingClause);
}

/** What the entries say about one check's result. */
export interface CheckExpectation {
  /** The result is a failure whose every finding is covered. */
  expectedFail: boolean;
  /** The result is a skip covered by an entry. */
  expectedSkip: boolean;
  /** A check entry expected it to fail or be skipped, and it passed. */
  unexpectedPass: boolean;
  /** Entries that applied (for comments). */
  entries: ExpectationEntry[];
}

export function expectationFor(
  result: { checkId: string; clauses: string[]; status: string; findings: { clause: string }[] },
  active: ExpectationEntry[],
): CheckExpectation {
  const byCheck = active.find((e) => e.check === result.checkId);
  const out: CheckExpectation = { expectedFail: false, expectedSkip: false, unexpectedPass: false, entries: [] };
  if (result.status === 'failed') {
    if (byCheck?.expected === 'fail') {
      out.expectedFail = true;
      out.entries.push(byCheck);
    } else if (result.findings.length > 0) {
      const covering = result.findings.map((f) => active.find((e) => e.clause === f.clause && e.expected === 'fail'));
      if (covering.every((e) => e !== undefined)) {
        out.expectedFail = true;
        out.entries.push(...new Set(covering as ExpectationEntry[]));
      }
    }
  } else if (result.status === 'skipped') {
    const e =
      byCheck?.expected === 'skip'
        ? byCheck
        : active.find((x) => x.expected === 'skip' && x.clause !== undefined && result.clauses.includes(x.clause));
    if (e) {
      out.expectedSkip = true;
      out.entries.push(e);
    }
  } else if (result.status === 'passed' && byCheck) {
    out.unexpectedPass = true;
    out.entries.push(byCheck);
  }
  return out;
}
