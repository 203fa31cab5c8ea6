/**
 * A fault is the correct server with some behaviour hooks replaced. It is data, not a code
 * branch: `name` selects it, `clause` says which rule of the interface it breaks (an id of the
 * kit's clause registry, harness/clauses/registry.ts), `doc` says how, in one line.
 */
import type { Behaviour, Rule } from '../behaviour.js';
import { ApiError } from '../errors.js';

export interface FaultInfo {
  readonly name: string;
  /** Registry id of the one clause the fault breaks, e.g. auth.response.signed. */
  readonly clause: string;
  readonly doc: string;
}

export type Fault = FaultInfo & Partial<Behaviour>;

export function defineFault(f: Fault): Fault {
  return f;
}

/** An `enforces` hook that switches off one business rule. */
export function skipRule(rule: Rule): (r: Rule) => boolean {
  return (r) => r !== rule;
}

export interface ErrorRewrite {
  /** Only on this request path, or these (default: every path under /api/v1/). */
  path?: string | readonly string[];
  key: string;
  /** Only errors whose detail matches. */
  detail?: RegExp;
  to: { code?: number; key?: string; detail?: string | ((detail: string) => string) };
}

/** A `mapError` hook that rewrites one kind of error the way a sloppy error table would. */
export function rewriteError(w: ErrorRewrite): (err: ApiError, path: string) => ApiError {
  return (err, path) => {
    const onPath = w.path === undefined ? path.startsWith('/api/v1/') : [w.path].flat().includes(path);
    if (!onPath || err.key !== w.key || (w.detail !== undefined && !w.detail.test(err.detail))) return err;
    const detail = typeof w.to.detail === 'function' ? w.to.detail(err.detail) : (w.to.detail ?? err.detail);
    return new ApiError(w.to.code ?? err.code, w.to.key ?? err.key, detail);
  };
}

export const PATHS = {
  paymentQuery: '/api/v1/payments/query',
  checkout: '/api/v1/payments/checkout',
  card: '/api/v1/payments/card',
  refundCreate: '/api/v1/refunds/create',
  refundQuery: '/api/v1/refunds/query',
  payoutCreate: '/api/v1/payouts/create',
  payoutQuery: '/api/v1/payouts/query',
  payoutCancel: '/api/v1/payouts/cancel',
} as const;

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `value` with every object that holds `key` replaced by `change(object)`, at any depth: a record a target nests deeper
 * (a drawn payment record path, `data.result.payment`) is changed where it sits.
 */
export function changeHolding(value: unknown, key: string, change: (record: Json) => Json): unknown {
  if (!isRecord(value)) return value;
  if (key in value) return change(value);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, changeHolding(v, key, change)]));
}
