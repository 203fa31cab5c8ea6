/** Faults in how requests are authenticated and read. */
import { defineFault } from './fault.js';

export const authAcceptBadSign = defineFault({
  name: 'auth-accept-bad-sign',
  clause: 'auth.signature.mismatch-refused',
  doc: 'A request whose X-Sign does not match is accepted (timestamp and nonce are still checked).',
  authOutcome: (outcome) => (outcome === 'bad-signature' ? 'ok' : outcome),
});

export const acceptCamelcase = defineFault({
  name: 'accept-camelcase',
  clause: 'fields.naming.snake-case-only',
  doc: 'camelCase request keys are silently rewritten to snake_case instead of being refused.',
  normaliseRequest: (body) => snakeKeys(body, 0) as Record<string, unknown>,
});

export const mutualBothAccepted = defineFault({
  name: 'mutual-both-accepted',
  clause: 'query.lookup.mutually-exclusive',
  doc: 'When both numbers of an exactly-one pair are sent, the first is used instead of refusing.',
  bothLookupsSent: 'use-first',
});

/** Depth-bounded: the fault must not make the server crash on deeply nested bodies. */
function snakeKeys(v: unknown, depth: number): unknown {
  if (depth > 8 || typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = snakeKeys(val, depth + 1);
  return out;
}
