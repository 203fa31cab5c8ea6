import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire, Module } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { dependencyBin, KIT_ROOT } from '../../harness/kit/kit-files.js';

/**
 * vitest's main process of a compiled run imports its config without vite's module hook: on Node before
 * 22.15 that hook runs on a thread every later import of the process waits on. What shows which way vite took is the
 * config's own URL: its tracking query through the hook, a plain `?t=` without.
 */
const TSX = pathToFileURL(createRequire(join(KIT_ROOT, 'package.json')).resolve('tsx')).href;

// From Node 22.15 vite's hook runs on the importing thread (Module.registerHooks) and vitest-main.ts leaves it be.
const OFF_THREAD_HOOKS = (Module as unknown as { registerHooks?: unknown }).registerHooks === undefined;

describe.runIf(OFF_THREAD_HOOKS)('vitest main without the config-tracking hook', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpsi-vitest-main-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function configUrlWhenStartedBy(entry: string[]): string {
    const seen = join(dir, 'config-url.txt');
    writeFileSync(seen, '');
    mkdirSync(join(dir, 'suites'), { recursive: true });
    writeFileSync(join(dir, 'suites', 'a.test.mjs'), "import { it } from 'vitest';\nit('runs', () => {});\n");
    const config = join(dir, 'vitest.config.mjs');
    writeFileSync(
      config,
      [
        "import { writeFileSync } from 'node:fs';",
        `writeFileSync(${JSON.stringify(seen)}, import.meta.url);`,
        `export default { test: { root: ${JSON.stringify(dir)}, include: ['suites/*.test.mjs'], pool: 'forks' } };`,
      ].join('\n'),
    );
    execFileSync(process.execPath, [...entry, 'run', '--config', config, '--configLoader', 'native'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return readFileSync(seen, 'utf8');
  }

  it("imports the compiled config with Node's plain import, and runs the tests", () => {
    const url = configUrlWhenStartedBy(['--import', TSX, join(KIT_ROOT, 'harness/run/vitest-main.ts')]);
    expect(url).toMatch(/vitest\.config\.mjs\?t=\d+$/);
  });

  it('is not what vitest does on its own on this Node (the test above is not vacuous)', () => {
    const url = configUrlWhenStartedBy([dependencyBin('vitest')]);
    expect(url).toMatch(/vitest\.config\.mjs\?/);
    expect(url).not.toMatch(/\?t=\d+$/);
  });
});
