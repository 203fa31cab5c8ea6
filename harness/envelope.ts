import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { kitFile } from './kit-files.js';

// ajv-formats ships CommonJS; under nodenext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function loadSchema(name: string): object {
  return JSON.parse(readFileSync(kitFile('harness', 'schemas', `${name}.schema.json`), 'utf8')) as object;
}

let compiled: { envelope: ValidateFunction; amount: ValidateFunction; webhook: ValidateFunction } | undefined;

/** Compiled once per process: ajv compilation is the expensive part. */
function validators() {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    addFormats(ajv);
    const amount = loadSchema('amount');
    ajv.addSchema(amount);
    compiled = {
      amount: ajv.compile(amount),
      envelope: ajv.compile(loadSchema('envelope')),
      webhook: ajv.compile(loadSchema('webhook')),
    };
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
