/**
 * Where the kit's own files and dependencies are, wherever it runs from: a clone (TypeScript sources,
 * dependencies in its node_modules) or an installed package (compiled code under dist/, dependencies
 * hoisted by npm, nested by `npm i -g`, or linked from a store by pnpm / `--install-strategy=linked`).
 * Every path the kit needs to one of its own files goes through here, never through `../../` from a
 * module (the compiled tree sits one level deeper) nor through `<root>/node_modules/<dep>` (the package
 * manager decides where dependencies go). Paths the user types are resolved against the working
 * directory by the commands themselves, not here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'mpsi-conformance';

/** True when this is the compiled kit (dist/, what the package ships); false when run from the TypeScript sources. */
export const COMPILED = !import.meta.url.endsWith('.ts');

/** Extension of the kit's modules as they run: `.ts` from sources, `.js` compiled. */
export const CODE_EXT = COMPILED ? '.js' : '.ts';

/** Folder holding the kit's modules (harness/, suites/, reference/, the conformance vitest config): the clone's root, or dist/. */
export const CODE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function findKitRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return dir;
      } catch {
        // not the kit's package.json; keep looking upwards
      }
    }
    if (dirname(dir) === dir) throw new Error(`${PACKAGE_NAME}: no package.json named ${PACKAGE_NAME} above ${start}`);
  }
}

/** The kit's root: where its package.json, fixtures/, harness/schemas/ and README are. */
export const KIT_ROOT = findKitRoot(CODE_ROOT);

/**
 * Where vitest keeps its cache when started without the CLI: in a clone, its default (node_modules/.vite); installed,
 * the OS temp folder, because the kit's own folder may be read-only (`npm i -g` as root, a CI cache). The CLI's runs
 * keep it in a folder of their own (harness/run/module-cache.ts).
 */
export const VITE_CACHE_DIR: string | undefined = COMPILED ? join(tmpdir(), `${PACKAGE_NAME}-vite-cache`) : undefined;

/** A data file shipped with the kit (profiles, JSON Schemas, package.json), by its path in the repository. */
export function kitFile(...segments: string[]): string {
  return join(KIT_ROOT, ...segments);
}

/** A folder of the kit's modules: `codeDir('suites')` is suites/ of the clone, or dist/suites/ installed. */
export function codeDir(...segments: string[]): string {
  return join(CODE_ROOT, ...segments);
}

/** One of the kit's modules by its path without extension: `codeFile('vitest.conformance.config')`. */
export function codeFile(pathWithoutExt: string): string {
  return join(CODE_ROOT, `${pathWithoutExt}${CODE_EXT}`);
}

const requireFromKit = createRequire(join(KIT_ROOT, 'package.json'));

/** The folder of one of the kit's dependencies, found as Node finds the kit's own imports of it. */
export function dependencyDir(name: string): string {
  let entry: string;
  try {
    return dirname(requireFromKit.resolve(`${name}/package.json`));
  } catch {
    // its exports hide package.json: start from its main entry and walk up to its package.json
    entry = requireFromKit.resolve(name);
  }
  for (let dir = dirname(entry); dirname(dir) !== dir; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === name) return dir;
  }
  throw new Error(`${PACKAGE_NAME}: cannot find the folder of dependency ${name} (from ${entry})`);
}

/** The script of a dependency's command (its package.json `bin`), to run with `node`. */
export function dependencyBin(name: string, command: string = name): string {
  const dir = dependencyDir(name);
  const bin = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> }).bin;
  const rel = typeof bin === 'string' ? bin : bin?.[command];
  if (!rel) throw new Error(`${PACKAGE_NAME}: dependency ${name} has no command ${command}`);
  return join(dir, rel);
}
