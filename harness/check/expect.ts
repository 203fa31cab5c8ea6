import type { Exchange } from '../http/exchange.js';
import { splitMsg } from '../http/envelope.js';
import { describeExchange, shortJson } from '../http/exchange-text.js';
import { headerValue } from '../http/signing.js';
import { type ClauseId, clause as registryClause, hasClause } from '../clauses/registry.js';
import { CheckFailure, PreconditionSkip } from './failure.js';
import { lengthFieldsNamed, unsaidLengthRefusal } from '../profile/lengths.js';
import { ownClause, recordExercised, recordReading } from './context.js';
import type { ReadingTopic } from '../clauses/topics.js';

/**
 * Small named checks: verb + subject + expectation. Each throws a CheckFailure with a stable
 * code, the clause it enforces, expected vs. seen, and the exchange; when it holds, it records the
 * clauses it evaluated (recordExercised), the only evidence the report credits a clause with.
 */
export interface Outcome {
  code: number;
  key: string;
}

/** A finding is as binding as the statement it is evidence against. */
function levelOf(clause: ClauseId): 'must' | 'should' {
  return hasClause(clause) && registryClause(clause).level === 'should' ? 'should' : 'must';
}

function fail(code: string, clause: ClauseId, message: string, ex: Exchange | undefined, expected: string, seen: string): never {
  throw new CheckFailure({
    code,
    clause,
    level: levelOf(clause),
    title: message,
    message: `${message}\n  expected: ${expected}\n  seen:     ${seen}${ex ? `\n${describeExchange(ex)}` : ''}`,
    expected,
    seen,
    exchangeId: ex?.id,
  });
}

/** What a failed check says: the finding's code and title, what the document asks and what the target did. */
export interface FailOptions {
  code: string;
  /** One line saying what is wrong (the finding's title). */
  title: string;
  expected: string;
  seen: string;
  exchange?: Exchange;
}

/** The subject of an assertion, in the finding's title ("the refund should succeed"); "the request" when absent. */
export interface WhatOptions {
  what?: string;
}

/**
 * Assertions take the clause they enforce, then an options object; with no clause they enforce the running check's
 * main clause (its first), the common case. A string in the clause slot is a clause id, never a subject or topic.
 */
function clauseAnd<O>(clauseOrOpts: ClauseId | O | undefined, opts: O | undefined): [ClauseId, O | undefined] {
  return typeof clauseOrOpts === 'string' ? [clauseOrOpts as ClauseId, opts] : [ownClause(), clauseOrOpts as O | undefined];
}

/** A failure the check judged by its own condition (`if (wrong) failCheck(…)`), charged to `clause`. */
export function failCheck(clause: ClauseId, opts: FailOptions): never;
export function failCheck(opts: FailOptions): never;
export function failCheck(clauseOrOpts: ClauseId | FailOptions, maybe?: FailOptions): never {
  const [clause, opts] = clauseAnd(clauseOrOpts, maybe);
  const o = opts!;
  return fail(o.code, clause, o.title, o.exchange, o.expected, o.seen);
}

/** The clause each request was sent to exercise, where a check says so (`answerOwedTo`). */
const owedTo = new WeakMap<Exchange, ClauseId>();

/**
 * Says that the request of `ex` was sent to exercise `clause` (an error scenario's own row): an answer that never came is
 * then charged to that clause, never to a clause about an answer's contents (envelope, `Accept-Language`) that a check
 * reusing the request judges. Returns `ex`.
 */
export function answerOwedTo(ex: Exchange, clause: ClauseId): Exchange {
  owedTo.set(ex, clause);
  return ex;
}

/**
 * A complete answer, or a NO_RESPONSE finding charged to the clause the request was sent to exercise (`answerOwedTo`),
 * else to `clause`. A head without its whole body (deadline, reset) is no complete response, not a malformed one; a body
 * past the size cap was sent whole by the target, so it is judged as the body it is.
 */
export function expectAnswer(ex: Exchange, clause: ClauseId): asserts ex is Exchange & { response: NonNullable<Exchange['response']> } {
  if (ex.response && (!ex.error || ex.error.kind === 'too-large')) return;
  const seen = ex.error
    ? `${ex.error.kind}: ${ex.error.message}${ex.response ? ` (after HTTP ${ex.response.status} headers)` : ''}`
    : 'nothing';
  fail(
    'NO_RESPONSE',
    owedTo.get(ex) ?? clause,
    ex.response ? 'the target gave no complete response' : 'the target gave no response',
    ex,
    'a complete response',
    seen,
  );
}

function envelopeOf(
  ex: Exchange,
  clause: ClauseId,
): { status: number; code: unknown; msg: unknown; data: unknown; body: Record<string, unknown> } {
  expectAnswer(ex, clause);
  const body = ex.response.json;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    fail(
      'BODY_NOT_JSON_OBJECT',
      clause,
      'the response body is not a JSON object',
      ex,
      'a JSON object',
      ex.response.jsonError ?? shortJson(body),
    );
  }
  const b = body as Record<string, unknown>;
  return { status: ex.response.status, code: b.code, msg: b.msg, data: b.data, body: b };
}

/**
 * A refusal that an unsaid length explains (harness/profile/lengths.ts): the request carried a string whose accepted length
 * the profile leaves unsaid and the refusal names it or speaks of a length. An unknown is never a verdict: skipped,
 * naming the fields to say.
 */
function skipIfUnsaidLength(ex: Exchange, e: { msg: unknown }, key: string | undefined, what: string): void {
  const unsaid = unsaidLengthRefusal(ex.unsaidLengths, key, e.msg);
  if (unsaid.length === 0) return;
  const fields = lengthFieldsNamed(unsaid);
  throw new PreconditionSkip(
    `${what} was refused ${key} (${typeof e.msg === 'string' ? e.msg : ''}), which a length the profile leaves unsaid may ` +
      `explain: say ${fields.join(', ')}`,
    { declare: fields },
  );
}

function seenOutcome(e: { status: number; code: unknown; msg: unknown }): string {
  const key = typeof e.msg === 'string' ? splitMsg(e.msg).key : undefined;
  return `HTTP ${e.status}, code ${shortJson(e.code)}, key ${key ?? '(none)'}, msg ${shortJson(e.msg)}`;
}

/** Success envelope; returns `data`. */
export function expectSuccess(ex: Exchange, clause: ClauseId, opts?: WhatOptions): Record<string, unknown>;
export function expectSuccess(ex: Exchange, opts?: WhatOptions): Record<string, unknown>;
export function expectSuccess(ex: Exchange, clauseOrOpts?: ClauseId | WhatOptions, maybe?: WhatOptions): Record<string, unknown> {
  const [clause, opts] = clauseAnd(clauseOrOpts, maybe);
  const what = opts?.what ?? 'the request';
  const e = envelopeOf(ex, clause);
  if (e.code !== 0) skipIfUnsaidLength(ex, e, typeof e.msg === 'string' ? splitMsg(e.msg).key : undefined, what);
  if (e.status !== 200 || e.code !== 0) fail('EXPECTED_SUCCESS', clause, `${what} should succeed`, ex, 'HTTP 200, code 0', seenOutcome(e));
  if (e.data === null || typeof e.data !== 'object')
    fail('SUCCESS_WITHOUT_DATA', clause, `${what} succeeded without a data object`, ex, 'data object', shortJson(e.data));
  recordExercised(clause);
  return e.data as Record<string, unknown>;
}

/**
 * A sandbox control's answer (the profile's `sandbox.*`): the vendor's, outside the document, so judged only for what
 * the profile says of it: the control did what it was asked (code 0, as every control the profile declares answers).
 * No rule of the interface (data on success, `msg`, snake_case keys, a signature, HTTP 200) applies to it: a failure
 * here means the check could not set up what it judges, charged to that check's clause as a refused setup step.
 */
export function expectControlDone(ex: Exchange, clause: ClauseId, opts?: WhatOptions): void {
  const what = opts?.what ?? 'the sandbox control';
  const e = envelopeOf(ex, clause);
  if (e.code !== 0) fail('CONTROL_REFUSED', clause, `${what} should succeed`, ex, 'code 0', seenOutcome(e));
}

/**
 * Where one check meets two clauses (a rule, and the catalogue row that answers it), which clause a
 * failure is evidence against depends on how the answer is wrong.
 */
export interface ErrorClauses extends WhatOptions {
  /** Charged when the request is accepted (code 0): the rule itself was not applied. */
  ifAccepted?: ClauseId;
  /** Charged when the refusal is half right (see `halfRight`): the rule was applied, the row's answer is wrong. */
  ifHalfRight?: ClauseId;
  /**
   * Which half-right refusals count: the right code with a wrong key (`key`), the right key with a wrong code (`code`), or either
   * (default).
   */
  halfRight?: 'code-or-key' | 'key' | 'code';
}

/** A signed business error: HTTP 200, the code and the key. */
export function expectError(ex: Exchange, want: Outcome, clause: ClauseId, opts?: ErrorClauses): void;
export function expectError(ex: Exchange, want: Outcome, opts?: ErrorClauses): void;
export function expectError(ex: Exchange, want: Outcome, clauseOrOpts?: ClauseId | ErrorClauses, maybe?: ErrorClauses): void {
  const [clause, opts] = clauseAnd(clauseOrOpts, maybe);
  const by = opts ?? {};
  const what = by.what ?? 'the request';
  const e = envelopeOf(ex, clause);
  const key = typeof e.msg === 'string' ? splitMsg(e.msg).key : undefined;
  if (e.code === want.code && key === want.key && e.status === 200) {
    recordExercised(clause, by.ifAccepted, by.ifHalfRight);
    return;
  }
  if (e.code !== 0 && key !== want.key) skipIfUnsaidLength(ex, e, key, what);
  const codeName =
    e.code === 0
      ? 'ACCEPTED_BUT_SHOULD_REFUSE'
      : e.code !== want.code
        ? 'WRONG_ERROR_CODE'
        : key !== want.key
          ? 'WRONG_ERROR_KEY'
          : 'WRONG_HTTP_STATUS';
  const codeRight = e.code === want.code;
  const keyRight = key === want.key;
  const part = by.halfRight ?? 'code-or-key';
  const halfRight = codeRight !== keyRight && e.status === 200 && (part === 'code-or-key' || (part === 'key' ? codeRight : keyRight));
  const charged = e.code === 0 ? (by.ifAccepted ?? clause) : halfRight ? (by.ifHalfRight ?? clause) : clause;
  fail(
    codeName,
    charged,
    `${what} should be refused with code ${want.code} \`${want.key}\``,
    ex,
    `HTTP 200, code ${want.code}, key ${want.key}`,
    seenOutcome(e),
  );
}

/** Where the document allows several answers: the topic the target's answer is recorded under (a reading). */
export interface ReadingOptions extends WhatOptions {
  topic: ReadingTopic;
}

/**
 * Any of several outcomes the document allows; records which one the target took (and the outcome's own clause, when it names one, as
 * exercised). A caller whose outcomes are, this time, one answer (the stateful model's forced refusals) passes no topic: there is
 * nothing open to read, and a topic written anyway would read the last forced answer.
 */
export function expectOneOf<O extends Outcome & { clause?: ClauseId }>(
  ex: Exchange,
  wants: O[],
  clause: ClauseId,
  opts: ReadingOptions | WhatOptions,
): O;
export function expectOneOf<O extends Outcome & { clause?: ClauseId }>(ex: Exchange, wants: O[], opts: ReadingOptions): O;
export function expectOneOf<O extends Outcome & { clause?: ClauseId }>(
  ex: Exchange,
  wants: O[],
  clauseOrOpts: ClauseId | ReadingOptions,
  maybe?: ReadingOptions | WhatOptions,
): O {
  const [clause, opts] = clauseAnd(clauseOrOpts, maybe);
  const topic = opts !== undefined && 'topic' in opts ? opts.topic : undefined;
  const what = opts?.what ?? 'the request';
  const e = envelopeOf(ex, clause);
  const key = typeof e.msg === 'string' ? splitMsg(e.msg).key : undefined;
  const hit = wants.find((w) => w.code === e.code && w.key === key);
  if (hit && e.status === 200) {
    if (topic !== undefined) recordReading(topic, `${hit.code} ${hit.key}`);
    recordExercised(hit.clause ?? clause);
    return hit;
  }
  if (e.code !== 0 && !wants.some((w) => w.key === key)) skipIfUnsaidLength(ex, e, key, what);
  const list = wants.map((w) => `${w.code} ${w.key}`).join(' or ');
  fail(
    e.code === 0 ? 'ACCEPTED_BUT_SHOULD_REFUSE' : 'WRONG_ERROR',
    clause,
    `${what} should be refused with ${list} (the document allows each)`,
    ex,
    `HTTP 200, ${list}`,
    seenOutcome(e),
  );
}

/** Refused with some non-zero code, when the document says "refused" without naming the key. */
export function expectRefused(ex: Exchange, clause: ClauseId, opts?: Partial<ReadingOptions>): Outcome;
export function expectRefused(ex: Exchange, opts?: Partial<ReadingOptions>): Outcome;
export function expectRefused(ex: Exchange, clauseOrOpts?: ClauseId | Partial<ReadingOptions>, maybe?: Partial<ReadingOptions>): Outcome {
  const [clause, opts] = clauseAnd(clauseOrOpts, maybe);
  const { topic, what = 'the request' } = opts ?? {};
  const e = envelopeOf(ex, clause);
  if (e.code === 0 || typeof e.code !== 'number')
    fail('ACCEPTED_BUT_SHOULD_REFUSE', clause, `${what} should be refused`, ex, 'a non-zero code', seenOutcome(e));
  const key = typeof e.msg === 'string' ? (splitMsg(e.msg).key ?? '') : '';
  if (topic) recordReading(topic, `${e.code} ${key}`);
  recordExercised(clause);
  return { code: e.code as number, key };
}

export interface AuthOutcome {
  http: number;
  code: number;
  key: string;
}

/** An unsigned authentication error (HTTP 401/403/500 with code and key). */
export function expectAuthError(ex: Exchange, want: AuthOutcome, clause: ClauseId, opts?: WhatOptions): void;
export function expectAuthError(ex: Exchange, want: AuthOutcome, opts?: WhatOptions): void;
export function expectAuthError(ex: Exchange, want: AuthOutcome, clauseOrOpts?: ClauseId | WhatOptions, maybe?: WhatOptions): void {
  const [clause, opts] = clauseAnd(clauseOrOpts, maybe);
  const what = opts?.what ?? 'the request';
  const e = envelopeOf(ex, clause);
  const key = typeof e.msg === 'string' ? splitMsg(e.msg).key : undefined;
  if (e.status !== want.http || e.code !== want.code || key !== want.key) {
    fail(
      e.status === 200 && e.code === 0 ? 'ACCEPTED_BUT_SHOULD_REFUSE' : 'WRONG_AUTH_OUTCOME',
      clause,
      `${what} should be refused with HTTP ${want.http} \`${want.key}\``,
      ex,
      `HTTP ${want.http}, code ${want.code}, key ${want.key}`,
      seenOutcome(e),
    );
  }
  recordExercised(clause);
}

/** Authentication errors are not signed: no X-Sign on the response. */
export function expectUnsigned(ex: Exchange, clause: ClauseId = ownClause()): void {
  const sig = ex.response ? headerValue(ex.response.headers, 'X-Sign') : undefined;
  if (sig !== undefined && sig !== '')
    fail('AUTH_ERROR_SIGNED', clause, 'an authentication error must not be signed', ex, 'no X-Sign header', `X-Sign: ${sig.slice(0, 16)}…`);
  recordExercised(clause);
}

/** Reads a dotted path inside `data`. */
export function pick(data: unknown, path: string): unknown {
  let cur: unknown = data;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** A field of `data` the profile says is there must be a non-empty string. */
export function expectString(data: Record<string, unknown>, path: string, clause: ClauseId, ex: Exchange): string {
  const v = pick(data, path);
  if (typeof v !== 'string' || v === '')
    fail('FIELD_MISSING', clause, `data.${path} should be a non-empty string`, ex, 'a string', shortJson(v));
  recordExercised(clause);
  return v;
}

/** What an inequality is reported as: the finding's code and title, and the exchange that showed it. */
export interface EqualOptions {
  code: string;
  title: string;
  exchange?: Exchange;
}

export function expectEqual(seen: unknown, expected: unknown, clause: ClauseId, opts: EqualOptions): void;
export function expectEqual(seen: unknown, expected: unknown, opts: EqualOptions): void;
export function expectEqual(seen: unknown, expected: unknown, clauseOrOpts: ClauseId | EqualOptions, maybe?: EqualOptions): void {
  const [clause, opts] = clauseAnd(clauseOrOpts, maybe);
  const { code, title, exchange } = opts!;
  if (JSON.stringify(seen) !== JSON.stringify(expected)) fail(code, clause, title, exchange, shortJson(expected), shortJson(seen));
  recordExercised(clause);
}

/**
 * A rule a check judged by its own condition (`if (wrong) failCheck(…)`) held: say so, so the
 * clause (the check's main one when none is named) is credited. Call it after the condition was evaluated, never unconditionally.
 */
export function held(...clauses: ClauseId[]): void {
  recordExercised(...(clauses.length > 0 ? clauses : [ownClause()]));
}
