/**
 * The kit over generated legal targets (issue 24): N genomes (default 200), each started as the reference
 * with the genome's readings and accounts and channels (methods per merchant, overlapping or gapped channels, refund
 * support and created status, payout channels, balances, decline cards, name and login) and checked with its true profile. Prints and writes the rates of false
 * verdicts (a check failing on a conformant target) and of doctor WRONG items on a true profile, with
 * every genome that broke (replay one: LEGAL_TARGETS_SEED=<seed> in test/legal-targets, or this script's --seed).
 *
 * With --kill K, K faults of the catalogue drawn per genome are laid over its target and must be killed by
 * their own clause (a survivor may be a reading that makes the fault legal: judge it before fixing a check).
 *
 *   npx tsx bench/legal-targets.ts [--n N] [--seed S] [--webhooks quick|full] [--check-runs R] [--kill K]
 */
import fc from 'fast-check';
import { targetGenome, type TargetGenome } from '../fixtures/arbitraries/genome.js';
import { loadSuites } from '../harness/run/suites.js';
import { conformantRun } from '../harness/proof/run.js';
import { runKillMatrix } from '../harness/proof/kill-matrix.js';
import { faultCatalogue } from '../reference/index.js';
import { loadTrueProfile } from '../test/legal-targets/genome.js';
import { doctorWrong } from '../test/legal-targets/properties.js';
import { log, round, writeReport } from './support/report.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value`);
  return v;
}

/** The accounts and channels of a genome in a few words, for the log. */
function describeGenes(g: TargetGenome): string {
  const t = g.target;
  if (!t) return 'reference accounts';
  const split = Object.values(t.channels).filter((c) => c.length > 1).length;
  return `${t.methods.length + 1} methods, ${split} split channel lists, ${t.declineCards.length} decline card(s)${t.secondOnly ? `, ${t.secondOnly} for the second merchant only` : ''}`;
}

const N = Number(flag('n', '200'));
const SEED = Number(flag('seed', String(Math.floor(Math.random() * 0x7fffffff))));
const WEBHOOKS = flag('webhooks', 'quick');
const CHECK_RUNS = Number(flag('check-runs', '10'));
const KILL = Number(flag('kill', '0'));
if (!Number.isInteger(N) || N < 1) throw new Error('--n must be a positive integer');
if (!Number.isInteger(SEED)) throw new Error('--seed must be an integer');
if (WEBHOOKS !== 'quick' && WEBHOOKS !== 'full') throw new Error('--webhooks must be quick or full');
if (!Number.isInteger(CHECK_RUNS) || CHECK_RUNS < 1) throw new Error('--check-runs must be a positive integer');
if (!Number.isInteger(KILL) || KILL < 0) throw new Error('--kill must be a non-negative integer');

const genomes = fc.sample(targetGenome(), { seed: SEED, numRuns: N });
const faultDraws = fc.sample(fc.subarray([...faultCatalogue], { minLength: KILL, maxLength: KILL }), { seed: SEED, numRuns: N });
const suites = await loadSuites();
log(`legal targets: ${N} genomes, seed ${SEED}, webhooks ${WEBHOOKS}, ${CHECK_RUNS} runs per property check`);

const broke: { genome: TargetGenome; falseVerdicts: string[]; doctorWrong: string[] }[] = [];
let withFalseVerdict = 0;
let withDoctorWrong = 0;
let checksRun = 0;
let checksFailed = 0;
const kills: { genome: TargetGenome; fault: string; clause: string; verdict: string; collateral: string[] }[] = [];
const started = performance.now();
for (const [i, g] of genomes.entries()) {
  const run = await conformantRun(loadTrueProfile(g), suites, SEED, CHECK_RUNS, WEBHOOKS);
  const doctor = await doctorWrong(g);
  checksRun += run.passed + run.failed.length;
  checksFailed += run.failed.length;
  if (run.failed.length > 0) withFalseVerdict += 1;
  if (doctor.wrong.length > 0) withDoctorWrong += 1;
  if (run.failed.length > 0 || doctor.wrong.length > 0) broke.push({ genome: g, falseVerdicts: run.failed, doctorWrong: doctor.wrong });
  for (const fault of KILL > 0 ? faultDraws[i]! : []) {
    const [row] = await runKillMatrix({
      loaded: loadTrueProfile(g),
      suites,
      seed: SEED,
      numRuns: CHECK_RUNS,
      faults: [fault],
      parallel: 1,
    });
    kills.push({ genome: g, fault: fault.name, clause: fault.clause, verdict: row!.verdict, collateral: row!.collateral });
    log(`  fault ${fault.name} (${fault.clause}): ${row!.verdict}`);
  }
  log(
    `[${i + 1}/${N}] ${g.readings.length} readings, ${describeGenes(g)}: ${run.passed} passed, ${run.failed.length} failed, ${run.skipped} skipped; doctor ${doctor.verified} verified, ${doctor.wrong.length} wrong`,
  );
}
const ms = performance.now() - started;
const figures = {
  genomes: N,
  seed: SEED,
  webhooks: WEBHOOKS,
  checkRuns: CHECK_RUNS,
  falseVerdictRate: withFalseVerdict / N,
  falseVerdictChecks: { failed: checksFailed, run: checksRun },
  doctorWrongRate: withDoctorWrong / N,
  secondsPerGenome: round(ms / 1000 / N, 2),
  broke,
  kills: { run: kills.length, notKilled: kills.filter((k) => k.verdict !== 'killed' && k.verdict !== 'no-check') },
};
log(
  `false verdicts: ${withFalseVerdict}/${N} targets (${checksFailed} of ${checksRun} checks); doctor WRONG: ${withDoctorWrong}/${N} targets; ${round(ms / 1000 / N, 2)} s per target`,
);
if (KILL > 0)
  log(
    `kill: ${kills.filter((k) => k.verdict === 'killed').length}/${kills.length} faults killed by their own clause (${kills.filter((k) => k.verdict === 'no-check').length} with no check)`,
  );
for (const k of kills.filter((x) => x.verdict !== 'killed' && x.verdict !== 'no-check'))
  log(`not killed: ${k.fault} (${k.clause}) ${k.verdict} on ${JSON.stringify(k.genome)}`);
for (const b of broke)
  log(`broke: ${JSON.stringify(b.genome)}\n  ${[...b.falseVerdicts, ...b.doctorWrong.map((w) => `doctor WRONG ${w}`)].join('\n  ')}`);
log(`wrote ${writeReport('legal-targets', figures)}`);
process.exit(broke.length > 0 || figures.kills.notKilled.length > 0 ? 1 : 0);
