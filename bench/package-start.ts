/**
 * The kit as a package: `npm pack` (file count, size), an offline install into a fresh project
 * (test/package/install.ts), and the start-up time of `mpsi-conformance --help` from that install
 * (`node node_modules/.bin/mpsi-conformance --help`, so npx's own start is not counted; npx's figure
 * is printed beside it). `--before FILE.tgz` installs an older tarball the same way and times it too.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, UsageError } from '../harness/cli/args.js';
import { installKit, packKit } from '../test/package/install.js';
import { log, percentile, round, writeReport } from './support/report.js';

const TIMES = 15;

function timeHelp(project: string, viaNpx: boolean): { p50: number; p90: number } {
  const ms: number[] = [];
  for (let i = 0; i < TIMES; i++) {
    const t0 = performance.now();
    if (viaNpx) execFileSync('npx', ['--no-install', 'mpsi-conformance', '--help'], { cwd: project, stdio: 'ignore' });
    else execFileSync(process.execPath, [join(project, 'node_modules/.bin/mpsi-conformance'), '--help'], { cwd: project, stdio: 'ignore' });
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: round(percentile(ms, 50), 0), p90: round(percentile(ms, 90), 0) };
}

async function measure(label: string, dir: string, tarball: string): Promise<Record<string, unknown>> {
  const project = join(dir, label);
  const installMs = round(await installKit(project, tarball, 'hoisted'), 0);
  const help = timeHelp(project, false);
  const npx = timeHelp(project, true);
  log(`${label}: install ${installMs} ms; --help p50 ${help.p50} ms (p90 ${help.p90}); through npx p50 ${npx.p50} ms`);
  return { installMs, helpMs: help, helpThroughNpxMs: npx };
}

let flags: Record<string, unknown>;
try {
  ({ flags } = parseArgs(process.argv.slice(2), { before: 'value' }));
} catch (err) {
  if (!(err instanceof UsageError)) throw err;
  process.stderr.write(`package-start: ${err.message}\n`);
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'mpsi-bench-package-'));
try {
  const packed = packKit(join(dir, 'pack'));
  log(`pack: ${packed.files} files, ${round(packed.bytes / 1024, 1)} kB packed, ${round(packed.ms, 0)} ms (with the prepack build)`);
  const after = await measure('after', dir, packed.tarball);
  const before = flags.before ? await measure('before', dir, resolve(String(flags.before))) : undefined;
  const file = writeReport('package-start', {
    pack: { files: packed.files, bytes: packed.bytes, ms: round(packed.ms, 0) },
    after,
    ...(before ? { before } : {}),
  });
  log(`figures: ${file}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
