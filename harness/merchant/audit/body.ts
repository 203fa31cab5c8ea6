/**
 * What a client's request body and headers say about it, request by request: Content-Type,
 * camelCase field names, JSON-number amounts, amounts with three or more decimals, nonce length.
 */
import { header } from './signature.js';
import type { Diagnosis, SeenRequest } from './types.js';

type Diag = Omit<Diagnosis, 'requests'>;

function walk(v: unknown, path: string, visit: (obj: Record<string, unknown>, path: string) => void): void {
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`, visit);
  } else if (v && typeof v === 'object') {
    visit(v as Record<string, unknown>, path);
    for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k, visit);
  }
}

export function parsedBody(r: SeenRequest): unknown {
  try {
    return r.body ? (JSON.parse(r.body.toString('utf8')) as unknown) : undefined;
  } catch {
    return undefined;
  }
}

export function bodyMistakes(r: SeenRequest): Diag[] {
  const out: Diag[] = [];
  const ct = header(r, 'Content-Type');
  if ((ct ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json')
    out.push({
      name: 'wrong-content-type',
      clause: 'client.content-type',
      detail: `Content-Type is ${ct === undefined ? 'missing' : JSON.stringify(ct.slice(0, 60))}; send application/json`,
    });
  const nonce = header(r, 'X-Nonce');
  if (nonce && (nonce.length < 16 || nonce.length > 32))
    out.push({
      name: 'nonce-length',
      clause: 'auth.nonce.length',
      detail: `X-Nonce has ${nonce.length} characters; 16 to 32 are recommended`,
    });
  const body = parsedBody(r);
  const camel: string[] = [];
  walk(body, '', (obj, path) => {
    for (const k of Object.keys(obj)) if (/[a-z0-9][A-Z]/.test(k)) camel.push(path ? `${path}.${k}` : k);
    if ('value' in obj && 'currency' in obj) {
      const v = obj['value'];
      const at = path || 'amount';
      if (typeof v === 'number')
        out.push({
          name: 'json-number-amount',
          clause: 'client.amount.string',
          detail: `${at}.value is the JSON number ${v}; send a decimal string ("${v.toFixed(2)}")`,
        });
      else if (typeof v === 'string' && /^-?\d*\.\d{3,}$/.test(v))
        out.push({
          name: 'three-decimal-amount',
          clause: 'client.amount.two-decimals',
          detail: `${at}.value ${JSON.stringify(v)} has more than two decimal places`,
        });
    }
  });
  if (camel.length)
    out.push({
      name: 'camel-case-fields',
      clause: 'client.fields.snake-case',
      detail: `camelCase field names ${camel.slice(0, 5).join(', ')}; only snake_case names are accepted`,
    });
  return out;
}
