/**
 * Clause coverage: for every statement of the registry, the checks that enforce it and the
 * faults that prove those checks. A must-level service clause with no check, or with checks no
 * fault has shown to fail, is a gap; the allowlist names the gaps that are accepted, each with why.
 */
import type { SuiteDef } from '../check/define.js';
import { type Clause, clauses as registry } from '../clauses/registry.js';
import type { FaultRow } from './kill-matrix.js';

export type CoverageStatus = 'proved' | 'unproved' | 'unchecked' | 'allowlisted' | 'not-gated';

export interface ClauseCoverage {
  id: string;
  level: Clause['level'];
  party: Clause['party'];
  section: string;
  text: string;
  checks: string[];
  /** Faults of this clause and their verdicts. */
  faults: { name: string; verdict: FaultRow['verdict'] }[];
  status: CoverageStatus;
  /** Why an allowlisted gap is accepted. */
  reason?: string;
}

export interface CoverageReport {
  rows: ClauseCoverage[];
  /** Must-level service clauses that are gaps and not allowlisted: each fails the gate. */
  violations: ClauseCoverage[];
  /** Allowlist entries for clauses that are no longer gaps (or no longer exist): stale, also fail the gate. */
  staleAllowlist: string[];
  totals: { mustService: number; proved: number; allowlisted: number; violations: number };
}

export type Allowlist = Record<string, string>;

export function clauseCoverage(suites: SuiteDef[], faults: FaultRow[], allowlist: Allowlist, clauses: readonly Clause[] = registry): CoverageReport {
  const rows = clauses.map((c): ClauseCoverage => {
    const checks = suites.flatMap((s) => s.checks.filter((k) => k.clauses.includes(c.id)).map((k) => k.id));
    const mine = faults.filter((f) => f.clause === c.id).map((f) => ({ name: f.name, verdict: f.verdict }));
    const gated = c.level === 'must' && c.party === 'service';
    const gap = checks.length === 0 ? 'unchecked' : mine.some((f) => f.verdict === 'killed') ? undefined : 'unproved';
    const status: CoverageStatus = !gated ? 'not-gated' : gap === undefined ? 'proved' : allowlist[c.id] !== undefined ? 'allowlisted' : gap;
    return { id: c.id, level: c.level, party: c.party, section: c.section, text: c.text, checks, faults: mine, status, ...(status === 'allowlisted' ? { reason: allowlist[c.id] } : {}) };
  });
  const violations = rows.filter((r) => r.status === 'unchecked' || r.status === 'unproved');
  const byId = new Map(rows.map((r) => [r.id, r]));
  const staleAllowlist = Object.keys(allowlist).filter((id) => byId.get(id)?.status !== 'allowlisted');
  const gatedRows = rows.filter((r) => r.status !== 'not-gated');
  return {
    rows,
    violations,
    staleAllowlist,
    totals: {
      mustService: gatedRows.length,
      proved: gatedRows.filter((r) => r.status === 'proved').length,
      allowlisted: gatedRows.filter((r) => r.status === 'allowlisted').length,
      violations: violations.length,
    },
  };
}
