/**
 * Reading topics: the points where INTERFACE.md allows more than one answer, under which a check records the answer
 * the target took (`recordReading`, the `topic` of `expectOneOf` / `expectRefused`). They look like clause ids but
 * are not: a topic names a question the document leaves open, not a statement a finding can be charged to, and
 * the two must never be swapped. Listed here so that a misspelt topic is a compile error, not a reading that the
 * certificate shows under a name no other run uses (readings are compared across runs by topic, see parity).
 * Add a topic here when a check records a new one; never rename one (certificates and parity key on it).
 */
export const readingTopics = [
  // Amounts and currencies
  'amount.value.json-number',
  'amount.currency.malformed',
  'price-point.unroundable',
  // Endpoints, envelope, errors
  'ep.invalid-json',
  'ep.content-type.text-plain',
  'err.format.message-quotes-value',
  // Field naming (plus one topic per field, see ReadingTopic)
  'naming.camel-duplicate',
  // Authentication
  'auth.timestamp.formatted-date',
  'auth.timestamp.milliseconds',
  // Queries
  'query.one-number-one-empty',
  'query.other-merchant.by-merchant-order-no',
  // Payments, refunds, payouts
  'payment.risk-decline',
  'refund.created-status',
  'refund.webhook.amount',
  'payout.cancel.status',
  'payout.above-max-and-balance',
  'payout.method-not-enabled',
  'payout.non-usd-currency',
  'payout.unknown-method-code',
  // Idempotency
  'idem.payout.repeat-key',
  'idem.refund-like-payment',
  'idem.refund-number-equals-payment-number',
  // Webhooks
  'webhook.first-wait',
  'webhook.attempts',
  'webhook.waits',
  'webhook.span',
  'webhook.unconfirmed-resend',
  'webhook.retry-after-refund',
  // The stateful model
  'stateful.cancel-of-refused-payout',
  'stateful.checkout-status-on-creation',
  'stateful.expired-payment-status',
  'stateful.partly-refunded-payment-status',
  'stateful.payout-status-on-creation',
  'stateful.pending-payment-status',
  'stateful.refund-status-on-creation',
  'stateful.refused-payout-queried',
  'stateful.refused-refund-queried',
  'stateful.payment-under-refused-refund-number',
  'stateful.refund-open-outcome',
  'stateful.payout-create-open-outcome',
  'stateful.payout-cancel',
] as const;

/**
 * A reading topic. The naming suite records two per field it sends under its camelCase name: how a required field
 * sent only so is refused (`naming.camel-only.<field>`), and whether an optional one is required after all
 * (`naming.<field>.required`).
 */
export type ReadingTopic = (typeof readingTopics)[number] | `naming.camel-only.${string}` | `naming.${string}.required`;
