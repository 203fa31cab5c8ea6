/**
 * An exchange as text, for a failure message or an error: the request and the answer, bodies clipped. (Not the
 * `describe` command, harness/cli/describe.ts, nor the OpenAPI writer, harness/openapi/write.ts.)
 */
import type { Exchange } from './exchange.js';

const MAX_BODY_CHARS = 600;

function clip(text: string): string {
  return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}… (${text.length} chars)` : text;
}

/** A short, human-readable account of an exchange for failure messages (bodies clipped). */
export function describeExchange(ex: Exchange): string {
  const lines = [`exchange ${ex.id} (${ex.label})`, `  → ${ex.request.method} ${ex.request.url}`];
  lines.push(`    body: ${clip(ex.request.body.toString('utf8'))}`);
  if (ex.response) {
    lines.push(`  ← HTTP ${ex.response.status}${ex.response.truncated ? ' (body cut at the size cap)' : ''}`);
    lines.push(`    body: ${clip(ex.response.body.toString('utf8'))}`);
  }
  if (ex.error) lines.push(`  ✗ ${ex.error.kind}: ${ex.error.message}`);
  return lines.join('\n');
}

export function shortJson(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : clip(s);
}
