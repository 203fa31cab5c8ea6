/**
 * The magic-value triggers gene (fixtures/arbitraries/genes/triggers.ts) mapped: what the reference is given
 * (`sandbox.triggers`, reference/magic-triggers.ts, in place of the README's) and what the true profile says
 * (`sandbox.triggers`, version 5, and the switch sandbox.armFailure or not).
 */
import { TRIGGER_KINDS, type TriggerKind, type TriggersGene } from '../../../fixtures/arbitraries/genes/triggers.js';
import type { FailureTrigger, Profile } from '../../../harness/profile/types.js';
import type { TargetDescription } from '../../../reference/index.js';

/** The reference's name of each kind (reference/store.ts ARMABLE_FAILURES). */
const ARMED: Readonly<Record<TriggerKind, 'QUERY_FAILED' | 'ORDER_CREATION_FAILED' | 'REFUND_SYSTEM_BUSY' | 'REFUND_FAILED'>> = {
  queryFailed: 'QUERY_FAILED',
  orderCreationFailed: 'ORDER_CREATION_FAILED',
  refundSystemBusy: 'REFUND_SYSTEM_BUSY',
  refundFailed: 'REFUND_FAILED',
};

type SandboxDescription = NonNullable<TargetDescription['sandbox']>;

/** The target's triggers: exactly the drawn ways (none drawn: none), laid into its sandbox description. */
export function triggersDescription(g: TriggersGene | undefined, sandbox: SandboxDescription | undefined): SandboxDescription | undefined {
  if (!g) return sandbox;
  const triggers = Object.fromEntries(
    TRIGGER_KINDS.filter((k) => (g.ways[k] ?? []).length > 0).map((k) => [ARMED[k], g.ways[k]!.map((w) => ({ ...w }))]),
  );
  return { ...(sandbox ?? {}), triggers } as SandboxDescription;
}

/** The true profile's ways (version 5), and the switch left unsaid where the gene says so (the target keeps it). */
export function editTriggers(p: Profile, g: TriggersGene | undefined): void {
  if (!g) return;
  const sb = p.sandbox!;
  const declared = TRIGGER_KINDS.filter((k) => (g.ways[k] ?? []).length > 0);
  if (declared.length > 0) sb.triggers = Object.fromEntries(declared.map((k) => [k, g.ways[k]!.map((w) => ({ ...w }) as FailureTrigger)]));
  else delete sb.triggers;
  if (!g.declareSwitch) delete sb.armFailure;
  p.profileVersion = 5;
}
