/**
 * Nothing the kit saw is forgotten: a doubt of the doctor (the target answered, given the profile, what breaks a clause)
 * is evidence in the run's verdict. Each doubt becomes a result beside the checks' (suite `doctor`), failed with one
 * finding per clause it names and the exchange that showed it, so the clause fails even when no check met the same
 * answer (a check draws its own values: the doctor's EUR payout on a USD-only method was never drawn again, and the
 * clause passed). The doubt stays beside the clause in the certificate with what to change if it is the profile that is
 * wrong. Written into the run's results folder, the verdict and `verify-certificate` read it as any check's result.
 */
import { levelOfFinding } from '../check/failure.js';
import type { Redactor } from '../kit/redact.js';
import { type StoredResult, writeResult } from '../run/results.js';
import type { DoctorItem, DoctorReport } from './model.js';

/** The suite name of the doctor's results. */
export const DOCTOR_SUITE = 'doctor';

/** The finding code of an answer the doctor saw break a clause. */
export const DOCTOR_SAW = 'DOCTOR_SAW_IT';

function checkIdOf(item: DoctorItem): string {
  return `${DOCTOR_SUITE}/${item.path.replace(/[^A-Za-z0-9_.-]+/g, '-')}`;
}

/** The doctor's doubts as failed results, one per doubt (two doubts on one path are one result with both findings). */
export function doubtResults(report: DoctorReport, where: { target: string; profile: string; seed: number }): StoredResult[] {
  const byId = new Map<string, StoredResult>();
  const evidence = new Map((report.evidence ?? []).map((e) => [e.id, e]));
  for (const item of report.items) {
    if (item.status !== 'doubt' || !item.clauses?.length) continue;
    const id = checkIdOf(item);
    const r: StoredResult = byId.get(id) ?? {
      checkId: id,
      suite: DOCTOR_SUITE,
      title: `the profile doctor saw the target break a clause, given ${item.path}`,
      clauses: [],
      level: 'must',
      status: 'failed',
      findings: [],
      exchanges: [],
      readings: {},
      notes: [],
      exercised: [],
      seed: where.seed,
      durationMs: 0,
      target: where.target,
      profile: where.profile,
    };
    const shown = (item.exchanges ?? []).flatMap((x) => {
      const e = evidence.get(x);
      return e ? [e] : [];
    });
    for (const e of shown) if (!r.exchanges.some((k) => k.id === e.id)) r.exchanges.push(e);
    for (const clause of item.clauses) {
      if (!r.clauses.includes(clause)) r.clauses.push(clause);
      const title = `the doctor saw it: ${item.assumption} — ${item.answered ?? 'answered otherwise'}`;
      r.findings.push({
        code: DOCTOR_SAW,
        clause,
        level: levelOfFinding({ clause }, 'must'),
        title,
        message: `${title}. ${item.fix ?? ''}`.trim(),
        ...(item.expected !== undefined ? { expected: item.expected } : {}),
        ...(item.answered !== undefined ? { seen: item.answered } : {}),
        ...(shown[0] ? { exchangeId: shown[0].id } : {}),
      });
    }
    byId.set(id, r);
  }
  return [...byId.values()];
}

/** Writes the doubts' results into the run's results folder (redacted as every result is). */
export function writeDoubtResults(dir: string, results: readonly StoredResult[], redact: Redactor): void {
  for (const r of results) writeResult(dir, r, redact);
}
