/**
 * A clone runs its compiled dist/ only when dist/ was built from exactly its sources (bin/built-from.mjs,
 * scripts/build.mjs; tsx's loading of the CLI costs about 0.6 s of CPU a run). Each case runs the real bin
 * and build script in a small kit of their own, whose two entry points say which one ran.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtFrom, MARKER, sourcesDigest } from '../../bin/built-from.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const kits: string[] = [];

function write(root: string, file: string, text: string): void {
  mkdirSync(join(root, file, '..'), { recursive: true });
  writeFileSync(join(root, file), text);
}

const entry = (says: string): string =>
  `export async function main(): Promise<number> {\n  process.stdout.write('${says}');\n  return 0;\n}\n`;

/** A kit with the real bin/ and build script, a CLI that prints "sources", and the project's node_modules. */
function kit(): string {
  const root = mkdtempSync(join(tmpdir(), 'mpsi-built-from-'));
  kits.push(root);
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'scripts'));
  for (const f of ['bin/mpsi-conformance.js', 'bin/built-from.mjs', 'scripts/build.mjs']) copyFileSync(join(ROOT, f), join(root, f));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  write(root, 'package.json', '{ "name": "kit", "type": "module" }\n');
  write(root, 'harness/cli/main.ts', entry('sources'));
  write(root, 'tsconfig.json', '{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "strict": true, "types": ["node"] } }\n');
  write(
    root,
    'tsconfig.build.json',
    '{ "extends": "./tsconfig.json", "compilerOptions": { "outDir": "dist", "rootDir": "." }, "include": ["harness"] }\n',
  );
  return root;
}

function ran(root: string): string {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'mpsi-conformance.js')], { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

function build(root: string, ...args: string[]): { status: number | null; stderr: string } {
  return spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), ...args], { cwd: root, encoding: 'utf8' });
}

afterEach(() => {
  for (const root of kits.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('sourcesDigest', () => {
  it('changes with any byte, file name or added file of the build inputs, and only with them', () => {
    const root = kit();
    const first = sourcesDigest(root);
    expect(sourcesDigest(root)).toBe(first);
    write(root, 'reports/run.json', '{}');
    expect(sourcesDigest(root), 'a file outside the inputs').toBe(first);
    write(root, 'harness/cli/main.ts', entry('sourceS'));
    const edited = sourcesDigest(root);
    expect(edited).not.toBe(first);
    write(root, 'fixtures/profiles/x.json', '{}');
    expect(sourcesDigest(root), 'a data file added').not.toBe(edited);
  });
});

describe('the bin in a clone', () => {
  it('runs the sources without a build, dist/ built from its sources, and the sources again once one changes', () => {
    const root = kit();
    write(root, 'dist/harness/cli/main.js', entry('dist').replace(': Promise<number>', ''));
    expect(ran(root), 'dist/ without a record of its sources').toBe('sources');
    write(root, MARKER, JSON.stringify({ sources: sourcesDigest(root) }));
    expect(ran(root)).toBe('dist');
    write(root, 'harness/cli/other.ts', 'export const x = 1;\n');
    expect(ran(root), 'a source added since the build').toBe('sources');
    rmSync(join(root, 'harness'), { recursive: true });
    expect(ran(root), 'installed: no sources').toBe('dist');
  });
});

// Each build is a real tsc run (seconds on a busy machine).
describe('scripts/build.mjs', { timeout: 180_000 }, () => {
  it('compiles, records the sources, leaves a fresh build alone, and rebuilds a stale one', () => {
    const root = kit();
    expect(build(root).status).toBe(0);
    expect(builtFrom(root)).toBe(sourcesDigest(root));
    expect(ran(root)).toBe('sources');
    expect(existsSync(join(root, 'dist/harness/cli/main.js'))).toBe(true);
    // Proof that the compiled file is what runs: the build's output, edited, is heard.
    write(root, 'dist/harness/cli/main.js', entry('compiled').replace(': Promise<number>', ''));
    expect(ran(root)).toBe('compiled');
    expect(build(root).status).toBe(0);
    expect(ran(root), 'a fresh build is not redone').toBe('compiled');
    write(root, 'harness/cli/main.ts', entry('edited'));
    expect(build(root).status).toBe(0);
    expect(ran(root), 'rebuilt from the edited sources').toBe('edited');
  });

  it('fails on a type error, but as prepare leaves the clone on its sources and the install going', () => {
    const root = kit();
    write(root, 'harness/cli/main.ts', `${entry('broken')}export const n: number = 'text';\n`);
    expect(build(root).status).toBe(1);
    expect(builtFrom(root)).toBeUndefined();
    const prepare = build(root, '--if-possible');
    expect(prepare.status).toBe(0);
    expect(prepare.stderr).toMatch(/dist\/ not built .*runs from its TypeScript sources/);
    expect(builtFrom(root)).toBeUndefined();
    expect(ran(root)).toBe('broken');
  });
});
