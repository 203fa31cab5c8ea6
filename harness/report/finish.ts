/**
 * After the checks ran (or to rebuild from a reports directory): the verdict, the certificate
 * (.json + .md), the clauses page, the single-file HTML report, the terminal summary and the exit code.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Redactor } from '../kit/redact.js';
import { readResults, type StoredResult } from '../run/results.js';
import { computeFloor, floorLine, readPoolFacts } from './floor.js';
import { completeAllureResults, generateHtml, type HtmlOutcome } from './allure.js';
import { type AllureFiles, readAllureFolder, readAllurePack, writeAllureFolder, writeAllurePack } from './allure-pack.js';
import type { AllureRenderer } from './allure-render.js';
import { sourceNameJunitFile } from './source-names.js';
import { buildCertificate, reproDigests, writeCertificate, type Certificate } from './certificate.js';
import { kitProofFor, readKitProof } from './certificate-kit-proof.js';
import { renderClausesPage } from './clauses-page.js';
import type { ReportPaths } from './paths.js';
import { type RunMeta, readRunMeta, readRunStatus, writeRunMeta } from './run-meta.js';
import { runTraffic } from './traffic.js';
import { summaryText } from './summary-table.js';
import type { RunStatus } from './verdict.js';

export interface FinishOptions {
  html: boolean;
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  redact?: Redactor;
  /** Overrides run-status.json (e.g. when vitest ended without writing it). */
  runStatus?: RunStatus;
  /** An Allure generator started ahead (the run starts one beside vitest); always disposed of. */
  renderer?: AllureRenderer;
  /** Runs kept in history/ (the page's trend and each check's history); default DEFAULT_HISTORY_RUNS. */
  historyRuns?: number;
  /** Leave allure-results/ as a folder after the page is built, instead of packing it into one file. */
  keepAllureResults?: boolean;
}

/** Enough runs for a trend; history/ stays bounded in the reports folder (each run adds a line per check). */
export const DEFAULT_HISTORY_RUNS = 20;

/** Runs kept in history/: the flag, else the profile's `reports.history`, else the default. */
export function historyRunsOf(flag: number | undefined, profile: { reports?: { history?: number } }): number {
  return flag ?? profile.reports?.history ?? DEFAULT_HISTORY_RUNS;
}

export interface FinishOutcome {
  certificate: Certificate;
  exitCode: 0 | 1 | 2;
  html?: HtmlOutcome;
  htmlError?: string;
}

function show(p: string): string {
  const r = relative(process.cwd(), p);
  return r.startsWith('..') ? p : r;
}

/** The run's floor, when the run had the request pool and ended (a run rebuilt from older reports gets none). */
function withFloor(meta: RunMeta, results: readonly StoredResult[], paths: ReportPaths): RunMeta {
  const pool = readPoolFacts(paths.pool);
  if (!pool || !meta.finishedAt) return meta;
  const floor = computeFloor({
    results,
    doctorRequests: meta.doctor?.ran ? meta.doctor.requests : 0,
    pool,
    wallMs: Date.parse(meta.finishedAt) - Date.parse(meta.startedAt),
  });
  return { ...meta, floor };
}

export async function finishReports(paths: ReportPaths, opts: FinishOptions): Promise<FinishOutcome> {
  const redact = opts.redact ?? ((s: string) => s);
  sourceNameJunitFile(paths.junit);
  const results = readResults(paths.results);
  // Summed here, from what every worker left behind; kept in run.json beside the run's settings.
  const meta = withFloor({ ...readRunMeta(paths.runMeta), traffic: runTraffic(results, paths.traffic) }, results, paths);
  writeRunMeta(paths.runMeta, meta);
  const raw = opts.runStatus ??
    readRunStatus(paths.runStatus) ?? { moduleErrors: [], unhandledErrors: ['vitest ended without reporting its run status'] };
  const runStatus: RunStatus = JSON.parse(redact(JSON.stringify(raw))) as RunStatus;
  // The package's own proof, as of the kit that builds the certificate (a rebuild by a newer kit says so).
  const kitProof = kitProofFor(meta.kit.version, readKitProof());
  const { certificate, verdict } = buildCertificate({
    results,
    meta,
    runStatus,
    reproDigests: reproDigests(paths.repro, results),
    kitProof,
  });
  writeRunMeta(paths.runMeta, { ...meta, traffic: certificate.traffic });
  writeCertificate(paths.dir, certificate);
  writeFileSync(paths.clausesHtml, renderClausesPage(certificate));
  let exitCode = certificate.exitCode;
  let html: HtmlOutcome | undefined;
  let htmlError: string | undefined;
  try {
    // The folder when there is one (kept by an earlier run, or merged from shards), else the pack vitest wrote.
    const folder = readAllureFolder(paths.allureResults);
    const files: AllureFiles = folder?.files ?? (existsSync(paths.allureResultsPack) ? readAllurePack(paths.allureResultsPack) : new Map());
    completeAllureResults(files, meta, certificate.target.url, results, certificate.readings, redact);
    // The page is made from the pack (one file for the generator to read, not thousands), or from the folder when
    // it is kept; either way the results are written once. A folder that is not allure-vitest's flat one stays.
    const keep = opts.keepAllureResults || folder?.nested === true;
    if (keep) {
      writeAllureFolder(files, paths.allureResults);
      rmSync(paths.allureResultsPack, { force: true });
    } else {
      writeAllurePack(files, paths.allureResultsPack);
      rmSync(paths.allureResults, { recursive: true, force: true });
    }
    if (opts.html)
      html = await generateHtml(
        paths,
        meta,
        verdict,
        certificate.target.url,
        opts.renderer,
        opts.historyRuns ?? DEFAULT_HISTORY_RUNS,
        keep ? paths.allureResults : { pack: paths.allureResultsPack },
      );
  } catch (err) {
    const why = redact((err as Error).message);
    opts.err.write(`mpsi-conformance: the ${opts.html ? 'HTML report' : 'Allure results'} could not be made: ${why}\n`);
    if (opts.html) {
      htmlError = why;
      if (exitCode === 0) exitCode = 2;
    }
  }
  // A generator that got no job (no page wanted, or the results could not be completed) ends here.
  opts.renderer?.dispose();
  opts.out.write(
    summaryText(certificate, {
      html: html ? `${show(html.file)} (${(html.bytes / 1024 / 1024).toFixed(1)} MB, ${(html.ms / 1000).toFixed(1)} s)` : undefined,
      certificate: `${show(paths.certificateMd)} (+ .json)`,
      junit: existsSync(paths.junit) ? show(paths.junit) : undefined,
      repro: show(paths.repro),
    }),
  );
  if (meta.floor) opts.out.write(`${floorLine(meta.floor)}\n`);
  return { certificate, exitCode, html, htmlError };
}
