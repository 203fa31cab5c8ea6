/** The kill matrix and the clause coverage as JSON and Markdown, for reports/. */
import { mdCell } from '../report/markdown.js';
import type { CoverageReport } from './coverage.js';
import type { FaultRow } from './kill-matrix.js';

export interface ConformantRun {
  seed: number;
  webhooks: 'quick' | 'full';
  passed: number;
  failed: string[];
  skipped: number;
  /** Checks with no verdict (our machine too busy to confirm a timing finding): neither passed nor failed. */
  inconclusive?: string[];
  durationMs: number;
  /** Per clause, the checks that exercised it (an assertion evaluated it and it held) in this run. */
  exercised?: Record<string, string[]>;
}

export interface ProofReport {
  generatedAt: string;
  seed: number;
  numRuns: number;
  matrixMs: number;
  conformant: ConformantRun[];
  faults: FaultRow[];
  coverage: CoverageReport;
}

export function killMatrixMarkdown(r: ProofReport): string {
  const killed = r.faults.filter((f) => f.verdict === 'killed').length;
  const lines = [
    '# Kill matrix',
    '',
    `Generated ${r.generatedAt} by \`npm test\` (test/kill-matrix). Seed ${r.seed}` +
      `, ${r.numRuns} runs per property; matrix ${(r.matrixMs / 1000).toFixed(1)} s.`,
    'Each fault of the reference runs as its own mutant: first the profile doctor (as `run` has it), then the checks naming ' +
      'its clause; it is killed only when a check fails with a finding charged to that clause. A mutant the doctor calls a ' +
      'profile error (exit 2) is `stopped`: a failure of the matrix, since a run would stop there and advise a profile edit.',
    '',
    `**${killed} / ${r.faults.length} faults killed.**`,
    '',
    '## Conformant reference (must be all green)',
    '',
    '| seed | webhooks | passed | failed | skipped | time |',
    '|---|---|---|---|---|---|',
    ...r.conformant.map(
      (c) =>
        `| ${c.seed} | ${c.webhooks} | ${c.passed} | ${c.failed.length === 0 ? 0 : mdCell(c.failed.join(', '))}` +
        ` | ${c.skipped} | ${(c.durationMs / 1000).toFixed(1)} s |`,
    ),
    '',
    '## Faults',
    '',
    '| fault | clause | verdict | killed by | collateral | clauses failed (own, then knock-on) | doctor | time |',
    '|---|---|---|---|---|---|---|---|',
    ...r.faults.map(
      (f) =>
        `| \`${f.name}\` | \`${f.clause}\` | ${f.verdict} | ${mdCell(f.killedBy.join(', ') || f.errors.join('; ') || '—')}` +
        ` | ${mdCell(f.collateral.join(', ') || '—')} | ${mdCell(failedClausesCell(f))} | ${
          f.doctor ? `exit ${f.doctor.exitCode}${f.doctor.doubts.length ? `; doubts: ${mdCell(f.doctor.doubts.join(', '))}` : ''}` : 'off'
        } | ${(f.durationMs / 1000).toFixed(1)} s |`,
    ),
    '',
  ];
  return lines.join('\n');
}

/** The clauses a fault made fail: its own first, then the knock-on ones, each with how many checks charged it. */
function failedClausesCell(f: FaultRow): string {
  const ids = Object.keys(f.failedClauses ?? {}).sort((a, b) => Number(b === f.clause) - Number(a === f.clause) || a.localeCompare(b));
  return ids.map((id) => `${id} (${f.failedClauses[id]!.length})`).join(', ') || '—';
}

export function coverageMarkdown(r: ProofReport): string {
  const c = r.coverage;
  const row = (x: CoverageReport['rows'][number]): string =>
    `| \`${x.id}\` | ${x.level} | ${x.status}${x.reason ? `: ${mdCell(x.reason)}` : ''} | ${x.checks.length} | ` +
    `${x.exercisedBy === undefined ? '—' : x.exercisedBy.length} | ` +
    `${mdCell(x.faults.map((f) => `${f.name} (${f.verdict})`).join(', ') || '—')} |`;
  return [
    '# Clause coverage',
    '',
    `Generated ${r.generatedAt} by \`npm test\` (test/kill-matrix). A must-level service ` +
      `clause is *proved* when it has a check and a fault of that clause the check kills.`,
    '',
    `**${c.totals.proved} / ${c.totals.mustService} must-level service clauses proved; ` +
      `${c.totals.restated} restated (harness/clauses/registry.ts restatements), each by faults of its own killed by the ` +
      `restating clauses' checks; ${c.totals.allowlisted}` +
      ` allowlisted (fixtures/coverage-allowlist.json); ${c.totals.violations} gaps.**`,
    '',
    'The *exercised* column counts the checks whose assertions evaluated the clause on the conformant reference (the only credit ' +
      'a certificate gives); a proved clause exercised by none is caught by its checks only when a target takes another reading.',
    '',
    '| clause | level | status | checks | exercised on the reference | faults |',
    '|---|---|---|---|---|---|',
    ...c.rows.map(row),
    '',
  ].join('\n');
}
