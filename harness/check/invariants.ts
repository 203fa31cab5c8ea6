import type { ClauseId } from '../clauses/registry.js';
import { describeVerifyFailure } from '../http/signing.js';
import type { Exchange } from '../http/exchange.js';
import { splitMsg } from '../http/envelope.js';
import { isShownValue } from '../facts/money.js';
import type { Finding } from './failure.js';

/** HTTP statuses the interface allows: 200 for every signed answer, 401/403/500 for the unsigned ones. */
const UNSIGNED_STATUSES = new Set([401, 403, 500]);
const SNAKE_CASE = /^[a-z0-9]+(_[a-z0-9]+)*$/;
const TIME_KEY = /(_at|_time)$/;
// RFC 3339 date-time with a mandatory offset (Z or ±hh:mm).
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * Every clause a finding of this module can be charged to (an exchange exercises those it gave something to judge); f() accepts no other.
 */
export const INVARIANT_CLAUSES = [
  'amount.value.two-decimals-out',
  'auth.response.signed',
  'conv.snake-case',
  'conv.time.rfc3339-offset',
  'env.body.object',
  'env.code.integer',
  'env.data.omitted-on-error',
  'env.data.on-success',
  'env.msg.message-key',
  'env.msg.success',
  'ep.http-200-signed',
] as const;

function f(
  code: string,
  clause: (typeof INVARIANT_CLAUSES)[number],
  message: string,
  ex: Exchange,
  expected?: string,
  seen?: string,
): Finding {
  return { code, clause, level: 'must', title: message, message, expected, seen, exchangeId: ex.id };
}

/**
 * The rules every response must keep whatever was asked. Checked on every
 * exchange the suites provoke; `signedBy` is the merchant the response must be signed for.
 */
export function responseInvariants(ex: Exchange, opts: { verifySignature: boolean; examined?: Set<ClauseId> }): Finding[] {
  const res = ex.response;
  // A gateway's throttling answer is not the service's: no rule of the interface applies to it.
  if (!res || ex.error?.kind === 'throttled') return [];
  const out: Finding[] = [];
  const status = res.status;
  // The rules this exchange could show broken: evidence for those, whatever the findings (a clause with a finding is failed anyway).
  const seen = opts.examined ?? new Set<ClauseId>();
  seen.add('ep.http-200-signed');
  if (status !== 200 && !UNSIGNED_STATUSES.has(status)) {
    out.push(
      f(
        'HTTP_STATUS_NOT_ALLOWED',
        'ep.http-200-signed',
        `HTTP ${status} is not an answer the interface allows: signed responses, errors included, use ` +
          `200; only authentication failures (401, 403) and an unreadable body (500) use another status`,
        ex,
        '200 (or 401/403/500 unsigned)',
        String(status),
      ),
    );
  }
  // A body cut short (size cap, deadline, reset) says nothing about the envelope the target meant.
  if (res.truncated || ex.error) return out;
  const body = res.json;
  if (res.jsonError !== undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    out.push(
      f(
        'BODY_NOT_JSON_OBJECT',
        'env.body.object',
        'the response body is not a JSON object',
        ex,
        'a JSON object',
        res.jsonError ?? typeof body,
      ),
    );
    return out;
  }
  const env = body as Record<string, unknown>;
  seen.add('env.body.object');
  out.push(...envelopeFindings(env, ex, seen));
  if (status === 200) {
    if (opts.verifySignature && ex.signature) seen.add('auth.response.signed');
    if (opts.verifySignature && ex.signature && !ex.signature.ok) {
      out.push(
        f(
          'RESPONSE_SIGNATURE_INVALID',
          'auth.response.signed',
          `the response signature does not verify: ${describeVerifyFailure(ex.signature)}`,
          ex,
        ),
      );
    }
    if (env.code === 0 && env.data !== undefined) {
      for (const finding of walkValue(env.data, 'data', ex, '', 0, true, seen)) out.push(finding);
    }
  }
  return out;
}

function envelopeFindings(env: Record<string, unknown>, ex: Exchange, seen: Set<ClauseId>): Finding[] {
  const out: Finding[] = [];
  const { code, msg } = env;
  seen.add('env.code.integer');
  if (typeof code !== 'number' || !Number.isInteger(code)) {
    out.push(f('ENVELOPE_CODE_NOT_INTEGER', 'env.code.integer', '`code` must be an integer', ex, 'integer', JSON.stringify(code)));
    return out;
  }
  if (typeof msg !== 'string') {
    out.push(f('ENVELOPE_MSG_NOT_STRING', 'env.msg.message-key', '`msg` must be a string', ex, 'string', JSON.stringify(msg)));
    return out;
  }
  seen.add(code === 0 ? 'env.msg.success' : 'env.data.omitted-on-error');
  if (code === 0) {
    seen.add('env.data.on-success');
    if (msg !== 'success')
      out.push(
        f('ENVELOPE_SUCCESS_MSG', 'env.msg.success', '`msg` must be `success` when code is 0', ex, '"success"', JSON.stringify(msg)),
      );
    const data = env.data;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      out.push(
        f('ENVELOPE_DATA_MISSING', 'env.data.on-success', '`data` must be an object on success', ex, 'object', JSON.stringify(data)),
      );
    }
  } else {
    if ('data' in env)
      out.push(
        f(
          'ENVELOPE_DATA_ON_ERROR',
          'env.data.omitted-on-error',
          '`data` must be omitted on error',
          ex,
          'no data',
          JSON.stringify(env.data),
        ),
      );
    if (!ex.request.headers['Accept-Language']?.toLowerCase().startsWith('en')) {
      seen.add('env.msg.message-key');
      const { key } = splitMsg(msg);
      if (!key)
        out.push(
          f(
            'ENVELOPE_MSG_NO_KEY',
            'env.msg.message-key',
            'an error `msg` must be a message, then `|`, then a key',
            ex,
            '"message|key"',
            JSON.stringify(msg),
          ),
        );
    }
  }
  return out;
}

/**
 * Every object key in a value that is not snake_case, with its dotted path. Every field the
 * interface defines is snake_case, and `metadata` is a string, so no key in a response or a webhook
 * comes from the merchant: a camelCase key is the service's own naming.
 */
export function nonSnakeCaseKeys(value: unknown, path: string, depth = 0): { path: string; key: string }[] {
  if (depth > 8 || value === null || typeof value !== 'object') return [];
  const isArray = Array.isArray(value);
  return Object.entries(value).flatMap(([k, v]) => [
    ...(isArray || SNAKE_CASE.test(k) ? [] : [{ path: `${path}.${k}`, key: k }]),
    ...nonSnakeCaseKeys(v, `${path}.${k}`, depth + 1),
  ]);
}

/** The value rules a value gave something to judge: names (any object key), amounts, times. */
export function valueClauses(value: unknown, depth = 0, out = new Set<ClauseId>()): Set<ClauseId> {
  if (depth > 8 || value === null || typeof value !== 'object') return out;
  const obj = value as Record<string, unknown>;
  if (!Array.isArray(obj)) {
    if (Object.keys(obj).length > 0) out.add('conv.snake-case');
    if (typeof obj.currency === 'string' && 'value' in obj) out.add('amount.value.two-decimals-out');
  }
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string' && /(_at|_time)$/.test(k)) out.add('conv.time.rfc3339-offset');
    else if (v && typeof v === 'object') valueClauses(v, depth + 1, out);
  }
  return out;
}

/**
 * Amounts must show two decimals, times must carry an offset and field names must be snake_case,
 * wherever they appear. `codePrefix` tells where the value came from in the finding code (WEBHOOK_
 * for a webhook body), so one walk serves responses and webhooks.
 */
export function valueFindings(value: unknown, path: string, ex: Exchange, codePrefix = '', depth = 0): Finding[] {
  return walkValue(value, path, ex, codePrefix, depth, depth === 0);
}

/**
 * valueFindings and valueClauses in one walk over the value (a response's data is walked on every
 * exchange): the field-name findings first, then the amount and time findings, each in the order the
 * separate walks give them; `clauses`, when given, receives what valueClauses would return.
 */
function walkValue(
  value: unknown,
  path: string,
  ex: Exchange,
  codePrefix: string,
  depth: number,
  names: boolean,
  clauses?: Set<ClauseId>,
): Finding[] {
  const walk: Walk = { ex, codePrefix, names, clauses, nameFindings: [], valueFindings: [] };
  visit(walk, value, path, depth);
  if (walk.nameFindings.length === 0) return walk.valueFindings;
  for (const finding of walk.valueFindings) walk.nameFindings.push(finding);
  return walk.nameFindings;
}

interface Walk {
  ex: Exchange;
  codePrefix: string;
  names: boolean;
  clauses: Set<ClauseId> | undefined;
  nameFindings: Finding[];
  valueFindings: Finding[];
}

function visit(w: Walk, v: unknown, p: string, d: number): void {
  if (d > 8 || v === null || typeof v !== 'object') return;
  const { ex, codePrefix, clauses } = w;
  const obj = v as Record<string, unknown>;
  const isArray = Array.isArray(obj);
  const keys = Object.keys(obj);
  if (!isArray) {
    if (clauses && keys.length > 0) clauses.add('conv.snake-case');
    if (typeof obj.currency === 'string' && 'value' in obj) {
      clauses?.add('amount.value.two-decimals-out');
      if (!isShownValue(obj.value)) {
        w.valueFindings.push(
          f(
            `${codePrefix}AMOUNT_NOT_TWO_DECIMALS`,
            'amount.value.two-decimals-out',
            `${p}.value must be a decimal string with exactly two decimals`,
            ex,
            'e.g. "12.50"',
            JSON.stringify(obj.value),
          ),
        );
      }
    }
  }
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const child = obj[k];
    if (w.names && !isArray && !SNAKE_CASE.test(k)) {
      w.nameFindings.push(
        f(
          `${codePrefix}FIELD_NAME_NOT_SNAKE_CASE`,
          'conv.snake-case',
          `${p}.${k} is not a snake_case field name`,
          ex,
          'snake_case, e.g. merchant_order_no',
          JSON.stringify(k),
        ),
      );
    }
    if (typeof child === 'string' && TIME_KEY.test(k)) {
      clauses?.add('conv.time.rfc3339-offset');
      if (!RFC3339.test(child)) {
        w.valueFindings.push(
          f(
            `${codePrefix}TIME_NOT_RFC3339_OFFSET`,
            'conv.time.rfc3339-offset',
            `${p}.${k} must be an RFC 3339 time with an offset`,
            ex,
            'e.g. 2026-11-22T10:00:00+01:00',
            JSON.stringify(child),
          ),
        );
      }
    } else if (child && typeof child === 'object') {
      visit(w, child, `${p}.${k}`, d + 1);
    }
  }
}
