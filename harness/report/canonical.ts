import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted by UTF-16 code unit order, no whitespace, arrays in order,
 * numbers as JSON.stringify writes them, `undefined` members dropped. Two equal values always give
 * the same text, so a hash over it can be recomputed later from the same results.
 */
export function canonicalJson(value: unknown): string {
  // One list of pieces joined once: a run's results are megabytes, and nested template strings copied them at every level.
  const out: string[] = [];
  writeCanonical(value, out);
  return out.join('');
}

function writeCanonical(value: unknown, out: string[]): void {
  if (value === null || typeof value !== 'object') {
    const s = JSON.stringify(value);
    out.push(s === undefined ? 'null' : s);
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const v: unknown = value[i];
      if (v === undefined) out.push('null');
      else writeCanonical(v, out);
    }
    out.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  // Array.prototype.sort's default order is by UTF-16 code units, as the format says.
  const keys = Object.keys(record).sort();
  out.push('{');
  let first = true;
  for (const k of keys) {
    const v = record[k];
    if (v === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    writeCanonical(v, out);
  }
  out.push('}');
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
