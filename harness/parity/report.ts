/**
 * The parity report: parity.json (everything, machine-readable), parity.md (per clause; each
 * difference with the two exchanges side by side) and requests.md (every request each side was
 * asked to send). Every text passes the redactor: no merchant secret reaches a file.
 */
import { mdCell } from '../report/markdown.js';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redactor } from '../kit/redact.js';
import { kitInfo } from '../report/kit.js';
import { maskUrl } from '../report/mask.js';
import type { Difference } from './compare.js';
import { evidencePairs } from './evidence.js';
import type { ParityResult, SideInfo } from './run.js';
import { writeParityAllure } from './allure.js';
import { firstLine } from '../kit/text.js';

export interface ParityPaths {
  dir: string;
  json: string;
  md: string;
  requests: string;
  allureResults: string;
}

export function parityPaths(dir: string): ParityPaths {
  return {
    dir,
    json: join(dir, 'parity.json'),
    md: join(dir, 'parity.md'),
    requests: join(dir, 'requests.md'),
    allureResults: join(dir, 'allure-results'),
  };
}

export interface ReportContext {
  redact: Redactor;
  exitCode: number;
  /** The command line that replays this run. */
  replay: string;
  filters: { suites: string[]; clauses: string[] };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function sideLine(s: SideInfo): string {
  const target = s.target === 'embedded' ? 'embedded reference' : maskUrl(s.target);
  return `${s.profile} (${s.environment}) at ${target}${s.faults.length ? `, faults: ${s.faults.join(', ')}` : ''}`;
}

const html = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function diffLine(d: Difference): string {
  const why =
    d.chargedBy === 'same difference'
      ? ` (same difference as judged in ${d.via})`
      : d.chargedBy === 'main clause'
        ? ' (no check judged it: charged to the check’s main clause)'
        : '';
  return (
    `- ${d.declared ? '**declared** ' : ''}\`${d.aspect}\` in \`${d.checkId}\`: ` +
    `${d.detail.replace(/\n/g, ' ')}${why}${d.declared ? ` — declared: ${d.declared}` : ''}`
  );
}

function markdown(r: ParityResult, ctx: ReportContext): string {
  const f = r.figures;
  const L: string[] = [];
  L.push('# Sandbox parity report', '');
  L.push(`- **A**: ${sideLine(r.a)}`, `- **B**: ${sideLine(r.b)}`);
  L.push(
    `- seed ${r.seed}, ${r.numRuns} runs per property, webhooks ${r.webhooks}` +
      `${r.safe ? ', **production-safe mode** (only requests that move no money were sent)' : ''}`,
  );
  const filters = [...ctx.filters.suites.map((s) => `suite ${s}`), ...ctx.filters.clauses.map((c) => `clause ${c}`)].join(', ');
  L.push(`- filters: ${filters || 'none (all checks)'}`);
  L.push(`- replay: \`${ctx.replay}\``, `- kit ${kitInfo().name} ${kitInfo().version}, ${Math.round(r.durationMs)} ms`, '');
  L.push(`## Parity: ${pct(f.ratio)} of compared clauses equal`, '');
  L.push(
    `Clauses: ${f.clauses.equal} equal, ${f.clauses.different} different, ${f.clauses.declared} different as ` +
      `declared, ${f.clauses['one side skipped']} skipped on one side, ${f.clauses['both skipped']} skipped on both.`,
  );
  L.push(
    `Checks: ${f.checks.equal} equal, ${f.checks.different} different, ${f.checks['one side skipped']}` +
      ` skipped on one side, ${f.checks['both skipped']} skipped on both.`,
  );
  L.push(
    `Undeclared differences: ${f.undeclared}. Unstable checks (not counted): ${f.unstable}. Exit code ${ctx.exitCode}` +
      `${ctx.exitCode === 0 ? ' (no difference outside the declared ones)' : ' (a difference remains outside the declared ones)'}.`,
    '',
  );
  L.push('| clause | verdict | checks | differences |', '|---|---|---|---|');
  for (const row of r.rows) L.push(`| \`${row.clause}\` | ${row.verdict} | ${row.checks.length} | ${row.differences.length} |`);
  const differing = r.comparisons.filter((c) => c.verdict === 'different');
  if (differing.length) {
    L.push('', '## Differences', '');
    for (const row of r.rows.filter((x) => x.differences.length)) {
      L.push(`### \`${row.clause}\` — ${row.verdict}`, '');
      for (const d of row.differences) L.push(diffLine(d));
      L.push('');
    }
    L.push('## Exchanges side by side', '');
    for (const c of differing) {
      L.push(
        `### \`${c.checkId}\``,
        '',
        `${c.title} — A ${c.status.a}, B ${c.status.b}` +
          `${c.moreExchangeDifferences ? `; ${c.moreExchangeDifferences} more exchange differences not listed` : ''}`,
        '',
      );
      for (const p of evidencePairs(c, r.evidence.get(c.checkId))) {
        L.push(
          '<table><tr><th>A</th><th>B</th></tr><tr>',
          `<td valign="top"><pre>${html(p.a)}</pre></td>`,
          `<td valign="top"><pre>${html(p.b)}</pre></td>`,
          '</tr></table>',
          '',
        );
      }
    }
  }
  const unstable = r.comparisons.filter((c) => c.unstable);
  if (unstable.length) {
    L.push(
      '## Unstable (not counted)',
      '',
      'These checks differed in one run and compared equal in a confirmation run of the same pair: their outcome ' +
        'depends on timing or on how parallel requests interleave, not on a behaviour the targets reliably differ in.',
      '',
    );
    for (const c of unstable)
      L.push(
        `- \`${c.checkId}\`: different in ${c.unstable!.differentRuns} of ${c.unstable!.runs} runs; first run: ${c
          .unstable!.differences.slice(0, 2)
          .map((d) => firstLine(d.detail))
          .join('; ')}`,
      );
    L.push('');
  }
  const skipped = r.comparisons.filter((c) => c.verdict === 'one side skipped');
  if (skipped.length) {
    L.push('## Skipped on one side', '');
    for (const c of skipped)
      L.push(`- \`${c.checkId}\`: ${c.skipReason?.a ? `A skipped: ${c.skipReason.a}` : `B skipped: ${c.skipReason?.b ?? ''}`}`);
    L.push('');
  }
  L.push('## Requests', '', requestSummary(r), '', 'Every request, in order: [requests.md](requests.md).', '');
  return L.join('\n');
}

function requestSummary(r: ParityResult): string {
  const lines = ['| side | endpoint | authentication | sent | refused (safe mode) |', '|---|---|---|---|---|'];
  const groups = new Map<string, { sent: number; refused: number }>();
  for (const q of r.requests) {
    const k = `${q.side.toUpperCase()} | ${q.endpoint ?? q.path} | ${q.auth}`;
    const g = groups.get(k) ?? { sent: 0, refused: 0 };
    if (q.sent) g.sent += 1;
    else g.refused += 1;
    groups.set(k, g);
  }
  for (const [k, g] of [...groups].sort()) lines.push(`| ${k} | ${g.sent} | ${g.refused} |`);
  return lines.join('\n');
}

function requestsMarkdown(r: ParityResult): string {
  const L = [
    '# Every request of the parity run',
    '',
    'In the order each side was asked to send them. `sent: no` = refused by the production-safe guard.',
    '',
  ];
  for (const side of ['a', 'b'] as const) {
    const list = r.requests.filter((q) => q.side === side);
    L.push(`## Side ${side.toUpperCase()}: ${list.filter((q) => q.sent).length} sent, ${list.filter((q) => !q.sent).length} refused`, '');
    L.push('| # | check | method | path | endpoint | authentication | sent |', '|---|---|---|---|---|---|---|');
    for (const [i, q] of list.entries())
      L.push(
        `| ${i + 1} | \`${q.checkId}\` | ${q.method} | \`${q.path}\` | ${q.endpoint ?? ''} | ` +
          `${q.auth}${q.authDetail ? `: ${mdCell(q.authDetail)}` : ''} | ${q.sent ? 'yes' : 'no'} |`,
      );
    L.push('');
  }
  return L.join('\n');
}

function jsonReport(r: ParityResult, ctx: ReportContext): unknown {
  return {
    kit: kitInfo(),
    seed: r.seed,
    numRuns: r.numRuns,
    webhooks: r.webhooks,
    safe: r.safe,
    replay: ctx.replay,
    filters: ctx.filters,
    a: { ...r.a, target: r.a.target === 'embedded' ? 'embedded' : maskUrl(r.a.target) },
    b: { ...r.b, target: r.b.target === 'embedded' ? 'embedded' : maskUrl(r.b.target) },
    durationMs: Math.round(r.durationMs),
    exitCode: ctx.exitCode,
    figures: r.figures,
    clauses: r.rows,
    checks: r.comparisons.map((c) => ({
      ...c,
      evidence: c.verdict === 'different' ? evidencePairs(c, r.evidence.get(c.checkId)) : undefined,
    })),
    requests: r.requests,
  };
}

export function writeParityReport(dir: string, r: ParityResult, ctx: ReportContext): ParityPaths {
  const paths = parityPaths(dir);
  for (const p of [paths.json, paths.md, paths.requests, paths.allureResults]) rmSync(p, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(paths.json, ctx.redact(JSON.stringify(jsonReport(r, ctx), null, 2)));
  writeFileSync(paths.md, ctx.redact(markdown(r, ctx)));
  writeFileSync(paths.requests, ctx.redact(requestsMarkdown(r)));
  writeParityAllure(paths.allureResults, r, ctx.redact);
  return paths;
}
