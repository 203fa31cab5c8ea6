/**
 * What a client's request body and headers say about it, request by request: Content-Type,
 * camelCase field names, nonce length, and every amount value judged against the Amount object's
 * rules whatever the sandbox answered: a JSON number, a string that is not a decimal (thousands
 * separators, exponents, a leading `+`, spaces, a comma as decimal mark: `client.amount.string`),
 * a decimal with three or more places (`client.amount.two-decimals`).
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
    if ('value' in obj && ('currency' in obj || /amount$/i.test(path))) {
      const d = amountMistake(obj['value'], `${path || 'amount'}.value`);
      if (d) out.push(d);
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

/**
 * A decimal string as the document writes one ("12.5", "12.50"): digits, at most one point, an optional
 * minus (its sign is the service's to refuse, not a form the audit names). A point with digits on one
 * side only ("12.", ".5") is left alone: the document does not say whether it is a decimal string.
 */
const DECIMAL = /^-?(\d+\.?\d*|\.\d+)$/;

/** What makes a string not a decimal, most telling first, and the decimal it should have been where one follows. */
function notDecimal(v: string): { why: string; fix?: string } {
  if (v.trim() === '') return { why: v === '' ? 'it is empty' : 'it is only spaces' };
  const unsigned = v.replace(/^\+/, '');
  if (/\s/.test(v)) return { why: 'it contains spaces', fix: v.replace(/\s/g, '') };
  if (/^[+-]?\d+,\d+$/.test(v))
    return {
      why: "it has a comma, as decimal mark or as thousands separator (a locale's number format)",
      fix: /^[+-]?\d+,\d{1,2}$/.test(v) ? unsigned.replace(',', '.') : undefined,
    };
  if (/^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(v))
    return { why: 'it has thousands separators (number_format, "%,.2f", toLocaleString)', fix: unsigned.replace(/,/g, '') };
  if (/^[+-]?\d{1,3}(\.\d{3})*(,\d+)$/.test(v))
    return { why: 'it has a comma as decimal mark (a German or French locale)', fix: unsigned.replace(/\./g, '').replace(',', '.') };
  if (/^[+-]?(\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(v)) {
    const x = Number(v);
    return { why: 'it is written with an exponent', fix: Number.isFinite(x) && x > 0 && x < 1e15 ? x.toFixed(2) : undefined };
  }
  if (v.startsWith('+') && DECIMAL.test(unsigned)) return { why: 'it has a leading +', fix: unsigned };
  return { why: 'it has characters a decimal does not (a currency sign, a unit, text)' };
}

/** One amount value against the Amount object's rules: a decimal string with at most two places. */
export function amountMistake(v: unknown, at: string): Diag | undefined {
  if (typeof v === 'number')
    return {
      name: 'json-number-amount',
      clause: 'client.amount.string',
      detail: `${at} is the JSON number ${v}; send a decimal string ("${v.toFixed(2)}")`,
    };
  if (typeof v !== 'string') return undefined;
  if (!DECIMAL.test(v)) {
    const { why, fix } = notDecimal(v);
    return {
      name: 'not-a-decimal-amount',
      clause: 'client.amount.string',
      detail:
        `${at} ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)} is not a decimal string: ${why}; ` +
        `send digits with at most one point and two decimals${fix && /^-?\d+(\.\d{1,2})?$/.test(fix) ? ` ("${fix}")` : ''}`,
    };
  }
  if (/\.\d{3,}$/.test(v))
    return {
      name: 'three-decimal-amount',
      clause: 'client.amount.two-decimals',
      detail: `${at} ${JSON.stringify(v)} has more than two decimal places`,
    };
  return undefined;
}
