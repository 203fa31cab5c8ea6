import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { flagsHelp, intFlag, parseFlags, UsageError, type FlagTable } from './args.js';
import { unpackAllureResults } from '../report/allure-pack.js';
import { reportPaths } from '../report/paths.js';
import { finishReports } from '../report/finish.js';
import { readRunMeta, readRunStatus, writeRunMeta, type RunMeta } from '../report/run-meta.js';
import type { RunStatus } from '../report/verdict.js';
import { firstLine } from '../kit/text.js';

export const REPORT_FLAGS = {
  reports: { kind: 'value', arg: 'DIR', help: 'the reports directory (default ./reports)' },
  from: {
    kind: 'multi',
    arg: 'DIR',
    help: [
      'merge the reports of several shards (repeatable) into --reports first:',
      'results, Allure results and repro scripts are copied, run.json comes from the',
      'first shard (all shards must share seed and profile)',
    ].join('\n'),
  },
  'no-html': { kind: 'bool', help: 'only the certificate and the clauses page' },
  history: { kind: 'value', arg: 'N', help: 'runs kept in <reports>/history/ (default 20; 0 keeps none)' },
  'keep-allure-results': { kind: 'bool', help: 'leave allure-results/ as a folder (by default packed into allure-results.json.gz)' },
} as const satisfies FlagTable;

export const REPORT_HELP = `mpsi-conformance report [options]

Rebuilds the certificate (.md + .json), clauses.html and the single-file HTML report from a
reports directory (its run.json, results/, allure-results/ and run-status.json), prints the
summary and exits with the verdict's code (0, 1 or 2) — e.g. after downloading a CI artifact.

${flagsHelp(REPORT_FLAGS)}`;

function mergeShards(into: string, from: string[]): void {
  const dst = reportPaths(into);
  const metas: RunMeta[] = from.map((d) => {
    const p = reportPaths(d).runMeta;
    if (!existsSync(p)) throw new UsageError(`--from ${d}: no run.json (is it a reports directory?)`);
    return readRunMeta(p);
  });
  const first = metas[0]!;
  for (const [i, m] of metas.entries()) {
    if (m.seed !== first.seed || m.profile.name !== first.profile.name)
      throw new UsageError(
        `--from ${from[i]}: seed ${m.seed} / profile ${m.profile.name} differ from ` +
          `${from[0]} (${first.seed} / ${first.profile.name}): not shards of one run`,
      );
  }
  for (const p of [dst.results, dst.traffic, dst.allureResults, dst.allureResultsPack, dst.repro, dst.allureReport])
    rmSync(p, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  const status: RunStatus = { moduleErrors: [], unhandledErrors: [], tests: [] };
  for (const d of from) {
    const src = reportPaths(d);
    unpackAllureResults(src.allureResultsPack, src.allureResults);
    for (const [a, b] of [
      [src.results, dst.results],
      [src.allureResults, dst.allureResults],
      [src.repro, dst.repro],
      [src.traffic, dst.traffic],
    ] as const) {
      if (!existsSync(a)) continue;
      mkdirSync(b, { recursive: true });
      for (const f of readdirSync(a)) cpSync(join(a, f), join(b, f), { recursive: true });
    }
    const s = readRunStatus(src.runStatus);
    if (!s) status.unhandledErrors.push(`shard ${d} has no run-status.json: it may not have finished`);
    else {
      status.moduleErrors.push(...s.moduleErrors);
      status.unhandledErrors.push(...s.unhandledErrors);
      status.tests!.push(...(s.tests ?? []));
      if (s.reason === 'interrupted') status.reason = 'interrupted';
    }
  }
  const { shard: _shard, ...rest } = first;
  // The merged run is the whole run: its replay has no --shard, its reproduction scripts are here.
  const replay = rest.replay && {
    ...rest.replay,
    args: rest.replay.args.filter((a, i, all) => a !== '--shard' && all[i - 1] !== '--shard'),
  };
  writeRunMeta(dst.runMeta, {
    ...rest,
    ...(replay ? { replay } : {}),
    reportsDir: dst.dir,
    startedAt: metas.map((m) => m.startedAt).sort()[0]!,
    finishedAt: metas
      .map((m) => m.finishedAt ?? m.startedAt)
      .sort()
      .at(-1),
  });
  writeFileSync(dst.runStatus, `${JSON.stringify(status, null, 2)}\n`);
}

export async function reportMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv, REPORT_FLAGS);
  if (flags.help) {
    process.stdout.write(REPORT_HELP);
    return 0;
  }
  const historyRuns = intFlag(flags.history, 'history', 0, 1000);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const dir = resolve(flags.reports ?? 'reports');
  const from = (flags.from ?? []).map((d) => resolve(d));
  if (from.length > 0) mergeShards(dir, from);
  const paths = reportPaths(dir);
  if (!existsSync(paths.runMeta)) throw new UsageError(`${dir} has no run.json: not a reports directory of mpsi-conformance run`);
  // A reports directory moved since the run: the certificate's commands point where it is now.
  const meta = readRunMeta(paths.runMeta);
  if (meta.reportsDir !== undefined && meta.reportsDir !== dir) writeRunMeta(paths.runMeta, { ...meta, reportsDir: dir });
  const outcome = await finishReports(paths, {
    html: !flags['no-html'],
    out: process.stdout,
    err: process.stderr,
    ...(historyRuns === undefined ? {} : { historyRuns }),
    keepAllureResults: flags['keep-allure-results'] === true,
  });
  if (outcome.exitCode !== 0)
    process.stderr.write(
      `mpsi-conformance: ${outcome.exitCode === 1 ? 'failed' : 'no verdict'}: ` +
        `${firstLine(outcome.certificate.reasons[0] ?? outcome.htmlError ?? '')}\n`,
    );
  return outcome.exitCode;
}
