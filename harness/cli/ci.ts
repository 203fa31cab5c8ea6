/**
 * `ci-summary`: what a CI job shows of a finished run, read from the run's own certificate.json and results (never from
 * the terminal text). The GitHub Action of this repository (action.yml) calls it after `run`:
 * - `GITHUB_OUTPUT` gets `verdict`, `exit-code`, `certificate` (certificate.md's absolute path) and `certificate-json`;
 * - `GITHUB_STEP_SUMMARY` gets certificate.md (cut at the summary's size limit, with a line saying so);
 * - stdout gets one workflow command per failed clause (`::error title=…::…`, a must-level clause the run failed) and
 *   per should-level clause not met (`::warning`), naming the checks and what each found.
 * Outside GitHub (neither variable set) it prints the same annotations, so the command is tried from a terminal.
 * A run that wrote no certificate (exit 2 before the checks: bad profile, target unreachable) gives verdict `none`,
 * exit code 2 and one error annotation saying so.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { clause as registryClause, hasClause } from '../clauses/registry.js';
import type { Certificate } from '../report/certificate-build.js';
import { reportPaths } from '../report/paths.js';
import { readResults, type StoredResult } from '../run/results.js';
import { flagsHelp, parseFlags, UsageError, type FlagTable } from './args.js';

export const CI_FLAGS = {
  reports: { kind: 'value', arg: 'DIR', help: 'the reports directory of the run (default ./reports)' },
} as const satisfies FlagTable;

export const CI_HELP = `mpsi-conformance ci-summary [--reports DIR]

For a CI job after \`mpsi-conformance run\`: reads DIR/certificate.json and DIR/results/, and
- appends verdict, exit-code, certificate (path of certificate.md) and certificate-json to the file
  GITHUB_OUTPUT names (the step's outputs);
- appends certificate.md to the file GITHUB_STEP_SUMMARY names (the job summary);
- prints one annotation per failed clause (::error) and per should-level clause not met (::warning).
Used by the repository's GitHub Action (action.yml); works in any shell (the files are then not written).

${flagsHelp(CI_FLAGS)}
Exit code: 0 (also when the run failed: the run's own exit code is the gate), 2 bad flags.
`;

/** GitHub's job summary refuses a step's summary above 1 MiB. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

export interface CiOutcome {
  verdict: Certificate['verdict'] | 'none';
  exitCode: 0 | 1 | 2;
  certificateMd?: string;
  certificateJson?: string;
  annotations: Annotation[];
}

export interface Annotation {
  level: 'error' | 'warning';
  title: string;
  message: string;
}

/** Escapes of a workflow command's message (GitHub's toolkit `escapeData`). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes of a workflow command's property value (`escapeProperty`). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function annotationLine(a: Annotation): string {
  return `::${a.level} title=${escapeProperty(a.title)}::${escapeData(a.message)}`;
}

/** What each failing check found against the clause, by check id: its findings' titles. */
function findingsAgainst(results: readonly StoredResult[], clauseId: string, checkId: string): string[] {
  const r = results.find((x) => x.checkId === checkId);
  return [...new Set((r?.findings ?? []).filter((f) => f.clause === clauseId).map((f) => f.title))];
}

function clauseAnnotation(c: Certificate['clauses'][number], results: readonly StoredResult[]): Annotation {
  const text = hasClause(c.id) ? registryClause(c.id).text : '';
  const failing = c.failures.filter((f) => !f.knownDeviation && !f.disputed);
  const lines = [...new Set(failing.map((f) => f.checkId))].map((checkId) => {
    const found = findingsAgainst(results, c.id, checkId);
    return `${checkId}: ${found.length ? found.join('; ') : 'failed'}`;
  });
  const level = c.status === 'failed' ? 'error' : 'warning';
  return {
    level,
    title: `${c.id} (${c.level === 'unspecified' ? 'must' : c.level}) ${c.status === 'failed' ? 'failed' : 'not met'}`,
    message: [text, ...lines].filter(Boolean).join('\n'),
  };
}

/** The run's outcome as the CI shows it, from the reports directory alone. */
export function ciOutcome(reportsDir: string): CiOutcome {
  const paths = reportPaths(reportsDir);
  if (!existsSync(paths.certificateJson)) {
    return {
      verdict: 'none',
      exitCode: 2,
      annotations: [
        {
          level: 'error',
          title: 'mpsi-conformance: no verdict',
          message: `no certificate in ${reportsDir}: the run could not be made (the reason is in the run step's log)`,
        },
      ],
    };
  }
  const cert = JSON.parse(readFileSync(paths.certificateJson, 'utf8')) as Certificate;
  const results = existsSync(paths.results) ? readResults(paths.results) : [];
  const annotations = cert.clauses.filter((c) => c.status === 'failed' || c.status === 'not-met').map((c) => clauseAnnotation(c, results));
  if (cert.exitCode === 2 && annotations.length === 0) {
    annotations.push({
      level: 'error',
      title: 'mpsi-conformance: no verdict',
      message: cert.reasons.join('\n') || 'the run was incomplete',
    });
  }
  return {
    verdict: cert.verdict,
    exitCode: cert.exitCode,
    certificateJson: paths.certificateJson,
    ...(existsSync(paths.certificateMd) ? { certificateMd: paths.certificateMd } : {}),
    annotations,
  };
}

/** The job summary: certificate.md, cut at GitHub's limit on a line boundary when it is longer. */
export function summaryText(o: CiOutcome): string {
  if (!o.certificateMd) return `## mpsi-conformance: no verdict\n\n${o.annotations.map((a) => a.message).join('\n\n')}\n`;
  const md = readFileSync(o.certificateMd, 'utf8');
  if (Buffer.byteLength(md) <= SUMMARY_LIMIT_BYTES) return md.endsWith('\n') ? md : `${md}\n`;
  const note = `\n\n… certificate.md is longer than the job summary allows; the whole file is ${o.certificateMd}\n`;
  let cut = Buffer.from(md)
    .subarray(0, SUMMARY_LIMIT_BYTES - Buffer.byteLength(note))
    .toString('utf8');
  cut = cut.slice(0, Math.max(0, cut.lastIndexOf('\n')));
  return cut + note;
}

export function ciMain(argv: string[], env: NodeJS.ProcessEnv = process.env, out: NodeJS.WritableStream = process.stdout): number {
  const { flags, rest } = parseFlags(argv, CI_FLAGS);
  if (flags.help) {
    out.write(CI_HELP);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const o = ciOutcome(resolve(flags.reports ?? 'reports'));
  const outputs = {
    verdict: o.verdict,
    'exit-code': String(o.exitCode),
    certificate: o.certificateMd ?? '',
    'certificate-json': o.certificateJson ?? '',
  };
  if (env.GITHUB_OUTPUT) {
    appendFileSync(
      env.GITHUB_OUTPUT,
      Object.entries(outputs)
        .map(([k, v]) => `${k}=${v}\n`)
        .join(''),
    );
  }
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, summaryText(o));
  for (const a of o.annotations) out.write(`${annotationLine(a)}\n`);
  out.write(`mpsi-conformance: verdict ${o.verdict} (exit code ${o.exitCode})${o.certificateMd ? `, ${o.certificateMd}` : ''}\n`);
  return 0;
}
