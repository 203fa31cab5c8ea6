import { readFileSync } from 'node:fs';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { cachedValidators, kitRequire } from './ajv-cache.js';
import { kitFile } from './kit-files.js';

let compiled: { envelope: ValidateFunction; amount: ValidateFunction; webhook: ValidateFunction } | undefined;

/** Compiled once per kit version (harness/ajv-cache.ts), evaluated once per process: ajv compilation is the expensive part. */
function validators() {
  if (!compiled) {
    const names = ['amount', 'envelope', 'webhook'] as const;
    const texts = names.map((n) => readFileSync(kitFile('harness', 'schemas', `${n}.schema.json`), 'utf8'));
    const options = { allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { source: true } } as const;
    const { validators } = cachedValidators(
      JSON.stringify({ options, texts }),
      { amount: 'mpsi:amount', envelope: 'mpsi:envelope', webhook: 'mpsi:webhook' },
      () => {
        // Named first: tsc drops the parentheses of `new (require(…) as T).C()`, which then calls require with new.
        const { Ajv: Compiler } = kitRequire('ajv') as { Ajv: typeof Ajv };
        const ajv = new Compiler(options);
        (kitRequire('ajv-formats') as { default: (a: Ajv) => Ajv }).default(ajv);
        for (const text of texts) ajv.addSchema(JSON.parse(text) as object);
        return ajv;
      },
    );
    compiled = validators as typeof compiled & object;
  }
  return compiled;
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
