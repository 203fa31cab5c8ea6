/**
 * What "unchanged" means for a record the target returns: the fields the profile locates
 * (numbers, status, amount) and every Amount object anywhere in the record.
 */
import { pick } from '../../harness/check/expect.js';
import { PreconditionSkip } from '../../harness/check/failure.js';
import { payoutsOf } from '../../harness/ops.js';
import type { Target } from '../../harness/target.js';

/** Every `{currency, value}` object inside a record, keyed by its dotted path. */
export function amountObjects(value: unknown, path = 'data', depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > 8 || value === null || typeof value !== 'object') return out;
  const obj = value as Record<string, unknown>;
  if (!Array.isArray(obj) && typeof obj.currency === 'string' && 'value' in obj) out[path] = { currency: obj.currency, value: obj.value };
  for (const [k, v] of Object.entries(obj)) Object.assign(out, amountObjects(v, `${path}.${k}`, depth + 1));
  return out;
}

function snapshot(data: Record<string, unknown>, paths: Record<string, string | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(paths)) if (p) out[name] = pick(data, p) ?? null;
  return { ...out, amounts: amountObjects(data) };
}

/** The parts of a payment record that a refused repeat must not change. */
export function paymentSnapshot(t: Target, data: Record<string, unknown>): Record<string, unknown> {
  const r = t.profile.paymentRecord;
  if (!r)
    throw new PreconditionSkip('the profile does not say where a payment record keeps its fields (paymentRecord)', {
      declare: ['paymentRecord'],
    });
  return snapshot(data, { orderNo: r.orderNo, merchantOrderNo: r.merchantOrderNo, status: r.status, transAmount: r.transAmount });
}

export function refundSnapshot(t: Target, data: Record<string, unknown>): Record<string, unknown> {
  const r = t.profile.refunds;
  if (!r) throw new PreconditionSkip('the profile declares no refunds (refunds)', { declare: ['refunds'] });
  return snapshot(data, { refundNo: r.data.refundNo, status: r.data.status, amount: r.data.amount });
}

export function payoutSnapshot(t: Target, data: Record<string, unknown>): Record<string, unknown> {
  const p = payoutsOf(t);
  return snapshot(data, { payoutNo: p.data.payoutNo, status: p.data.status });
}
