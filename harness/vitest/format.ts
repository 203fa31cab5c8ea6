import type { CheckResult } from '../check/run.js';

/** The failure text a target's developer reads first: clause, level, finding, expected vs. seen. */
export function formatResultFailure(r: CheckResult): string {
  if (r.status === 'broken') return `harness error (not a target verdict): ${r.reason}`;
  const parts = r.findings.map(
    (f, i) => `${i === 0 ? 'FAILED' : 'ALSO'} ${f.clause} (${f.level}) [${f.code}]\n${f.message}`,
  );
  return `${parts.join('\n\n')}\n\ncheck ${r.checkId}, seed ${r.seed}`;
}
