import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { KIT_ROOT } from '../../harness/kit/kit-files.js';
import { nativeModules } from '../../harness/run/native-modules.js';

/**
 * The compiled kit's modules are imported by Node in each vitest worker, not transformed by vitest's main process
 * and evaluated by its module runner: only the test files go through the runner.
 */
describe('modules left to Node in a conformance run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpsi-native-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('matches every compiled module of the kit but test files, and nothing from sources', () => {
    const [pattern, ...more] = nativeModules('/kit/dist/', true);
    expect(more).toEqual([]);
    expect(pattern!.test('/kit/dist/harness/http/client.js')).toBe(true);
    expect(pattern!.test('/kit/dist/suites/support/model/ledger.js')).toBe(true);
    expect(pattern!.test('/kit/dist/suites/payments.test.js')).toBe(false);
    expect(pattern!.test('/kit/distant/harness/http/client.js')).toBe(false);
    expect(pattern!.test('/other/dist/harness/http/client.js')).toBe(false);
    expect(nativeModules('/kit/', false)).toEqual([]);
  });

  it('has a worker import a compiled module natively while the runner collects the test file', () => {
    // A module hook sees what Node itself imports; what vitest's runner evaluates never reaches it.
    const seen = join(dir, 'seen.txt');
    writeFileSync(seen, '');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      [
        "import { appendFileSync } from 'node:fs';",
        'export async function load(url, context, next) {',
        `  const kit = ${JSON.stringify(pathToFileURL(join(dir, 'kit')).href)};`,
        `  if (url.startsWith(kit)) appendFileSync(${JSON.stringify(seen)}, url + '\\n');`,
        '  return next(url, context);',
        '}',
      ].join('\n'),
    );
    const preload = join(dir, 'preload.mjs');
    writeFileSync(preload, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    const kit = join(dir, 'kit');
    execFileSync('mkdir', ['-p', join(kit, 'harness'), join(kit, 'suites')]);
    writeFileSync(join(kit, 'package.json'), '{"type":"module"}');
    writeFileSync(join(kit, 'harness', 'lib.js'), 'export const answer = 42;\n');
    writeFileSync(
      join(kit, 'suites', 'a.test.js'),
      "import { expect, it } from 'vitest';\nimport { answer } from '../harness/lib.js';\nit('runs', () => expect(answer).toBe(42));\n",
    );
    const config = join(dir, 'vitest.config.mjs');
    const nativeModulesUrl = pathToFileURL(join(KIT_ROOT, 'harness/run/native-modules.ts')).href;
    writeFileSync(
      config,
      [
        `import { nativeModules } from ${JSON.stringify(nativeModulesUrl)};`,
        'export default {',
        `  test: { root: ${JSON.stringify(kit)}, include: ['suites/*.test.js'], pool: 'forks',`,
        `    server: { deps: { external: nativeModules(${JSON.stringify(kit)}, true) } } },`,
        '};',
      ].join('\n'),
    );
    execFileSync(process.execPath, [join(KIT_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', config], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: `--import ${pathToFileURL(preload).href}` },
    });
    const loaded = readFileSync(seen, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((url) => url.endsWith('/kit/harness/lib.js'))).toBe(true);
    expect(loaded.filter((url) => url.endsWith('.test.js'))).toEqual([]);
  });
});
