/**
 * Where a check meets a rule of the interface and the catalogue row that answers it, which of the
 * two a wrong answer is evidence against: a request let through, or refused with something else
 * entirely, breaks the rule; a refusal with the row's code but another key (or the row's key with
 * another code) shows the rule was applied and the row's answer is wrong.
 */
import { expectError, type Outcome } from '../../harness/check/expect.js';
import { splitMsg } from '../../harness/envelope.js';
import type { Exchange } from '../../harness/exchange.js';

export type RowPart = 'code-or-key' | 'key' | 'code';

/** The error `want`; a half-right refusal (`part` says which halves count) is charged to `row`, anything else to `rule`. */
export function expectRowError(ex: Exchange, want: Outcome, rule: string, row: string, what: string, part: RowPart = 'code-or-key'): void {
  const body = ex.response?.json as { code?: unknown; msg?: unknown } | undefined;
  const code = body && typeof body === 'object' ? body.code : undefined;
  const key = body && typeof body === 'object' && typeof body.msg === 'string' ? splitMsg(body.msg).key : undefined;
  const codeRight = code === want.code;
  const keyRight = key === want.key;
  const halfRight = codeRight !== keyRight && code !== 0 && ex.response?.status === 200;
  const counts = halfRight && (part === 'code-or-key' || (part === 'key' && codeRight) || (part === 'code' && keyRight));
  expectError(ex, want, counts ? row : rule, what);
}
