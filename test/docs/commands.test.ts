/**
 * The commands the documents promise work, run as a reader pastes them. A fenced block whose info string is
 * `sh tested` (in README.md or any Markdown file under docs/) is run here with bash in the repository's root, as a
 * reader of a clone runs it, against the embedded reference, and must exit 0. Blocks that need a network, a vendor's
 * sandbox or minutes are left unmarked; the marked ones are kept short (help texts, the doctor, one small run), so all
 * of them take well under a minute on a quiet machine.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const MARK = /^```sh tested\s*$/;

function markdown(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return markdown(p);
    return e.name.endsWith('.md') ? [p] : [];
  });
}

interface Block {
  where: string;
  script: string;
}

function testedBlocks(file: string): Block[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!MARK.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    out.push({ where: `${relative(root, file)}:${start}`, script: lines.slice(start, end).join('\n') });
    i = end;
  }
  return out;
}

const blocks = [join(root, 'README.md'), ...markdown(join(root, 'docs'))].flatMap(testedBlocks);

describe('the commands marked as tested in the documents', () => {
  it('finds them (README.md has some)', () => {
    expect(blocks.some((b) => b.where.startsWith('README.md:'))).toBe(true);
  });

  for (const b of blocks)
    it(`runs ${b.where} and exits 0`, () => {
      const r = spawnSync('bash', ['-euo', 'pipefail', '-c', b.script], {
        cwd: root,
        encoding: 'utf8',
        timeout: 280_000,
        env: { ...process.env, FORCE_COLOR: '0' },
      });
      const tail = `${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').slice(-30).join('\n');
      expect(r.status, `${b.where} exited ${r.status ?? r.signal}:\n${tail}`).toBe(0);
    }, 300_000);
});
