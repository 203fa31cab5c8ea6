/**
 * The share of a generated target's true profile that `init` writes, without and with the vendor's documentation of
 * what no probe learns (test/legal-targets/init.ts `vendorHints`, given as --hints), judged fact by fact against the
 * truth (`judgeDraft`): written, wrong (goal 0) and left out without a TODO (goal 0). Two shares per mode: of all the
 * true profile's facts, and of what a probe as the primary can learn (test/legal-targets/learnable.ts: every fact but
 * other merchants', the primary's name, login, production key and balances, fees and how balances move, the sandbox's
 * refund-failure triggers, the limits of methods the primary cannot use, and a refund record where no method the primary
 * pays takes a refund; the hints are those facts and what vendors document besides). With hints, each value told is
 * judged too: written as told, or left out under a TODO naming the answer against it, or held (quoted whole in a TODO saying
 * the part it belongs to is left out: a payout fee of a method the draft lacks), or lost (goal 0). init only: the completed draft's
 * conformance run is bench/legal-targets.ts's (--init yes). With --openapi yes, a third init per target reads the
 * target's own description (`describe --openapi` of its true profile) instead of hints. With --style, init reads only
 * the vendor's own description in each style named (fixtures/openapi-gallery/vendor.ts: tagged, tables, oneof; `gallery`
 * for all three), written from the true profile without an x-mpsi extension, and no bare or hinted init runs.
 *
 * --modes bare or --modes hints runs one of the two (two halves of a long measure side by side, one mode each).
 *
 *   npx tsx bench/init-share.ts [--n N] [--seed S] [--openapi yes|no] [--modes bare,hints]
 *     [--style gallery|tagged,tables,oneof] [--name init-share]
 */
import fc from 'fast-check';
import { targetGenome } from '../fixtures/arbitraries/genome.js';
import { GALLERY_STYLES, type GalleryStyle } from '../fixtures/openapi-gallery/vendor.js';
import { type InitJudgement, initOverGenome } from '../test/legal-targets/init.js';
import { benchArgs } from './support/args.js';
import { log, round, writeReport } from './support/report.js';

const USAGE =
  'npx tsx bench/init-share.ts [--n N] [--seed S] [--openapi yes|no] [--modes bare,hints] ' +
  '[--style gallery|tagged,tables,oneof] [--name init-share]';
const { flag } = benchArgs(USAGE, ['n', 'seed', 'openapi', 'modes', 'style', 'name']);
const N = Number(flag('n', '20'));
const SEED = Number(flag('seed', String(Math.floor(Math.random() * 0x7fffffff))));
const OPENAPI = flag('openapi', 'no');
const NAME = flag('name', 'init-share');
if (!Number.isInteger(N) || N < 1) throw new Error('--n must be a positive integer');
if (!Number.isInteger(SEED)) throw new Error('--seed must be an integer');
if (OPENAPI !== 'yes' && OPENAPI !== 'no') throw new Error('--openapi must be yes or no');
const STYLE = flag('style', '');
const styles = (STYLE === 'gallery' ? [...GALLERY_STYLES] : STYLE.split(',').filter(Boolean)) as GalleryStyle[];
for (const s of styles)
  if (!GALLERY_STYLES.includes(s)) throw new Error(`--style: ${s} is not one of gallery, ${GALLERY_STYLES.join(', ')}`);

const genomes = fc.sample(targetGenome(), { seed: SEED, numRuns: N });
log(`init share: ${N} genomes, seed ${SEED} (replay: --seed ${SEED})`);

type Mode = 'bare' | 'hints' | 'openapi' | GalleryStyle;
const picked = flag('modes', 'bare,hints').split(',').filter(Boolean);
for (const m of picked) if (m !== 'bare' && m !== 'hints') throw new Error(`--modes: ${m} is not bare or hints`);
const modes: Mode[] = styles.length ? styles : [...(picked as Mode[]), ...(OPENAPI === 'yes' ? (['openapi'] as Mode[]) : [])];
const rows = Object.fromEntries(modes.map((m) => [m, [] as InitJudgement[]])) as Record<Mode, InitJudgement[]>;
for (const [i, g] of genomes.entries()) {
  for (const mode of modes) {
    const openapi = mode === 'openapi' ? true : mode === 'bare' || mode === 'hints' ? false : mode;
    const j = await initOverGenome(g, { hints: mode === 'hints', openapi });
    rows[mode].push(j);
    log(
      `[${i + 1}/${N}] ${mode}: exit ${j.exit}, ${j.written}/${j.facts} facts (learnable ${j.learnable.written}/${j.learnable.facts}), ` +
        `${j.wrong.length} wrong, ${j.untold.length} untold, ${j.todos.length} TODOs, ${j.probes} requests` +
        (j.hints
          ? `; hints ${j.hints.asTold}/${j.hints.told} as told, ${j.hints.contradicted.length} under a TODO, ` +
            `${j.hints.held.length} held with a part left out, ${j.hints.lost.length} lost`
          : ''),
    );
    for (const w of j.wrong) log(`    wrong ${w}`);
    for (const u of j.untold) log(`    untold ${u}`);
    for (const c of j.hints?.contradicted ?? []) log(`    told, contradicted ${c}`);
    for (const h of j.hints?.held ?? []) log(`    told, held ${h}`);
    for (const l of j.hints?.lost ?? []) log(`    told, lost ${l}`);
  }
}
const summary = (js: InitJudgement[]) => {
  const sum = (f: (j: InitJudgement) => number) => js.reduce((a, j) => a + f(j), 0);
  return {
    facts: sum((j) => j.facts),
    written: sum((j) => j.written),
    share: round(
      (sum((j) => j.written) /
        Math.max(
          1,
          sum((j) => j.facts),
        )) *
        100,
      1,
    ),
    learnable: {
      facts: sum((j) => j.learnable.facts),
      written: sum((j) => j.learnable.written),
      share: round(
        (sum((j) => j.learnable.written) /
          Math.max(
            1,
            sum((j) => j.learnable.facts),
          )) *
          100,
        1,
      ),
    },
    ...(js.some((j) => j.hints)
      ? {
          hints: {
            told: sum((j) => j.hints?.told ?? 0),
            asTold: sum((j) => j.hints?.asTold ?? 0),
            contradicted: sum((j) => j.hints?.contradicted.length ?? 0),
            held: sum((j) => j.hints?.held.length ?? 0),
            lost: sum((j) => j.hints?.lost.length ?? 0),
          },
        }
      : {}),
    wrong: sum((j) => j.wrong.length),
    untold: sum((j) => j.untold.length),
    todos: round(sum((j) => j.todos.length) / Math.max(1, js.length), 1),
    exitZero: js.filter((j) => j.exit === 0 && j.wroteDraft).length,
  };
};
const all = modes.flatMap((m) => rows[m]);
const figures = {
  genomes: N,
  seed: SEED,
  ...Object.fromEntries(modes.map((m) => [m, summary(rows[m])])),
  ...(styles.length > 1 ? { gallery: summary(all) } : {}),
};
const file = writeReport(NAME, figures);
for (const m of modes) {
  const s = summary(rows[m]);
  log(
    `${m}: facts written ${s.share} % (${s.written}/${s.facts}); of the learnable ${s.learnable.share} % ` +
      `(${s.learnable.written}/${s.learnable.facts}); wrong ${s.wrong}, untold ${s.untold}, ` +
      `${s.todos} TODOs per target, exit 0 ${s.exitZero}/${N}` +
      (s.hints
        ? `; hints: ${s.hints.asTold}/${s.hints.told} written as told, ${s.hints.contradicted} under a TODO naming ` +
          `the answer against them, ${s.hints.held} held in a TODO with a part left out, ${s.hints.lost} lost`
        : ''),
  );
}
if (styles.length > 1) {
  const s = summary(all);
  log(
    `gallery (${styles.join(', ')}): facts written ${s.share} % (${s.written}/${s.facts}), wrong ${s.wrong}, ` +
      `untold ${s.untold}, exit 0 ${s.exitZero}/${all.length}`,
  );
}
log(`wrote ${file}`);
