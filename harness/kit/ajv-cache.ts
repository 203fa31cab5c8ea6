/**
 * Compiled JSON Schema validators kept on disk between processes. Compiling the profile schema costs the CLI
 * about 0.6 s of CPU, and the envelope, amount and webhook schemas about 0.4 s in each vitest worker: every run, for
 * schemas that change only with the kit. ajv's standalone code (the same code `ajv.compile` builds and evaluates) is
 * written once under a name that hashes everything it depends on (ajv's version, the options, the schemas), and later
 * processes evaluate it instead of compiling. Any trouble with the cache (no folder, a read-only kit, a file that
 * does not load) falls back to compiling: the cache can make a process faster, never different.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyValidateFunction } from 'ajv/dist/core.js';
import { COMPILED, KIT_ROOT } from './kit-files.js';

/** In a clone beside vitest's own cache (node_modules/.vite); installed, in the OS temp folder (the kit's may be read-only). */
export const AJV_CACHE_DIR = COMPILED ? join(tmpdir(), 'mpsi-conformance-ajv-cache') : join(KIT_ROOT, 'node_modules', '.vite', 'mpsi-ajv');

/**
 * The generated code requires ajv's runtime helpers and ajv-formats' formats: resolved as the kit resolves them. ajv's
 * compiler itself (0.15–0.3 s of loading per process) is required only when a schema must be compiled.
 */
export const kitRequire = createRequire(import.meta.url);

const AJV_VERSION = (JSON.parse(readFileSync(kitRequire.resolve('ajv/package.json'), 'utf8')) as { version: string }).version;

export interface CachedValidators<K extends string> {
  validators: Record<K, AnyValidateFunction>;
  /** 'cache' when read from disk, 'compiled' when compiled in this process. */
  from: 'cache' | 'compiled';
}

/** Where the validators of `ids` built under `key` are kept: the name hashes everything the code depends on. */
export function cacheFile(key: string, ids: Record<string, string>, dir: string = AJV_CACHE_DIR): string {
  const hash = createHash('sha256').update(AJV_VERSION).update('\0').update(JSON.stringify(ids)).update('\0').update(key).digest('hex');
  return join(dir, `${hash.slice(0, 32)}.cjs`);
}

/**
 * The validators of the schemas with the given `$id`s (export name → `$id`). `build` makes the ajv instance with every
 * schema added (and `code: { source: true }` among its options); `key` is everything else the code depends on (the
 * options and the schema texts), hashed with ajv's version into the file name.
 */
export function cachedValidators<K extends string>(
  key: string,
  ids: Record<K, string>,
  build: () => { getSchema(id: string): AnyValidateFunction | undefined },
  dir: string = AJV_CACHE_DIR,
): CachedValidators<K> {
  const file = cacheFile(key, ids, dir);
  try {
    if (ownFolder(dir)) return { validators: evaluate<K>(readFileSync(file, 'utf8'), ids), from: 'cache' };
  } catch {
    // absent or unreadable: compiled below
  }
  const ajv = build();
  const validators = {} as Record<K, AnyValidateFunction>;
  for (const name of Object.keys(ids) as K[]) {
    const fn = ajv.getSchema(ids[name]);
    if (!fn) throw new Error(`ajv has no schema ${JSON.stringify(ids[name])}`);
    validators[name] = fn;
  }
  try {
    const standalone = kitRequire('ajv/dist/standalone') as { default: (ajv: object, refs: Record<string, string>) => string };
    const code = standalone.default(ajv, ids);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Written aside and renamed: a process reading the cache never sees half a file.
    const part = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.part`;
    writeFileSync(part, code);
    renameSync(part, file);
  } catch {
    // a cache that cannot be written only costs the next process a compilation
  }
  return { validators, from: 'compiled' };
}

/**
 * Code is evaluated only from a folder of this user's that no one else may write to: installed, the cache is under the
 * OS temp folder, where another user could otherwise plant a file under the expected name.
 */
export function ownFolder(dir: string): boolean {
  const st = statSync(dir);
  if (!st.isDirectory()) return false;
  if (typeof process.getuid !== 'function') return true;
  return st.uid === process.getuid() && (st.mode & 0o022) === 0;
}

function evaluate<K extends string>(code: string, ids: Record<K, string>): Record<K, AnyValidateFunction> {
  const mod: { exports: Record<string, unknown> } = { exports: {} };
  // The same evaluation ajv does for the code it compiles (new Function), with the kit's require.
  new Function('require', 'module', 'exports', code)(kitRequire, mod, mod.exports);
  const out = {} as Record<K, AnyValidateFunction>;
  for (const name of Object.keys(ids) as K[]) {
    const fn = mod.exports[name];
    if (typeof fn !== 'function') throw new Error(`the cached code has no validator ${name}`);
    out[name] = fn as AnyValidateFunction;
  }
  return out;
}
