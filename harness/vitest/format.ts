import type { CheckResult } from '../check/run.js';
import { levelOfFinding } from '../check/failure.js';
import { isUnreachable } from '../report/verdict.js';

/** The failure text a target's developer reads first: clause, level, finding, expected vs. seen. */
export function formatResultFailure(r: CheckResult): string {
  if (r.status === 'broken') return `HARNESS ERROR (not a target verdict): ${r.reason}`;
  if (r.status === 'inconclusive') return `NO VERDICT (not a verdict on the target): ${r.reason}\n\ncheck ${r.checkId}, seed ${r.seed}`;
  const head = isUnreachable({ ...r, exchanges: r.exchanges }) ? 'TARGET UNREACHABLE (not a verdict on the target)\n' : '';
  const parts = r.findings.map(
    (f, i) => `${i === 0 ? 'FAILED' : 'ALSO'} ${f.clause} (${levelOfFinding(f, r.level)}) [${f.code}]\n${f.message}`,
  );
  return `${head}${parts.join('\n\n')}\n\ncheck ${r.checkId}, seed ${r.seed}`;
}
