/**
 * The response envelope and its schemas: ajv validators compiled once per kit version and kept on disk as ajv's
 * standalone code (harness/kit/ajv-cache.ts: in a clone under node_modules/.vite, installed under the OS temp folder, read
 * only from a folder of the user's own that others cannot write), and the split of an error `msg` into message and key.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { cacheFile, cachedValidators, kitRequire } from '../kit/ajv-cache.js';
import { kitFile } from '../kit/kit-files.js';

let compiled: { envelope: ValidateFunction; amount: ValidateFunction; webhook: ValidateFunction } | undefined;

const IDS = { amount: 'mpsi:amount', envelope: 'mpsi:envelope', webhook: 'mpsi:webhook' } as const;
const OPTIONS = { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { source: true } } as const;

/** The schema texts and options: what the compiled code depends on besides ajv's version. */
function cacheKey(): { key: string; texts: string[] } {
  const texts = (['amount', 'envelope', 'webhook'] as const).map((n) =>
    readFileSync(kitFile('harness', 'schemas', `${n}.schema.json`), 'utf8'),
  );
  return { key: JSON.stringify({ options: OPTIONS, texts }), texts };
}

function load(dir?: string) {
  const { key, texts } = cacheKey();
  return cachedValidators(
    key,
    IDS,
    () => {
      // Named first: tsc drops the parentheses of `new (require(…) as T).C()`, which then calls require with new.
      const { Ajv: Compiler } = kitRequire('ajv') as { Ajv: typeof Ajv };
      const ajv = new Compiler(OPTIONS);
      (kitRequire('ajv-formats') as { default: (a: Ajv) => Ajv }).default(ajv);
      for (const text of texts) ajv.addSchema(JSON.parse(text) as object);
      return ajv;
    },
    dir,
  );
}

/** Compiled once per kit version (harness/kit/ajv-cache.ts), evaluated once per process: ajv compilation is the expensive part. */
function validators() {
  compiled ??= load().validators as typeof compiled & object;
  return compiled;
}

/**
 * Compiles the validators into the cache unless they are there already: called by vitest's main process
 * before any worker starts, so that on a kit's first run (a fresh clone, CI) one process compiles them instead of
 * every worker at once, and no worker loads ajv's compiler. Never throws: a cache that cannot be warmed costs the
 * workers their compilation, as before.
 */
export function warmValidatorCache(dir?: string): 'cached' | 'compiled' | 'failed' {
  try {
    const file = cacheFile(cacheKey().key, IDS, dir);
    if (existsSync(file)) return 'cached';
    load(dir);
    return existsSync(file) ? 'compiled' : 'failed';
  } catch {
    return 'failed';
  }
}

export type SchemaName = 'envelope' | 'amount' | 'webhook';

/** Returns readable problems, one per line, empty when valid. */
export function validate(schema: SchemaName, value: unknown): string[] {
  const fn = validators()[schema];
  if (fn(value)) return [];
  return formatErrors(fn.errors ?? []);
}

function formatErrors(errors: ErrorObject[]): string[] {
  const out = new Set<string>();
  for (const e of errors) {
    // oneOf/if wrappers only repeat what the leaf errors already say.
    if (e.keyword === 'oneOf' || e.keyword === 'if' || e.keyword === 'not') continue;
    const where = e.instancePath === '' ? 'body' : e.instancePath.slice(1).replaceAll('/', '.');
    out.add(`${where}: ${e.message ?? e.keyword}${e.keyword === 'const' ? ` ${JSON.stringify(e.params.allowedValue)}` : ''}`);
  }
  return [...out];
}

export interface SplitMsg {
  message: string;
  /** The part after the last `|`, or undefined when there is no `|`. */
  key: string | undefined;
}

/** Keys are what clients handle; the key is the part after the LAST `|` (messages may contain `|`). */
export function splitMsg(msg: string): SplitMsg {
  const i = msg.lastIndexOf('|');
  if (i < 0) return { message: msg, key: undefined };
  return { message: msg.slice(0, i), key: msg.slice(i + 1) };
}

export interface Envelope {
  code: number;
  msg: string;
  data?: Record<string, unknown>;
}

export function isEnvelope(v: unknown): v is Envelope {
  return validate('envelope', v).length === 0;
}
