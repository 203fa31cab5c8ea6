/**
 * The variables of sandbox.armFailure's template, for one failure kind: shared by the checks (harness/ops.ts), the
 * doctor and the loader, so the three agree on what a switch of one value, of several values, or matching a refund by
 * its refund number is sent.
 */
import type { ExclusiveScope, Operation, SectionSpec } from '../http/exclusive.js';
import type { ArmFailureKind, ArmFailureValue, Profile } from './types.js';

export type ArmFailureControl = NonNullable<NonNullable<Profile['sandbox']>['armFailure']>;

/** The kinds that arm a refund's creation: they may be matched by the refund's own number. */
export const REFUND_KINDS: readonly ArmFailureKind[] = ['refundSystemBusy', 'refundFailed'];

/** Variables the kit itself provides: a key of a several-values failure cannot take one of these names. */
export const PROVIDED_VARIABLES = ['failure', 'merchantOrderNo', 'merchantRefundNo', 'subject'] as const;

/** The operation of the request each failure is armed for (harness/http/exclusive.ts `Operation`). */
export const ARM_OPERATIONS: Readonly<Record<ArmFailureKind, Operation>> = {
  queryFailed: 'payment.query',
  orderCreationFailed: 'payment.create',
  refundSystemBusy: 'refund.create',
  refundFailed: 'refund.create',
};

/** Which requests an armed failure may hit: the profile's word (version 4), or any request to the target. */
export function armScope(arm: ArmFailureControl): ExclusiveScope {
  return arm.scope ?? 'target';
}

/** How many requests one arming fails. */
export function armCount(arm: ArmFailureControl): number {
  return arm.count ?? 1;
}

/** The exclusive section arming `kind` as `merchantId` needs: from arming until every failure it armed was seen. */
export function armSection(arm: ArmFailureControl, kind: ArmFailureKind, merchantId: string): SectionSpec {
  return { scope: armScope(arm), merchant: merchantId, operation: ARM_OPERATIONS[kind], label: `an armed ${kind}` };
}

/** The numbers a switch may be armed for. */
export interface ArmSubjects {
  merchantOrderNo?: string;
  /** Only for a refund kind: the refund will be created with this number. */
  merchantRefundNo?: string;
}

function valueNames(v: ArmFailureValue | undefined): string[] {
  return v !== undefined && typeof v === 'object' ? Object.keys(v) : [];
}

/** What the switch matches this kind's failure by. */
export function subjectOf(arm: ArmFailureControl, kind: ArmFailureKind): 'merchantOrderNo' | 'merchantRefundNo' {
  return REFUND_KINDS.includes(kind) && arm.refundSubject === 'merchantRefundNo' ? 'merchantRefundNo' : 'merchantOrderNo';
}

/**
 * The template variables for arming `kind`: every name any declared kind uses is provided (undefined, so its field is
 * left out, where this kind does not give it), then this kind's own values and the subject numbers.
 */
export function armVariables(arm: ArmFailureControl, kind: ArmFailureKind, subjects: ArmSubjects): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const v of Object.values(arm.failures)) for (const n of valueNames(v)) vars[n] = undefined;
  const value = arm.failures[kind];
  vars['failure'] = typeof value === 'string' ? value : undefined;
  if (value !== undefined && typeof value === 'object') Object.assign(vars, value);
  const refund = REFUND_KINDS.includes(kind);
  vars['merchantOrderNo'] = subjects.merchantOrderNo;
  vars['merchantRefundNo'] = refund ? subjects.merchantRefundNo : undefined;
  vars['subject'] = subjects[subjectOf(arm, kind)];
  return vars;
}

const VARIABLE = /\$\{([A-Za-z][A-Za-z0-9]*)\}/g;

/** Problems of one armFailure section (dotted paths from `at`), for the loader: names it cannot fill, names it would shadow. */
export function armFailureProblems(arm: unknown, at: string, version: unknown): string[] {
  if (arm === null || typeof arm !== 'object') return [];
  const a = arm as Partial<ArmFailureControl>;
  const out: string[] = [];
  const failures = (a.failures ?? {}) as Record<string, ArmFailureValue | undefined>;
  const names = new Set<string>(['merchantOrderNo', 'merchantRefundNo', 'subject']);
  for (const [kind, v] of Object.entries(failures)) {
    if (typeof v === 'string') names.add('failure');
    if (v === undefined || typeof v !== 'object') continue;
    if (version === 1 || version === 2)
      out.push(
        `${at}.failures.${kind}: several values (an object) is a profile format version 3 form, ` +
          `but the profile says "profileVersion": ${String(version)} (set it to 3, or give one string)`,
      );
    for (const n of Object.keys(v)) {
      names.add(n);
      if ((PROVIDED_VARIABLES as readonly string[]).includes(n))
        out.push(
          `${at}.failures.${kind}.${n}: is a variable the kit provides itself (${PROVIDED_VARIABLES.join(', ')}); choose another name`,
        );
    }
  }
  const used = [...JSON.stringify(a.template ?? {}).matchAll(VARIABLE)].map((m) => m[1]!);
  for (const n of new Set(used))
    if (!names.has(n))
      out.push(
        `${at}.template: \${${n}} is not a variable of this control (${[...names].join(', ')}): ` +
          `give it as a key of a failure's values, or use one of these`,
      );
  if (a.refundSubject === 'merchantRefundNo' && !used.includes('merchantRefundNo') && !used.includes('subject'))
    out.push(
      `${at}.refundSubject: the switch matches refunds by their number, ` +
        `but the template sends neither \${merchantRefundNo} nor \${subject}`,
    );
  return out;
}
