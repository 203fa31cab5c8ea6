/**
 * A reading is the correct server answering one place where INTERFACE.md allows more than one
 * answer, or shows none, the other way. Like a fault it is data: `name` selects it, `doc` quotes the
 * sentences of the document that allow it, and the rest replaces behaviour hooks. Readings are
 * switched on as a set (`startReference({ readings: 'alt' })`); a server with every reading of a set
 * is as conformant as the default one, only different where the document lets it be.
 */
import type { Behaviour } from '../behaviour.js';

export interface ReadingInfo {
  readonly name: string;
  /** What the reading does, then the sentences of INTERFACE.md that allow it, quoted. */
  readonly doc: string;
}

export type Reading = ReadingInfo & Partial<Behaviour>;

export function defineReading(r: Reading): Reading {
  return r;
}

/** Renames top-level keys of an object; keys not named stay as they are. */
export function renameKeys(o: Record<string, unknown>, names: Readonly<Record<string, string>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [names[k] ?? k, v]));
}
