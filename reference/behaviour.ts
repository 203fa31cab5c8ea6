/**
 * The hook points a fault may replace. The correct implementation is `defaultBehaviour`; every
 * fault mutant is the same server with one or more of these hooks swapped, so a conformance
 * check that catches a mutant pins down exactly one clause of the interface.
 */
import { rfc3339, unixSeconds } from './clock.js';
import type { ApiError } from './errors.js';
import { wantsPlainEnglish } from './http/language.js';
import { roundToNearestTier, roundUpToTier, type TierRounding } from './methods.js';
import { formatCents } from './money.js';
import { freshNonce, signatureMatches, signingInput } from './signing.js';
import type { RefundSupport } from './methods.js';
import type { ArmedFailure, IdempotencyKind, Payment, Payout, Refund } from './store.js';

/** Where a formatted value goes: a signed API response or a webhook body. */
export type Channel = 'response' | 'webhook';

export type AuthOutcome = 'ok' | 'missing-header' | 'unknown-merchant' | 'bad-signature' | 'stale-timestamp' | 'nonce-reused';

/** Business rules of the interface; the correct behaviour enforces every one of them. */
export type Rule =
  | 'payment.merchant-active'
  | 'payment.currency-usd'
  | 'payment.channel-range'
  | 'payment.price-point'
  | 'payment.goods-name'
  | 'payment.card-valid'
  | 'payment.refunded-status'
  | 'query.owner'
  | 'refund.paid'
  | 'refund.not-charged-back'
  | 'refund.channel-support'
  | 'refund.full-only'
  | 'refund.balance'
  | 'payout.merchant-active'
  | 'payout.method'
  | 'payout.currency'
  | 'payout.balance'
  | 'payout.balance-currency'
  | 'payout.fee'
  | 'payout.currency-range'
  | 'payout.cancel-support'
  | 'payout.unique-number'
  | 'payment.unique-number'
  | 'request.content-type'
  | 'payment.no-channel'
  | 'payment.merchant-methods'
  | 'payout.merchant-methods'
  | 'payout.merchant-channels'
  | 'payment.merchant-channels'
  | 'fee.minimum'
  | 'fee.maximum-any-currency'
  | 'fee.merchant'
  | 'proceeds.pending';

/** What causes a webhook; the correct behaviour sends one for every trigger except the last three. */
export type Trigger =
  | 'checkout-failed'
  | 'risk-decline'
  | 'refund-created'
  /** A refund created already SUCCESS (its channel settles at once): sent beside 'refund-created'. */
  | 'refund-created-settled'
  | 'payout-canceled'
  | 'payment-refunded'
  | 'checkout-expired'
  | 'chargeback'
  | 'card-completed';

/** An authentication failure or an unreadable body, answered unsigned (unless a fault says otherwise). */
export type AuthFailure = 'missing-header' | 'unknown-merchant' | 'forbidden' | 'unreadable';

export interface AuthAnswer {
  http: number;
  code: number;
  key: string;
  message: string;
}

export interface SigningHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  nonce: string | undefined;
  sign: string | undefined;
}

export interface RequestToVerify {
  merchantId: string;
  secret: string;
  /** The production key of the X-MerchantID merchant, if it has one (this sandbox must refuse it). */
  productionSecret?: string;
  /** Every merchant's test key on this target (only a fault looks beyond the merchant's own). */
  allSecrets: readonly string[];
  timestamp: string;
  nonce: string;
  rawBody: Buffer;
  sign: string;
}

/** A record as `data` shows it: a payment (query, card, sandbox), a new checkout, a refund, a payout. */
export type RecordKind = 'payment' | 'checkout' | 'refund' | 'payout';

/** The records a webhook body is built from. */
export interface WebhookSource {
  payment?: Payment;
  refund?: Refund;
  payout?: Payout;
}

export interface Behaviour {
  /** How the response digest is written into X-Sign. */
  responseSignatureText(digest: Buffer): string;
  /** The bytes a response signature is computed over, given the bytes actually sent. */
  responseSigningBytes(sent: Buffer): Buffer;
  /** X-Timestamp and X-Nonce of a signed response. */
  responseStamp(nowMs: number): { timestamp: string; nonce: string };
  /** Last touch on the headers of a signed response, after signing. */
  finishResponseHeaders(headers: Record<string, string>): Record<string, string>;
  /** The merchant a response or webhook is signed as, for the merchant it belongs to (and the service's first merchant account). */
  signAs(merchantId: string, channel: Channel, firstMerchantId: string): string;
  /** Last touch on a response envelope before it is serialised. */
  finishEnvelope(envelope: Record<string, unknown>): Record<string, unknown>;
  /** Whether business-error envelopes carry the four signing headers. */
  signErrorResponses: boolean;
  /** HTTP status of a signed envelope with this body `code` (0 = success); `msg` is the envelope's. */
  httpStatusFor(code: number, msg: string): number;
  /** The route a request path is served by (a fault may serve the API under another prefix). */
  routePath(path: string): string;
  /** Encoding of the JSON text of a signed response body. */
  responseEncoding: 'utf8' | 'latin1';
  /** Whether an unsigned error (authentication, unreadable body) is written as its message in plain text instead of an envelope. */
  unsignedPlainText: boolean;
  /** Last say on a business error before it is answered; `path` is the route (the internal path the request was routed to). */
  mapError(err: ApiError, path: string): ApiError;
  /** Whether `Accept-Language` asks for plain English messages. */
  plainEnglish(acceptLanguage: string | string[] | undefined): boolean;
  /** Whether `X-MerchantID` names this merchant: its id, never its name or login (INTERFACE.md). */
  merchantIdMatches(m: { id: string; name: string; login: string }, headerValue: string): boolean;
  /** Whether the four signing headers count as present. */
  authHeadersPresent(h: SigningHeaders): boolean;
  /** Whether X-Sign verifies the request. */
  verifyRequest(r: RequestToVerify): boolean;
  /** X-Timestamp read as Unix seconds; undefined when it is not a timestamp at all. */
  readTimestamp(text: string): number | undefined;
  /** Final say on an authentication check's result. */
  authOutcome(outcome: AuthOutcome): AuthOutcome;
  /** The answer to an authentication failure or an unreadable body. */
  authAnswer(failure: AuthFailure, correct: AuthAnswer): AuthAnswer;
  /** Whether authentication failures of a known merchant carry the four signing headers. */
  signAuthErrors: boolean;
  /** Decimal places an amount may have before it is refused as validationFailed. */
  maxAmountDecimals: number;
  /** Decimal places a refund amount may have before it is refused as validationFailed. */
  maxRefundAmountDecimals: number;
  /** The price points of a method, given the channel table's. */
  tiersFor(method: string, tiers: readonly bigint[]): readonly bigint[];
  /** The price point an amount is charged at, or undefined when it cannot be rounded to one (`rule`: the channel's own). */
  roundToTier(cents: bigint, tiers: readonly bigint[], rule?: TierRounding): bigint | undefined;
  /** Whether an amount in cents counts as positive. */
  isPositiveAmount(cents: bigint): boolean;
  /** An amount in cents as a response or webhook shows it ("12.50"). */
  formatAmount(cents: bigint, channel: Channel): string;
  /** A time as a response or webhook shows it (RFC 3339 with an offset). */
  formatTime(ms: number, channel: Channel): string;
  /** Rewrites request keys before the strict (unknown keys refused) validation; `route` is the internal route path. */
  normaliseRequest(body: Record<string, unknown>, route: string): Record<string, unknown>;
  /** Whether the provider declines a card number, given the sandbox's decline cards (in their published order). */
  declinesCard(cardNumber: string, declineCards: readonly string[]): boolean;
  /** Whether a new refund is created already SUCCESS, given whether its channel settles refunds at once. */
  refundSettlesAtOnce(method: string, channelSettlesAtOnce: boolean): boolean;
  /**
   * The merchant whose payout balance a payout is checked against, given the merchant sending it and the service's
   * first merchant account: its own.
   */
  payoutFundsOf(merchantId: string, firstMerchantId: string): string;
  /** What a payment query by another merchant's `merchant_order_no` answers: as not found, or as access denied. */
  foreignMerchantOrderNo: 'not-found' | 'access-denied';
  /** Last touch on a record shown in `data` (field names, status names). */
  finishView(kind: RecordKind, view: Record<string, unknown>): Record<string, unknown>;
  /** A service number (order_no, refund_no, payout_no) from its kind letter, a UTC time stamp and a sequence. */
  formatServiceNo(prefix: 'P' | 'R' | 'T', stamp: string, sequence: string): string;
  /** Whether an armed sandbox failure disarms once it has happened (a transient failure). */
  armedFailureOneShot: boolean;
  /**
   * Whether a magic-value trigger of a failure (reference/magic-triggers.ts) fires only the first time any request carries
   * it, and is ignored from then on (a sandbox keeping one flag per trigger instead of per record).
   */
  triggerFiresOnce(failure: ArmedFailure): boolean;
  /** Whether a trigger with a count stops failing after that many requests (a transient failure). */
  countsTriggers: boolean;
  /** Whether an amount must fall inside one of a method's channels (false: only inside its overall minimum and maximum). */
  channelRanges: boolean;
  /** Whether a business rule is applied. */
  enforces(rule: Rule): boolean;
  /**
   * What to do when both fields of an exactly-one pair are sent: refuse, use the first, or refuse as soon
   * as both keys are present with one of them non-empty (an empty string then counts as provided).
   */
  bothLookupsSent: 'refuse' | 'use-first' | 'refuse-present';
  /** How a request whose Content-Type is not application/json is refused: a signed 400, or as unauthorized (HTTP 401, unsigned). */
  contentTypeRefusal: 'invalid-request' | 'unauthorized';
  /** Whether a signed body that is not JSON text is answered as unreadable (HTTP 500, unsigned) rather than a signed 400. */
  invalidJsonUnreadable: boolean;
  /** Whether a body that cannot be read is answered by closing the connection, with no answer at all (a fault's). */
  unreadableBodyClosed: boolean;
  /** What a repeated merchant number gets. */
  duplicatePolicy: 'refuse' | 'replay';
  /** Whether a number held by a `holder` of this kind blocks a new create of `kind` (same namespace). */
  numberBlocks(kind: IdempotencyKind, holder: IdempotencyKind): boolean;
  /** Whether a refused repeat of a payment number marks the original payment FAILED. */
  repeatFailsOriginal: boolean;
  /** Numbers sharing a namespace name collide with each other. */
  idempotencyNamespace(kind: IdempotencyKind): string;
  /** Whether a request recorded and then refused (decline, risk, failed refund) keeps its number. */
  recordedRefusalKeepsNumber: boolean;
  /** The currencies a payout method's channel takes, from the channel table's. */
  payoutCurrencies(method: string, currencies: readonly string[]): readonly string[];
  /** The refund support a payment method's channel is given, from the channel table's. */
  refundSupport(method: string, support: RefundSupport): RefundSupport;
  /** The lookup field whose index a refund or payout lookup searches, for the field that was sent. */
  lookupAs(field: string): string;
  /** Largest refund still allowed, given the charged amount and earlier non-failed refunds. */
  refundCeilingCents(chargedCents: bigint, earlierCents: bigint): bigint;
  /** Whether a payout in this status can be cancelled (only PENDING in the correct behaviour). */
  payoutCancelable(status: string): boolean;
  /** Whether a cancel checks the payout's status before its channel's cancel support. */
  payoutCancelStatusFirst: boolean;
  /** Whether a webhook reply acknowledges delivery; `body` is at most a few bytes past "success". */
  isAck(body: Buffer, httpStatus: number): boolean;
  /** Waits between attempts at time scale 1; attempts in total = waits + 1. */
  retryWaitsMs: readonly number[];
  /** Whether an attempt that got no reply at all (connection refused, closed, timed out) is retried. */
  retryWithoutReply: boolean;
  /** Attempts still made after an acknowledgement (0 in the correct behaviour). */
  attemptsAfterAck: number;
  /** Time a receiver has to acknowledge, at time scale 1. */
  ackLimitMs: number;
  /** Whether the ack limit shrinks with the time scale (a fault may hold it at wall-clock time). */
  ackLimitScales: boolean;
  /** Share of the (scaled, floored) ack limit actually granted: 1 in the correct behaviour. */
  ackLimitShare: number;
  /** Whether every attempt gets a new timestamp and nonce. */
  freshSignaturePerAttempt: boolean;
  /** Whether a webhook body is built at each attempt (true) or once, when the change happens. */
  webhookBodyAtSending: boolean;
  /** The status a payment or refund query shows, given the record's and the last acknowledged webhook's. */
  statusInQuery(status: string, ackedStatus: string | undefined): string;
  /** Whether this cause sends a webhook. */
  sendsWebhookOn(trigger: Trigger): boolean;
  /** Last touch on a webhook body before it is serialised. */
  finishWebhookBody(body: Record<string, unknown>, source: WebhookSource): Record<string, unknown>;
  /** Last touch on the headers of a webhook attempt, after signing. */
  finishWebhookHeaders(headers: Record<string, string>): Record<string, string>;
}

const SUCCESS = Buffer.from('success', 'utf8');
const TIMESTAMP_RE = /^[0-9]{1,15}$/;

export const RETRY_WAITS_MS: readonly number[] = [15_000, 60_000, 180_000, 300_000, 600_000, 900_000, 1_200_000, 2_400_000];

export const defaultBehaviour: Behaviour = {
  responseSignatureText: (digest) => digest.toString('hex'),
  responseSigningBytes: (sent) => sent,
  responseStamp: (nowMs) => ({ timestamp: String(unixSeconds(nowMs)), nonce: freshNonce() }),
  finishResponseHeaders: (headers) => headers,
  signAs: (merchantId) => merchantId,
  finishEnvelope: (envelope) => envelope,
  signErrorResponses: true,
  httpStatusFor: () => 200,
  routePath: (path) => path,
  responseEncoding: 'utf8',
  unsignedPlainText: false,
  mapError: (err) => err,
  plainEnglish: (acceptLanguage) => wantsPlainEnglish(acceptLanguage),
  merchantIdMatches: (m, v) => m.id === v,
  authHeadersPresent: (h) => Boolean(h.id && h.timestamp && h.nonce && h.sign),
  verifyRequest: (r) => signatureMatches(r.secret, signingInput(r.merchantId, r.timestamp, r.nonce, r.rawBody), r.sign),
  readTimestamp: (text) => (TIMESTAMP_RE.test(text) ? Number(text) : undefined),
  authOutcome: (outcome) => outcome,
  authAnswer: (_failure, correct) => correct,
  signAuthErrors: false,
  maxAmountDecimals: 2,
  maxRefundAmountDecimals: 2,
  tiersFor: (_method, tiers) => tiers,
  roundToTier: (cents, tiers, rule) =>
    rule?.mode === 'nearest' ? roundToNearestTier(cents, tiers, rule.maxDistanceCents, rule.tiesDown) : roundUpToTier(cents, tiers),
  isPositiveAmount: (cents) => cents > 0n,
  formatAmount: (cents) => formatCents(cents),
  formatTime: (ms) => rfc3339(ms),
  normaliseRequest: (body) => body,
  finishView: (_kind, view) => view,
  declinesCard: (n, cards) => cards.includes(n),
  refundSettlesAtOnce: (_method, channelSettlesAtOnce) => channelSettlesAtOnce,
  payoutFundsOf: (merchantId) => merchantId,
  foreignMerchantOrderNo: 'not-found',
  formatServiceNo: (prefix, stamp, sequence) => `${prefix}${stamp}${sequence}`,
  channelRanges: true,
  armedFailureOneShot: true,
  triggerFiresOnce: () => false,
  countsTriggers: true,
  enforces: () => true,
  bothLookupsSent: 'refuse',
  invalidJsonUnreadable: false,
  unreadableBodyClosed: false,
  contentTypeRefusal: 'invalid-request',
  duplicatePolicy: 'refuse',
  numberBlocks: () => true,
  repeatFailsOriginal: false,
  idempotencyNamespace: (kind) => (kind === 'payout' ? 'payouts' : 'orders'),
  recordedRefusalKeepsNumber: true,
  payoutCurrencies: (_method, currencies) => currencies,
  refundSupport: (_method, support) => support,
  lookupAs: (field) => field,
  refundCeilingCents: (charged, earlier) => charged - earlier,
  payoutCancelable: (status) => status === 'PENDING',
  payoutCancelStatusFirst: false,
  // Only the body counts, whatever the HTTP status: the interface says only the body is examined.
  isAck: (body) => body.equals(SUCCESS),
  retryWaitsMs: RETRY_WAITS_MS,
  retryWithoutReply: true,
  attemptsAfterAck: 0,
  ackLimitMs: 5_000,
  ackLimitScales: true,
  ackLimitShare: 1,
  freshSignaturePerAttempt: true,
  webhookBodyAtSending: true,
  statusInQuery: (status) => status,
  sendsWebhookOn: (trigger) => trigger !== 'payment-refunded' && trigger !== 'checkout-expired' && trigger !== 'chargeback',
  finishWebhookBody: (body) => body,
  finishWebhookHeaders: (headers) => headers,
};
