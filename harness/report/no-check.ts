/**
 * The clauses the kit has no check for, and why (fixtures/coverage-allowlist.json, which the coverage
 * proof keeps true: an entry for a clause that gained a check is stale and fails the gate). The
 * certificate shows the reason beside such a clause instead of "no check of it ran".
 */
import { readFileSync } from 'node:fs';
import { kitFile } from '../kit/kit-files.js';

export const ALLOWLIST_PATH = kitFile('fixtures', 'coverage-allowlist.json');

export type Allowlist = Record<string, string>;

/** The allowlist file: `{ "clause.id": "why it cannot be proved black-box" }`; `$comment` keys are ignored. */
export function readAllowlist(path: URL | string = ALLOWLIST_PATH): Allowlist {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const out: Allowlist = {};
  for (const [k, v] of Object.entries(raw)) {
    if (k.startsWith('$')) continue;
    if (typeof v !== 'string' || v.trim().length < 10)
      throw new Error(`coverage allowlist: ${k} needs a reason (a sentence), got ${JSON.stringify(v)}`);
    out[k] = v;
  }
  return out;
}
