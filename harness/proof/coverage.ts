/**
 * Clause coverage: for every statement of the registry, the checks that enforce it and the
 * faults that prove those checks. A must-level service clause with no check, or with checks no
 * fault has shown to fail, is a gap; the allowlist names the gaps that are accepted, each with why.
 */
import type { SuiteDef } from '../check/define.js';
import { type Clause, clauses as registry, restatements } from '../clauses/registry.js';
import { checksNaming, type FaultRow } from './kill-matrix.js';

export type CoverageStatus = 'proved' | 'restated' | 'unproved' | 'unchecked' | 'allowlisted' | 'not-gated';

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
  /** Why an allowlisted gap is accepted, or which clauses prove a restated one. */
  reason?: string;
  /** Checks that exercised the clause on the conformant reference (when the proof ran it). */
  exercisedBy?: string[];
}

export interface CoverageReport {
  rows: ClauseCoverage[];
  /** Must-level service clauses that are gaps and not allowlisted: each fails the gate. */
  violations: ClauseCoverage[];
  /** Allowlist entries for clauses that are no longer gaps (or no longer exist): stale, also fail the gate. */
  staleAllowlist: string[];
  totals: { mustService: number; proved: number; restated: number; allowlisted: number; violations: number };
}

export type { Allowlist } from '../report/no-check.js';
import type { Allowlist } from '../report/no-check.js';

export function clauseCoverage(
  suites: SuiteDef[],
  faults: FaultRow[],
  allowlist: Allowlist,
  clauses: readonly Clause[] = registry,
  exercised?: Record<string, string[]>,
): CoverageReport {
  const own = clauses.map((c) => {
    // Checks naming the clause itself, then (for a restated clause) those naming a clause that restates it.
    const checks = checksNaming(suites, c.id).map((p) => p.check.id);
    const ownChecks = suites.flatMap((s) => s.checks.filter((k) => (k.clauses as readonly string[]).includes(c.id)).map((k) => k.id));
    const mine = faults.filter((f) => f.clause === c.id).map((f) => ({ name: f.name, verdict: f.verdict }));
    const proved = ownChecks.length > 0 && mine.some((f) => f.verdict === 'killed');
    return { c, checks, mine, proved };
  });
  const rows = own.map(({ c, checks, mine, proved }): ClauseCoverage => {
    const base = {
      id: c.id,
      level: c.level,
      party: c.party,
      section: c.section,
      text: c.text,
      checks,
      faults: mine,
      ...(exercised ? { exercisedBy: exercised[c.id] ?? [] } : {}),
    };
    if (c.level !== 'must' || c.party !== 'service') return { ...base, status: 'not-gated' };
    if (proved) return { ...base, status: 'proved' };
    // A restatement is a claim to prove: the clause's own faults, each killed by the restating clauses' checks.
    const same = restatements[c.id];
    if (same && mine.length > 0 && mine.every((f) => f.verdict === 'killed'))
      return {
        ...base,
        status: 'restated',
        reason: `restates ${same.join(', ')}: ${mine.map((f) => f.name).join(', ')} killed by their checks`,
      };
    if (allowlist[c.id] !== undefined) return { ...base, status: 'allowlisted', reason: allowlist[c.id] };
    return { ...base, status: checks.length === 0 ? 'unchecked' : 'unproved' };
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
      restated: gatedRows.filter((r) => r.status === 'restated').length,
      allowlisted: gatedRows.filter((r) => r.status === 'allowlisted').length,
      violations: violations.length,
    },
  };
}
