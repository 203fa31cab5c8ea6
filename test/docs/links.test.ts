/**
 * Every relative link of the documents leads to a file that exists: README.md, ARCHITECTURE.md, BENCHMARKS.md,
 * examples/README.md, reference/README.md and every Markdown file under docs/ (anchors and web addresses are not
 * followed). A page moved or renamed fails here, naming the document, the line and the link.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function markdown(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return markdown(p);
    return e.name.endsWith('.md') ? [p] : [];
  });
}

function brokenLinks(file: string): string[] {
  const out: string[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/i.test(target)) continue;
        if (!existsSync(join(dirname(file), decodeURIComponent(target))))
          out.push(`${relative(root, file)}:${i + 1}: ${m[1]} does not exist`);
      }
    });
  return out;
}

describe('links between the documents', () => {
  it('lead to files that exist', () => {
    const files = [
      ...['README.md', 'ARCHITECTURE.md', 'BENCHMARKS.md', 'examples/README.md', 'reference/README.md'].map((f) => join(root, f)),
      ...markdown(join(root, 'docs')),
    ];
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });

  it('finds a link to a missing file, and leaves anchors and web addresses alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'links-'));
    try {
      const f = join(dir, 'x.md');
      writeFileSync(join(dir, 'there.md'), '');
      writeFileSync(f, '[a](there.md#part) [b](#top) [c](https://example.com/x) [d](gone.md)\n');
      expect(brokenLinks(f).map((l) => l.replace(/^.*:1: /, ''))).toEqual(['gone.md does not exist']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
