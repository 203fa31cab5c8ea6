/** Readings of authentication where the document shows no rule. */
import { defineReading } from './reading.js';

export const badTimestampUnauthorized = defineReading({
  name: 'bad-timestamp-unauthorized',
  doc:
    'An X-Timestamp in milliseconds, as a date or too far from the clock is refused HTTP 401 unauthorized: "Troubleshooting order ' +
    'for 401 and 403: ... seconds timestamp ..." and "Allowed difference between `X-Timestamp` and the server clock: not shown."',
  authOutcome: (o) => (o === 'stale-timestamp' ? 'missing-header' : o),
});

export const nonceReuseAllowed = defineReading({
  name: 'nonce-reuse-allowed',
  doc: 'A nonce may be used again: "Whether a nonce may be reused: not shown."',
  authOutcome: (o) => (o === 'nonce-reused' ? 'ok' : o),
});
