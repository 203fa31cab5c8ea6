import { join } from 'node:path';

/** Where everything a run leaves behind goes, under one reports directory (default reports/). */
export interface ReportPaths {
  dir: string;
  /** One JSON file per check (harness/run/results.ts): what the certificate is computed from. */
  results: string;
  allureResults: string;
  /** allure-results/ packed into one file once the page is built (harness/report/allure-pack.ts). */
  allureResultsPack: string;
  allureReport: string;
  /** The single-file Allure report. */
  allureHtml: string;
  /** Allure's history across runs (kept between runs; CI keeps it as a cache or artifact). */
  history: string;
  junit: string;
  certificateMd: string;
  certificateJson: string;
  /** Reproduction scripts, one per failing exchange. */
  repro: string;
  /** Settings of the run (seed, profile, filters, date) written by the CLI before vitest starts. */
  runMeta: string;
  /** What vitest itself reported: files that failed to load, unhandled errors (written by the progress reporter). */
  runStatus: string;
  /** The suite files this run (or shard) starts, in order (written by harness/run/sequencer.ts). */
  runPlan: string;
  /** Each suite file's webhook receiver count (harness/report/traffic.ts). */
  traffic: string;
  /** The run-wide request pool's facts (budget, rate, slots granted), written by global setup when the run ends. */
  pool: string;
  /** Every registry clause with its status in this run; the report's clause links point here. */
  clausesHtml: string;
}

export function reportPaths(dir: string): ReportPaths {
  return {
    dir,
    results: join(dir, 'results'),
    allureResults: join(dir, 'allure-results'),
    allureResultsPack: join(dir, 'allure-results.json.gz'),
    allureReport: join(dir, 'allure-report'),
    allureHtml: join(dir, 'allure-report', 'index.html'),
    history: join(dir, 'history', 'allure-history.jsonl'),
    junit: join(dir, 'junit.xml'),
    certificateMd: join(dir, 'certificate.md'),
    certificateJson: join(dir, 'certificate.json'),
    repro: join(dir, 'repro'),
    runMeta: join(dir, 'run.json'),
    runStatus: join(dir, 'run-status.json'),
    runPlan: join(dir, 'run-plan.json'),
    clausesHtml: join(dir, 'clauses.html'),
    traffic: join(dir, 'traffic'),
    pool: join(dir, 'pool.json'),
  };
}

/** Anchor of a clause in clauses.html; the Allure report links to `../clauses.html#<anchor>`. */
export function clauseAnchor(id: string): string {
  return `clause-${id}`;
}

/** The reports directory as seen from allure-report/index.html. */
export const DEFAULT_REPORT_URL = '..';

/**
 * The clause link. Allure's page makes only http(s) links clickable: with the default relative base
 * the link is shown as text; `run --report-url URL` (where the reports directory is published) makes it clickable.
 */
export function clauseHref(id: string, reportUrl: string = DEFAULT_REPORT_URL): string {
  return `${reportUrl.replace(/\/+$/, '')}/clauses.html#${clauseAnchor(id)}`;
}

export function reproHref(file: string, reportUrl: string = DEFAULT_REPORT_URL): string {
  return `${reportUrl.replace(/\/+$/, '')}/repro/${encodeURIComponent(file)}`;
}
