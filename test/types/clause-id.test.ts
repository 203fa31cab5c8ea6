import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { dependencyBin } from '../../harness/kit/kit-files.js';

/**
 * Clause ids are a type (`ClauseId`, harness/clauses/registry.ts): a misspelt id in a check is a compile error, not a
 * finding charged to a clause that no report can find. So are reading topics (`ReadingTopic`, harness/clauses/topics.ts),
 * which look like clause ids: a misspelt topic, or a clause id where a topic goes, does not compile. This compiles
 * small files that call the named assertions, one with registry ids and topics and others with a wrong string in each
 * slot, with the project's own compiler options.
 */
const root = join(import.meta.dirname, '..', '..');
// Under node_modules so that the compiler finds @types/node as it does for the project, and no other tool sees it.
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const dir = mkdtempSync(join(root, 'node_modules', '.cache', 'clause-id-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Slots {
  held: string;
  fail: string;
  spec: string;
  /** The topic of expectRefused's options, and of recordReading. */
  refusedTopic: string;
  readingTopic: string;
}

const GOOD: Slots = {
  held: 'env.body.object',
  fail: 'env.code.integer',
  spec: 'env.body.object',
  refusedTopic: 'amount.value.json-number',
  readingTopic: 'webhook.attempts',
};

function program(ids: Slots): string {
  const from = (p: string) => relative(dir, join(root, p)).replaceAll('\\', '/');
  return [
    `import { defineSuite } from '${from('harness/check/define.js')}';`,
    `import { expectRefused, failCheck, held } from '${from('harness/check/expect.js')}';`,
    `import { recordReading } from '${from('harness/check/context.js')}';`,
    `import type { Exchange } from '${from('harness/http/exchange.js')}';`,
    `held('${ids.held}');`,
    `failCheck('${ids.fail}', { code: 'X', title: 'm', expected: 'e', seen: 's' });`,
    `export const refused = (ex: Exchange) => expectRefused(ex, 'amount.value.string', { topic: '${ids.refusedTopic}' });`,
    `recordReading('${ids.readingTopic}', 'r');`,
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
    const r = await compile(program(GOOD));
    expect(r.out).toBe('');
    expect(r.ok).toBe(true);
  }, 60_000);

  it('refuses a misspelt id in each of the three slots', async () => {
    const r = await compile(program({ ...GOOD, held: 'env.body.objekt', fail: 'env.code.integr', spec: 'env.bodyobject' }));
    expect(r.ok).toBe(false);
    for (const typo of ['env.body.objekt', 'env.code.integr', 'env.bodyobject']) expect(r.out).toContain(`"${typo}"`);
  }, 60_000);

  it('refuses a misspelt reading topic, and a clause id where a topic goes', async () => {
    // amount.value.string is the clause whose refusal the json-number topic records: the swap the types must catch.
    const r = await compile(program({ ...GOOD, refusedTopic: 'amount.value.json-numbr', readingTopic: 'amount.value.string' }));
    expect(r.ok).toBe(false);
    for (const wrong of ['amount.value.json-numbr', 'amount.value.string']) expect(r.out).toContain(`"${wrong}"`);
  }, 60_000);
});
