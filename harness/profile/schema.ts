/**
 * The profile JSON Schema (fixtures/profiles/profile.schema.json), compiled once, and the
 * translation of ajv's errors into one readable line per problem.
 *
 * Messages never show the value of a secret: nothing under `merchants` is echoed, nor any field
 * whose name looks like a secret, nor any value containing a string the caller marks as secret.
 * Other values are shown cut to 60 characters.
 */
import { readFileSync } from 'node:fs';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { pathToFileURL } from 'node:url';
import { cachedValidators, kitRequire } from '../kit/ajv-cache.js';
import { kitFile } from '../kit/kit-files.js';

/** Where the schema lives; also what a profile's "$schema" usually points to. */
export const PROFILE_SCHEMA_URL = pathToFileURL(kitFile('fixtures', 'profiles', 'profile.schema.json'));

const DECIMAL_PATTERN = '^\\d+\\.\\d{2}$';
const PATH_PATTERN = '^/';
const ENV_NAME_PATTERN = '^[A-Z_][A-Z0-9_]*$';
export const ENV_NAME_RE = new RegExp(ENV_NAME_PATTERN);

const PATTERN_MESSAGES: Record<string, string> = {
  [DECIMAL_PATTERN]: 'must be a decimal string with exactly two decimals, e.g. "10.00"',
  [PATH_PATTERN]: 'must start with "/"',
  [ENV_NAME_PATTERN]: 'must be an environment variable name: upper-case letters, digits and "_", not starting with a digit',
  '^https?://': 'must be an http:// or https:// URL',
};

const MAX_ECHO = 60;
/** Field names whose values are never echoed, wherever they are. */
const SECRETISH_KEY = /secret|passw|passphrase|token|credential|api[-_]?key|private|auth/i;
/** Values that look like API keys are never echoed either. */
const SECRETISH_VALUE = /^(sk|rk|pk|whsec)_/i;

let schemaCache: Record<string, unknown> | undefined;
let validatorCache: ValidateFunction | undefined;
let namesCache: Map<string, string[]> | undefined;

/** The parsed schema document (read once). */
export function profileSchema(): Record<string, unknown> {
  schemaCache ??= JSON.parse(readFileSync(PROFILE_SCHEMA_URL, 'utf8')) as Record<string, unknown>;
  return schemaCache;
}

/** The compiled validator: compiled once per schema text (harness/kit/ajv-cache.ts), evaluated once per process. */
export function profileValidator(): ValidateFunction {
  if (!validatorCache) {
    const options = { allErrors: true, verbose: true, strict: true, strictRequired: false, code: { source: true } } as const;
    const schema = profileSchema();
    const { validators } = cachedValidators(JSON.stringify({ options, formats: ['uri'], schema }), { profile: String(schema.$id) }, () => {
      // Named first: tsc drops the parentheses of `new (require(…) as T).C()`, which then calls require with new.
      const { Ajv2020: Compiler } = kitRequire('ajv/dist/2020') as { Ajv2020: typeof Ajv2020 };
      const ajv = new Compiler(options);
      (kitRequire('ajv-formats') as { default: (a: Ajv2020, formats: string[]) => unknown }).default(ajv, ['uri']);
      ajv.addSchema(schema);
      return ajv;
    });
    validatorCache = validators.profile as ValidateFunction;
  }
  return validatorCache;
}

/**
 * Validates `value` against the schema; returns one line per problem (empty when valid).
 * `secrets`: strings that must never appear in a message.
 */
export function schemaProblems(value: unknown, secrets: readonly string[] = []): string[] {
  const validate = profileValidator();
  if (validate(value)) return [];
  const errors = validate.errors ?? [];
  const lines: string[] = [];
  for (const e of errors) {
    // Failures inside oneOf/anyOf branches are summed up by the oneOf/anyOf error itself.
    if (/\/(oneOf|anyOf)\/\d+\//.test(e.schemaPath)) continue;
    const line = describeError(e, secrets);
    if (line !== undefined && !lines.includes(line)) lines.push(line);
  }
  return lines;
}

function describeError(e: ErrorObject, secrets: readonly string[]): string | undefined {
  const segs = pointerSegments(e.instancePath);
  const where = dotted(segs);
  const parent = (e.parentSchema ?? {}) as Record<string, unknown>;
  const got = (v: unknown) => {
    const shown = echo(v, segs, secrets);
    return shown === undefined ? '' : ` (got ${shown})`;
  };
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys((parent['properties'] as Record<string, unknown> | undefined) ?? {});
      return unknownField(key, segs, allowed);
    }
    case 'required': {
      const missing = String((e.params as { missingProperty: string }).missingProperty);
      return `${dotted([...segs, missing])}: is required`;
    }
    case 'oneOf':
    case 'anyOf': {
      const props = parent['properties'] as Record<string, unknown> | undefined;
      if (props && 'secret' in props && 'secretEnv' in props) {
        return `${where}: must have exactly one of "secret" or "secretEnv"`;
      }
      if (segs.length === 1 && segs[0] === 'baseUrl') {
        return `${where}: must be "embedded" or an http(s) URL without a trailing slash${got(e.data)}`;
      }
      return `${where}: must match exactly one of the allowed forms`;
    }
    case 'not':
      if (where === 'http.tls')
        return `${where}: each file once: not a field and its …Env together, and pfx (or pfxEnv) instead of cert and key, not beside them`;
      return `${where}: ${e.message ?? 'must not match'}`;
    case 'type': {
      const t = String((e.params as { type: string }).type);
      return `${where}: must be ${TYPE_WORDS[t] ?? t} (got ${jsonType(e.data)})`;
    }
    case 'enum': {
      const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v));
      return `${where}: must be one of ${allowed.join(', ')}${got(e.data)}`;
    }
    case 'const':
      return `${where}: must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}${got(e.data)}`;
    case 'pattern': {
      const p = String((e.params as { pattern: string }).pattern);
      return `${where}: ${PATTERN_MESSAGES[p] ?? `must match the pattern ${p}`}${got(e.data)}`;
    }
    case 'format':
      return `${where}: must be a valid ${String((e.params as { format: string }).format).toUpperCase()}${got(e.data)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const p = e.params as { comparison: string; limit: number };
      return `${where}: must be ${p.comparison} ${p.limit}${got(e.data)}`;
    }
    case 'minLength': {
      const limit = (e.params as { limit: number }).limit;
      return limit === 1 ? `${where}: must not be empty` : `${where}: must be at least ${limit} characters long`;
    }
    case 'minItems': {
      const limit = (e.params as { limit: number }).limit;
      return `${where}: must have at least ${limit} item${limit === 1 ? '' : 's'}`;
    }
    case 'uniqueItems': {
      const p = e.params as { i: number; j: number };
      return `${where}: must not repeat items (items ${p.j} and ${p.i} are equal)`;
    }
    default:
      // ajv's own messages name schema constraints, never data values.
      return `${where}: ${e.message ?? `fails ${e.keyword}`}`;
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

export function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a number';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return `a ${typeof v}`;
}

// ---------------------------------------------------------------------------------------------
// Paths

export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Dotted form: merchants.primary.id, methods.checkout[1], internalFieldNames["a.b"]; "top level" for the root. */
export function dotted(segs: readonly (string | number)[]): string {
  if (segs.length === 0) return 'top level';
  let out = '';
  for (const s of segs) {
    const str = String(s);
    if (typeof s === 'number' || /^\d+$/.test(str)) out += `[${str}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(str)) out += out === '' ? str : `.${str}`;
    else out += `[${JSON.stringify(truncate(str))}]`;
  }
  return out;
}

/** True where values must never be echoed: the whole `merchants` section and secret-looking names. */
export function isSensitivePath(segs: readonly (string | number)[]): boolean {
  return segs[0] === 'merchants' || segs.some((s) => typeof s === 'string' && SECRETISH_KEY.test(s));
}

function truncate(s: string): string {
  return s.length > MAX_ECHO ? `${s.slice(0, MAX_ECHO - 1)}…` : s;
}

/** A value as it may appear in a message, or undefined when it must not appear. */
export function echo(v: unknown, segs: readonly (string | number)[], secrets: readonly string[]): string | undefined {
  if (isSensitivePath(segs)) return undefined;
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (typeof v !== 'string') return undefined;
  if (SECRETISH_VALUE.test(v)) return undefined;
  if (secrets.some((s) => s.length > 0 && v.includes(s))) return undefined;
  return JSON.stringify(truncate(v));
}

// ---------------------------------------------------------------------------------------------
// Unknown fields and suggestions

function unknownField(key: string, segs: readonly string[], allowed: readonly string[]): string {
  const at = segs.length === 0 ? 'at top level' : `in ${dotted(segs)}`;
  const candidates = allowed.filter((a) => a !== '$schema');
  const best = closest(key, candidates);
  const elsewhere = profilePropertyNames().get(key);
  const known = elsewhere !== undefined;
  // Under merchants an unknown key could itself be a pasted secret: show it only when it is
  // close to, or equal to, a name the schema knows.
  const showKey = segs[0] !== 'merchants' || best !== undefined || known;
  const shownKey = showKey && !SECRETISH_VALUE.test(key) ? `"${truncate(key)}"` : '(name not shown)';
  let hint = '';
  if (best !== undefined) hint = ` (did you mean "${best}"?)`;
  else if (elsewhere && elsewhere.length === 1) hint = ` (it belongs in ${elsewhere[0]})`;
  else if (candidates.length > 0 && candidates.length <= 8) hint = ` (allowed: ${candidates.map((c) => `"${c}"`).join(', ')})`;
  return `unknown field ${shownKey} ${at}${hint}`;
}

function normalise(s: string): string {
  return s.toLowerCase().replace(/[-_\s]/g, '');
}

/** The allowed name closest to `key` within a small edit distance, if any. */
export function closest(key: string, allowed: readonly string[]): string | undefined {
  const k = normalise(key);
  const limit = k.length <= 4 ? 1 : k.length <= 9 ? 2 : 3;
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const a of allowed) {
    const d = editDistance(k, normalise(a));
    if (d <= limit && d < bestD) {
      best = a;
      bestD = d;
    }
  }
  return best;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  const d: number[][] = Array.from({ length: m + 1 }, (_, i) => Array.from({ length: n + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[m]![n]!;
}

/**
 * Every fixed property name the schema defines, with the dotted places it belongs
 * ("timeScale" → ["webhooks"]); records of free keys show as "*".
 */
export function profilePropertyNames(): Map<string, string[]> {
  if (namesCache) return namesCache;
  const root = profileSchema();
  const defs = (root['$defs'] ?? {}) as Record<string, Record<string, unknown>>;
  const names = new Map<string, string[]>();
  const walk = (node: Record<string, unknown>, path: string[], depth: number) => {
    if (depth > 12) return;
    let n = node;
    const ref = n['$ref'];
    if (typeof ref === 'string' && ref.startsWith('#/$defs/')) n = { ...(defs[ref.slice(8)] ?? {}), ...n, $ref: undefined };
    const props = n['properties'] as Record<string, Record<string, unknown>> | undefined;
    if (props) {
      for (const [k, sub] of Object.entries(props)) {
        if (k === '$schema') continue;
        const place = path.length === 0 ? 'top level' : path.join('.');
        const list = names.get(k) ?? [];
        if (!list.includes(place)) list.push(place);
        names.set(k, list);
        walk(sub, [...path, k], depth + 1);
      }
    }
    const ap = n['additionalProperties'];
    if (ap && typeof ap === 'object') walk(ap as Record<string, unknown>, [...path, '*'], depth + 1);
    const items = n['items'];
    if (items && typeof items === 'object') walk(items as Record<string, unknown>, [...path, '*'], depth + 1);
  };
  walk(root, [], 0);
  namesCache = names;
  return names;
}
