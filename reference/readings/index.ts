/**
 * The reading catalogue and the named sets of readings. The default set is empty (the reference as
 * documented in reference/README.md); `alt` takes every other reading (but BY_NAME_ONLY), so the kit proves on every
 * `npm test` that its checks accept both (fixtures/profiles/reference-alt.json describes it).
 * Hooks that edit a value (field names, records, errors, authentication outcomes) are chained in
 * the order of the set, so two readings touching the same hook both apply.
 */
import { type Behaviour, defaultBehaviour } from '../behaviour.js';
import * as amounts from './amounts.js';
import * as auth from './auth.js';
import * as codes from './codes.js';
import type { Reading, ReadingInfo } from './reading.js';
import * as records from './records.js';
import * as requests from './requests.js';

const AREAS: ReadonlyArray<Record<string, unknown>> = [records, requests, codes, auth, amounts];

function isReading(v: unknown): v is Reading {
  return typeof v === 'object' && v !== null && typeof (v as Reading).name === 'string' && typeof (v as Reading).doc === 'string';
}

// Sorted by name within an area, as the fault catalogue is (module namespace order differs between runners).
export const READINGS: readonly Reading[] = AREAS.flatMap((area) =>
  Object.values(area)
    .filter(isReading)
    .sort((a, b) => (a.name < b.name ? -1 : 1)),
);

export const readingCatalogue: ReadonlyArray<ReadingInfo> = Object.freeze(READINGS.map((r) => Object.freeze({ name: r.name, doc: r.doc })));

/** Readings that rename fields come after those that change values, so the values are found under their own names. */
const RENAMES_LAST = (r: Reading): number => (r.name.endsWith('-field-names') ? 1 : 0);

/**
 * Readings selected only by name (target, reproduced for init's tests): `alt` leaves them out,
 * as fixtures/profiles/reference-alt.json does not describe them.
 */
export const BY_NAME_ONLY: ReadonlySet<string> = new Set(['extra-money-fields', 'payout-amount-field']);

export const READING_SETS: Readonly<Record<string, readonly string[]>> = {
  default: [],
  alt: [...READINGS]
    .filter((r) => !BY_NAME_ONLY.has(r.name))
    .sort((a, b) => RENAMES_LAST(a) - RENAMES_LAST(b))
    .map((r) => r.name),
};

/** A set name or a list of reading names, to the names. */
export function readingNames(sel: string | readonly string[] | undefined): readonly string[] {
  if (sel === undefined) return [];
  if (typeof sel === 'string') {
    const set = READING_SETS[sel];
    if (set === undefined)
      throw new Error(`Unknown reading set ${JSON.stringify(sel)}. Known sets: ${Object.keys(READING_SETS).join(', ')}`);
    return set;
  }
  for (const n of sel) {
    if (!READINGS.some((r) => r.name === n))
      throw new Error(`Unknown reading ${JSON.stringify(n)}. Known readings: ${READINGS.map((r) => r.name).join(', ')}`);
  }
  return sel;
}

const INFO_KEYS: ReadonlySet<string> = new Set(['name', 'doc']);

/** The correct behaviour (`base`: the target's own choices on top of it) answering the named readings the other way. */
export function behaviourWithReadings(names: readonly string[], base: Behaviour = defaultBehaviour): Behaviour {
  let b: Behaviour = { ...base };
  for (const name of names) {
    const r = READINGS.find((x) => x.name === name)!;
    const prev = b;
    const next: Behaviour = {
      ...prev,
      ...(Object.fromEntries(Object.entries(r).filter(([k]) => !INFO_KEYS.has(k))) as Partial<Behaviour>),
    };
    if (r.finishView) next.finishView = (kind, view) => r.finishView!(kind, prev.finishView(kind, view));
    if (r.normaliseRequest) next.normaliseRequest = (body, route) => r.normaliseRequest!(prev.normaliseRequest(body, route), route);
    if (r.finishWebhookBody) next.finishWebhookBody = (body, source) => r.finishWebhookBody!(prev.finishWebhookBody(body, source), source);
    if (r.mapError) next.mapError = (err, path) => r.mapError!(prev.mapError(err, path), path);
    if (r.authOutcome) next.authOutcome = (o) => (prev.authOutcome(o) === 'ok' ? 'ok' : r.authOutcome!(prev.authOutcome(o)));
    b = next;
  }
  return b;
}
