/**
 * `npm run proof [-- --targets N] [--seed S] [--out FILE]`: the kit's own proof, measured at release and
 * shipped in the package (proof/kit-proof.json), which every certificate then carries:
 * the kill matrix over the whole fault catalogue (each fault killed only by its own clause, the doctor
 * phase on, as a run has it), then N generated legal targets (default 20, seed 2027), each checked with
 * its true profile, where every failed check and every doctor WRONG is a false verdict.
 * It takes minutes (not part of npm test). Exit 1 when a fault survives or a false verdict was seen:
 * the file is written all the same, since the figures are what they are.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import fc from 'fast-check';
import { GENOME_VERSION, targetGenome } from '../fixtures/arbitraries/genome.js';
import { intFlag, parseArgs, UsageError } from '../harness/cli/args.js';
import { kitFile } from '../harness/kit/kit-files.js';
import { loadProfile } from '../harness/profile/load.js';
import { runKillMatrix } from '../harness/proof/kill-matrix.js';
import { conformantRun } from '../harness/proof/run.js';
import { KIT_PROOF_FORMAT, KIT_PROOF_PATH, type KitProof } from '../harness/report/certificate-kit-proof.js';
import { kitInfo } from '../harness/report/kit.js';
import { loadSuites } from '../harness/run/suites.js';
import { loadTrueProfile } from '../test/legal-targets/genome.js';
import { doctorWrong } from '../test/legal-targets/properties.js';

const MATRIX_SEED = 1;
const RUNS_PER_PROPERTY = 20;
const TARGET_RUNS_PER_PROPERTY = 10;

let targets: number;
let seed: number;
let out: string;
try {
  const parsed = parseArgs(process.argv.slice(2), { targets: 'value', seed: 'value', out: 'value' });
  if (parsed.rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(parsed.rest[0])}`);
  targets = intFlag(parsed.flags.targets, 'targets', 1, 100_000) ?? 20;
  seed = intFlag(parsed.flags.seed, 'seed', 0, 0x7fffffff) ?? 2027;
  out = parsed.flags.out ? resolve(String(parsed.flags.out)) : KIT_PROOF_PATH;
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  console.error(`kit-proof: ${err.message}\nusage: npm run proof -- [--targets N] [--seed S] [--out FILE]`);
  process.exit(2);
}

function git(...args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: kitFile(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (err) {
    // A proof names the commit it measured: without one it could not be told from a proof of other code.
    console.error(`kit-proof: needs a git clone of the kit (git ${args.join(' ')}: ${(err as Error).message.trim()})`);
    process.exit(2);
  }
}

// The commit the figures describe; a change not in it (but the proof file itself) makes the figures its own.
const commit = git('rev-parse', 'HEAD');
const dirty = git('status', '--porcelain', '--', '.', ':(exclude)proof/kit-proof.json') !== '';
const suites = await loadSuites();

console.error(`kill matrix: the whole catalogue, seed ${MATRIX_SEED}, ${RUNS_PER_PROPERTY} runs per property, doctor on`);
const rows = await runKillMatrix({
  loaded: loadProfile(kitFile('fixtures', 'profiles', 'reference.json')),
  suites,
  seed: MATRIX_SEED,
  numRuns: RUNS_PER_PROPERTY,
  parallel: 4,
  onFault: (row, done, total) => console.error(`  [${done}/${total}] ${row.name} (${row.clause}): ${row.verdict}`),
});
const notKilled = rows.filter((r) => r.verdict !== 'killed').map((r) => `${r.name} (${r.clause}): ${r.verdict}`);

console.error(`legal targets: ${targets} genomes, seed ${seed}, ${TARGET_RUNS_PER_PROPERTY} runs per property`);
const legal = { checks: 0, falseVerdicts: 0, targetsWithFalseVerdict: 0, doctorFalseWrong: 0 };
for (const [i, g] of fc.sample(targetGenome(), { seed, numRuns: targets }).entries()) {
  const run = await conformantRun(loadTrueProfile(g), suites, seed, TARGET_RUNS_PER_PROPERTY, 'quick');
  const doctor = await doctorWrong(g);
  legal.checks += run.passed + run.failed.length;
  legal.falseVerdicts += run.failed.length;
  legal.targetsWithFalseVerdict += run.failed.length > 0 ? 1 : 0;
  legal.doctorFalseWrong += doctor.wrong.length;
  for (const f of [...run.failed, ...doctor.wrong.map((w) => `doctor WRONG ${w}`)]) console.error(`  false verdict: ${f}`);
  console.error(`  [${i + 1}/${targets}] ${run.passed} passed, ${run.failed.length} failed; doctor ${doctor.wrong.length} wrong`);
}

const proof: KitProof = {
  format: KIT_PROOF_FORMAT,
  kitVersion: kitInfo().version,
  date: new Date().toISOString(),
  commit,
  dirty,
  killMatrix: {
    faults: rows.length,
    killed: rows.length - notKilled.length,
    seed: MATRIX_SEED,
    runsPerProperty: RUNS_PER_PROPERTY,
    notKilled,
  },
  legalTargets: { genomeVersion: GENOME_VERSION, targets, seed, runsPerProperty: TARGET_RUNS_PER_PROPERTY, ...legal },
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(proof, null, 2)}\n`);
console.log(
  `kit ${proof.kitVersion} at ${commit.slice(0, 12)}${dirty ? ' (with uncommitted changes)' : ''}: ` +
    `faults killed ${proof.killMatrix.killed}/${proof.killMatrix.faults}; ` +
    `legal targets ${targets} (genome version ${GENOME_VERSION}, seed ${seed}` +
    `): ${legal.falseVerdicts} false verdicts in ${legal.checks} checks, ` +
    `doctor false WRONG ${legal.doctorFalseWrong}; wrote ${out}`,
);
process.exit(notKilled.length > 0 || legal.falseVerdicts > 0 || legal.doctorFalseWrong > 0 ? 1 : 0);
