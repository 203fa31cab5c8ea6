import type { Certificate } from './certificate.js';

/**
 * What to add to the profile to un-skip the clauses skipped for a precondition: each hint ("declare
 * sandbox.chargeback in the profile to run it", the end of a skip reason) with the clauses it unlocks.
 * Skips whose reason names no profile entry (a run flag, what the target did) are listed apart.
 */
export function declareHints(c: Certificate): { hint: string; clauses: string[] }[] {
  const byHint = new Map<string, string[]>();
  for (const x of c.clauses) {
    if (x.status !== 'skipped-precondition') continue;
    const hint = / — (declare .+ in the profile to run it)$/.exec(x.basis)?.[1] ?? 'no profile entry named (see the reason in the clause list)';
    byHint.set(hint, [...(byHint.get(hint) ?? []), x.id]);
  }
  return [...byHint.entries()].map(([hint, clauses]) => ({ hint, clauses }));
}
