/**
 * The kit over generated legal targets: N genomes (default 200), each started as the reference
 * with the genome's readings and accounts and channels (methods per merchant, overlapping or gapped channels, refund
 * support and created status, payout channels, balances, decline cards, name and login) and checked with its true profile. Prints and
 * writes the rates of false
 * verdicts (a check failing on a conformant target) and of doctor WRONG items on a true profile, with
 * every genome that broke (replay one: LEGAL_TARGETS_SEED=<seed> in test/legal-targets, or this script's --seed).
 *
 * With --init yes (the default), init runs against each target too (test/legal-targets/init.ts): its wrong values
 * (goal 0), the share of the true profile's facts it writes (goal 80 %), facts left out without a TODO, and whether
 * its draft, completed from the true profile at its TODOs, runs the quick suite with no failure (goal 100 %); the
 * facts it misses most are listed, by section.
 *
 * With --kill K, K faults of the catalogue drawn per genome are laid over its target and must be killed by
 * their own clause. With --kill all, every fault of the catalogue is laid over one drawn genome that can show it (see
 * everyFaultOnce), and --part P/M keeps the faults whose index is P-1 mod M (a catalogue split over runs side by side).
 * A fault the genome cannot show (test/legal-targets/kill-showable.ts: nothing to act on, or a check known to be blind
 * to it there) is not run, and counted apart with its reason; a survivor left is unjudged. A stop of the doctor on a fact
 * a legal profile would say otherwise is the fault caught (kill-showable.ts stoppedOnOwnFacts), counted apart.
 *
 * With --replay <report.json>, the genomes a report lists as broken (its false verdicts, doctor WRONG items and init
 * failures) run again instead of N drawn ones, with the report's seed unless --seed is given: a fix is tried on exactly
 * the targets that showed the fault.
 *
 *   npx tsx bench/legal-targets.ts [--n N] [--seed S] [--webhooks quick|full] [--check-runs R] [--kill K|all] [--part P/M]
 *     [--init yes|no]
 *     [--replay reports/bench/<name>.json] [--name legal-targets]
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { targetGenome, type TargetGenome } from '../fixtures/arbitraries/genome.js';
import { loadSuites } from '../harness/run/suites.js';
import { conformantRun } from '../harness/proof/run.js';
import { runKillMatrix } from '../harness/proof/kill-matrix.js';
import { faultCatalogue } from '../reference/index.js';
import { loadTrueProfile } from '../test/legal-targets/genome.js';
import { doctorWrong } from '../test/legal-targets/properties.js';
import { type InitJudgement, initOverGenome } from '../test/legal-targets/init.js';
import { showing, stoppedOnOwnFacts } from '../test/legal-targets/kill-showable.js';
import { benchArgs } from './support/args.js';
import { log, round, writeReport } from './support/report.js';

const USAGE =
  'npx tsx bench/legal-targets.ts [--n N] [--seed S] [--webhooks quick|full] [--check-runs R] [--kill K|all] [--part P/M] [--init yes|no]' +
  ' [--replay reports/bench/<name>.json] [--name legal-targets]';
const { flag } = benchArgs(USAGE, ['n', 'seed', 'webhooks', 'check-runs', 'kill', 'part', 'init', 'replay', 'name']);

/** The accounts and channels of a genome in a few words, for the log. */
function describeGenes(g: TargetGenome): string {
  const t = g.target;
  if (!t) return 'reference accounts';
  const split = Object.values(t.channels).filter((c) => c.length > 1).length;
  return (
    `${t.methods.length + 1} methods, ${split} split channel lists, ${t.declineCards.length}` +
    ` decline card(s)${t.secondOnly ? `, ${t.secondOnly} for the second merchant only` : ''}`
  );
}

const REPLAY = flag('replay', '');
const replayed = REPLAY === '' ? undefined : brokenOf(REPLAY);
const SEED = Number(flag('seed', String(replayed?.seed ?? Math.floor(Math.random() * 0x7fffffff))));
const WEBHOOKS = flag('webhooks', 'quick');
const CHECK_RUNS = Number(flag('check-runs', '10'));
const KILL_ALL = flag('kill', '0') === 'all';
const KILL = KILL_ALL ? 1 : Number(flag('kill', '0'));
const [PART, PARTS] = flag('part', '1/1').split('/').map(Number) as [number, number];
if (!Number.isInteger(PARTS) || PARTS < 1 || !Number.isInteger(PART) || PART < 1 || PART > PARTS)
  throw new Error('--part must be P/M with 1 <= P <= M');
const INIT = flag('init', 'yes');
// Chunks run side by side with distinct seeds each keep their figures (reports/bench/<name>.json).
const NAME = flag('name', 'legal-targets');
if (!Number.isInteger(SEED)) throw new Error('--seed must be an integer');
if (WEBHOOKS !== 'quick' && WEBHOOKS !== 'full') throw new Error('--webhooks must be quick or full');
if (!Number.isInteger(CHECK_RUNS) || CHECK_RUNS < 1) throw new Error('--check-runs must be a positive integer');
if (!Number.isInteger(KILL) || KILL < 0) throw new Error('--kill must be a non-negative integer or all');
if (INIT !== 'yes' && INIT !== 'no') throw new Error('--init must be yes or no');

const genomes = replayed?.genomes ?? fc.sample(targetGenome(), { seed: SEED, numRuns: Number(flag('n', '200')) });
const N = genomes.length;
if (!Number.isInteger(N) || N < 1) throw new Error(replayed ? `${REPLAY} lists no broken genome` : '--n must be a positive integer');
const faultDraws = KILL_ALL
  ? everyFaultOnce(genomes)
  : fc.sample(fc.subarray([...faultCatalogue], { minLength: KILL, maxLength: KILL }), { seed: SEED, numRuns: N });
const suites = await loadSuites();
log(`legal targets: ${N} genomes, seed ${SEED}, webhooks ${WEBHOOKS}, ${CHECK_RUNS} runs per property check`);

const broke: { genome: TargetGenome; falseVerdicts: string[]; doctorWrong: string[] }[] = [];
let withFalseVerdict = 0;
let withDoctorWrong = 0;
let checksRun = 0;
let checksFailed = 0;
// Checks without a verdict (throttled, machine too busy): neither a pass nor a false verdict, so counted and shown apart.
const noVerdict: { genome: TargetGenome; checks: string[] }[] = [];
const kills: { genome: TargetGenome; fault: string; clause: string; verdict: string; collateral: string[] }[] = [];
const unshown: { genome: TargetGenome; fault: string; kind: string; why: string }[] = [];
const inits: { genome: TargetGenome; j: InitJudgement }[] = [];
const started = performance.now();
for (const [i, g] of genomes.entries()) {
  const run = await conformantRun(loadTrueProfile(g), suites, SEED, CHECK_RUNS, WEBHOOKS);
  const doctor = await doctorWrong(g);
  checksRun += run.passed + run.failed.length;
  checksFailed += run.failed.length;
  if (run.failed.length > 0) withFalseVerdict += 1;
  if ((run.inconclusive ?? []).length > 0) noVerdict.push({ genome: g, checks: run.inconclusive ?? [] });
  if (doctor.wrong.length > 0) withDoctorWrong += 1;
  if (run.failed.length > 0 || doctor.wrong.length > 0) broke.push({ genome: g, falseVerdicts: run.failed, doctorWrong: doctor.wrong });
  for (const fault of KILL > 0 ? faultDraws[i]! : []) {
    const shows = showing(g, fault.name);
    if (!shows.show) {
      unshown.push({ genome: g, fault: fault.name, kind: shows.kind, why: shows.why });
      log(`  fault ${fault.name} (${fault.clause}): not run, ${shows.kind}: ${shows.why}`);
      continue;
    }
    const [row] = await runKillMatrix({
      loaded: loadTrueProfile(g),
      suites,
      seed: SEED,
      numRuns: CHECK_RUNS,
      faults: [fault],
      parallel: 1,
    });
    // A stop on facts a legal profile would say otherwise is the mutant caught by the doctor (kill-showable.ts).
    const verdict = row!.verdict === 'stopped' && stoppedOnOwnFacts(fault.name, row!.doctor?.wrong ?? []) ? 'caught' : row!.verdict;
    kills.push({ genome: g, fault: fault.name, clause: fault.clause, verdict, collateral: row!.collateral });
    const blamed = row!.doctor?.wrong.length ? ` (doctor WRONG ${row!.doctor.wrong.join(', ')})` : '';
    log(`  fault ${fault.name} (${fault.clause}): ${verdict}${blamed}`);
  }
  if (INIT === 'yes') {
    const j = await initOverGenome(g, { run: { suites, seed: SEED, numRuns: CHECK_RUNS } });
    inits.push({ genome: g, j });
    log(
      `  init: exit ${j.exit}, ${j.written}/${j.facts} facts, ${j.wrong.length} wrong, ${j.unseen.length} unseen, ` +
        `${j.untold.length} untold, ${j.probes} requests; ` +
        `completed: ${j.run?.passed} passed, ${j.run?.failed.length} failed, ` +
        `${j.run?.inconclusive.length} without verdict, ${j.run?.skippedTruthPassed.length} skipped that the true profile passes`,
    );
    for (const w of [
      ...j.wrong,
      ...j.unseen.map((u) => `unseen ${u}`),
      ...j.untold.map((u) => `untold ${u}`),
      ...(j.run?.failed ?? []),
      ...(j.run?.inconclusive ?? []).map((c) => `without verdict: ${c}`),
      ...(j.run?.skippedTruthPassed ?? []).map((c) => `skipped, the true profile passes: ${c}`),
    ])
      log(`    ${w}`);
  }
  log(
    `[${i + 1}/${N}] ${g.readings.length} readings, ${describeGenes(g)}: ${run.passed} passed, ${run.failed.length}` +
      ` failed, ${run.skipped} skipped${run.inconclusive?.length ? `, ${run.inconclusive.length} without verdict` : ''}; ` +
      `doctor ${doctor.verified} verified, ${doctor.wrong.length} wrong`,
  );
}
const ms = performance.now() - started;
const initFigures = inits.length === 0 ? undefined : initSummary(inits);
const figures = {
  genomes: N,
  seed: SEED,
  webhooks: WEBHOOKS,
  checkRuns: CHECK_RUNS,
  falseVerdictRate: withFalseVerdict / N,
  falseVerdictChecks: { failed: checksFailed, run: checksRun },
  noVerdict,
  doctorWrongRate: withDoctorWrong / N,
  secondsPerGenome: round(ms / 1000 / N, 2),
  broke,
  init: initFigures,
  kills: {
    run: kills.length,
    killed: kills.filter((k) => k.verdict === 'killed').length,
    caught: kills.filter((k) => k.verdict === 'caught').length,
    stopped: kills.filter((k) => k.verdict === 'stopped').length,
    notShowable: unshown.filter((u) => u.kind === 'nothing-to-show').length,
    checkBlind: unshown.filter((u) => u.kind === 'check-blind').map((u) => `${u.fault}: ${u.why}`),
    notKilled: kills.filter((k) => k.verdict !== 'killed' && k.verdict !== 'caught' && k.verdict !== 'no-check'),
  },
};
log(
  `false verdicts: ${withFalseVerdict}/${N} targets (${checksFailed} of ${checksRun} checks); ` +
    `without verdict: ${noVerdict.reduce((a, n) => a + n.checks.length, 0)} checks on ${noVerdict.length} targets; ` +
    `doctor WRONG: ${withDoctorWrong}/${N} targets; ${round(ms / 1000 / N, 2)} s per target`,
);
if (KILL > 0)
  log(
    `kill: ${figures.kills.killed}/${kills.length} faults run killed by their own clause, ${figures.kills.caught} caught by ` +
      `the doctor on a fact a legal profile would say otherwise, ${figures.kills.stopped} stopped by ` +
      `the doctor, ${kills.filter((k) => k.verdict === 'no-check').length} with no check; not run: ` +
      `${figures.kills.notShowable} the genome cannot show, ${figures.kills.checkBlind.length} a check is known blind to`,
  );
if (initFigures)
  log(
    `init: wrong values ${initFigures.wrongValues} (${initFigures.targetsWithWrong}/${N} targets); unseen limits ` +
      `${initFigures.unseen} (${initFigures.targetsWithUnseen}/${N} targets); facts written ` +
      `${(initFigures.factShare * 100).toFixed(1)} % (${initFigures.written}/${initFigures.facts}; every leaf: ` +
      `${(initFigures.leafShare * 100).toFixed(1)} %; of the facts an answer can prove: ` +
      `${(initFigures.provableShare * 100).toFixed(1)} %, ${initFigures.vendorOnlyFacts} only in the vendor's documentation); ` +
      `untold ${initFigures.untold}; exit 0 with draft and TODO file ` +
      `${initFigures.wroteAll}/${N}; CONFORMANT after completion ${initFigures.conformant}/${N} ` +
      `(${initFigures.noVerdict} incomplete: a check without verdict) ` +
      `(${initFigures.skippedTruthPassed} skipping checks the true profile passes); missed most: ` +
      initFigures.missedMost.map(([s, n]) => `${s} ${n}`).join(', '),
  );
for (const u of unshown.filter((x) => x.kind === 'check-blind')) log(`check blind: ${u.fault}: ${u.why}`);
for (const k of kills.filter((x) => x.verdict !== 'killed' && x.verdict !== 'caught' && x.verdict !== 'no-check'))
  log(`not killed: ${k.fault} (${k.clause}) ${k.verdict} on ${JSON.stringify(k.genome)}`);
for (const n of noVerdict) log(`without verdict (true profile): ${n.checks.join(', ')} on ${JSON.stringify(n.genome)}`);
for (const b of broke)
  log(`broke: ${JSON.stringify(b.genome)}\n  ${[...b.falseVerdicts, ...b.doctorWrong.map((w) => `doctor WRONG ${w}`)].join('\n  ')}`);
log(`wrote ${writeReport(NAME, figures)}`);
const initBroke = initFigures !== undefined && (initFigures.wrongValues > 0 || initFigures.untold > 0 || initFigures.conformant < N);
process.exit(broke.length > 0 || figures.kills.notKilled.length > 0 || initBroke ? 1 : 0);

/**
 * Each fault of the catalogue (of this --part) once: fault i over the first genome from i mod N on (cyclically) that can
 * show it (test/legal-targets/kill-showable.ts), else over genome i mod N, where it is counted as not shown.
 */
function everyFaultOnce(gs: readonly TargetGenome[]): (typeof faultCatalogue)[number][][] {
  const n = gs.length;
  const out = Array.from({ length: n }, () => [] as (typeof faultCatalogue)[number][]);
  const mine = faultCatalogue.filter((_, i) => i % PARTS === PART - 1);
  for (const [i, f] of mine.entries()) {
    const at = Array.from({ length: n }, (_, k) => (i + k) % n).find((j) => showing(gs[j]!, f.name).show) ?? i % n;
    out[at]!.push(f);
  }
  return out;
}

/** The genomes a report of this bench lists as broken (checks, doctor or init), each once, and the report's seed. */
function brokenOf(file: string): { seed: number; genomes: TargetGenome[] } {
  let report: { seed: number; broke?: { genome: TargetGenome }[]; init?: { broke?: { genome: TargetGenome }[] } };
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    console.error(`--replay: cannot read ${file}: ${(e as Error).message}`);
    process.exit(2);
  }
  const all = [...(report.broke ?? []), ...(report.init?.broke ?? [])].map((b) => b.genome);
  const seen = new Set<string>();
  const genomes = all.filter((g) => !seen.has(JSON.stringify(g)) && seen.add(JSON.stringify(g)) !== undefined);
  return { seed: report.seed, genomes };
}

/** init over the genomes: wrong values, the share of facts written, and the sections whose facts it misses most. */
function initSummary(rows: { genome: TargetGenome; j: InitJudgement }[]) {
  const sum = (f: (j: InitJudgement) => number) => rows.reduce((a, r) => a + f(r.j), 0);
  const missed = new Map<string, number>();
  for (const { j } of rows)
    for (const m of j.missing) {
      // By section (two segments: sandbox.completeCheckout, merchants.second, refunds.support): where the gap is, not which leaf.
      const section = m.split('.').slice(0, 2).join('.');
      missed.set(section, (missed.get(section) ?? 0) + 1);
    }
  // Facts only the vendor's documentation gives (no answer proves them without guessing its sandbox or its other merchants).
  // The card method's refund support and created status are provable (init pays by card); another method's need a sandbox
  // control to pay. Whether the vendor lists the primary's methods (and the no-channel one in them) is the vendor's wording.
  const vendorOnly = (m: string) =>
    /^(sandbox\.|merchants\.(second|frozen|lowBalance)\.|merchants\.primary\.(productionSecret|name|login|paymentMethods)$)/.test(m) ||
    /^(refunds\.(support|createdStatus)\.(?!CARD$)|refunds\.(failingReason|fee)|payouts\.balances)(\.|$)/.test(m);
  const undocumented = sum((j) => j.missing.filter(vendorOnly).length);
  return {
    wrongValues: sum((j) => j.wrong.length),
    vendorOnlyFacts: undocumented,
    provableShare: sum((j) => j.written) / Math.max(1, sum((j) => j.facts) - undocumented),
    targetsWithWrong: rows.filter((r) => r.j.wrong.length > 0).length,
    unseen: sum((j) => j.unseen.length),
    targetsWithUnseen: rows.filter((r) => r.j.unseen.length > 0).length,
    untold: sum((j) => j.untold.length),
    facts: sum((j) => j.facts),
    written: sum((j) => j.written),
    factShare:
      sum((j) => j.written) /
      Math.max(
        1,
        sum((j) => j.facts),
      ),
    leafShare:
      sum((j) => j.leafShare.equal) /
      Math.max(
        1,
        sum((j) => j.leafShare.total),
      ),
    wroteAll: rows.filter((r) => r.j.exit === 0 && r.j.wroteDraft && r.j.wroteTodo).length,
    // A check without a verdict makes the kit's run incomplete (exit 2), not CONFORMANT: counted apart, never as conformant.
    conformant: rows.filter(
      (r) => r.j.run !== undefined && r.j.run.failed.length === 0 && r.j.run.inconclusive.length === 0 && r.j.run.passed > 0,
    ).length,
    noVerdict: rows.filter((r) => (r.j.run?.inconclusive.length ?? 0) > 0).length,
    // As the init property asks: a completed draft that skips checks the true profile passes proves less than it claims.
    skippedTruthPassed: rows.filter((r) => (r.j.run?.skippedTruthPassed.length ?? 0) > 0).length,
    requestsPerTarget: round(sum((j) => j.probes ?? 0) / rows.length, 0),
    missedMost: [...missed.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12),
    broke: rows
      .filter(
        (r) =>
          r.j.wrong.length > 0 || r.j.untold.length > 0 || (r.j.run?.failed.length ?? 1) > 0 || (r.j.run?.inconclusive.length ?? 0) > 0,
      )
      .map((r) => ({
        genome: r.genome,
        wrong: r.j.wrong,
        unseen: r.j.unseen,
        untold: r.j.untold,
        failed: r.j.run?.failed,
        inconclusive: r.j.run?.inconclusive,
      })),
  };
}
