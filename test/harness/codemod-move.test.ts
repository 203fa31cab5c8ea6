/**
 * scripts/codemods/move.mjs on a small repository of its own: files and a folder moved with git, the specifiers that
 * point to them and those inside them rewritten, mentions rewritten word-bounded, a path the package exported kept, and
 * a second run after another branch merged (a file added at an old path, an import and a mention of an old path) doing
 * only what is still to do, then nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../scripts/codemods/move.mjs';

const repo = mkdtempSync(join(tmpdir(), 'codemod-move-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
const write = (path: string, text: string) => {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
};
const read = (path: string) => readFileSync(join(repo, path), 'utf8');
const commitAll = () => {
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'step');
};

interface Log {
  moved: string[];
  unresolved: string[];
  leftovers: string[];
  exports: string[];
}

describe('the move codemod', () => {
  git('init', '-q');
  write('map.json', JSON.stringify({ 'lib/money.ts': 'lib/facts/money.ts', 'docs/ref': 'docs/generated' }));
  write('lib/money.ts', "import { two } from './util.js';\nexport const cents = (v: string) => two(v);\n");
  write('lib/util.ts', 'export const two = (v: string) => v;\n');
  write(
    'lib/use.ts',
    "import { cents } from './money.js';\n" + "export const url = new URL('./money.ts', import.meta.url);\nexport { cents };\n",
  );
  write('test/money.test.ts', "vi.mock('../lib/money.js');\nconst m = await import('../lib/money.js');\n");
  write('docs/ref/cli.md', '# CLI\n');
  write('README.md', 'See lib/money.ts (not lib/money.tsx, nor test/lib/money.ts) and [the CLI](docs/ref/cli.md); `./lib/money.js`.\n');
  write('package.json', `${JSON.stringify({ name: 'x', exports: { './lib/*.js': './dist/lib/*.js' } }, null, 2)}\n`);
  commitAll();

  let first: Log;
  it('moves the files and rewrites what points to them and what they point to', () => {
    first = run(join(repo, 'map.json'), { root: repo });
    expect(first.moved.sort()).toEqual(['docs/ref/cli.md → docs/generated/cli.md', 'lib/money.ts → lib/facts/money.ts']);
    expect(read('lib/facts/money.ts')).toContain("from '../util.js'");
    expect(read('lib/use.ts')).toContain("from './facts/money.js'");
    expect(read('lib/use.ts')).toContain("new URL('./facts/money.ts', import.meta.url)");
    expect(read('test/money.test.ts')).toBe("vi.mock('../lib/facts/money.js');\nconst m = await import('../lib/facts/money.js');\n");
    expect(read('README.md')).toBe(
      'See lib/facts/money.ts (not lib/money.tsx, nor test/lib/money.ts) and [the CLI](docs/generated/cli.md); `./lib/facts/money.js`.\n',
    );
    expect(JSON.parse(read('package.json')).exports['./lib/money.js']).toBe('./dist/lib/facts/money.js');
    expect(first.unresolved).toEqual([]);
    expect(first.leftovers).toEqual([]);
  });

  it('run again after a merge, moves and rewrites only what still names an old path, then nothing', () => {
    commitAll();
    write('docs/ref/profile.md', 'Fields; see lib/money.ts.\n');
    write('lib/late.ts', "import { cents } from './money.js';\nexport const late = cents;\n");
    commitAll();
    const second: Log = run(join(repo, 'map.json'), { root: repo });
    expect(second.moved).toEqual(['docs/ref/profile.md → docs/generated/profile.md']);
    expect(read('docs/generated/profile.md')).toBe('Fields; see lib/facts/money.ts.\n');
    expect(read('lib/late.ts')).toContain("from './facts/money.js'");
    commitAll();
    const third: Log = run(join(repo, 'map.json'), { root: repo });
    expect(third.moved).toEqual([]);
    expect(git('status', '--porcelain')).toBe('');
    expect(git('ls-files', 'docs/ref')).toBe('');
  });
});
