import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { warmValidatorCache } from '../../harness/http/envelope.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * vitest's main process warms the workers' validator cache before they start: on a kit's first run one
 * process compiles the envelope, amount and webhook schemas, instead of every worker at once.
 */
describe('warming the validator cache', () => {
  it('compiles into an empty cache once, then finds it there and leaves it alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-ajv-warm-'));
    dirs.push(dir);
    expect(warmValidatorCache(dir)).toBe('compiled');
    const files = readdirSync(dir).filter((f) => f.endsWith('.cjs'));
    expect(files).toHaveLength(1);
    const written = statSync(join(dir, files[0]!)).mtimeMs;
    expect(warmValidatorCache(dir)).toBe('cached');
    expect(readdirSync(dir).filter((f) => f.endsWith('.cjs'))).toEqual(files);
    expect(statSync(join(dir, files[0]!)).mtimeMs).toBe(written);
  });

  it('says it failed, without throwing, where no cache can be written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-ajv-warm-'));
    dirs.push(dir);
    // A file where the cache folder should be: nothing can be written under it.
    const blocked = join(dir, 'not-a-folder');
    writeFileSync(blocked, '');
    expect(warmValidatorCache(join(blocked, 'cache'))).toBe('failed');
  });
});
