import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No line over the formatter's width in the kit's code. The formatter cannot break a long
 * string, comment or regular expression, so `biome check` alone lets such a line through; this is what does not.
 * Data (JSON, Markdown) is not code and is not read.
 */
const root = join(import.meta.dirname, '..', '..');
const width = (JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as { formatter: { lineWidth: number } }).formatter.lineWidth;
const SOURCES = ['harness', 'suites', 'fixtures', 'reference', 'test', 'bench', 'bin', 'scripts'];
const SKIP = new Set(['node_modules', 'dist', 'reports', '.scratch', '.cache']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return SKIP.has(e.name) ? [] : sources(p);
    return /\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function longLines(files: string[], limit: number): string[] {
  return files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      // Characters, not UTF-16 units: "二つ" is two, as the formatter counts it.
      .flatMap((line, i) => ([...line].length > limit ? [`${relative(root, f)}:${i + 1} (${[...line].length})`] : [])),
  );
}

describe('line width', () => {
  it(`keeps every line of the kit's code within the formatter's width (split long strings: \
node scripts/codemods/split-long-lines.mjs)`, () => {
    const files = SOURCES.flatMap((d) => sources(join(root, d)));
    expect(files.length).toBeGreaterThan(300);
    expect(longLines(files, width)).toEqual([]);
  });

  it('finds a line one character over the width, and counts characters, not UTF-16 units', () => {
    const dir = mkdtempSync(join(tmpdir(), 'line-width-'));
    try {
      const f = join(dir, 'x.ts');
      writeFileSync(f, [`'${'a'.repeat(width - 2)}'`, `'${'𝔞'.repeat(width - 2)}'`, `'${'a'.repeat(width - 1)}'`].join('\n'));
      expect(longLines([f], width).map((l) => l.replace(/^.*:/, ''))).toEqual([`3 (${width + 1})`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
