/**
 * The HTML report: allure-vitest's results, completed after the run (environment, known deviations
 * marked as such), turned by the Allure 3 generator (harness/report/allure-render.ts) into ONE self-contained HTML file at
 * <reports>/allure-report/index.html, with history across runs kept in <reports>/history/.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Redactor } from '../kit/redact.js';
import type { StoredResult } from '../run/results.js';
import { exchangeText, markedExchange } from './exchange-text.js';
import { levelOfFinding } from '../check/failure.js';
import type { AllureFiles } from './allure-pack.js';
import { type AllureRenderer, startAllureRenderer } from './allure-render.js';
import { compactPageData } from './compact-page.js';
import { makeOffline, thirdPartyReferences } from './offline.js';
import type { ReportPaths } from './paths.js';
import { diskScanCache } from './scan-cache.js';
import type { RunMeta } from './run-meta.js';
import type { Verdict } from './verdict.js';

/** Failure categories, first match wins: what a reader must tell apart at a glance. */
export const CATEGORIES = [
  {
    id: 'target-unreachable',
    name: 'Target unreachable (no verdict)',
    matchers: [{ statuses: ['failed', 'broken'], message: 'TARGET UNREACHABLE' }],
  },
  {
    id: 'disputed',
    name: 'Disputed by the vendor (neither passed nor failed)',
    matchers: [{ statuses: ['failed'], labels: { outcome: '^disputed$' } }],
  },
  {
    id: 'known-deviation',
    name: 'Known deviations (expected failures)',
    matchers: [{ statuses: ['failed'], labels: { outcome: '^expected-fail$' } }],
  },
  {
    id: 'non-conformance-must',
    name: 'Target non-conformance (must)',
    matchers: [{ statuses: ['failed'], message: '^FAILED \\S+ \\(must\\)' }],
  },
  {
    id: 'non-conformance-should',
    name: 'Target non-conformance (should: recommendation not met)',
    matchers: [{ statuses: ['failed'], message: '^FAILED \\S+ \\(should\\)' }],
  },
  {
    id: 'no-verdict',
    name: 'No verdict (throttled, or our machine too busy: not the target)',
    matchers: [{ statuses: ['broken', 'failed'], message: '^NO VERDICT' }],
  },
  { id: 'harness-error', name: 'Harness error (broken: not a verdict on the target)', matchers: [{ statuses: ['broken'] }] },
];

/** Environment shown in the report (environment.properties in the results directory). */
export function environmentEntries(meta: RunMeta, targetUrl: string): [string, string][] {
  return [
    ['target', targetUrl],
    ['profile', `${meta.profile.name} (${meta.profile.environment})`],
    ['kit', `${meta.kit.name} ${meta.kit.version}`],
    ['seed', String(meta.seed)],
    ['time scale', meta.timeScale === undefined ? 'not declared' : String(meta.timeScale)],
    ['webhooks', meta.webhooks],
    ['runs per property', String(meta.numRuns)],
    ['started', meta.startedAt],
    [
      'filters',
      [...meta.filters.suites.map((s) => `suite ${s}`), ...meta.filters.clauses.map((c) => `clause ${c}`)].join(', ') || 'none (full run)',
    ],
    ...(meta.faults.length ? [['faults', meta.faults.join(', ')] as [string, string]] : []),
    ...(meta.shard ? [['shard', meta.shard] as [string, string]] : []),
    ...(meta.expectations ? [['known deviations', `${meta.expectations.entries.length} entries`] as [string, string]] : []),
    ['node', process.version],
  ];
}

function propertiesEscape(s: string): string {
  return s
    .replace(/\\/g, '\\\\')
    .replace(/\n/g, '\\n')
    .replace(/([=:#!])/g, '\\$1');
}

interface AllureAttachment {
  name: string;
  source: string;
}

interface AllureStep {
  attachments?: AllureAttachment[];
  steps?: AllureStep[];
}

interface AllureResultFile extends AllureStep {
  status?: string;
  statusDetails?: { message?: string; trace?: string; known?: boolean };
  labels?: { name: string; value: string }[];
}

/** Writes the text of every exchange a check's steps stand for (exchangeMark), from the check's stored result. */
function writeExchangeTexts(files: AllureFiles, r: AllureResultFile, stored: StoredResult | undefined, redact: Redactor): void {
  const walk = (step: AllureStep): void => {
    for (const a of step.attachments ?? []) {
      const content = files.get(a.source);
      const id = content && markedExchange(content);
      if (id === undefined) continue;
      const ex = stored?.exchanges.find((x) => x.id === id);
      files.set(
        a.source,
        Buffer.from(
          ex ? redact(exchangeText(ex)) : `exchange ${id}: not in the check's stored result (results/), so its text cannot be shown`,
        ),
      );
    }
    for (const s of step.steps ?? []) walk(s);
  };
  walk(r);
}

/**
 * Completes allure-vitest's results (in memory, allure-pack.ts): the environment file, the text of each exchange
 * shown (written here from the stored results, not sent by the workers), and each
 * expected failure turned back into what it is — a failure, marked known (Allure shows it as
 * "accepted"), with its finding — while vitest and JUnit count it as passing.
 */
export function completeAllureResults(
  files: AllureFiles,
  meta: RunMeta,
  targetUrl: string,
  results: StoredResult[],
  readings: { topic: string; reading: string; checks: string[] }[] = [],
  redact: Redactor = (text) => text,
): void {
  // The readings the target took, run-wide, beside the settings (each test also shows its own as parameters).
  const readingRows = readings.map((r): [string, string] => [
    `reading ${r.topic}`,
    `${r.reading} (${r.checks.length} check${r.checks.length === 1 ? '' : 's'}` +
      `: ${r.checks.slice(0, 3).join(', ')}${r.checks.length > 3 ? ', …' : ''})`,
  ]);
  const env = [...environmentEntries(meta, targetUrl), ...readingRows].map(
    ([k, v]) => `${propertiesEscape(k.replace(/ /g, '.'))}=${propertiesEscape(v)}`,
  );
  files.set('environment.properties', Buffer.from(`${env.join('\n')}\n`));
  const byId = new Map(results.map((r) => [r.checkId, r]));
  for (const [f, content] of files) {
    if (!f.endsWith('-result.json')) continue;
    const r = JSON.parse(content.toString('utf8')) as AllureResultFile;
    const label = (n: string) => r.labels?.find((l) => l.name === n)?.value;
    const stored = byId.get(label('checkId') ?? '');
    writeExchangeTexts(files, r, stored, redact);
    const outcome = label('outcome');
    // Allure guesses failed vs broken from the error's text; the check's own outcome is what counts.
    // No verdict is never a failure: Allure's broken (not the target's doing), in its own category.
    const status = outcome === 'inconclusive' ? 'broken' : outcome;
    if ((status === 'broken' || status === 'failed') && r.status !== status) {
      r.status = status;
      files.set(f, Buffer.from(JSON.stringify(r)));
      continue;
    }
    if (outcome !== 'expected-fail') continue;
    const message = stored
      ? stored.findings
          .map((x, i) => `${i === 0 ? 'FAILED' : 'ALSO'} ${x.clause} (${levelOfFinding(x, stored.level)}) [${x.code}] ${x.title}`)
          .join('\n')
      : 'failed as expected';
    r.status = 'failed';
    r.statusDetails = { message: `KNOWN DEVIATION (expected failure)\n${message}`, known: true };
    files.set(f, Buffer.from(JSON.stringify(r)));
  }
}

/**
 * Allure copies every label of every test into each run's history line; the `exercised` labels (a
 * dozen clause ids per check) are over half of it and nothing in the history view uses them.
 */
export function slimHistory(file: string): void {
  if (!existsSync(file)) return;
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const slim = lines.map((line) => {
    const point = JSON.parse(line) as { testResults?: Record<string, { labels?: { name: string }[] }> };
    for (const t of Object.values(point.testResults ?? {})) if (t.labels) t.labels = t.labels.filter((l) => l.name !== 'exercised');
    return JSON.stringify(point);
  });
  writeFileSync(file, slim.length ? `${slim.join('\n')}\n` : '');
}

export interface HtmlOutcome {
  file: string;
  bytes: number;
  ms: number;
}

export interface SingleFileReport {
  /** Allure results to render: the folder, or its pack (allure-pack.ts). */
  results: string | { pack: string };
  /** Folder of the report; its index.html is the single-file page. */
  output: string;
  name: string;
  history?: string;
  /** Runs kept in `history` (Allure drops the oldest lines); 0 keeps none. */
  historyLimit?: number;
  variables?: Record<string, string>;
  categories?: unknown;
  hideLabels?: string[];
  groupBy?: string[];
}

/**
 * Renders the single-file page (awesome plugin) with an Allure generator — the one started early by
 * the run, or a new one — then strips third-party calls from the page.
 */
export async function renderSingleFileReport(o: SingleFileReport, renderer: AllureRenderer = startAllureRenderer()): Promise<HtmlOutcome> {
  const started = Date.now();
  const htmlPath = join(o.output, 'index.html');
  if (o.history) mkdirSync(dirname(o.history), { recursive: true });
  rmSync(o.output, { recursive: true, force: true });
  const tmp = mkdtempSync(join(tmpdir(), 'mpsi-allure-'));
  const config = {
    name: o.name,
    output: o.output,
    ...(o.history ? { historyPath: o.history, historyLimit: o.historyLimit ?? 20 } : {}),
    ...(o.hideLabels ? { hideLabels: o.hideLabels } : {}),
    ...(o.variables ? { variables: o.variables } : {}),
    ...(o.categories ? { categories: o.categories } : {}),
    plugins: {
      awesome: { options: { singleFile: true, reportLanguage: 'en', reportName: o.name, groupBy: o.groupBy ?? ['epic', 'feature'] } },
    },
  };
  const configFile = join(tmp, 'allurerc.mjs');
  writeFileSync(configFile, `export default ${JSON.stringify(config, null, 2)};\n`);
  try {
    await renderer.render({ cwd: tmp, configFile, results: o.results });
    if (!existsSync(htmlPath)) throw new Error(`allure generate wrote no ${htmlPath}`);
  } finally {
    renderer.dispose();
    rmSync(tmp, { recursive: true, force: true });
  }
  if (o.history) slimHistory(o.history);
  let page: string;
  try {
    page = offlinePage(readFileSync(htmlPath, 'utf8'));
  } catch (err) {
    // A page that would call a third party is not left where a reader would open it.
    rmSync(htmlPath, { force: true });
    throw err;
  }
  writeFileSync(htmlPath, page);
  // The awesome plugin writes summary/test-results JSON beside the page; the page needs neither.
  for (const f of readdirSync(o.output)) if (f !== 'index.html') rmSync(join(o.output, f), { recursive: true, force: true });
  return { file: htmlPath, bytes: Buffer.byteLength(page), ms: Date.now() - started };
}

/**
 * The generator's page made self-contained and checked (offline.ts), its data files in one gzipped blob the page
 * inflates itself (compact-page.ts); an error, naming what it found, when the page would still call a third party.
 * Compacted first: the data files are Base64 before and after (no ':', so no URL can hide in them), and the
 * analytics removal and the check then go over half the text for the same result.
 */
export function offlinePage(generated: string): string {
  const page = makeOffline(compactPageData(generated));
  const left = thirdPartyReferences(page, diskScanCache());
  if (left.length > 0)
    throw new Error(
      `the generated report still refers to third-party hosts, so it was not kept: ${left
        .slice(0, 3)
        .map((r) => `${r.context} ${r.url}`)
        .join('; ')}`,
    );
  return page;
}

/** The conformance run's report: verdict in the title, run settings as variables, failure categories. */
export function generateHtml(
  paths: ReportPaths,
  meta: RunMeta,
  verdict: Verdict,
  targetUrl: string,
  renderer?: AllureRenderer,
  historyLimit?: number,
  results: SingleFileReport['results'] = paths.allureResults,
): Promise<HtmlOutcome> {
  const disputed = new Set(verdict.disputes.map((d) => d.checkId)).size;
  const verdictText =
    verdict.verdict === 'conformant'
      ? 'conformant'
      : verdict.verdict === 'conformant-except-disputed'
        ? `conformant except ${disputed} disputed`
        : verdict.verdict === 'non-conformant'
          ? 'NON-CONFORMANT'
          : 'incomplete';
  return renderSingleFileReport(
    {
      results,
      output: paths.allureReport,
      name: `MPSI conformance — ${meta.profile.name} — ${verdictText}`,
      history: paths.history,
      ...(historyLimit === undefined ? {} : { historyLimit }),
      hideLabels: ['host', 'thread', 'framework', 'language', 'package', 'checkId'],
      variables: Object.fromEntries(environmentEntries(meta, targetUrl).slice(0, 5)),
      categories: { rules: CATEGORIES },
    },
    renderer,
  );
}
