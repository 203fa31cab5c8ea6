import type { ClauseId } from '../../harness/clauses/registry.js';
import type { ReadingTopic } from '../../harness/clauses/topics.js';
/**
 * Outcomes of authentication (INTERFACE.md › Authentication, Errors › Authentication errors), for the
 * auth, signing and language suites: "got past authentication", "refused by authentication where the
 * document does not name the exact error", and a harmless request that creates nothing.
 */
import { splitMsg } from '../../harness/http/envelope.js';
import { failCheck, held } from '../../harness/check/expect.js';
import { recordReading } from '../../harness/check/context.js';
import { shortJson } from '../../harness/http/exchange-text.js';
import { headerValue } from '../../harness/http/signing.js';
import type { Exchange } from '../../harness/http/exchange.js';
import type { Target } from '../../harness/target.js';

/** The row of the authentication errors table each key answers. */
const AUTH_ROW: Readonly<Record<string, ClauseId>> = {
  unauthorized: 'err.auth.unauthorized',
  merchantNotFound: 'err.auth.merchant-not-found',
  forbidden: 'err.auth.forbidden',
};

/** The keys of the authentication errors table; none of them may answer a correctly signed request. */
export const AUTH_ERROR_KEYS: readonly string[] = ['unauthorized', 'merchantNotFound', 'forbidden'];

/** The answer as the auth checks compare it: HTTP status, envelope code and error key, whatever the body is. */
function answerOf(ex: Exchange): { status?: number; isObject: boolean; code: unknown; key: string | undefined } {
  const body = ex.response?.json as { code?: unknown; msg?: unknown } | null | undefined;
  const isObject = body !== null && typeof body === 'object';
  const key = isObject && typeof body.msg === 'string' ? splitMsg(body.msg).key : undefined;
  return { status: ex.response?.status, isObject, code: isObject ? body.code : undefined, key };
}

function outcomeText(ex: Exchange): string {
  if (!ex.response) return ex.error ? `no response (${ex.error.kind}: ${ex.error.message})` : 'no response';
  const a = answerOf(ex);
  return `HTTP ${a.status}, code ${shortJson(a.code)}, key ${a.key ?? '(none)'}`;
}

/**
 * The request got past authentication: HTTP 200 with an envelope whose key is not an authentication
 * error. Whether the answer is a success or a business error depends on the body; both are signed,
 * and the signature is verified by the global invariants.
 */
export function gotPastAuthentication(ex: Exchange): boolean {
  const a = answerOf(ex);
  return a.status === 200 && a.isObject && Number.isInteger(a.code) && !(a.key !== undefined && AUTH_ERROR_KEYS.includes(a.key));
}

export function expectAuthenticated(ex: Exchange, clause: ClauseId, what: string): void {
  if (!gotPastAuthentication(ex)) {
    failCheck(clause, {
      code: 'CORRECTLY_SIGNED_REQUEST_REFUSED',
      title: `${what} is signed correctly and must get past authentication`,
      expected: 'HTTP 200 with a signed envelope (a success or a business error)',
      seen: outcomeText(ex),
      exchange: ex,
    });
  }
  held(clause);
}

export interface AuthRefusal {
  http: number;
  code: number;
  key: string;
}

/**
 * Refused by authentication where the document says "refused" but names no error: one of
 * `allowed` (each an entry of the authentication errors table), unsigned. Records which.
 */
export function expectAuthRefusalOneOf(
  ex: Exchange,
  allowed: readonly AuthRefusal[],
  clause: ClauseId,
  { topic, what }: { topic: ReadingTopic; what: string },
): AuthRefusal {
  const res = ex.response;
  const seen = answerOf(ex);
  const hit = res ? allowed.find((a) => a.http === seen.status && seen.code === a.code && seen.key === a.key) : undefined;
  const list = allowed.map((a) => `HTTP ${a.http} ${a.key}`).join(' or ');
  if (!hit) {
    failCheck(clause, {
      code: res?.status === 200 ? 'ACCEPTED_BUT_SHOULD_REFUSE' : 'WRONG_AUTH_OUTCOME',
      title: `${what} must be refused by authentication`,
      expected: `${list} (the document allows each)`,
      seen: outcomeText(ex),
      exchange: ex,
    });
  }
  const sig = headerValue(res!.headers, 'X-Sign');
  if (sig !== undefined && sig !== '') {
    failCheck('auth.errors.unsigned', {
      code: 'AUTH_ERROR_SIGNED',
      title: 'an authentication error must not be signed',
      expected: 'no X-Sign header',
      seen: `X-Sign: ${sig.slice(0, 16)}…`,
      exchange: ex,
    });
  }
  recordReading(topic, `HTTP ${hit.http} ${hit.key}`);
  held(clause, 'auth.errors.unsigned', ...(AUTH_ROW[hit.key] ? [AUTH_ROW[hit.key]!] : []));
  return hit;
}

/**
 * Which clause an authentication answer other than `want` is evidence against: a request let
 * through breaks `passed`; the right HTTP status and key with another body code breaks the
 * catalogue `row`; any other refusal breaks the `rule` naming the outcome.
 */
export function authChargeFor(ex: Exchange, want: AuthRefusal, clauses: { passed: ClauseId; row: ClauseId; rule: ClauseId }): ClauseId {
  if (gotPastAuthentication(ex)) return clauses.passed;
  const a = answerOf(ex);
  // Refused exactly as the row says: evidence for the requirement, the rule and the row at once.
  if (a.status === want.http && a.code === want.code && a.key === want.key) held(clauses.passed, clauses.row, clauses.rule);
  return a.status === want.http && a.key === want.key && a.code !== want.code ? clauses.row : clauses.rule;
}

/** A payment query for a merchant order number never used: reads nothing, creates nothing. */
export function unknownOrderLookup(t: Target): { merchant_order_no: string } {
  return { merchant_order_no: t.newNo('order') };
}
