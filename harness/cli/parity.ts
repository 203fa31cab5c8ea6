import { join, resolve } from 'node:path';
import type { SuiteDef } from '../check/define.js';
import { clauses as registry, hasClause } from '../clauses/registry.js';
import { DeclaredError, loadDeclared, type DeclaredEntry } from '../parity/declared.js';
import { writeParityReport } from '../parity/report.js';
import { renderSingleFileReport } from '../report/allure.js';
import { knownFault, runParity, type ParityResult, type SideSpec } from '../parity/run.js';
import { loadProfile, merchantSecrets, ProfileError, type LoadedProfile } from '../profile/load.js';
import { makeRedactor } from '../kit/redact.js';
import { maskUrl } from '../report/mask.js';
import { selectChecks } from '../report/select.js';
import { DEFAULT_NUM_RUNS } from '../run/config.js';
import { loadSuites } from '../run/suites.js';
import { flagsHelp, intFlag, parseFlags, UsageError, type FlagTable, type ParsedFlags } from './args.js';
import { ensureReachable } from './run.js';
import { makeNetwork } from '../http/network.js';
import { doctorPhase } from './doctor.js';
import { firstLine } from '../kit/text.js';

export const PARITY_FLAGS = {
  a: { kind: 'value', arg: 'FILE', help: 'the target profile of side A (baseUrl "embedded" starts a reference for that side)' },
  b: { kind: 'value', arg: 'FILE', help: 'the target profile of side B (likewise)' },
  'target-a': { kind: 'value', arg: 'URL', help: "base URL of side A (overrides its profile's baseUrl)" },
  'target-b': { kind: 'value', arg: 'URL', help: 'base URL of side B (likewise)' },
  seed: { kind: 'value', arg: 'N', help: 'fast-check seed (printed; replays the run)' },
  runs: { kind: 'value', arg: 'N', help: `fast-check runs per property check (default ${DEFAULT_NUM_RUNS})` },
  suite: { kind: 'multi', arg: 'NAME', help: 'only this suite (repeatable, or comma-separated)' },
  clause: { kind: 'multi', arg: 'ID', help: 'only checks of this clause or clause prefix (repeatable)' },
  webhooks: { kind: 'value', arg: 'MODE', help: 'quick | off (default quick)' },
  safe: {
    kind: 'bool',
    help: [
      'production-safe: only requests that move no money are sent — correctly signed',
      'queries (payment, refund, payout), and requests to any endpoint that fail',
      'authentication by construction (missing or empty signing header, unknown',
      'merchant, signature that no key we hold makes valid). Anything else is not sent',
      'and its check is skipped ("safe mode: would send POST /path"). Validation',
      'refusals are exercised on query endpoints only: a correctly signed create',
      'request with a defect could be accepted by a non-conformant production target.',
    ].join('\n'),
  },
  declared: {
    kind: 'value',
    arg: 'FILE',
    help: [
      'declared differences: JSON list of {"clause" | "check", "what": [aspects], "reason"}',
      '(aspects: status, findings, readings, exchanges, http-status, body, envelope, code,',
      'key, key-form, data, signature, webhooks, any)',
    ].join('\n'),
  },
  reports: { kind: 'value', arg: 'DIR', help: 'where the report goes (default ./reports/parity)' },
  'fault-a': { kind: 'multi', arg: 'NAME', help: "switch on a fault in side A's embedded reference (repeatable; demos and proofs)" },
  'fault-b': { kind: 'multi', arg: 'NAME', help: 'likewise for side B' },
  concurrency: { kind: 'value', arg: 'N', help: 'checks in flight at once, each on both sides (default 8)' },
  'no-html': { kind: 'bool', help: 'skip the HTML page (parity.md, parity.json and the Allure results are still written)' },
  'no-doctor': {
    kind: 'bool',
    help: [
      'skip the first phase: the profile doctor on each side (doctor-a.md, doctor-b.md; a',
      'production side gets the doctor that moves no money), which stops the comparison',
      '(exit 2) when a profile is wrong about its target',
    ].join('\n'),
  },
  confirm: {
    kind: 'value',
    arg: 'N',
    help: [
      'runs a pair that differed N more times (default 2): a difference counts only when',
      'every run shows it; one that vanishes is reported as unstable (timing, interleaving)',
    ].join('\n'),
  },
} as const satisfies FlagTable;

export const PARITY_HELP = `mpsi-conformance parity --a PROFILE_A --b PROFILE_B [options]

Sandbox parity: runs the same checks, with the same seed and so the same generated inputs, against
two targets (a sandbox and its production, or a release and the last one) and compares each pair of
outcomes once what must differ is taken out (service and merchant numbers, times, nonces, signatures,
merchant ids, URLs, the profiles' endpoint paths). Compared: check status and findings, and per
exchange HTTP status, envelope code, error key and "message|key" form, data (keys, JSON types and
values), response signing, and the sequence of webhook events and statuses.

Writes parity.json, parity.md (per clause: equal / different with the two exchanges side by side /
skipped on one side), requests.md (every request sent to each side), allure-results/ (one result
per clause) and allure-report/index.html (those results as one self-contained page).

${flagsHelp(PARITY_FLAGS)}
A profile with "environment": "production" is refused without --safe.

Exit codes: 0 every difference is declared (or none), 1 a difference remains outside the declared
ones, 2 the comparison could not be made (bad flags, profile or declared file, target unreachable).
`;

function cannotRun(message: string): number {
  process.stderr.write(`mpsi-conformance: cannot run parity: ${message.split('\n').join('\n  ')}\n`);
  return 2;
}

function side(name: 'a' | 'b', profilePath: string, target: unknown, faults: string[]): { spec: SideSpec; loaded: LoadedProfile } {
  const loaded = loadProfile(resolve(profilePath), process.env, target === undefined ? {} : { baseUrl: String(target) });
  let baseUrl = loaded.profile.baseUrl;
  if (target !== undefined) {
    const u = String(target);
    if (!/^https?:\/\/[^/]+/.test(u)) throw new UsageError(`--target-${name} must be an http(s) URL, got ${JSON.stringify(maskUrl(u))}`);
    baseUrl = u.replace(/\/+$/, '');
  }
  if (faults.length && baseUrl !== 'embedded')
    throw new UsageError(`--fault-${name} applies to an embedded reference only (side ${name.toUpperCase()} has another target)`);
  const unknown = faults.filter((f) => !knownFault(f));
  if (unknown.length)
    throw new UsageError(`unknown fault ${unknown.join(', ')} (see docs/FAULTS.md, or: mpsi-conformance serve --list-faults)`);
  return { spec: { loaded, baseUrl, faults }, loaded };
}

function progress(): (done: number, total: number, different: number) => void {
  let last = Date.now();
  return (done, total, different) => {
    const now = Date.now();
    if (now - last < 2000 && done !== total) return;
    last = now;
    process.stderr.write(`parity: ${done}/${total} checks compared, ${different} different\n`);
  };
}

/** What the flags ask for, each checked: no profile is read and no target contacted yet. */
interface ParityRequest {
  profiles: { a: string; b: string };
  targets: { a?: string; b?: string };
  faults: { a: string[]; b: string[] };
  seed: number;
  numRuns: number;
  concurrency: number;
  confirmRuns: number;
  webhooks: 'quick' | 'off';
  suites: string[];
  clauses: string[];
  safe: boolean;
  declaredPath?: string;
  reportsDir: string;
  html: boolean;
  doctor: boolean;
}

type Side = ReturnType<typeof side>;

/** The request resolved against both profiles and targets, the suites and the declared differences: what will be compared. */
interface ParityPlan extends ParityRequest {
  a: Side;
  b: Side;
  suiteDefs: SuiteDef[];
  declared: DeclaredEntry[];
}

/** Flags, then a plan (a bad flag, profile, target or declared file stops here: exit 2), the doctor on each side, the comparison. */
export async function parityMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseFlags(argv, PARITY_FLAGS);
  if (flags.help) {
    process.stdout.write(PARITY_HELP);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const request = parityRequestOf(flags);
  let plan: ParityPlan;
  try {
    plan = await planParity(request);
  } catch (err) {
    if (err instanceof ProfileError || err instanceof UsageError || err instanceof DeclaredError) return cannotRun(err.message);
    throw err;
  }
  const wrong = plan.doctor ? await doctorOnEachSide(plan) : undefined;
  if (wrong !== undefined) return cannotRun(wrong);
  return executeParity(plan);
}

function parityRequestOf(flags: ParsedFlags<typeof PARITY_FLAGS>): ParityRequest {
  if (flags.a === undefined || flags.b === undefined)
    throw new UsageError(
      `parity needs both --a PROFILE and --b PROFILE (missing: ` +
        `${[flags.a === undefined ? '--a' : '', flags.b === undefined ? '--b' : ''].filter(Boolean).join(', ')})`,
    );
  const seed = intFlag(flags.seed, 'seed', -0x80000000, 0x7fffffff) ?? Math.floor(Math.random() * 0x7fffffff);
  const numRuns = intFlag(flags.runs, 'runs', 1, 100_000) ?? DEFAULT_NUM_RUNS;
  const concurrency = intFlag(flags.concurrency, 'concurrency', 1, 64) ?? 8;
  const confirmRuns = intFlag(flags.confirm, 'confirm', 0, 5) ?? 2;
  const webhooks = flags.webhooks ?? 'quick';
  if (webhooks !== 'quick' && webhooks !== 'off') throw new UsageError(`--webhooks must be quick or off, got ${JSON.stringify(webhooks)}`);
  const clauses = flags.clause ?? [];
  for (const c of clauses) {
    if (!hasClause(c) && !registry.some((x) => x.id.startsWith(`${c}.`)))
      throw new UsageError(`--clause ${JSON.stringify(c)} is neither a clause id nor a prefix of one (harness/clauses/registry.ts)`);
  }
  return {
    profiles: { a: flags.a, b: flags.b },
    targets: { a: flags['target-a'], b: flags['target-b'] },
    faults: { a: flags['fault-a'] ?? [], b: flags['fault-b'] ?? [] },
    seed,
    numRuns,
    concurrency,
    confirmRuns,
    webhooks,
    suites: flags.suite ?? [],
    clauses,
    safe: flags.safe === true,
    ...(flags.declared !== undefined ? { declaredPath: flags.declared } : {}),
    reportsDir: resolve(flags.reports ?? 'reports/parity'),
    html: flags['no-html'] !== true,
    doctor: flags['no-doctor'] !== true,
  };
}

async function planParity(request: ParityRequest): Promise<ParityPlan> {
  const a = side('a', request.profiles.a, request.targets.a, request.faults.a);
  const b = side('b', request.profiles.b, request.targets.b, request.faults.b);
  for (const [n, s] of [
    ['A', a],
    ['B', b],
  ] as const) {
    if (s.loaded.profile.environment === 'production' && !request.safe)
      throw new UsageError(`profile ${s.loaded.profile.name} (side ${n}) is a production environment: parity against it needs --safe`);
  }
  let suiteDefs: SuiteDef[];
  try {
    suiteDefs = await loadSuites();
  } catch (err) {
    throw new UsageError(`the suites cannot be loaded: ${firstLine(err)}`);
  }
  const unknownSuites = request.suites.filter((s) => !suiteDefs.some((x) => x.name === s));
  if (unknownSuites.length)
    throw new UsageError(`unknown suite ${unknownSuites.join(', ')} (known: ${suiteDefs.map((s) => s.name).join(', ')})`);
  if (!suiteDefs.some((s) => selectChecks(s, request.suites, request.clauses).length > 0))
    throw new UsageError('no check matches the --suite/--clause filters');
  let declared: DeclaredEntry[] = [];
  if (request.declaredPath !== undefined) {
    const ids = new Set(suiteDefs.flatMap((s) => s.checks.map((c) => c.id)));
    declared = loadDeclared(resolve(request.declaredPath), {
      isClause: (id) => hasClause(id) || (id.endsWith('.') && registry.some((x) => x.id.startsWith(id))),
      isCheck: (id) => ids.has(id),
    });
  }
  for (const s of [a, b]) if (s.spec.baseUrl !== 'embedded') await ensureReachable(s.spec.baseUrl, makeNetwork(s.loaded.tls));
  return { ...request, a, b, suiteDefs, declared };
}

/** The first phase on each side; what a wrong profile makes the run say, or undefined when both hold. */
async function doctorOnEachSide(plan: ParityPlan): Promise<string | undefined> {
  for (const [n, s] of [
    ['a', plan.a],
    ['b', plan.b],
  ] as const) {
    const report = await doctorPhase({
      loaded: s.loaded,
      baseUrl: s.spec.baseUrl,
      reportsDir: plan.reportsDir,
      name: `doctor-${n}`,
      tag: `side ${n.toUpperCase()}`,
      verbose: false,
      safe: plan.safe,
      webhooks: plan.webhooks !== 'off',
      faults: s.spec.faults,
    });
    if (report.exitCode !== 0) {
      const wrong = [...new Set(report.items.filter((i) => i.status === 'wrong').map((i) => i.path))];
      return (
        `profile ${s.loaded.profile.name} (side ${n.toUpperCase()}) is wrong about its target (doctor): fix ${wrong.join(', ')}` +
        ` — see ${join(plan.reportsDir, `doctor-${n}.md`)}; nothing was compared (--no-doctor skips this phase)`
      );
    }
  }
  return undefined;
}

/** The command that replays this comparison (targets masked). */
function replayOf(plan: ParityPlan): string {
  return [
    'mpsi-conformance parity',
    `--a ${plan.profiles.a}`,
    `--b ${plan.profiles.b}`,
    `--seed ${plan.seed}`,
    `--runs ${plan.numRuns}`,
    `--webhooks ${plan.webhooks}`,
  ]
    .concat(
      plan.targets.a ? [`--target-a ${maskUrl(plan.targets.a)}`] : [],
      plan.targets.b ? [`--target-b ${maskUrl(plan.targets.b)}`] : [],
    )
    .concat(
      plan.suites.map((s) => `--suite ${s}`),
      plan.clauses.map((c) => `--clause ${c}`),
      plan.safe ? ['--safe'] : [],
      plan.declaredPath ? [`--declared ${plan.declaredPath}`] : [],
    )
    .concat(
      plan.a.spec.faults!.map((f) => `--fault-a ${f}`),
      plan.b.spec.faults!.map((f) => `--fault-b ${f}`),
    )
    .join(' ');
}

async function executeParity(plan: ParityPlan): Promise<number> {
  const { a, b, seed, safe, reportsDir } = plan;
  const redact = makeRedactor([a, b].flatMap((s) => merchantSecrets(s.loaded)));
  process.stdout.write(
    redact(
      `mpsi-conformance parity: A ${a.loaded.profile.name}${a.spec.faults!.length ? ` (faults: ${a.spec.faults!.join(', ')})` : ''}` +
        ` vs B ${b.loaded.profile.name}${b.spec.faults!.length ? ` (faults: ${b.spec.faults!.join(', ')})` : ''}` +
        `, seed ${seed}${safe ? ', production-safe' : ''} — replay with --seed ${seed}\n`,
    ),
  );
  const result = await runParity({
    a: a.spec,
    b: b.spec,
    suites: plan.suiteDefs,
    filter: (s, c) => selectChecks(s, plan.suites, plan.clauses).includes(c),
    settings: { seed, numRuns: plan.numRuns, webhooks: plan.webhooks },
    safe,
    declared: plan.declared,
    concurrency: plan.concurrency,
    confirmRuns: plan.confirmRuns,
    onProgress: progress(),
  });
  const f = result.figures;
  const exitCode = f.undeclared > 0 ? 1 : 0;
  const paths = writeParityReport(reportsDir, result, {
    redact,
    exitCode,
    replay: replayOf(plan),
    filters: { suites: plan.suites, clauses: plan.clauses },
  });
  const lines = summaryLines(result, safe);
  const html = plan.html ? await htmlPage(paths.allureResults, plan, f.ratio) : '';
  lines.push(
    `Report: ${paths.md} (also parity.json, requests.md, allure-results/${html})`,
    `Exit code ${exitCode}: ${exitCode === 0 ? 'no difference outside the declared ones' : `${f.undeclared} undeclared difference(s)`}`,
  );
  process.stdout.write(redact(`${lines.join('\n')}\n`));
  return exitCode;
}

function summaryLines(result: ParityResult, safe: boolean): string[] {
  const f = result.figures;
  const compared = f.clauses.equal + f.clauses.different + f.clauses.declared;
  const lines = [
    `Parity ${(f.ratio * 100).toFixed(1)}%: ${f.clauses.equal}/${compared} compared clauses equal; ` +
      `${f.clauses.different} different, ${f.clauses.declared} different as declared, ${f.clauses['one side skipped']} skipped ` +
      `on one side, ${f.clauses['both skipped']} on both (${result.comparisons.length} checks, ` +
      `${Math.round(result.durationMs)} ms)${f.unstable ? `; ${f.unstable} unstable check(s) not counted (see the report)` : ''}`,
  ];
  for (const row of result.rows.filter((r) => r.verdict === 'different')) {
    lines.push(
      `  different: ${row.clause} — ${firstLine(row.differences.find((d) => !d.declared)?.detail ?? '')}` +
        ` (${[...new Set(row.differences.map((d) => d.checkId))].length} check(s))`,
    );
  }
  if (safe)
    lines.push(
      `Requests sent: A ${result.requests.filter((q) => q.side === 'a' && q.sent).length}, B ` +
        `${result.requests.filter((q) => q.side === 'b' && q.sent).length}; ` +
        `refused by the safe guard: ${result.requests.filter((q) => !q.sent).length}`,
    );
  return lines;
}

/** The single-file page, as ", <file>" for the report line; "" when it could not be made (said on stderr, not fatal). */
async function htmlPage(allureResults: string, plan: ParityPlan, ratio: number): Promise<string> {
  try {
    const out = await renderSingleFileReport({
      results: allureResults,
      output: join(plan.reportsDir, 'allure-report'),
      name: `MPSI parity — ${plan.a.loaded.profile.name} vs ${plan.b.loaded.profile.name} — ${(ratio * 100).toFixed(1)}%`,
    });
    return `, ${out.file}`;
  } catch (err) {
    // The Markdown and JSON reports stand on their own; a missing page is said, not fatal.
    process.stderr.write(`mpsi-conformance: the parity HTML page was not written: ${firstLine(err)}\n`);
    return '';
  }
}
