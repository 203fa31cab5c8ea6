/**
 * `npm run bench`: every benchmark, one after another, each in its own process. Each prints its
 * figures and writes reports/bench/<name>.json. Pick some by name: `npm run bench -- reference-load`.
 * Loopback only; every loop is bounded and stops by itself. `npm run bench -- --write` runs nothing: it rewrites
 * BENCHMARKS.md from bench/figures.json (bench/figures.ts).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { log, machine, ROOT } from './support/report.js';
import { writeBenchmarks } from './figures.js';

const ALL = [
  'harness-throughput',
  'doctor',
  'reference-load',
  'reference-fuzz',
  'quick-run',
  'cpu',
  'conformance-run',
  'certification',
  'kill-matrix',
  'merchant',
  'package-start',
  'legal-targets',
];
if (process.argv.includes('--write')) {
  log(`wrote ${writeBenchmarks()} from bench/figures.json`);
  process.exit(0);
}
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !ALL.includes(w));
if (unknown.length > 0) {
  process.stderr.write(`unknown bench ${unknown.join(', ')} (known: ${ALL.join(', ')})\n`);
  process.exit(2);
}
const list = wanted.length > 0 ? wanted : ALL;

log(`machine: ${JSON.stringify(machine())}`);
let failed = 0;
for (const name of list) {
  log(`\n== ${name} (npx tsx bench/${name}.ts)`);
  const t0 = performance.now();
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', `${name}.ts`)], { cwd: ROOT, stdio: 'inherit' });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  log(`== ${name}: exit ${code}, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (code !== 0) failed += 1;
}
process.exit(failed > 0 ? 1 : 0);
