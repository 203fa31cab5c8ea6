/**
 * One Allure result per clause comparison, in the result-file format allure-vitest writes, so the
 * Allure CLI (`npx allure generate <reports>/parity/allure-results`) renders the parity run like a
 * conformance run: equal = passed, different = failed, declared = passed with the reason,
 * skipped on one or both sides = skipped.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../kit/redact.js';
import type { ClauseRow } from './compare.js';
import { evidencePairs } from './evidence.js';
import type { ParityResult } from './run.js';
import { firstLine } from '../kit/text.js';

function status(row: ClauseRow): 'passed' | 'failed' | 'skipped' {
  return row.verdict === 'different' ? 'failed' : row.verdict === 'equal' || row.verdict === 'declared' ? 'passed' : 'skipped';
}

function message(row: ClauseRow, r: ParityResult): string {
  const lines = [`PARITY ${row.verdict.toUpperCase()}: ${r.a.profile} (A) vs ${r.b.profile} (B), ${row.checks.length} checks`];
  for (const d of row.differences.slice(0, 20))
    lines.push(
      `${d.declared ? 'DECLARED ' : ''}${d.aspect} in ${d.checkId}: ${firstLine(d.detail)}${d.declared ? ` (${d.declared})` : ''}`,
    );
  for (const c of row.oneSideSkipped) lines.push(`skipped on one side: ${c}`);
  return lines.join('\n');
}

export function writeParityAllure(dir: string, r: ParityResult, redact: Redactor): void {
  mkdirSync(dir, { recursive: true });
  const now = Date.now();
  const byCheck = new Map(r.comparisons.map((c) => [c.checkId, c]));
  for (const row of r.rows) {
    const uuid = randomUUID();
    const attachments: { name: string; source: string; type: string }[] = [];
    const checks = [...new Set(row.differences.map((d) => d.checkId))];
    for (const id of checks) {
      const c = byCheck.get(id);
      if (!c) continue;
      for (const [i, p] of evidencePairs(c, r.evidence.get(id)).entries()) {
        const source = `${randomUUID()}-attachment.txt`;
        writeFileSync(join(dir, source), redact(`===== A: ${r.a.profile} =====\n${p.a}\n\n===== B: ${r.b.profile} =====\n${p.b}\n`));
        attachments.push({ name: `${id} — exchanges side by side${i ? ` (${i + 1})` : ''}`, source, type: 'text/plain' });
      }
    }
    const result = {
      uuid,
      historyId: createHash('md5').update(`parity:${row.clause}`).digest('hex'),
      testCaseId: createHash('md5').update(`parity:${row.clause}`).digest('hex'),
      name: `parity of ${row.clause}`,
      fullName: `parity/${row.clause}`,
      status: status(row),
      statusDetails: { message: message(row, r) },
      stage: 'finished',
      start: now,
      stop: now,
      labels: [
        { name: 'epic', value: 'Sandbox parity' },
        { name: 'feature', value: row.clause.split('.', 1)[0] },
        { name: 'story', value: row.clause },
        { name: 'suite', value: 'parity' },
        { name: 'tag', value: row.verdict },
      ],
      parameters: [
        { name: 'A', value: r.a.profile },
        { name: 'B', value: r.b.profile },
        { name: 'seed', value: String(r.seed) },
      ],
      attachments,
      steps: [],
    };
    writeFileSync(join(dir, `${uuid}-result.json`), redact(JSON.stringify(result)));
  }
}
