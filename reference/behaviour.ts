/**
 * The hook points a fault may replace. The correct implementation is `defaultBehaviour`; every
 * fault mutant is the same server with one or more of these hooks swapped, so a conformance
 * check that catches a mutant pins down exactly one clause of the interface.
 */
import { rfc3339 } from './clock.js';
import { formatCents } from './money.js';

/** Where a formatted value goes: a signed API response or a webhook body. */
export type Channel = 'response' | 'webhook';

export type AuthOutcome = 'ok' | 'missing-header' | 'unknown-merchant' | 'bad-signature' | 'stale-timestamp' | 'nonce-reused';

export type IdempotencyKind = 'payment' | 'refund' | 'payout';

export interface Behaviour {
  /** How the response digest is written into X-Sign. */
  responseSignatureText(digest: Buffer): string;
  /** The bytes a response signature is computed over, given the bytes actually sent. */
  responseSigningBytes(sent: Buffer): Buffer;
  /** Last touch on a response envelope before it is serialised. */
  finishEnvelope(envelope: Record<string, unknown>): Record<string, unknown>;
  /** Whether business-error envelopes carry the four signing headers. */
  signErrorResponses: boolean;
  /** HTTP status of a signed envelope with this body `code` (0 = success). */
  httpStatusFor(code: number): number;
  /** Final say on an authentication check's result. */
  authOutcome(outcome: AuthOutcome): AuthOutcome;
  /** Decimal places an amount may have before it is refused as validationFailed. */
  maxAmountDecimals: number;
  formatAmount(cents: bigint, channel: Channel): string;
  formatTime(ms: number, channel: Channel): string;
  /** Rewrites request keys before the strict (unknown keys refused) validation. */
  normaliseRequest(body: Record<string, unknown>): Record<string, unknown>;
  /** What to do when both fields of an exactly-one pair are sent. */
  bothLookupsSent: 'refuse' | 'use-first';
  /** What a repeated merchant number gets. */
  duplicatePolicy: 'refuse' | 'replay';
  /** Numbers sharing a namespace name collide with each other. */
  idempotencyNamespace(kind: IdempotencyKind): string;
  /** Whether a request recorded and then refused (decline, risk, failed refund) keeps its number. */
  recordedRefusalKeepsNumber: boolean;
  /** Largest refund still allowed, given the charged amount and earlier non-failed refunds. */
  refundCeilingCents(chargedCents: bigint, earlierCents: bigint): bigint;
  payoutCancelable(status: string): boolean;
  /** Whether a webhook reply acknowledges delivery; `body` is at most a few bytes past "success". */
  isAck(body: Buffer, httpStatus: number): boolean;
  /** Waits between attempts at time scale 1; attempts in total = waits + 1. */
  retryWaitsMs: readonly number[];
  /** Time a receiver has to acknowledge, at time scale 1. */
  ackLimitMs: number;
  /** Whether every attempt gets a new timestamp and nonce. */
  freshSignaturePerAttempt: boolean;
  /** Extra events the interface forbids; all false in the correct behaviour. */
  paymentWebhookOnRefunded: boolean;
  paymentWebhookOnExpiry: boolean;
  /** Last touch on a webhook body before it is serialised. */
  finishWebhookBody(body: Record<string, unknown>): Record<string, unknown>;
}

const SUCCESS = Buffer.from('success', 'utf8');

export const RETRY_WAITS_MS: readonly number[] = [
  15_000, 60_000, 180_000, 300_000, 600_000, 900_000, 1_200_000, 2_400_000,
];

export const defaultBehaviour: Behaviour = {
  responseSignatureText: (digest) => digest.toString('hex'),
  responseSigningBytes: (sent) => sent,
  finishEnvelope: (envelope) => envelope,
  signErrorResponses: true,
  httpStatusFor: () => 200,
  authOutcome: (outcome) => outcome,
  maxAmountDecimals: 2,
  formatAmount: (cents) => formatCents(cents),
  formatTime: (ms) => rfc3339(ms),
  normaliseRequest: (body) => body,
  bothLookupsSent: 'refuse',
  duplicatePolicy: 'refuse',
  idempotencyNamespace: (kind) => (kind === 'payout' ? 'payouts' : 'orders'),
  recordedRefusalKeepsNumber: true,
  refundCeilingCents: (charged, earlier) => charged - earlier,
  payoutCancelable: (status) => status === 'PENDING',
  // Only the body counts, whatever the HTTP status: the interface says only the body is examined.
  isAck: (body) => body.equals(SUCCESS),
  retryWaitsMs: RETRY_WAITS_MS,
  ackLimitMs: 5_000,
  freshSignaturePerAttempt: true,
  paymentWebhookOnRefunded: false,
  paymentWebhookOnExpiry: false,
  finishWebhookBody: (body) => body,
};
