/**
 * The shape of this sandbox's controls, as data: the document says nothing of sandbox controls, so their paths, body
 * field names, outcome values and the failure switch's form are the vendor's to choose. The default is the README's
 * (/sandbox/v1/..., order_no, outcome SUCCESS / FAILED, one `failure` value); a `SandboxDescription` (a target
 * description's `sandbox`) replaces any part of it, and the handlers keep working on the reference's own names.
 */
import { ARMABLE_FAILURES, type ArmedFailure } from './store.js';
import { type MagicTriggers, resolveTriggers } from './magic-triggers.js';

/** The reference's own control routes (reference/routes.ts). */
export const SANDBOX_ROUTES = [
  '/sandbox/v1/checkout/complete',
  '/sandbox/v1/checkout/expire',
  '/sandbox/v1/payments/chargeback',
  '/sandbox/v1/refunds/settle',
  '/sandbox/v1/payouts/settle',
  '/sandbox/v1/payments/complete-card',
  '/sandbox/v1/failures/arm',
] as const;
export type SandboxRoute = (typeof SANDBOX_ROUTES)[number];
const ARM_ROUTE: SandboxRoute = '/sandbox/v1/failures/arm';

/** The failure switch: which body values arm which failure, and what a refund failure is matched by. */
export interface ArmSwitchDescription {
  /** Per failure, the body fields (the target's names) and values that arm it: one field or several. */
  readonly values: Readonly<Record<ArmedFailure, Readonly<Record<string, string>>>>;
  /**
   * What a refund failure is armed for: the refunded payment's merchant order number (default) or the refund's own
   * merchant refund number.
   */
  readonly refundSubject?: 'merchantOrderNo' | 'merchantRefundNo';
  /**
   * One body field that carries the number armed for, whichever it is (the order's, or the refund's where refunds are
   * matched by number). Absent: merchant_order_no, and merchant_refund_no for a refund matched by its number.
   */
  readonly subjectField?: string;
}

export interface SandboxDescription {
  /** The target's path of each control it moves (keyed by the reference's route); a moved route is not served. */
  readonly paths?: Readonly<Partial<Record<SandboxRoute, string>>>;
  /**
   * Body field names of the controls but the failure switch: the target's name → the reference's (e.g. trade_no →
   * order_no, result → outcome).
   */
  readonly fieldNames?: Readonly<Record<string, string>>;
  /** The outcome values (absent: SUCCESS and FAILED). */
  readonly outcomes?: { readonly success: string; readonly failed: string };
  /** Absent: one `failure` field whose value is the failure's name (QUERY_FAILED, …), and merchant_order_no. */
  readonly armFailure?: ArmSwitchDescription;
  /**
   * What an armed failure hits (the switch is the vendor's, "not shown" by the document): the next request about the
   * number it was armed for, or of its kind when armed for none (`subject`, the default); the arming merchant's next
   * request of its kind, whatever number it carries (`merchant-operation`); the next request of its kind from any
   * merchant (`operation`).
   */
  readonly armReach?: ArmReach;
  /** How many requests one arming fails (default 1). */
  readonly armCount?: number;
  /**
   * What a control answers on success: the record it moved (`reference`, the default), or the vendor's own report of
   * what it did, in its own names (`vendor`: camelCase and dotted keys, an epoch time, a three-decimal amount), as a
   * sandbox written apart from the document may: the interface's rules do not bind a control.
   */
  readonly answers?: 'reference' | 'vendor';
  /**
   * Failures caused by magic values in a request or a header, beside or instead of the switch (reference/magic-triggers.ts);
   * absent, the README's (`DEFAULT_TRIGGERS`); `{}`, none.
   */
  readonly triggers?: MagicTriggers;
}

export const ARM_REACHES = ['subject', 'merchant-operation', 'operation'] as const;
export type ArmReach = (typeof ARM_REACHES)[number];

/** What an arm request asked for. */
export interface ArmRequest {
  readonly failure: ArmedFailure;
  /** The store's key of the number it is armed for (a refund's number is kept apart from order numbers), if any. */
  readonly subject?: string;
}

export interface SandboxShape {
  /** The reference's route a path is served by; undefined for a route this target moved elsewhere. */
  route(path: string): string | undefined;
  /** The control's body in the reference's own field names. */
  body(route: string, body: Record<string, unknown>): Record<string, unknown>;
  readonly outcomes: { readonly success: string; readonly failed: string };
  readonly armSwitch?: ArmSwitchDescription;
  /** Whether refund failures are matched by the refund's own number. */
  readonly refundsByNumber: boolean;
  readonly armReach: ArmReach;
  readonly armCount: number;
  /** Whether a control answers with the vendor's own report instead of the record (`answers: 'vendor'`). */
  readonly vendorAnswers: boolean;
  /** The magic values and headers that cause each failure. */
  readonly triggers: MagicTriggers;
}

/** A vendor's report of what a control did, in names of its own (e.g. `/api/v1/sandbox/failures`'s `data.armed.payments.create`). */
export function vendorAnswer(route: string, now: number): Record<string, unknown> {
  const what = route === ARM_ROUTE ? { armed: { 'payments.create': 1, 'refunds.create': 0 } } : { controlName: route.split('/').pop() };
  return {
    ...what,
    acceptedAt: Math.floor(now / 1000),
    requestedBy: { merchantId: 'sandbox' },
    feeCharged: { currency: 'USD', value: '0.000' },
  };
}

/** The store key a refund numbered `merchantRefundNo` is armed under (apart from any merchant order number). */
export const refundSubjectKey = (merchantRefundNo: string): string => `refund:${merchantRefundNo}`;

/** Refuses a description the reference cannot be: a clear error, never a half-built sandbox. */
export function resolveSandbox(d: SandboxDescription = {}): SandboxShape {
  const moved = new Map<string, string>();
  for (const [route, path] of Object.entries(d.paths ?? {})) {
    if (!(SANDBOX_ROUTES as readonly string[]).includes(route)) throw new Error(`target sandbox.paths: ${route} is not a sandbox control`);
    if (typeof path !== 'string' || !path.startsWith('/')) throw new Error(`target sandbox.paths.${route}: a path starting with /`);
    if (moved.has(path)) throw new Error(`target sandbox.paths: ${path} is given to two controls`);
    moved.set(path, route);
  }
  const movedAway = new Set(moved.values());
  const names = d.fieldNames ?? {};
  const o = d.outcomes;
  if (o !== undefined && (o.success === o.failed || o.success === '' || o.failed === ''))
    throw new Error('target sandbox.outcomes: two different non-empty values');
  const arm = d.armFailure;
  if (arm !== undefined) {
    const seen = new Set<string>();
    for (const f of ARMABLE_FAILURES) {
      const v = arm.values[f];
      if (v === undefined || Object.keys(v).length === 0) throw new Error(`target sandbox.armFailure.values.${f}: give its body values`);
      const key = JSON.stringify(Object.entries(v).sort());
      if (seen.has(key)) throw new Error(`target sandbox.armFailure.values.${f}: the same values as another failure`);
      seen.add(key);
    }
  }
  if (d.armReach !== undefined && !(ARM_REACHES as readonly string[]).includes(d.armReach))
    throw new Error(`target sandbox.armReach: one of ${ARM_REACHES.join(', ')}`);
  if (d.armCount !== undefined && !(Number.isInteger(d.armCount) && d.armCount >= 1 && d.armCount <= 20))
    throw new Error('target sandbox.armCount: a whole number from 1 to 20');
  return {
    route: (path) => moved.get(path) ?? (movedAway.has(path) ? undefined : path),
    body: (route, body) => {
      // The switch's fields are named by its own description (armFailure), never renamed.
      if (!(SANDBOX_ROUTES as readonly string[]).includes(route) || route === ARM_ROUTE || Object.keys(names).length === 0) return body;
      return Object.fromEntries(Object.entries(body).map(([k, v]) => [names[k] ?? k, v]));
    },
    outcomes: o ?? { success: 'SUCCESS', failed: 'FAILED' },
    ...(arm !== undefined ? { armSwitch: arm } : {}),
    refundsByNumber: arm?.refundSubject === 'merchantRefundNo',
    armReach: d.armReach ?? 'subject',
    armCount: d.armCount ?? 1,
    vendorAnswers: d.answers === 'vendor',
    triggers: resolveTriggers(d.triggers),
  };
}
