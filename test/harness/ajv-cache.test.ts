import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedValidators } from '../../harness/kit/ajv-cache.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const SCHEMA = {
  $id: 'test:thing',
  type: 'object',
  required: ['name', 'at'],
  properties: {
    name: { type: 'string', minLength: 2 },
    at: { type: 'string', format: 'date-time' },
    value: { type: 'string', pattern: '^\\d+\\.\\d{2}$' },
    kind: { enum: ['a', 'b'] },
  },
  additionalProperties: false,
};

const OPTIONS = { allErrors: true, verbose: true, strict: true, code: { source: true } } as const;
let compilations = 0;
const build = () => {
  compilations++;
  const ajv = new Ajv(OPTIONS);
  addFormats(ajv);
  ajv.addSchema(SCHEMA);
  return ajv;
};

const VALUES: unknown[] = [
  { name: 'ok', at: '2026-11-24T10:00:00Z' },
  { name: 'ok', at: '2026-11-24T10:00:00+01:00', value: '10.00', kind: 'a' },
  { name: 'x', at: 'yesterday', value: '10.5', kind: 'c', extra: 1 },
  { at: 5 },
  'not an object',
  null,
];

const dirs: string[] = [];
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'mpsi-ajv-cache-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** What a validator says about each value: its verdict and its errors, as data. */
function verdicts(fn: ReturnType<typeof cachedValidators<'thing'>>['validators']['thing']): unknown[] {
  return VALUES.map((v) => {
    const ok = fn(v);
    return { ok, errors: JSON.parse(JSON.stringify(fn.errors ?? null)) as unknown };
  });
}

describe('cachedValidators', () => {
  it('compiles once, then later calls evaluate the cached code, which judges every value as the compiled validator does', () => {
    const dir = tempDir();
    compilations = 0;
    const first = cachedValidators('k1', { thing: 'test:thing' }, build, dir);
    expect(first.from).toBe('compiled');
    expect(readdirSync(dir).filter((f) => f.endsWith('.cjs'))).toHaveLength(1);
    const second = cachedValidators('k1', { thing: 'test:thing' }, build, dir);
    expect(second.from).toBe('cache');
    expect(compilations).toBe(1);
    const expected = verdicts(first.validators.thing);
    expect(expected.map((v) => (v as { ok: boolean }).ok)).toEqual([true, true, false, false, false, false]);
    expect(verdicts(second.validators.thing)).toEqual(expected);
  });

  it('compiles again for another key (a changed schema or option is never served stale code)', () => {
    const dir = tempDir();
    cachedValidators('k1', { thing: 'test:thing' }, build, dir);
    const other = cachedValidators('k2', { thing: 'test:thing' }, build, dir);
    expect(other.from).toBe('compiled');
    expect(readdirSync(dir).filter((f) => f.endsWith('.cjs'))).toHaveLength(2);
  });

  it('falls back to compiling when the cached file does not load, and when the folder cannot be written', () => {
    const dir = tempDir();
    cachedValidators('k1', { thing: 'test:thing' }, build, dir);
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file!), 'this is not javascript (');
    const broken = cachedValidators('k1', { thing: 'test:thing' }, build, dir);
    expect(broken.from).toBe('compiled');
    expect(broken.validators.thing({ name: 'ok', at: '2026-11-24T10:00:00Z' })).toBe(true);
    // the broken file was replaced by a good one
    expect(cachedValidators('k1', { thing: 'test:thing' }, build, dir).from).toBe('cache');

    const notADir = join(tempDir(), 'file');
    writeFileSync(notADir, '');
    const unwritable = cachedValidators('k1', { thing: 'test:thing' }, build, join(notADir, 'sub'));
    expect(unwritable.from).toBe('compiled');
    expect(unwritable.validators.thing({ at: 5 })).toBe(false);
  });

  it('never evaluates code from a folder others may write to', () => {
    const dir = tempDir();
    cachedValidators('k1', { thing: 'test:thing' }, build, dir);
    chmodSync(dir, 0o777);
    expect(cachedValidators('k1', { thing: 'test:thing' }, build, dir).from).toBe('compiled');
    chmodSync(dir, 0o700);
    expect(cachedValidators('k1', { thing: 'test:thing' }, build, dir).from).toBe('cache');
  });
});
