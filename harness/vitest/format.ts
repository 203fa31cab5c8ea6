import type { CheckResult } from '../check/run.js';
import { clause as lookupClause, hasClause } from '../clauses/registry.js';
import { isUnreachable } from '../report/verdict.js';

/** The level a finding is reported at: the registry's level of its clause (the check's own level for an open item). */
export function findingLevel(clauseId: string, checkLevel: 'must' | 'should'): 'must' | 'should' {
  if (!hasClause(clauseId)) return checkLevel;
  const level = lookupClause(clauseId).level;
  return level === 'unspecified' ? checkLevel : level;
}

/** The failure text a target's developer reads first: clause, level, finding, expected vs. seen. */
export function formatResultFailure(r: CheckResult): string {
  if (r.status === 'broken') return `HARNESS ERROR (not a target verdict): ${r.reason}`;
  const head = isUnreachable({ ...r, exchanges: r.exchanges }) ? 'TARGET UNREACHABLE (not a verdict on the target)\n' : '';
  const parts = r.findings.map(
    (f, i) => `${i === 0 ? 'FAILED' : 'ALSO'} ${f.clause} (${findingLevel(f.clause, r.level)}) [${f.code}]\n${f.message}`,
  );
  return `${head}${parts.join('\n\n')}\n\ncheck ${r.checkId}, seed ${r.seed}`;
}
