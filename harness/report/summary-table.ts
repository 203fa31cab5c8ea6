import { verdictLabel, type Certificate } from './certificate.js';
import { declareHints } from './declare-hints.js';

function table(head: string[], rows: (string | number)[][]): string[] {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [fmt(head), widths.map((w) => '─'.repeat(w)).join('  '), ...cells.slice(1).map(fmt)];
}

/** The end-of-run summary on the terminal: per suite, per clause level, the verdict and where the reports are. */
export function summaryText(c: Certificate, where: { html?: string; certificate: string; junit?: string; repro?: string }): string {
  const L: string[] = [''];
  const t = c.summary.checks;
  // A "no verdict" column only when some check got none (throttled, machine too busy).
  const nv = (t.inconclusive ?? 0) > 0;
  const suiteRows = c.suites.map((s) => [
    s.suite,
    s.passed,
    s.failed,
    s.expectedFail,
    s.skipped,
    s.broken,
    ...(nv ? [s.inconclusive ?? 0] : []),
  ]);
  suiteRows.push([
    'total',
    t.passed + t.unexpectedPass,
    t.failed,
    t.expectedFail,
    t.skipped + t.expectedSkip,
    t.broken + t.unreachable,
    ...(nv ? [t.inconclusive] : []),
  ]);
  L.push(
    ...table(['suite', 'passed', 'failed', 'expected fail', 'skipped', 'harness error', ...(nv ? ['no verdict'] : [])], suiteRows),
    '',
  );
  const lv = c.summary.clauses;
  L.push(
    ...table(
      ['clauses', 'passed', 'failed', 'not met', 'disputed', 'skipped (precondition)', 'not checked', 'unspecified'],
      (['must', 'should', 'unspecified'] as const).map((l) => [
        l,
        lv[l].passed,
        lv[l].failed,
        lv[l]['not-met'],
        lv[l].disputed,
        lv[l]['skipped-precondition'],
        lv[l]['not-checked'],
        lv[l].unspecified,
      ]),
    ),
    '',
  );
  const failed = c.clauses.filter((x) => x.status === 'failed');
  if (failed.length) {
    L.push('Failed clauses:');
    for (const x of failed)
      L.push(
        `  ${x.id} (${x.level})${x.knownDeviation ? ' — known deviation' : ''}: ` +
          `${[...new Set(x.failures.map((f) => f.checkId))].slice(0, 3).join(', ')}`,
      );
    L.push('');
  }
  // The level of each line is the certificate's clause status, itself from the findings' level: one source.
  if (c.shouldNotMet.length) {
    L.push('Should-level recommendations not met (do not change the verdict):');
    for (const x of c.shouldNotMet) L.push(`  ${x.clause}: ${x.checks.slice(0, 3).join(', ')}`);
    L.push('');
  }
  if (c.disputes.length) {
    L.push('DISPUTED checks (the vendor says the check is wrong; counted neither as passed nor as failed):');
    for (const d of c.disputes) L.push(`  ${d.checkId} (${d.clauses.join(', ')}): ${d.reason} — ${d.link}`);
    L.push('');
  }
  const hints = declareHints(c);
  if (hints.length) {
    L.push('Skipped for a precondition (what to change to run them):');
    for (const h of hints)
      L.push(`  ${h.hint}: ${h.clauses.slice(0, 4).join(', ')}${h.clauses.length > 4 ? ` (+${h.clauses.length - 4})` : ''}`);
    L.push('');
  }
  for (const w of c.warnings) L.push(`warning: ${w}`);
  if (c.warnings.length) L.push('');
  L.push(`Verdict: ${verdictLabel(c)}${c.scope === 'partial' ? ' (partial run)' : ''} — exit code ${c.exitCode}`);
  for (const r of c.reasons) L.push(`  · ${r}`);
  L.push(`Seed ${c.seed}${c.commands.replay ? `; replay: ${c.commands.replay}` : ` (replay with --seed ${c.seed})`}`);
  L.push(`Certificate: ${where.certificate}`);
  if (where.html) L.push(`Report:      ${where.html}`);
  if (where.junit) L.push(`JUnit:       ${where.junit}`);
  if (where.repro && c.repro.length) L.push(`Repro:       ${where.repro} (${c.repro.length} script${c.repro.length === 1 ? '' : 's'})`);
  return `${L.join('\n')}\n`;
}
