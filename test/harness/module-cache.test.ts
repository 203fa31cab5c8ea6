/**
 * The run's own module-cache folder (harness/run/module-cache.ts): seeded from the store with whole entries only,
 * publishing its new whole entries when it closes, and never sharing a file another run may write or clear.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunModuleCache, wholeEntry } from '../../harness/run/module-cache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(): string {
  const d = mkdtempSync(join(tmpdir(), 'mpsi-module-store-'));
  dirs.push(d);
  return d;
}

/** An entry as vitest writes it: the code, its marker, its metadata as base64 JSON. */
function entry(code: string): string {
  return `${code}\n//# vitestCache=${Buffer.from(JSON.stringify({ id: '/x.ts', importedUrls: [] })).toString('base64')}`;
}

const name = (c: string) => c.repeat(40);

describe('a run’s module cache', () => {
  it('is a folder of its own, seeded with the store’s whole entries; what it adds is published when it closes', () => {
    const s = store();
    const a = openRunModuleCache(s);
    expect(a.seeded).toBe(0);
    writeFileSync(join(a.dir, name('a')), entry('export const a = 1;'));
    writeFileSync(join(a.dir, '_metadata.json'), '{"lockfileHash":"x"}');
    a.close();
    expect(existsSync(a.dir)).toBe(false);
    expect(readdirSync(join(s, 'entries'))).toEqual([name('a')]);
    const b = openRunModuleCache(s);
    expect(b.seeded).toBe(1);
    expect(readFileSync(join(b.dir, name('a')), 'utf8')).toBe(entry('export const a = 1;'));
    b.close();
  });

  it('never seeds nor publishes a damaged entry: vitest transforms that module again', () => {
    const s = store();
    const a = openRunModuleCache(s);
    writeFileSync(join(a.dir, name('b')), 'export const b = 1; // cut before its metadata');
    a.close();
    expect(readdirSync(join(s, 'entries'))).toEqual([]);
    writeFileSync(join(s, 'entries', name('c')), 'half of a file');
    writeFileSync(join(s, 'entries', name('d')), `${entry('x')}%%%`);
    expect(wholeEntry(join(s, 'entries', name('c')))).toBe(false);
    const b = openRunModuleCache(s);
    expect(b.seeded).toBe(0);
    b.close();
  });

  it('keeps a run’s entries when the store is cleared or replaced under it (what vitest does on a lockfile change)', () => {
    const s = store();
    const a = openRunModuleCache(s);
    writeFileSync(join(a.dir, name('e')), entry('export const e = 1;'));
    a.close();
    const b = openRunModuleCache(s);
    const c = openRunModuleCache(s);
    expect(b.dir).not.toBe(c.dir);
    // Another install's run clears everything it can reach in the store: b's folder still reads its entry.
    rmSync(join(s, 'entries'), { recursive: true, force: true });
    expect(readFileSync(join(b.dir, name('e')), 'utf8')).toBe(entry('export const e = 1;'));
    // c clearing its own folder (vitest's clearCache) touches nothing of b's.
    rmSync(c.dir, { recursive: true, force: true });
    expect(readFileSync(join(b.dir, name('e')), 'utf8')).toBe(entry('export const e = 1;'));
    b.close();
    c.close();
  });
});
