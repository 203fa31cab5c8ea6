/**
 * What the doctor reports: one item per assumption of the profile about something INTERFACE.md
 * leaves open, each with the profile's JSON path, what the profile made us expect and what the
 * target answered. Never a conformance verdict: a wrong item means "fix the profile (or the
 * target's setup) before judging", and no check runs on it.
 */
import type { StoredExchange } from '../run/results.js';
import type { Exchange } from '../http/exchange.js';
import { splitMsg } from '../http/envelope.js';

/**
 * `doubt`: the target answered against the profile where the document fixes the answer (an unknown
 * merchant must get 401 merchantNotFound, a documented refusal must be a refusal, `code` is an
 * integer…). Either the profile is wrong or the target violates the document: the doctor cannot
 * tell, so it stops nothing, the checks judge, and the certificate shows the doubt beside the clause.
 * An answer no legal profile explains is a doubt too, whose fix says the profile needs no change (context.ts
 * `unexplained`). `wrong` only where the probe isolated its fact and only a wrong profile explains the answer; a probe
 * whose answer another fact (stated or not) explains as well is `not-verifiable`.
 */
export type ItemStatus = 'verified' | 'wrong' | 'not-verifiable' | 'warning' | 'doubt';

export interface DoctorItem {
  /** The profile's JSON path the item is about (dotted, as the loader's messages write it). */
  path: string;
  /** The assumption, in words. */
  assumption: string;
  status: ItemStatus;
  expected?: string;
  /** What the target answered (status line, code and key), or why nothing could be asked. */
  answered?: string;
  /** What to change, for a wrong item or a warning. */
  fix?: string;
  /** Ids of the exchanges that show it (DoctorReport.exchanges). */
  exchanges?: string[];
  /** A doubt: the clauses the answer breaks if the profile is right. */
  clauses?: string[];
  /**
   * Not verifiable, of a fact a verdict depends on: the finding codes a check can only reach through it. A run's failure
   * whose every finding is one of these gets no verdict (harness/report/verdict.ts): it may be the profile's.
   */
  decides?: string[];
}

/** An exchange as the doctor shows it: bodies clipped, everything redacted when written. */
export interface DoctorExchange {
  id: string;
  label: string;
  request: string;
  requestBody: string;
  response: string;
  responseBody?: string;
}

export interface MovedPayment {
  merchant: string;
  merchantOrderNo: string;
  orderNo?: string;
  method?: string;
  /** The amount asked (a price point may have charged another), and its currency. */
  amount?: string;
  currency?: string;
  /** Its fee by the profile's `fees.payments` (absent: it cannot be computed). */
  fee?: string;
  paidBy: 'card payment' | 'completed by sandbox control' | 'seen paid in its record';
  /** What the doctor's accepted refunds of it came to (less those settled as failed). */
  refunded: string;
}

export interface MovedRefund {
  merchant: string;
  merchantRefundNo?: string;
  refundNo?: string;
  /** The merchant's number of the payment refunded. */
  of: string;
  amount: string;
  currency: string;
  /** Its fee by the profile (`fees.refunds`, `refunds.fee`); absent: it cannot be computed. */
  fee?: string;
  /** Taken from the refund balance, or given back (settled as failed). */
  end: 'taken' | 'given back';
}

export interface MovedPayout {
  merchant: string;
  merchantPayoutNo: string;
  payoutNo?: string;
  method?: string;
  amount?: string;
  currency?: string;
  /** Its fee by the profile's `fees.payouts` (absent: it cannot be computed). */
  fee?: string;
  end: 'given back' | 'spent' | 'held';
}

/** A chargeback the doctor recorded on one of its paid payments. */
export interface MovedChargeback {
  merchant: string;
  merchantOrderNo: string;
  orderNo?: string;
  amount?: string;
  currency?: string;
  /** The chargeback's fee (`balances.chargeback.fee`), where the profile states what a chargeback takes. */
  fee?: string;
}

/**
 * What the doctor's records moved one balance of one merchant in one currency: `moved` signed (negative: taken), and
 * what it could not count (a fee in another currency, a chargeback whose debit no profile field states).
 */
export interface BalanceLine {
  merchant: string;
  balance: 'payout' | 'refund' | 'not stated';
  currency: string;
  moved: string;
  unknown: string[];
}

/** A request that makes a record moving money and got no answer: the target may have made it all the same. */
export interface Unanswered {
  merchant: string;
  operation: string;
  merchantNo?: string;
  amount?: string;
  currency?: string;
}

/** What the doctor moved: the payments it paid, the refunds and payouts it made, the chargebacks, and the balances' sums. */
export interface MoneyMoved {
  payments: MovedPayment[];
  refunds: MovedRefund[];
  payouts: MovedPayout[];
  chargebacks: MovedChargeback[];
  balances: BalanceLine[];
  /** Creations that got no answer: never counted in the balances, said so that an account that does not add up is explained. */
  unanswered?: Unanswered[];
}

export interface DoctorReport {
  format: 'mpsi-conformance-doctor/1';
  profile: { name: string; file: string; environment: string };
  target: string;
  /** true: only queries and authentication probes were sent (a production profile, or parity --safe). */
  movesNoMoney: boolean;
  /** The payments the doctor paid and the payouts it made, each with what became of it (absent when it moves no money). */
  moved?: MoneyMoved;
  /** Prefix of every order, refund and payout number the doctor created, to find them on the target. */
  numbersStartWith: string;
  startedAt: string;
  durationMs: number;
  requests: number;
  /**
   * How the request budget was spent (harness/doctor/budget.ts): the ceiling, the requests of each kind of fact, and the
   * depth requests refused so that every kind had its first probe.
   */
  budget?: { max: number; byKind: Record<string, number>; depthRefused: number };
  /** 0 no assumption wrong (doubts included: the checks judge them); 2 at least one is wrong. */
  exitCode: 0 | 2;
  counts: Record<ItemStatus, number>;
  items: DoctorItem[];
  exchanges: DoctorExchange[];
  /**
   * The target throttled the doctor: the requests per second its gateway surely let through (`throttleOnset`, what
   * the `http.rateLimit` warning proposes). A run hands it to the checks' pacing when the profile declares no rate.
   */
  proposedRate?: number;
  /**
   * The exchanges behind the doubts, whole (as a check's result stores them): a doubt is evidence in the run's verdict,
   * its clauses failed with these attached (harness/doctor/evidence.ts).
   */
  evidence?: StoredExchange[];
}

/** The part of an answer the doctor reads: never judged, only compared with the profile's claim. */
export interface Answer {
  http?: number;
  /** The answer is the one the target gives to a path it does not have (see markUnknownPath). */
  likeUnknownPath?: boolean;
  envelope: boolean;
  code?: number;
  key?: string;
  data?: Record<string, unknown>;
  /** No complete answer: connection refused, deadline… */
  error?: string;
}

const UNKNOWN_PATH = Symbol('answers like an unknown path');

/**
 * How an answer looks with the request's own path taken out: two answers with the same form come
 * from the same branch of the target (e.g. "400 invalidRequest: Unknown path <path>").
 */
export function answerForm(ex: Exchange): string | undefined {
  const j = ex.response?.json as Record<string, unknown> | undefined;
  const code = envelopeCode(j);
  if (!ex.response || code === undefined || code === 0) return undefined;
  const path = new URL(ex.request.url).pathname;
  return `${ex.response.status}|${code}|${String((j as Record<string, unknown>)['msg'])
    .split(path)
    .join('<path>')}`;
}

/** Marks an exchange whose answer has the form the target gives to a path it does not have. */
export function markUnknownPath(ex: Exchange): void {
  (ex as unknown as Record<symbol, boolean>)[UNKNOWN_PATH] = true;
}

export function answerOf(ex: Exchange): Answer {
  if (!ex.response) return { envelope: false, error: ex.error ? `${ex.error.kind}: ${ex.error.message}` : 'no answer' };
  const j = ex.response.json as Record<string, unknown> | undefined;
  const code = envelopeCode(j);
  const envelope = code !== undefined && typeof (j as Record<string, unknown>)['msg'] === 'string';
  if (!envelope) return { http: ex.response.status, envelope: false };
  const data = dataOf(j as Record<string, unknown>, code as number);
  return {
    ...((ex as unknown as Record<symbol, boolean>)[UNKNOWN_PATH] ? { likeUnknownPath: true } : {}),
    http: ex.response.status,
    envelope: true,
    code,
    key: keyOf((j as Record<string, unknown>)['msg'] as string),
    data,
  };
}

/** A key as the document writes them: one camelCase word (`validationFailed`), never a sentence. */
const KEY_RE = /^[a-z][A-Za-z0-9]*$/;

/**
 * The msg's key, read leniently: after the last `|` as the document fixes, else a key written first ("key|message"),
 * which breaks env.msg.message-key (its check judges it; envelopeFlaws reports it as a doubt) but still tells the doctor
 * which refusal it is (bench/legal-targets.ts --kill, seed 11: env-key-before-message was stopped as a profile error).
 */
function keyOf(msg: string): string | undefined {
  const { key } = splitMsg(msg);
  if (key === undefined || KEY_RE.test(key)) return key;
  const first = msg.slice(0, msg.indexOf('|'));
  return KEY_RE.test(first) ? first : key;
}

/**
 * The envelope's code, read leniently: a JSON string of digits counts ("0", "2002"). The document fixes
 * an integer; a target that sends a string breaks env.code.integer, which its check judges, while
 * the doctor still learns from the answer (envelopeFlaws reports it as a doubt).
 */
function envelopeCode(j: unknown): number | undefined {
  if (j === null || typeof j !== 'object' || Array.isArray(j)) return undefined;
  const c = (j as Record<string, unknown>)['code'];
  if (typeof c === 'number') return c;
  return typeof c === 'string' && /^-?\d+$/.test(c) ? Number(c) : undefined;
}

/** data, or (a success with no data object) the body's other fields: env.data.on-success is the checks' to judge. */
function dataOf(j: Record<string, unknown>, code: number): Record<string, unknown> | undefined {
  const data = j['data'];
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) return data as Record<string, unknown>;
  if (code !== 0 || 'data' in j) return undefined;
  const { code: _c, msg: _m, ...rest } = j;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/** Where an answer breaks a form the document fixes, though the doctor could read it: clause and what. */
export function envelopeFlaws(ex: Exchange): { clause: string; what: string }[] {
  const j = ex.response?.json as Record<string, unknown> | undefined;
  if (j === null || typeof j !== 'object' || Array.isArray(j) || envelopeCode(j) === undefined) return [];
  const out: { clause: string; what: string }[] = [];
  if (typeof j['code'] === 'string')
    out.push({ clause: 'env.code.integer', what: `the envelope's code is a JSON string (${JSON.stringify(j['code'])}), not an integer` });
  const msg = j['msg'];
  if (typeof msg === 'string' && keyOf(msg) !== splitMsg(msg).key)
    out.push({ clause: 'env.msg.message-key', what: `the msg puts the key first (${JSON.stringify(msg.slice(0, 80))})` });
  if (envelopeCode(j) === 0 && !('data' in j) && Object.keys(j).some((k) => k !== 'code' && k !== 'msg'))
    out.push({ clause: 'env.data.on-success', what: 'a success answer has no data object: its fields are at the top level of the body' });
  return out;
}

export const accepted = (a: Answer): boolean => a.envelope && a.code === 0;
/**
 * A refusal in the envelope: the path exists and the target read the request. The answer the target gives to a path
 * it does not have is no refusal of anything: a moved endpoint's "no such path" read as "not enabled", "not
 * cancellable", "the armed failure happened"… would verify a fact through a path that does not exist.
 */
export const refused = (a: Answer): boolean => a.envelope && a.code !== 0 && a.likeUnknownPath !== true;

/** "HTTP 403, code 403 forbidden", "HTTP 200, code 0", "HTTP 404, not an envelope", "no answer (deadline: …)". */
export function describeAnswer(a: Answer): string {
  if (a.error) return `no answer (${a.error})`;
  if (!a.envelope) return `HTTP ${a.http}, not an envelope`;
  return (
    `HTTP ${a.http}, code ${a.code}${a.code === 0 ? '' : a.key ? ` ${a.key}` : ' (no key)'}` +
    `${a.likeUnknownPath ? ', the answer the target gives to a path it does not have' : ''}`
  );
}

/** The path answered but not with the interface's envelope, or as the target answers a path it does not have. */
export const unknownPath = (a: Answer): boolean => !a.error && (!a.envelope || a.likeUnknownPath === true);

/** Whether the exchange's answer has the form the target gives to a path it does not have (markUnknownPath). */
export const likeUnknownPath = (ex: Exchange): boolean => (ex as unknown as Record<symbol, boolean>)[UNKNOWN_PATH] === true;

/** The profile fields that say where a request goes: an item about one of them is judged by "no such path" itself. */
export const isPathField = (path: string): boolean =>
  path === 'baseUrl' || path.startsWith('endpoints.') || /^sandbox\.[^.]+\.path$/.test(path);

const CLIP = 400;
function clip(s: string): string {
  return s.length > CLIP ? `${s.slice(0, CLIP)}… (${s.length} chars)` : s;
}

export function doctorExchange(ex: Exchange, baseUrl: string): DoctorExchange {
  const url = ex.request.url.startsWith(baseUrl) ? ex.request.url.slice(baseUrl.length) || '/' : ex.request.url;
  return {
    id: ex.id,
    label: ex.label,
    request: `${ex.request.method} ${url} as ${ex.request.headers['X-MerchantID'] ?? '(no merchant)'}`,
    requestBody: clip(ex.request.body.toString('utf8')),
    response: ex.response ? `HTTP ${ex.response.status}` : `no answer (${ex.error?.kind ?? 'error'}: ${ex.error?.message ?? ''})`,
    ...(ex.response ? { responseBody: clip(ex.response.body.toString('utf8')) } : {}),
  };
}
