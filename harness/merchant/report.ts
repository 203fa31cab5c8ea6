/**
 * The merchant-side certificate: the same files as a service run (certificate.md/.json, junit.xml,
 * allure-results/) at the same places (`reportPaths`), computed from merchant check results.
 * Exit code as everywhere in the kit: 1 a must-level finding, 2 the run is incomplete (a harness
 * error, nothing ran), else 0 (should-level findings are warnings).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clause as lookupClause } from '../clauses/registry.js';
import type { Redactor } from '../kit/redact.js';
import { renderSingleFileReport } from '../report/allure.js';
import { kitInfo } from '../report/kit.js';
import { mdCell } from '../report/markdown.js';
import { reportPaths } from '../report/paths.js';
import type { MerchantResult } from './check.js';
import { firstLine } from '../kit/text.js';

export interface MerchantRunInfo {
  /** `receiver` (webhook endpoint) or `client-audit` (a client's requests). */
  kind: 'receiver' | 'client-audit';
  title: string;
  /** What was certified, e.g. the endpoint URL (masked) and merchant id. */
  subject: string;
  seed?: number;
  /** The command that replays the run. */
  replay?: string;
  startedAt: string;
  durationMs: number;
  notes?: string[];
}

export interface ClauseVerdict {
  id: string;
  level: string;
  section: string;
  text: string;
  status: 'passed' | 'failed' | 'skipped-precondition' | 'not-checked';
  checks: string[];
  findings: number;
}

export interface MerchantVerdict {
  verdict: 'conformant' | 'non-conformant' | 'incomplete';
  exitCode: 0 | 1 | 2;
  reasons: string[];
  warnings: string[];
  clauses: ClauseVerdict[];
}

export function merchantVerdict(results: MerchantResult[]): MerchantVerdict {
  const ids = [...new Set(results.flatMap((r) => [...r.clauses, ...r.findings.map((f) => f.clause)]))];
  const clauses = ids.map((id): ClauseVerdict => {
    const c = lookupClause(id);
    const naming = results.filter((r) => r.clauses.includes(id));
    const findings = results.flatMap((r) => r.findings.filter((f) => f.clause === id));
    const base = { id, level: c.level, section: c.section, text: c.text, checks: naming.map((r) => r.checkId), findings: findings.length };
    if (findings.length) return { ...base, status: 'failed' };
    if (naming.some((r) => r.status === 'passed')) return { ...base, status: 'passed' };
    if (naming.some((r) => r.status === 'skipped')) return { ...base, status: 'skipped-precondition' };
    return { ...base, status: 'not-checked' };
  });
  const must = results.filter((r) => r.findings.some((f) => f.level === 'must'));
  const broken = results.filter((r) => r.status === 'broken');
  const reasons: string[] = [];
  const warnings = results
    .filter((r) => r.status === 'failed' && !r.findings.some((f) => f.level === 'must'))
    .map((r) => `should-level recommendation not met: ${r.checkId} (${r.findings.map((f) => f.clause).join(', ')})`);
  if (must.length) {
    const hit = [...new Set(must.flatMap((r) => r.findings.filter((f) => f.level === 'must').map((f) => f.clause)))];
    reasons.push(`${must.length} check${must.length === 1 ? '' : 's'} found must-level deviations from ${hit.join(', ')}`);
  }
  if (broken.length)
    reasons.push(
      `${broken.length} check${broken.length === 1 ? '' : 's'} hit a harness ` +
        `error (not a verdict): ${broken.map((r) => r.checkId).join(', ')}`,
    );
  const nothingJudged = results.every((r) => r.status === 'skipped');
  if (results.length === 0) reasons.push('no check result was recorded');
  else if (nothingJudged) reasons.push('every check was skipped: nothing was judged');
  const exitCode = must.length ? 1 : broken.length || nothingJudged ? 2 : 0;
  return { verdict: must.length ? 'non-conformant' : exitCode === 2 ? 'incomplete' : 'conformant', exitCode, reasons, warnings, clauses };
}

const LABEL: Record<string, string> = {
  passed: 'passed',
  failed: '**failed**',
  'skipped-precondition': 'skipped: precondition',
  'not-checked': 'not checked',
  skipped: 'skipped',
  broken: '**harness error**',
};

function markdown(info: MerchantRunInfo, v: MerchantVerdict, results: MerchantResult[]): string {
  const L = [`# ${info.title}`, ''];
  L.push(
    `- **subject**: ${info.subject}`,
    `- kit ${kitInfo().name} ${kitInfo().version}, ${info.startedAt}, ${Math.round(info.durationMs)} ms`,
  );
  if (info.seed !== undefined) L.push(`- seed ${info.seed}`);
  if (info.replay) L.push(`- replay: \`${info.replay}\``);
  for (const n of info.notes ?? []) L.push(`- ${n}`);
  L.push('', `## Verdict: ${v.verdict} (exit code ${v.exitCode})`, '');
  for (const r of v.reasons) L.push(`- ${r}`);
  for (const w of v.warnings) L.push(`- warning: ${w}`);
  L.push('', '## Clauses', '', '| clause | level | status | checks | findings | statement |', '|---|---|---|---|---|---|');
  for (const c of v.clauses)
    L.push(`| \`${c.id}\` | ${c.level} | ${LABEL[c.status]} | ${c.checks.length} | ${c.findings} | ${mdCell(c.text)} |`);
  L.push('', '## Checks', '');
  for (const r of results) {
    L.push(
      `### ${r.status === 'passed' ? '✔' : r.status === 'failed' ? '✘' : '–'} \`${r.checkId}\` — ${r.title}`,
      '',
      `${LABEL[r.status]}, ${r.level}, clauses ${r.clauses.map((c) => `\`${c}\``).join(', ')}` +
        `, ${Math.round(r.durationMs)} ms${r.reason ? ` — ${r.reason}` : ''}`,
      '',
    );
    for (const f of r.findings)
      L.push(
        `- **${f.code}** (${f.level}, \`${f.clause}\`): ${f.message.replace(/\n/g, ' ')}` +
          `${f.expected ? ` — expected ${f.expected}` : ''}${f.seen ? `, seen ${f.seen}` : ''}`,
      );
    if (r.evidence.length)
      L.push('', '```', ...r.evidence.slice(0, 40), ...(r.evidence.length > 40 ? [`… ${r.evidence.length - 40} more`] : []), '```');
    L.push('');
  }
  return L.join('\n');
}

const xml = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[^\x09\x0a\x0d\x20-\uffff]/g, '?');

function junit(info: MerchantRunInfo, results: MerchantResult[]): string {
  const failures = results.filter((r) => r.status === 'failed').length;
  const errors = results.filter((r) => r.status === 'broken').length;
  const skipped = results.filter((r) => r.status === 'skipped').length;
  const L = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(info.title)}" tests="${results.length}" failures="${failures}" ` +
      `errors="${errors}" skipped="${skipped}" time="${(info.durationMs / 1000).toFixed(3)}">`,
  ];
  L.push(`<testsuite name="${xml(info.kind)}" tests="${results.length}" failures="${failures}" errors="${errors}" skipped="${skipped}">`);
  for (const r of results) {
    L.push(
      `<testcase classname="${xml(info.kind)}.${xml(r.checkId.split('/')[0] ?? '')}" name="` +
        `${xml(`${r.checkId} — ${r.title} [${r.clauses.join(', ')}]`)}" time="${(r.durationMs / 1000).toFixed(3)}">`,
    );
    if (r.status === 'failed')
      L.push(
        `<failure message="${xml(r.findings.map((f) => `[${f.code}] ${f.clause}: ${f.title}`).join('; '))}` +
          `">${xml(r.evidence.join('\n'))}</failure>`,
      );
    if (r.status === 'broken') L.push(`<error message="${xml(r.reason ?? '')}"/>`);
    if (r.status === 'skipped') L.push(`<skipped message="${xml(r.reason ?? '')}"/>`);
    L.push('</testcase>');
  }
  L.push('</testsuite>', '</testsuites>', '');
  return L.join('\n');
}

function allure(dir: string, info: MerchantRunInfo, results: MerchantResult[], redact: Redactor): void {
  mkdirSync(dir, { recursive: true });
  const now = Date.now();
  for (const r of results) {
    const uuid = randomUUID();
    const attachments: { name: string; source: string; type: string }[] = [];
    if (r.evidence.length) {
      const source = `${randomUUID()}-attachment.txt`;
      writeFileSync(join(dir, source), redact(r.evidence.join('\n')));
      attachments.push({ name: 'deliveries and replies', source, type: 'text/plain' });
    }
    const hist = createHash('md5').update(`${info.kind}:${r.checkId}`).digest('hex');
    const result = {
      uuid,
      historyId: hist,
      testCaseId: hist,
      name: r.title,
      fullName: `${info.kind}/${r.checkId}`,
      status: r.status === 'broken' ? 'broken' : r.status,
      statusDetails: { message: r.findings.map((f) => `[${f.code}] ${f.clause} (${f.level}): ${f.message}`).join('\n') || r.reason || '' },
      stage: 'finished',
      start: now - Math.round(r.durationMs),
      stop: now,
      labels: [
        { name: 'epic', value: info.kind === 'receiver' ? 'Merchant webhook receiver' : 'Merchant client audit' },
        { name: 'feature', value: r.clauses[0]!.split('.').slice(0, 2).join('.') },
        { name: 'story', value: r.clauses[0]! },
        { name: 'suite', value: info.kind },
        { name: 'severity', value: r.level === 'must' ? 'critical' : 'normal' },
        ...r.clauses.map((c) => ({ name: 'tag', value: c })),
      ],
      parameters: info.seed === undefined ? [] : [{ name: 'seed', value: String(info.seed) }],
      attachments,
      steps: [],
    };
    writeFileSync(join(dir, `${uuid}-result.json`), redact(JSON.stringify(result)));
  }
}

/** Writes the four outputs under `dir` (replacing a previous run's), every text through the redactor. */
export function writeMerchantReport(
  dir: string,
  info: MerchantRunInfo,
  results: MerchantResult[],
  redact: Redactor,
): { verdict: MerchantVerdict; paths: ReturnType<typeof reportPaths> } {
  const paths = reportPaths(dir);
  const verdict = merchantVerdict(results);
  for (const p of [paths.certificateMd, paths.certificateJson, paths.junit, paths.allureResults])
    rmSync(p, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(paths.certificateMd, redact(markdown(info, verdict, results)));
  writeFileSync(paths.certificateJson, redact(JSON.stringify({ kit: kitInfo(), ...info, ...verdict, checks: results }, null, 2)));
  writeFileSync(paths.junit, redact(junit(info, results)));
  allure(paths.allureResults, info, results, redact);
  return { verdict, paths };
}

/** The single-file Allure page (allure-report/index.html); a page that cannot be made is said, not fatal. */
export async function writeMerchantHtml(dir: string, name: string): Promise<{ file?: string; problem?: string }> {
  const paths = reportPaths(dir);
  try {
    return {
      file: (await renderSingleFileReport({ results: paths.allureResults, output: paths.allureReport, name, groupBy: ['epic', 'story'] }))
        .file,
    };
  } catch (err) {
    return { problem: `the HTML page was not written: ${firstLine(err)}` };
  }
}
