import { declareHint } from '../check/failure.js';
import type { Certificate } from './certificate-build.js';

/**
 * What to add to the profile to un-skip the clauses skipped for a precondition: each hint ("declare
 * sandbox.chargeback in the profile to run it", the end of a skip reason) with the clauses it unlocks.
 * Skips whose reason names no profile entry (a run flag, what the target did) are listed by their reason.
 */
export function declareHints(c: Certificate): { hint: string; clauses: string[] }[] {
  const byHint = new Map<string, string[]>();
  for (const x of c.clauses) {
    if (x.status !== 'skipped-precondition') continue;
    // A skip no profile entry can lift (a run flag, the target's own behaviour) is shown by its reason, whole.
    const hint = x.declare?.length ? declareHint(x.declare) : x.basis.replace(/^precondition: /, '');
    byHint.set(hint, [...(byHint.get(hint) ?? []), x.id]);
  }
  return [...byHint.entries()].map(([hint, clauses]) => ({ hint, clauses }));
}
