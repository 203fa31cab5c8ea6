import type { ClauseId } from '../../harness/clauses/registry.js';
/**
 * Where a check meets a rule of the interface and the catalogue row that answers it, which of the
 * two a wrong answer is evidence against: a request let through, or refused with something else
 * entirely, breaks the rule; a refusal with the row's code but another key (or the row's key with
 * another code) shows the rule was applied and the row's answer is wrong.
 */
import { expectError, type Outcome } from '../../harness/check/expect.js';
import type { Exchange } from '../../harness/http/exchange.js';

export type RowPart = 'code-or-key' | 'key' | 'code';

/** The error `want`; a half-right refusal (`part` says which halves count) is charged to `row`, anything else to `rule`. */
export function expectRowError(
  ex: Exchange,
  want: Outcome,
  rule: ClauseId,
  row: ClauseId,
  what: string,
  part: RowPart = 'code-or-key',
): void {
  expectError(ex, want, rule, { what, ifHalfRight: row, halfRight: part });
}
