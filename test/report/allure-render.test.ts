/**
 * The Allure generator started ahead of its job (harness/report/allure-render.ts): it makes the same
 * single-file page the allure CLI makes, says why when it cannot, and leaves no process behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSingleFileReport } from '../../harness/report/allure.js';
import { startAllureRenderer } from '../../harness/report/allure-render.js';
import { packAllureResults } from '../../harness/report/allure-pack.js';
import { compactedPageData } from '../../harness/report/compact-page.js';

function resultsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mpsi-render-'));
  const results = join(dir, 'allure-results');
  mkdirSync(results);
  writeFileSync(
    join(results, '0b7e2f6a-1111-4222-8333-944455556666-result.json'),
    JSON.stringify({
      uuid: '0b7e2f6a-1111-4222-8333-944455556666',
      historyId: 'h1',
      name: 'renders a check titled for this test',
      fullName: 'render/one',
      status: 'passed',
      stage: 'finished',
      start: 1,
      stop: 2,
      labels: [],
      steps: [],
      attachments: [],
      parameters: [],
    }),
  );
  return dir;
}

describe('the Allure renderer started ahead', () => {
  it('renders the page once the job comes, after its modules loaded', async () => {
    const dir = resultsDir();
    const renderer = startAllureRenderer();
    await new Promise((r) => setTimeout(r, 300));
    const out = await renderSingleFileReport(
      { results: join(dir, 'allure-results'), output: join(dir, 'allure-report'), name: 'render test page' },
      renderer,
    );
    expect(out.file).toBe(join(dir, 'allure-report', 'index.html'));
    expect(readFileSync(out.file, 'utf8')).toContain('render test page');
    expect(await renderer.ended).toBe(0);
  });

  it('renders from a packed folder the page it renders from the folder (the run packs first, then renders the pack)', async () => {
    const dir = resultsDir();
    const results = join(dir, 'allure-results');
    writeFileSync(join(results, 'a1-attachment.txt'), 'POST /api/v1/payments/checkout HTTP/1.1');
    const withAttachment = JSON.parse(readFileSync(join(results, '0b7e2f6a-1111-4222-8333-944455556666-result.json'), 'utf8'));
    withAttachment.attachments = [{ name: 'request and response', source: 'a1-attachment.txt', type: 'text/plain' }];
    writeFileSync(join(results, '0b7e2f6a-1111-4222-8333-944455556666-result.json'), JSON.stringify(withAttachment));
    const page = async (from: string | { pack: string }, out: string): Promise<Map<string, string>> => {
      const r = await renderSingleFileReport({ results: from, output: join(dir, out), name: 'pack test page' });
      const data = compactedPageData(readFileSync(r.file, 'utf8'));
      expect(data).toBeDefined();
      // Data files by name, with the run's own times (the moment the page was made) left out.
      return new Map(
        [...data!].filter(([n]) => !/summary|statistic|timeline|ci\.json|globals|env/.test(n)).map(([n, b]) => [n, b.toString('utf8')]),
      );
    };
    const fromFolder = await page(results, 'from-folder');
    const pack = join(dir, 'allure-results.json.gz');
    expect(packAllureResults(results, pack)).toBeGreaterThan(0);
    expect(existsSync(results)).toBe(false);
    const fromPack = await page({ pack }, 'from-pack');
    expect([...fromPack.keys()].sort()).toEqual([...fromFolder.keys()].sort());
    const text = [...fromPack.values()].join('\n');
    expect(text).toContain('renders a check titled for this test');
    expect(text).toContain('POST /api/v1/payments/checkout HTTP/1.1');
  });

  it('says why when the generator fails, and the page is not there', async () => {
    const dir = resultsDir();
    const renderer = startAllureRenderer();
    await expect(
      renderer.render({ cwd: dir, configFile: join(dir, 'no-such-allurerc.mjs'), results: join(dir, 'allure-results') }),
    ).rejects.toThrow(/allure generate failed \(exit 1\): .*no-such-allurerc/);
    expect(existsSync(join(dir, 'allure-report'))).toBe(false);
  });

  it('runs one job only, and a renderer given none ends when disposed of', async () => {
    const renderer = startAllureRenderer();
    renderer.dispose();
    await expect(renderer.render({ cwd: tmpdir(), configFile: 'x', results: 'y' })).rejects.toThrow(/already ran a job/);
    expect(await renderer.ended).toBeDefined();
  });
});
