import type { CheckDef, SuiteDef } from '../check/define.js';

/** The checks of a suite that a run's --suite / --clause filters select (a clause filter also matches by prefix). */
export function selectChecks(suite: SuiteDef, suites: string[], clauses: string[]): CheckDef[] {
  if (suites.length > 0 && !suites.includes(suite.name)) return [];
  if (clauses.length === 0) return suite.checks;
  return suite.checks.filter((c) => c.clauses.some((id) => clauses.some((want) => id === want || id.startsWith(`${want}.`))));
}
