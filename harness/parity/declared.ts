/**
 * Declared differences: what may differ between the two targets, and why. A JSON list:
 *   [{ "clause": "err.pay.declined", "what": ["code", "key"], "reason": "production maps declines to …" },
 *    { "check": "refunds/refuses-…", "what": ["any"], "reason": "…" }]
 * `clause` (a registry id, or a prefix ending in ".") or `check` (a check id), exactly one; `what`:
 * aspects of the comparison that may differ ("any" for all); `reason`: required, shown in the report.
 */
import { readFileSync } from 'node:fs';
import { ASPECTS, type Aspect, type Difference } from './compare.js';

export interface DeclaredEntry {
  clause?: string;
  check?: string;
  what: (Aspect | 'any')[];
  reason: string;
}

export class DeclaredError extends Error {}

const FIELDS = new Set(['clause', 'check', 'what', 'reason']);

export function parseDeclared(
  text: string,
  source: string,
  known: { isClause(id: string): boolean; isCheck(id: string): boolean },
): DeclaredEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new DeclaredError(`${source}: not valid JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(value)) throw new DeclaredError(`${source}: must be a JSON list of {clause or check, what, reason}`);
  return value.map((e: unknown, i): DeclaredEntry => {
    const at = `${source}: entry ${i + 1}`;
    if (!e || typeof e !== 'object' || Array.isArray(e))
      throw new DeclaredError(`${at}: must be an object {clause or check, what, reason}`);
    const o = e as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => !FIELDS.has(k));
    if (extra.length)
      throw new DeclaredError(
        `${at}: unknown field ${extra.map((k) => JSON.stringify(k)).join(', ')} (fields: clause, check, what, reason)`,
      );
    if ((o['clause'] === undefined) === (o['check'] === undefined))
      throw new DeclaredError(`${at}: give exactly one of "clause" and "check"`);
    if (o['clause'] !== undefined) {
      const c = o['clause'];
      if (typeof c !== 'string' || !known.isClause(c))
        throw new DeclaredError(
          `${at}: clause ${JSON.stringify(c)} is neither a clause id nor a prefix ending in "." (harness/clauses/registry.ts)`,
        );
    }
    if (o['check'] !== undefined) {
      const c = o['check'];
      if (typeof c !== 'string' || !known.isCheck(c))
        throw new DeclaredError(`${at}: check ${JSON.stringify(c)} is not a check id (<suite>/<slug>)`);
    }
    const what = o['what'];
    const allowed = [...ASPECTS, 'any'];
    if (!Array.isArray(what) || what.length === 0 || what.some((w) => typeof w !== 'string' || !allowed.includes(w))) {
      throw new DeclaredError(`${at}: "what" must be a non-empty list of ${allowed.join(', ')}`);
    }
    if (typeof o['reason'] !== 'string' || o['reason'].trim() === '')
      throw new DeclaredError(`${at}: "reason" must say why the difference is acceptable`);
    return {
      ...(o['clause'] !== undefined ? { clause: o['clause'] as string } : { check: o['check'] as string }),
      what: what as DeclaredEntry['what'],
      reason: o['reason'],
    };
  });
}

export function loadDeclared(path: string, known: Parameters<typeof parseDeclared>[2]): DeclaredEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new DeclaredError(
      `declared differences file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  return parseDeclared(text, path, known);
}

function covers(e: DeclaredEntry, d: Difference): boolean {
  const where =
    e.check !== undefined ? e.check === d.checkId : e.clause!.endsWith('.') ? d.clause.startsWith(e.clause!) : d.clause === e.clause;
  return where && (e.what.includes('any') || e.what.includes(d.aspect));
}

/** Marks each difference an entry covers with that entry's reason. */
export function applyDeclared(diffs: Difference[], entries: readonly DeclaredEntry[]): void {
  for (const d of diffs) {
    const e = entries.find((x) => covers(x, d));
    if (e) d.declared = e.reason;
  }
}
