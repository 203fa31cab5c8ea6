import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dependencyBin } from '../../harness/kit-files.js';

/**
 * Clause ids are a type (`ClauseId`, harness/clauses/registry.ts): a misspelt id in a check is a compile error, not a
 * finding charged to a clause that no report can find. This compiles two small files that call the named assertions,
 * one with registry ids and one with a misspelling in each slot, with the project's own compiler options.
 */
const root = join(import.meta.dirname, '..', '..');
// Under node_modules so that the compiler finds @types/node as it does for the project, and no other tool sees it.
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const dir = mkdtempSync(join(root, 'node_modules', '.cache', 'clause-id-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function program(ids: { held: string; fail: string; spec: string }): string {
  const from = (p: string) => relative(dir, join(root, p)).replaceAll('\\', '/');
  return [
    `import { defineSuite } from '${from('harness/check/define.js')}';`,
    `import { failCheck, held } from '${from('harness/check/expect.js')}';`,
    `held('${ids.held}');`,
    `failCheck('X', '${ids.fail}', 'm', { expected: 'e', seen: 's' });`,
    `export default defineSuite('t', { area: 'envelope', resource: 'payment' }, [{ title: 't', clause: '${ids.spec}', async run() {} }]);`,
  ].join('\n');
}

async function compile(source: string): Promise<{ ok: boolean; out: string }> {
  const file = join(dir, `p${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(file, source);
  const config = join(dir, `tsconfig-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    config,
    JSON.stringify({ extends: join(root, 'tsconfig.json'), files: [file], include: [], exclude: [], compilerOptions: { noEmit: true } }),
  );
  try {
    await promisify(execFile)(dependencyBin('typescript', 'tsc'), ['-p', config], { cwd: root });
    return { ok: true, out: '' };
  } catch (e) {
    return { ok: false, out: String((e as { stdout?: string }).stdout ?? e) };
  }
}

describe('clause ids are checked by the compiler', () => {
  it('accepts registry ids in held, failCheck and a check definition', async () => {
    const r = await compile(program({ held: 'env.body.object', fail: 'env.code.integer', spec: 'env.body.object' }));
    expect(r.out).toBe('');
    expect(r.ok).toBe(true);
  }, 60_000);

  it('refuses a misspelt id in each of the three slots', async () => {
    const r = await compile(program({ held: 'env.body.objekt', fail: 'env.code.integr', spec: 'env.bodyobject' }));
    expect(r.ok).toBe(false);
    for (const typo of ['env.body.objekt', 'env.code.integr', 'env.bodyobject']) expect(r.out).toContain(`"${typo}"`);
  }, 60_000);
});
