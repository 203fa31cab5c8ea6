// Builds dist/ (tsc -p tsconfig.build.json) and records the digest of the sources it was built from
// (bin/built-from.mjs), so that a clone runs the compiled kit while nothing has changed since.
//
//   node scripts/build.mjs              `npm run build`, prepack: a failed build fails
//   node scripts/build.mjs --if-possible prepare (`npm ci`): a failed build leaves the clone on its sources, never
//                                        fails the install (no compiler with --omit=dev, a type error mid-edit)
//
// A dist/ already built from these sources is left as it is: processes of the kit may be running from it (a test
// packing the kit beside other tests), and the same sources and compiler give the same files.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtFrom, MARKER, sourcesDigest } from '../bin/built-from.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const ifPossible = process.argv.includes('--if-possible');

function giveUp(why) {
  if (!ifPossible) {
    process.stderr.write(`build: ${why}\n`);
    process.exit(1);
  }
  process.stderr.write(`mpsi-conformance: dist/ not built (${why}); the kit runs from its TypeScript sources\n`);
  process.exit(0);
}

// Taken before compiling: a file edited during the build makes the marker differ from the sources, never match them.
const digest = sourcesDigest(root);
if (builtFrom(root) === digest) process.exit(0);
rmSync(join(root, 'dist'), { recursive: true, force: true });
let tsc;
try {
  tsc = join(dirname(createRequire(join(root, 'package.json')).resolve('typescript/package.json')), 'bin', 'tsc');
} catch {
  giveUp('no TypeScript compiler installed');
}
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) giveUp(`tsc -p tsconfig.build.json ended with ${result.status ?? result.signal}`);
writeFileSync(join(root, MARKER), `${JSON.stringify({ sources: digest })}\n`);
