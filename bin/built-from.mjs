// Whether dist/ was compiled from exactly the sources of this clone: a clone then runs the compiled
// JavaScript and skips tsx's loading of the CLI (about 0.6 s of CPU a run); any difference — a file edited, added or
// removed, another TypeScript — sends it back to its sources, so a clone never runs a stale build.
// Plain JavaScript: the bin reads it before anything can be compiled.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What tsconfig.build.json compiles (its include and the configs), every file of it, not only the .ts ones. */
const INPUTS = ['harness', 'suites', 'fixtures', 'reference', 'vitest.conformance.config.ts', 'tsconfig.json', 'tsconfig.build.json'];

/** Where the build writes the digest of the sources it compiled. */
export const MARKER = join('dist', '.built-from.json');

function filesOf(root, entry) {
  const path = join(root, entry);
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [entry];
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(root, join(d.parentPath ?? d.path, d.name)));
}

/** Digest of the build's inputs under root (paths and contents) and of the compiler's version. */
export function sourcesDigest(root) {
  const hash = createHash('sha256');
  let compiler = 'none';
  try {
    compiler = JSON.parse(readFileSync(join(root, 'node_modules', 'typescript', 'package.json'), 'utf8')).version;
  } catch {
    // no compiler installed: the digest still says which sources, and no build can match it
  }
  hash.update(`typescript ${compiler}\0`);
  const files = INPUTS.flatMap((entry) => filesOf(root, entry)).map((f) => f.split('\\').join('/'));
  for (const file of files.sort()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The digest dist/ was built from, or undefined when there is no finished build. */
export function builtFrom(root) {
  try {
    const digest = JSON.parse(readFileSync(join(root, MARKER), 'utf8')).sources;
    return typeof digest === 'string' ? digest : undefined;
  } catch {
    return undefined;
  }
}

/** True when dist/ holds the compiled form of exactly these sources. */
export function distIsFresh(root) {
  const built = builtFrom(root);
  return built !== undefined && built === sourcesDigest(root);
}
