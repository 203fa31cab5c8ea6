import type { CheckResult } from '../check/run.js';
import { levelOfFinding } from '../check/failure.js';
import { isUnreachable } from '../report/verdict.js';
import { firstLine } from '../kit/text.js';

/** The failure text a target's developer reads first: clause, level, finding, expected vs. seen. */
export function formatResultFailure(r: Omit<CheckResult, 'sent'>): string {
  if (r.status === 'broken') return `HARNESS ERROR (not a target verdict): ${r.reason}`;
  if (r.status === 'inconclusive') return `NO VERDICT (not a verdict on the target): ${r.reason}\n\ncheck ${r.checkId}, seed ${r.seed}`;
  const head = isUnreachable({ ...r, exchanges: r.exchanges }) ? 'TARGET UNREACHABLE (not a verdict on the target)\n' : '';
  const parts = r.findings.map(
    (f, i) => `${i === 0 ? 'FAILED' : 'ALSO'} ${f.clause} (${levelOfFinding(f, r.level)}) [${f.code}]\n${f.message}`,
  );
  return `${head}${parts.join('\n\n')}\n\ncheck ${r.checkId}, seed ${r.seed}`;
}

/**
 * The one line the progress shows for a check that did not pass, made from the result's data (never cut out of the
 * failure text). `dispute`: the vendor's dispute, when one covers the findings.
 */
export function failureHeadline(r: CheckResult, dispute?: string): string {
  // A reason is an exception's message (ours or a library's): its first line.
  if (r.status === 'broken') return `HARNESS ERROR (not a target verdict): ${firstLine(r.reason ?? '')}`;
  if (r.status === 'inconclusive') return `NO VERDICT (not a verdict on the target): ${firstLine(r.reason ?? '')}`;
  if (isUnreachable({ ...r, exchanges: r.exchanges })) return 'TARGET UNREACHABLE (not a verdict on the target)';
  const f = r.findings[0];
  const head = f ? `FAILED ${f.clause} (${levelOfFinding(f, r.level)}) [${f.code}]` : 'FAILED';
  return dispute ? `DISPUTED by the vendor: ${dispute} — ${head}` : head;
}
