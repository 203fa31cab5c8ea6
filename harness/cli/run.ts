/**
 * `run`: flags → request → plan → execution, and a conformance run's processes.
 *
 * The CLI spawns vitest (through harness/run/vitest-main.ts: vitest's own command without the module hook vite registers
 * on Node before 22.15) before its doctor phase, and writes `go` on vitest's fd 3 once the doctor passed. It hosts the
 * embedded reference and the run-wide request pool in its own process (harness/run/host.ts, passed to
 * harness/run/global-setup.ts as `RunConfig.hosted`: two Node processes fewer to start); global setup holds every check
 * until `go` (a pipe closed without it fails the run, and a wrong profile or an interrupt before it ends vitest's
 * process group). Beside vitest the CLI starts the Allure generator (harness/report/allure-render.ts, in a child of its
 * own), which gets its one job when the results are complete.
 *
 * vitest keeps transformed modules on disk between runs; a run of the compiled kit leaves every module of the kit but
 * the test files to Node (harness/run/native-modules.ts). The Allure results stay in vitest main's memory
 * (harness/report/allure-writer.ts) and are written once, as one pack `allure-results.json.gz`
 * (harness/report/allure-pack.ts); the CLI completes them in memory with the text of each exchange shown (a check's
 * step carries only a mark, harness/report/exchange-text.ts), writes the pack again, and the generator reads that one
 * file. The page's data is gzipped into one blob the page inflates itself (harness/report/compact-page.ts), then the
 * page is made offline and checked for third-party references (harness/report/offline.ts). A run of the compiled kit
 * names each suite file as its source in the reports (harness/report/source-names.ts), so reports and history ids are
 * the same whichever ran.
 */
import { loosenedAllowances } from '../webhooks/schedule.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { flagsHelp, intFlag, parseFlags, UsageError, type FlagTable, type ParsedFlags } from './args.js';
import { defaultRunConfig, RUN_CONFIG_ENV, type RunConfig } from '../run/config.js';
import { loadProfile, merchantSecrets, ProfileError, type LoadedProfile } from '../profile/load.js';
import { clauses as registry, hasClause } from '../clauses/registry.js';
import type { SuiteDef } from '../check/define.js';
import { selectChecks } from '../report/select.js';
import { ExpectationsError, loadExpectations, type Expectations } from '../report/expectations.js';
import { reportPaths } from '../report/paths.js';
import { writeRunMeta, readRunMeta, readRunStatus, type RunMeta } from '../report/run-meta.js';
import type { RunStatus } from '../report/verdict.js';
import { readResults } from '../run/results.js';
import { finishReports, historyRunsOf } from '../report/finish.js';
import { startAllureRenderer } from '../report/allure-render.js';
import { kitInfo } from '../report/kit.js';
import { maskUrl } from '../report/mask.js';
import { makeRedactor } from '../kit/redact.js';
import { environmentTarget, replayOf } from '../run/replay.js';
import { CODE_EXT, CODE_ROOT, codeDir, codeFile, COMPILED, dependencyBin } from '../kit/kit-files.js';
import { doctorMeta, doctorPhase } from './doctor.js';
import { doubtResults, writeDoubtResults } from '../doctor/evidence.js';
import { type RunHost, startRunHost } from '../run/host.js';
import { measureRoundTrip } from '../run/round-trip.js';
import { openRunModuleCache, type RunModuleCache } from '../run/module-cache.js';
import { traceRoundTrip } from '../http/trace.js';
import { type PoolFacts, writePoolFacts } from '../report/floor.js';
import type { DoctorReport } from '../doctor/model.js';
import { clockTime } from '../report/progress.js';
import { fmtMs, fullScheduleWithinMs, webhookTiming } from '../webhooks/schedule.js';
import { firstLine } from '../kit/text.js';
import { TUNNEL_FLAG, withTunnel } from './tunnel.js';
import { createClient } from '../http/client.js';
import { makeNetwork, type Network } from '../http/network.js';

export const RUN_FLAGS = {
  profile: { kind: 'value', arg: 'FILE', help: 'target profile (default: fixtures/profiles/reference.json, the embedded reference)' },
  target: {
    kind: 'value',
    arg: 'URL',
    help: "base URL of the target (overrides the profile's baseUrl, and any environment variable it names)",
  },
  suite: { kind: 'multi', arg: 'NAME', help: 'only this suite (repeatable, or comma-separated)' },
  clause: { kind: 'multi', arg: 'ID', help: 'only checks of this clause or clause prefix (repeatable)' },
  seed: { kind: 'value', arg: 'N', help: 'fast-check seed (printed by every run; replays it)' },
  runs: { kind: 'value', arg: 'N', help: 'fast-check runs per property check (default 20)' },
  webhooks: { kind: 'value', arg: 'MODE', help: 'quick | full | off (default quick)' },
  expectations: { kind: 'value', arg: 'FILE', help: 'known deviations of this target (JSON; see examples/expectations.json)' },
  reports: { kind: 'value', arg: 'DIR', help: 'where everything goes (default ./reports)' },
  fault: { kind: 'multi', arg: 'NAME', help: 'switch on a fault in the embedded reference (repeatable; for demos and proofs)' },
  shard: { kind: 'value', arg: 'I/N', help: 'run only the I-th of N parts of the suites (vitest --shard); merge with `report --from`' },
  tunnel: TUNNEL_FLAG,
  'no-html': { kind: 'bool', help: 'skip the HTML report (certificate, JUnit and results are still written)' },
  history: {
    kind: 'value',
    arg: 'N',
    help: "runs kept in <reports>/history/ for the report's trends (default: the profile's reports.history, else 20; 0 keeps none)",
  },
  'keep-allure-results': {
    kind: 'bool',
    help:
      'write allure-results/ as a folder; by default the results are written ' +
      'packed,\ninto allure-results.json.gz (`mpsi-conformance report` reads it back)',
  },
  'no-doctor': {
    kind: 'bool',
    help: [
      'skip the first phase, the profile doctor (see: mpsi-conformance doctor --help), which',
      "verifies the profile's assumptions against the target and stops the run (exit 2)",
      "when one is wrong, before any check runs (the embedded reference's doctor runs",
      'without --fault faults: they are what the checks must find)',
    ].join('\n'),
  },
  'report-url': {
    kind: 'value',
    arg: 'URL',
    help: [
      'where the reports directory will be published (CI artifact or pages URL): makes the',
      "report's clause and repro links clickable (<URL>/clauses.html#…, <URL>/repro/…);",
      'by default they are relative and the report shows them as text',
    ].join('\n'),
  },
} as const satisfies FlagTable;

export const RUN_HELP = `mpsi-conformance run [options]

Runs the conformance checks against one target and writes, under the reports directory:
results/ (one JSON per check), junit.xml, allure-report/index.html (one self-contained file),
certificate.md + certificate.json, clauses.html, repro/ (a script per failing exchange).

${flagsHelp(RUN_FLAGS)}
Exit codes: 0 conformant (known deviations and should-level failures are warnings),
1 non-conformant (an unexpected must-level failure, or an expired expectations entry),
2 the run could not be made or completed (bad flags, bad profile or expectations file, target
unreachable, harness error) — with the reason on stderr.
`;

const SUITES_DIR = codeDir('suites');

export interface SuiteFile {
  /** The suite's name (defineSuite's first argument). */
  name: string;
  /** suites/<concern>.test.ts (dist/suites/<concern>.test.js compiled) */
  testFile: string;
  /** suites/<concern>.ts (dist/suites/<concern>.js compiled) */
  defFile: string;
}

/** Suite files and their names, read from the module text: no suite is imported just to list them. */
export function listSuiteFiles(dir: string = SUITES_DIR, ext: string = CODE_EXT): SuiteFile[] {
  const out: SuiteFile[] = [];
  for (const f of readdirSync(dir).sort()) {
    if (!f.endsWith(`.test${ext}`)) continue;
    const base = f.slice(0, -`.test${ext}`.length);
    const defFile = join(dir, `${base}${ext}`);
    let name = base;
    if (existsSync(defFile)) {
      const m = /defineSuite\(\s*['"`]([^'"`]+)['"`]/.exec(readFileSync(defFile, 'utf8'));
      if (m) name = m[1]!;
    }
    out.push({ name, testFile: join(dir, f), defFile });
  }
  return out;
}

async function importSuite(f: SuiteFile): Promise<SuiteDef> {
  try {
    const mod = (await import(pathToFileURL(f.defFile).href)) as { default?: SuiteDef };
    if (!mod.default || !Array.isArray(mod.default.checks)) throw new Error('it does not default-export a suite (defineSuite)');
    return mod.default;
  } catch (err) {
    throw new UsageError(`suite file ${relative(CODE_ROOT, f.defFile)} cannot be loaded: ${firstLine(err)}`);
  }
}

function cannotRun(message: string): number {
  process.stderr.write(`mpsi-conformance: cannot run: ${message.split('\n').join('\n  ')}\n`);
  return 2;
}

/** What the flags ask for, each checked: no file is read and no target contacted yet. */
interface RunRequest {
  cfg: RunConfig;
  /** The run's start (also in cfg, which the checks read): run.json's and the certificate's date. */
  startedAt: string;
  shard?: string;
  historyRuns?: number;
  html: boolean;
  doctor: boolean;
  keepAllureResults: boolean;
  /** `--tunnel`: the user's tunnel program for the webhook receivers (harness/cli/tunnel.ts). */
  tunnel?: string;
}

/** The request resolved against the profile, the target, the suites and the expectations file: what will run. */
interface RunPlan extends RunRequest {
  loaded: LoadedProfile;
  expectations?: Expectations;
  files: SuiteFile[];
}

/** Flags, then a plan (a bad flag, profile, target or expectations file stops here: exit 2), then the run. */
export async function runMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv, RUN_FLAGS);
  if (flags.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const request = requestOf(flags);
  let plan: RunPlan;
  try {
    plan = await planRun(request);
  } catch (err) {
    if (err instanceof ProfileError || err instanceof UsageError || err instanceof ExpectationsError) return cannotRun(err.message);
    throw err;
  }
  return executeRun(plan);
}

const httpUrl = (u: string, flag: string): string => {
  if (!/^https?:\/\/[^/]+/.test(u)) throw new UsageError(`--${flag} must be an http(s) URL, got ${JSON.stringify(maskUrl(u))}`);
  return u.replace(/\/+$/, '');
};

function requestOf(flags: ParsedFlags<typeof RUN_FLAGS>): RunRequest {
  const historyRuns = intFlag(flags.history, 'history', 0, 1000);
  const cfg: RunConfig = defaultRunConfig();
  // Every path the user gives is relative to where the command runs (the kit may be installed under node_modules).
  if (flags.profile) cfg.profilePath = resolve(flags.profile);
  if (flags.target) cfg.targetUrl = httpUrl(flags.target, 'target');
  cfg.suites = flags.suite ?? [];
  cfg.clauses = flags.clause ?? [];
  cfg.seed = intFlag(flags.seed, 'seed', -0x80000000, 0x7fffffff) ?? cfg.seed;
  cfg.numRuns = intFlag(flags.runs, 'runs', 1, 100_000) ?? cfg.numRuns;
  if (flags.webhooks) {
    const w = flags.webhooks;
    if (w !== 'quick' && w !== 'full' && w !== 'off')
      throw new UsageError(`--webhooks must be quick, full or off, got ${JSON.stringify(w)}`);
    cfg.webhooks = w;
  }
  if (flags.expectations) cfg.expectationsPath = resolve(flags.expectations);
  cfg.reportsDir = resolve(flags.reports ?? 'reports');
  cfg.faults = flags.fault ?? [];
  const shard = flags.shard;
  if (shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(shard);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2]))
      throw new UsageError(`--shard must be I/N with 1 <= I <= N, got ${JSON.stringify(shard)}`);
  }
  for (const c of cfg.clauses) {
    if (!hasClause(c) && !registry.some((x) => x.id.startsWith(`${c}.`)))
      throw new UsageError(`--clause ${JSON.stringify(c)} is neither a clause id nor a prefix of one (harness/clauses/registry.ts)`);
  }
  if (flags['report-url'] !== undefined) cfg.reportUrl = httpUrl(flags['report-url'], 'report-url');
  cfg.startedAt = new Date().toISOString();
  return {
    cfg,
    startedAt: cfg.startedAt,
    ...(shard !== undefined ? { shard } : {}),
    ...(historyRuns !== undefined ? { historyRuns } : {}),
    html: !flags['no-html'],
    doctor: !flags['no-doctor'],
    keepAllureResults: flags['keep-allure-results'] === true,
    ...(flags.tunnel !== undefined ? { tunnel: flags.tunnel } : {}),
  };
}

async function planRun(request: RunRequest): Promise<RunPlan> {
  const { cfg } = request;
  const loaded = loadProfile(cfg.profilePath, process.env, cfg.targetUrl !== undefined ? { baseUrl: cfg.targetUrl } : {});
  cfg.profileSha256 = loaded.sha256;
  await checkTarget(cfg, loaded);
  const all = listSuiteFiles();
  const unknownSuites = cfg.suites.filter((s) => !all.some((f) => f.name === s));
  if (unknownSuites.length) throw new UsageError(`unknown suite ${unknownSuites.join(', ')} (known: ${all.map((f) => f.name).join(', ')})`);
  // Suites imported once, by the clause filter or by the expectations' check ids, whichever needs them first.
  const imported = new Map<string, SuiteDef>();
  const suiteDef = async (f: SuiteFile): Promise<SuiteDef> => {
    const def = imported.get(f.name) ?? (await importSuite(f));
    imported.set(f.name, def);
    return def;
  };
  let files = cfg.suites.length ? all.filter((f) => cfg.suites.includes(f.name)) : all;
  if (cfg.clauses.length) {
    const kept: SuiteFile[] = [];
    for (const f of files) if (selectChecks(await suiteDef(f), cfg.suites, cfg.clauses).length > 0) kept.push(f);
    files = kept;
  }
  if (files.length === 0) throw new UsageError('no check matches the --suite/--clause filters');
  const expectations = cfg.expectationsPath ? await checkedExpectations(cfg.expectationsPath, loaded, all, suiteDef) : undefined;
  return { ...request, loaded, files, ...(expectations ? { expectations } : {}) };
}

/** Faults name the embedded reference's faults and need it; any other target must answer before a run starts. */
async function checkTarget(cfg: RunConfig, loaded: LoadedProfile): Promise<void> {
  const embedded = loaded.profile.baseUrl === 'embedded' && !cfg.targetUrl;
  if (!embedded && cfg.faults.length > 0)
    throw new UsageError('--fault applies to the embedded reference only (this run has another target)');
  if (!embedded) await ensureReachable(cfg.targetUrl ?? loaded.profile.baseUrl, makeNetwork(loaded.tls));
  else if (cfg.faults.length > 0) {
    const { faultCatalogue } = await import('../../reference/index.js');
    const unknown = cfg.faults.filter((f) => !faultCatalogue.some((k) => k.name === f));
    if (unknown.length)
      throw new UsageError(`unknown fault ${unknown.join(', ')} (known: ${faultCatalogue.map((k) => k.name).join(', ')})`);
  }
}

/** The expectations file, each check it names a check of the kit and its profile this run's. */
async function checkedExpectations(
  path: string,
  loaded: LoadedProfile,
  all: readonly SuiteFile[],
  suiteDef: (f: SuiteFile) => Promise<SuiteDef>,
): Promise<Expectations> {
  const expectations = loadExpectations(path, { isClause: hasClause });
  for (const e of expectations.entries) {
    if (e.check === undefined) continue;
    const suiteName = e.check.split('/', 1)[0]!;
    const f = all.find((s) => s.name === suiteName);
    if (!f) throw new ExpectationsError(`${path}: entry for check ${e.check}: there is no suite ${JSON.stringify(suiteName)}`);
    if (!(await suiteDef(f)).checks.some((c) => c.id === e.check))
      throw new ExpectationsError(`${path}: entry for check ${e.check}: suite ${suiteName} has no such check`);
  }
  if (expectations.profile !== undefined && expectations.profile !== loaded.profile.name) {
    throw new ExpectationsError(
      `${path} is for profile ${JSON.stringify(expectations.profile)}, this run's profile is ${JSON.stringify(loaded.profile.name)}`,
    );
  }
  return expectations;
}

/** The run, inside the tunnel when --tunnel asks for one (the doctor and vitest's workers register their receivers). */
function executeRun(plan: RunPlan): Promise<number> {
  return withTunnel(plan.tunnel, process.stderr, () => executeRunHere(plan));
}

async function executeRunHere(plan: RunPlan): Promise<number> {
  const { cfg, loaded } = plan;
  clearEarlierRun(cfg.reportsDir);
  // One embedded reference for the doctor and the checks, and the run-wide request pool, in this process: two Node
  // processes fewer to start (harness/run/host.ts says why this process may hold them).
  const host = await startRunHost({
    profile: loaded.profile,
    faults: cfg.faults,
    embedded: loaded.profile.baseUrl === 'embedded' && cfg.targetUrl === undefined,
  });
  let hostClosed = false;
  const closeHost = async (): Promise<PoolFacts> => {
    hostClosed = true;
    return host.close();
  };
  try {
    return await executeHostedRun(plan, host, closeHost);
  } finally {
    // Every way out (the doctor's stop, an error): the reference and the pool never keep this process alive.
    if (!hostClosed) await host.close();
  }
}

async function executeHostedRun(plan: RunPlan, host: RunHost, closeHost: () => Promise<PoolFacts>): Promise<number> {
  const { cfg, loaded, files, shard } = plan;
  const hosted = host.facts;
  // vitest starts now, beside the doctor: its start-up overlaps the doctor's requests, and its global setup holds every
  // check until the CLI says go.
  // A far target keeps four workers (harness/run/sequencer.ts workersFor): vitest reads its worker count at start. The
  // tries go before the doctor, not beside it: beside it, a loopback run's fewest of three read 50 ms once (load 5, from
  // sources), past the 40 ms of a far target.
  const triedAt = Date.now();
  const roundTripMs = await measureRoundTrip(hosted.referenceUrl ?? cfg.targetUrl ?? loaded.profile.baseUrl, makeNetwork(loaded.tls));
  traceRoundTrip(triedAt, roundTripMs);
  const moduleCache = openModuleCache();
  try {
    const vitest = startVitest(
      {
        ...cfg,
        holdUntilGo: true,
        hosted,
        ...(roundTripMs !== undefined ? { roundTripMs } : {}),
        ...(moduleCache ? { moduleCacheDir: moduleCache.dir } : {}),
      },
      files.map((f) => relative(CODE_ROOT, f.testFile)),
      shard,
    );
    return await checksAndReports(plan, host, closeHost, vitest, roundTripMs);
  } finally {
    moduleCache?.close();
  }
}

/** This run's folder for vitest's transformed modules; none (vitest transforms every module) when it cannot be made. */
function openModuleCache(): RunModuleCache | undefined {
  try {
    return openRunModuleCache();
  } catch {
    return undefined;
  }
}

async function checksAndReports(
  plan: RunPlan,
  host: RunHost,
  closeHost: () => Promise<PoolFacts>,
  vitest: HeldVitest,
  roundTripMs: number | undefined,
): Promise<number> {
  const { cfg, loaded, files, shard } = plan;
  const paths = reportPaths(cfg.reportsDir);
  const hosted = host.facts;
  let doctor: DoctorReport | undefined;
  if (plan.doctor) {
    doctor = await doctorBeforeChecks(plan, vitest, hosted.referenceUrl);
    if (doctor.exitCode !== 0) {
      await vitest.stop();
      const wrong = [...new Set(doctor.items.filter((i) => i.status === 'wrong').map((i) => i.path))];
      return cannotRun(
        `the profile is wrong about this target (doctor): fix ${wrong.join(', ')} — see ` +
          `${join(cfg.reportsDir, 'doctor.md')}; no check ran (--no-doctor skips this phase)`,
      );
    }
  }
  // A rate the doctor learnt paces the checks from their first request (none declared: harness/http/throttle.ts seedRate).
  if (doctor?.proposedRate !== undefined) host.seedRate(doctor.proposedRate);
  const meta = runMetaOf(plan, doctor, roundTripMs);
  writeRunMeta(paths.runMeta, meta);
  // The doctor's doubts are evidence: each fails its clauses beside the checks' results (harness/doctor/evidence.ts).
  // A sharded run's doctor ran in every shard: its first shard alone brings them, so a merge counts each once.
  if (doctor && (!shard || shard.startsWith('1/')))
    writeDoubtResults(
      paths.results,
      doubtResults(doctor, { target: meta.target, profile: meta.profile.name, seed: cfg.seed }),
      makeRedactor(merchantSecrets(loaded)),
    );
  process.stdout.write(
    `mpsi-conformance ${meta.kit.version}: profile ${meta.profile.name}, target ${meta.target}` +
      `${cfg.faults.length ? ` (faults: ${cfg.faults.join(', ')})` : ''}, seed ${cfg.seed}, ` +
      `${files.length} suite file${files.length === 1 ? '' : 's'}${shard ? `, shard ${shard}` : ''}\n`,
  );
  if (cfg.webhooks === 'full' && loaded.profile.webhooks) {
    // The 9-attempt schedule decides when a full run ends; everything else runs beside it.
    const longest = fullScheduleWithinMs(webhookTiming(loaded.profile));
    process.stdout.write(
      `webhooks full: the retry schedule is watched for up to ${fmtMs(longest)} (time scale ` +
        `${loaded.profile.webhooks.timeScale}); expected end by ${clockTime(Date.now() + longest)}\n`,
    );
  }
  let interruptedBy: NodeJS.Signals | undefined;
  // The report's generator loads beside the checks, so the page takes only its own time at the end.
  const renderer = plan.html ? startAllureRenderer() : undefined;
  const code = await vitest.go((signal) => {
    if (!interruptedBy) process.stderr.write(`mpsi-conformance: ${signal}: stopping the checks; writing the results so far\n`);
    interruptedBy ??= signal;
  });
  // The checks are over: the reference stops sending webhooks before the reports are made in this process.
  writePoolFacts(paths.pool, await closeHost());
  writeRunMeta(paths.runMeta, { ...readRunMeta(paths.runMeta), finishedAt: new Date().toISOString() });
  const runStatus = await runStatusAfter(plan, code, interruptedBy);
  const outcome = await finishReports(paths, {
    // An interrupted run keeps its certificate; the HTML report (seconds) is skipped for a CI's grace period.
    html: plan.html && !interruptedBy,
    out: process.stdout,
    err: process.stderr,
    redact: makeRedactor(merchantSecrets(loaded)),
    ...(runStatus ? { runStatus } : {}),
    ...(renderer ? { renderer } : {}),
    historyRuns: historyRunsOf(plan.historyRuns, loaded.profile),
    keepAllureResults: plan.keepAllureResults,
  });
  if (outcome.exitCode !== 0) {
    const reason =
      outcome.htmlError && outcome.certificate.exitCode === 0
        ? `the HTML report could not be made: ${outcome.htmlError}`
        : (outcome.certificate.reasons[0] ?? 'see above');
    process.stderr.write(`mpsi-conformance: ${outcome.exitCode === 1 ? 'failed' : 'no verdict'}: ${firstLine(reason)}\n`);
  }
  return outcome.exitCode;
}

/** Stale output of an earlier run would mix into this run's report and certificate (history stays). */
function clearEarlierRun(reportsDir: string): void {
  const paths = reportPaths(reportsDir);
  for (const p of [
    paths.allureResults,
    paths.allureResultsPack,
    paths.results,
    paths.repro,
    paths.allureReport,
    paths.runStatus,
    paths.runPlan,
    paths.certificateJson,
    paths.certificateMd,
    paths.clausesHtml,
    paths.traffic,
    paths.pool,
    paths.junit,
    join(reportsDir, 'doctor.json'),
    join(reportsDir, 'doctor.md'),
  ]) {
    rmSync(p, { recursive: true, force: true });
  }
  mkdirSync(reportsDir, { recursive: true });
}

/** The first phase; vitest is stopped when the doctor itself fails, so no check runs on its own. */
/** The webhook suites (webhook-ack, webhook-retry, …): every one of them times its waits by webhooks.timeScale. */
function waitsOnWebhooks(f: SuiteFile): boolean {
  return f.name.startsWith('webhook-');
}

async function doctorBeforeChecks(plan: RunPlan, vitest: HeldVitest, embeddedUrl: string | undefined): Promise<DoctorReport> {
  const { cfg, loaded } = plan;
  // The doctor meets the target the checks meet (faults included): a fault must show as a doubt, never as a profile error.
  try {
    return await doctorPhase({
      loaded,
      baseUrl: cfg.targetUrl ?? loaded.profile.baseUrl,
      reportsDir: cfg.reportsDir,
      verbose: false,
      webhooks: cfg.webhooks !== 'off',
      webhookClock: cfg.webhooks !== 'off' && plan.files.some(waitsOnWebhooks),
      faults: cfg.faults,
      ...(embeddedUrl !== undefined ? { embeddedUrl } : {}),
    });
  } catch (err) {
    await vitest.stop();
    throw err;
  }
}

function runMetaOf(plan: RunPlan, doctor: DoctorReport | undefined, roundTripMs: number | undefined): RunMeta {
  const { cfg, loaded, shard, expectations } = plan;
  const embedded = loaded.profile.baseUrl === 'embedded' && !cfg.targetUrl;
  const readings = embedded ? loaded.profile.embedded?.readings : undefined;
  return {
    kit: kitInfo(),
    startedAt: plan.startedAt,
    seed: cfg.seed,
    numRuns: cfg.numRuns,
    webhooks: cfg.webhooks,
    profile: { name: loaded.profile.name, file: basename(loaded.path), environment: loaded.profile.environment },
    target: cfg.targetUrl ? maskUrl(cfg.targetUrl) : embedded ? 'embedded' : maskUrl(loaded.profile.baseUrl),
    timeScale: loaded.profile.webhooks?.timeScale,
    ...(loosenedAllowances(loaded.profile).length > 0 ? { loosened: loosenedAllowances(loaded.profile) } : {}),
    ...(roundTripMs !== undefined ? { roundTripMs } : {}),
    filters: { suites: cfg.suites, clauses: cfg.clauses },
    faults: cfg.faults,
    ...(readings && readings !== 'default' ? { readings: [readings].flat().join(',') } : {}),
    doctor: doctorMeta(doctor),
    ...(shard ? { shard } : {}),
    ...(expectations ? { expectations: { ...expectations, source: basename(expectations.source) } } : {}),
    replay: replayOf(cfg, shard, undefined, environmentTarget(cfg, loaded.profile.baseUrl)),
    reportsDir: cfg.reportsDir,
  };
}

/** What vitest's own status file does not say: that it never wrote one, or that a signal stopped the run. */
async function runStatusAfter(plan: RunPlan, code: number, interruptedBy: NodeJS.Signals | undefined): Promise<RunStatus | undefined> {
  const paths = reportPaths(plan.cfg.reportsDir);
  if (interruptedBy) {
    const status = readRunStatus(paths.runStatus) ?? { moduleErrors: [], unhandledErrors: [] };
    return {
      ...status,
      reason: 'interrupted',
      interruptedBy,
      unfinished: await unfinishedChecks(paths.runPlan, paths.results, plan.files, plan.cfg),
    };
  }
  if (!existsSync(paths.runStatus))
    return { moduleErrors: [], unhandledErrors: [`vitest ended (exit code ${code}) without reporting its run status`] };
  return undefined;
}

/**
 * A target that does not answer at all is a reason not to run (exit 2), not a failure of every check. Asked over the
 * network the checks use (the profile's TLS, the environment's proxies): a connection it refuses is said with its fix.
 */
export async function ensureReachable(url: string, network: Network = makeNetwork(undefined)): Promise<void> {
  const client = createClient({ deadlineMs: 5000, maxResponseBytes: 64 * 1024, network });
  try {
    const ex = await client.send({ label: 'is the target reachable', url, method: 'HEAD', headers: {}, body: Buffer.alloc(0) });
    const e = ex.error;
    if (e && (e.kind === 'unreachable' || e.kind === 'deadline' || !ex.response)) {
      throw new UsageError(
        `target unreachable: ${maskUrl(url)} (${e.network ? e.network.what : e.message})${e.network ? `; fix: ${e.network.fix}` : ''}`,
      );
    }
  } finally {
    await client.close();
  }
}

interface HeldVitest {
  /** Lets the checks start (global setup was waiting); resolves with vitest's exit code. */
  go(onInterrupt: (signal: NodeJS.Signals) => void): Promise<number>;
  /** Ends vitest before any check ran (the doctor found the profile wrong, or failed). */
  stop(): Promise<void>;
}

/**
 * Spawns vitest with a pipe on fd 3: its global setup (harness/run/global-setup.ts) starts the
 * embedded reference and then waits for "go" there. Until then a Ctrl-C or SIGTERM ends vitest's
 * process group and this process as the signal would have; a pipe closed without "go" (this
 * process died) makes the global setup fail, so vitest never runs a check on its own.
 */
function startVitest(cfg: RunConfig, files: string[], shard: string | undefined): HeldVitest {
  // Compiled, the config is plain JavaScript: Node imports it as is (vite's default bundles it into a
  // temporary file beside it, which an installed kit's folder may not allow).
  const loader = COMPILED ? ['--configLoader', 'native'] : [];
  const args = [
    // Compiled, vitest's command through harness/run/vitest-main.ts: the same command without vite's module hook.
    COMPILED ? codeFile('harness/run/vitest-main') : dependencyBin('vitest'),
    'run',
    '--config',
    codeFile('vitest.conformance.config'),
    ...loader,
    ...(shard ? ['--shard', shard] : []),
    ...files,
  ];
  const child = spawn(process.execPath, args, {
    cwd: CODE_ROOT,
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...process.env, [RUN_CONFIG_ENV]: JSON.stringify(cfg) },
    // A process group of its own (vitest, its workers, the embedded reference): an interrupt stops all of them.
    detached: true,
  });
  const control = child.stdio[3] as NodeJS.WritableStream & { on(e: 'error', f: () => void): void };
  control.on('error', () => undefined);
  const exited = new Promise<number>((resolveCode) => {
    child.on('exit', (code, signal) => resolveCode(code ?? (signal ? 128 : 1)));
  });
  const dropEarlyHandlers = onSignals((signal) => {
    killGroup(child, 'SIGKILL');
    dropEarlyHandlers();
    process.kill(process.pid, signal);
  });
  return {
    async go(onInterrupt) {
      dropEarlyHandlers();
      const release = forwardInterrupts(child, onInterrupt);
      control.end('go\n');
      const code = await exited;
      release();
      return code;
    },
    async stop() {
      dropEarlyHandlers();
      killGroup(child, 'SIGKILL');
      await exited;
    },
  };
}

/**
 * Ctrl-C (SIGINT) or a CI timeout (SIGTERM): vitest's process group (its workers, the embedded
 * reference) is stopped, and this process lives on to write what the run has. Once
 * vitest has ended the handlers go, so a second signal during the reports ends this process too.
 */
function forwardInterrupts(child: ChildProcess, onInterrupt: (signal: NodeJS.Signals) => void): () => void {
  return onSignals((signal) => {
    onInterrupt(signal);
    killGroup(child, signal);
  });
}

/** Handles SIGINT and SIGTERM until the returned function is called. */
function onSignals(handler: (signal: NodeJS.Signals) => void): () => void {
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** Signals vitest's process group (its workers, the embedded reference), or vitest alone when the group is gone. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** The checks of the files this run started (run-plan.json; all selected files before it exists) that left no result. */
async function unfinishedChecks(planFile: string, resultsDir: string, files: SuiteFile[], cfg: RunConfig): Promise<string[]> {
  let planned = files;
  try {
    const plan = JSON.parse(readFileSync(planFile, 'utf8')) as { files: string[] };
    planned = files.filter((f) => plan.files.some((p) => resolve(p) === resolve(f.testFile)));
  } catch {
    // vitest was stopped before it ordered the files: every selected file counts.
  }
  const done = new Set(readResults(resultsDir).map((r) => r.checkId));
  const out: string[] = [];
  for (const f of planned) {
    const def = await importSuite(f);
    for (const c of selectChecks(def, cfg.suites, cfg.clauses)) if (!done.has(c.id)) out.push(c.id);
  }
  return out;
}
