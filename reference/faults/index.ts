/**
 * The fault catalogue and how faults combine with the correct behaviour: hooks are overlaid in
 * the order the names are given, so when two faults replace the same hook the later one wins.
 * Every `defineFault` export of the area modules below is a catalogue entry.
 */
import { type Behaviour, defaultBehaviour } from '../behaviour.js';
import * as amounts from './amounts.js';
import * as auth from './auth.js';
import * as capabilities from './capabilities.js';
import * as delivery from './delivery.js';
import * as errors from './errors.js';
import type { Fault, FaultInfo } from './fault.js';
import * as idempotency from './idempotency.js';
import * as lifecycle from './lifecycle.js';
import * as requests from './requests.js';
import * as responses from './responses.js';
import * as triggers from './triggers.js';
import * as webhooks from './webhooks.js';

const AREAS: ReadonlyArray<Record<string, unknown>> = [
  auth,
  responses,
  requests,
  amounts,
  errors,
  idempotency,
  lifecycle,
  webhooks,
  delivery,
  capabilities,
  triggers,
];

function isFault(v: unknown): v is Fault {
  return typeof v === 'object' && v !== null && typeof (v as Fault).name === 'string' && typeof (v as Fault).clause === 'string';
}

// Sorted by name within an area: module namespaces list their exports in an order that differs
// between Node and vitest's transform, and the catalogue's order shows in reports.
export const FAULTS: readonly Fault[] = AREAS.flatMap((area) =>
  Object.values(area)
    .filter(isFault)
    .sort((a, b) => (a.name < b.name ? -1 : 1)),
);

const duplicate = FAULTS.find((f, i) => FAULTS.findIndex((g) => g.name === f.name) !== i);
if (duplicate !== undefined) throw new Error(`Fault name ${duplicate.name} is defined twice`);

export const faultCatalogue: ReadonlyArray<FaultInfo> = Object.freeze(
  FAULTS.map((f) => Object.freeze({ name: f.name, clause: f.clause, doc: f.doc })),
);

const INFO_KEYS: ReadonlySet<string> = new Set(['name', 'clause', 'doc']);

/**
 * Hooks that a reading of the base behaviour also sets are composed, not replaced: a fault is a mistake of the
 * service's core, a reading how the service legally takes requests and renders answers. A request is read by the
 * reading first (its field names), then by the fault; an answer is made by the fault first, then rendered by the
 * reading. Replaced, a fault would also undo the reading (bench/legal-targets.ts --kill: `method-defaults-to-card`
 * dropped `other-request-field-names`' renaming, and the doctor rightly found the refund and payout fields wrong).
 * `base` is the behaviour the faults are laid over: the correct one, or one answering other readings.
 */
export function behaviourWith(names: readonly string[], base: Behaviour = defaultBehaviour): Behaviour {
  let overlay: Partial<Behaviour> = {};
  for (const name of names) {
    const fault = FAULTS.find((f) => f.name === name);
    if (fault === undefined) {
      throw new Error(`Unknown fault ${JSON.stringify(name)}. Known faults: ${FAULTS.map((f) => f.name).join(', ')}`);
    }
    const overrides = Object.fromEntries(Object.entries(fault).filter(([k]) => !INFO_KEYS.has(k)));
    overlay = { ...overlay, ...overrides };
  }
  const b: Behaviour = { ...base, ...overlay };
  const read = (k: keyof Behaviour) => overlay[k] !== undefined && base[k] !== defaultBehaviour[k];
  const f = overlay;
  if (read('normaliseRequest')) b.normaliseRequest = (body, route) => f.normaliseRequest!(base.normaliseRequest(body, route), route);
  if (read('authOutcome')) b.authOutcome = (o) => f.authOutcome!(base.authOutcome(o));
  if (read('mapError')) b.mapError = (err, path) => base.mapError(f.mapError!(err, path), path);
  if (read('finishView')) b.finishView = (kind, view) => base.finishView(kind, f.finishView!(kind, view));
  if (read('finishWebhookBody')) b.finishWebhookBody = (body, source) => base.finishWebhookBody(f.finishWebhookBody!(body, source), source);
  return b;
}
