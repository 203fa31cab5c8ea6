/** How much of a configuration's profile init learnt: leaves of the truth whose value the draft has too. */
import type { Profile } from '../../harness/profile/types.js';

function leaves(v: unknown, path: string[] = []): [string, unknown][] {
  if (v && typeof v === 'object' && !Array.isArray(v))
    return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [[path.join('.'), v]];
}

/** Name, description and the literal secrets are not facts about the target. */
const IGNORED = /^(name|description|\$schema|merchants\.\w+\.secret)$/;

export function discoveredShare(draft: Profile, truth: Profile): { equal: number; total: number; missing: string[] } {
  const mine = new Map(leaves(draft));
  const all = leaves(truth).filter(([p]) => !IGNORED.test(p));
  const missing = all.filter(([p, v]) => JSON.stringify(mine.get(p)) !== JSON.stringify(v)).map(([p]) => p);
  return { equal: all.length - missing.length, total: all.length, missing };
}

/** Of the profile that runs green (the draft completed at its TODOs), the leaves init wrote and those the user wrote. */
export function completedShare(completed: Profile, filled: string[]): { byInit: number; byUser: number } {
  const all = leaves(completed).filter(([p]) => !IGNORED.test(p));
  const byUser = all.filter(([p]) => filled.some((f) => p === f || p.startsWith(`${f}.`))).length;
  return { byInit: all.length - byUser, byUser };
}
