/**
 * The shapes genes (fixtures/arbitraries/genes/shapes.ts) as the reference is given them and as the true profile says
 * them: numbered card and payout creation paths (`endpoints.cardPayment`, `endpoints.payoutCreate`), a base path (the
 * embedded reference's address ends with it, as a vendor's `baseUrl` would), a payment record nested deeper
 * (`paymentRecord.*` as dotted paths), a refund request's own fields under a key (`refunds.template`), the payout
 * settle control's status reason (`sandbox.settlePayout.reason` and its field), a gateway's rate (`http.rateLimit`, the
 * embedded reference behind a gateway at that rate).
 */
import type { TargetGenes } from '../../../fixtures/arbitraries/genome.js';
import type { Profile } from '../../../harness/profile/types.js';
import type { TargetDescription } from '../../../reference/index.js';

/** The prefix the target serves its own resource paths under (the `paths` gene's, else the document's). */
function prefixOf(t: TargetGenes): string {
  return t.paths?.prefix ?? '/api/v1';
}

/** The numbered creation paths of the gene, by the profile's endpoint name. */
export function numberedPaths(t: TargetGenes): { cardPayment?: string; payoutCreate?: string } {
  const s = t.shapes;
  return {
    ...(s?.cardPaymentNumbered ? { cardPayment: `${prefixOf(t)}/payments/{merchant_order_no}/card` } : {}),
    ...(s?.payoutCreateNumbered ? { payoutCreate: `${prefixOf(t)}/payouts/{merchant_payout_no}/submit` } : {}),
  };
}

/** The description with the shapes genes laid over it (reference/sandbox-data.ts, reference/api-paths.ts). */
export function withShapes(t: TargetGenes, d: TargetDescription): TargetDescription {
  const s = t.shapes;
  if (!s) return d;
  const paths = numberedPaths(t);
  const apiPaths = {
    ...d.apiPaths,
    ...(paths.cardPayment ? { '/api/v1/payments/card': paths.cardPayment } : {}),
    ...(paths.payoutCreate ? { '/api/v1/payouts/create': paths.payoutCreate } : {}),
  };
  // The settle control takes the reason in the gene's field: the reference's own is `reason`.
  const reasonField = s.settleReason && s.settleReason.field !== 'reason' ? s.settleReason.field : undefined;
  return {
    ...d,
    ...(Object.keys(apiPaths).length > 0 ? { apiPaths } : {}),
    ...(s.basePath ? { basePath: s.basePath } : {}),
    ...(s.paymentRecordPath ? { paymentRecordPath: [...s.paymentRecordPath] } : {}),
    ...(s.refundRequestUnder ? { refundRequestUnder: s.refundRequestUnder } : {}),
    ...(reasonField ? { sandbox: { ...d.sandbox, fieldNames: { ...d.sandbox?.fieldNames, [reasonField]: 'reason' } } } : {}),
  };
}

/** The refunded payment's numbers: a nested refund request keeps them beside its own object (reference/http/server.ts). */
const REFUND_PAYMENT_FIELDS = new Set(['original_order_no', 'original_merchant_order_no']);

/** The true profile's part of the shapes genes (after every other edit: the refund template and the paths are final). */
export function editShapes(p: Profile, t: TargetGenes): void {
  const s = t.shapes;
  if (!s) return;
  const paths = numberedPaths(t);
  if (Object.keys(paths).length > 0) {
    Object.assign(p.endpoints, paths);
    // Paths carrying a number are a version-4 fact.
    p.profileVersion = Math.max(p.profileVersion ?? 4, 4) as Profile['profileVersion'];
  }
  if (s.paymentRecordPath && p.paymentRecord) {
    const at = s.paymentRecordPath.join('.');
    p.paymentRecord = Object.fromEntries(Object.entries(p.paymentRecord).map(([k, v]) => [k, `${at}.${v}`])) as NonNullable<
      Profile['paymentRecord']
    >;
  }
  if (s.refundRequestUnder && p.refunds) {
    const entries = Object.entries(p.refunds.template);
    p.refunds.template = {
      ...Object.fromEntries(entries.filter(([k]) => REFUND_PAYMENT_FIELDS.has(k))),
      [s.refundRequestUnder]: Object.fromEntries(entries.filter(([k]) => !REFUND_PAYMENT_FIELDS.has(k))),
    };
  }
  const settle = p.sandbox?.settlePayout;
  if (s.settleReason !== undefined && settle) {
    const { reason: _, ...rest } = settle.template as Record<string, unknown>;
    if (s.settleReason === null) {
      settle.template = rest;
      delete settle.reason;
    } else {
      settle.template = { ...rest, [s.settleReason.field]: `\${reason}` };
      settle.reason = s.settleReason.text;
    }
  }
  if (s.rateLimit !== undefined) {
    p.embedded = { ...p.embedded, rateLimit: s.rateLimit };
    p.http = { ...p.http, rateLimit: s.rateLimit };
  }
}
