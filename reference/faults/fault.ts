/**
 * A fault is the correct server with some behaviour hooks replaced. It is data, not a code
 * branch: `name` selects it, `clause` says which rule of the interface it breaks, `doc` says how.
 */
import type { Behaviour } from '../behaviour.js';

export interface FaultInfo {
  readonly name: string;
  /** Dotted id of the broken rule, area.topic.detail. */
  readonly clause: string;
  readonly doc: string;
}

export type Fault = FaultInfo & Partial<Behaviour>;

export function defineFault(f: Fault): Fault {
  return f;
}
