/**
 * The Allure generator started ahead of its job (harness/report/allure-render.ts): it makes the same
 * single-file page the allure CLI makes, says why when it cannot, and leaves no process behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/** A renderer whose child process loads `preload` first (through NODE_OPTIONS, restored at once: the child has it). */
function rendererWithPreload(preload: string): ReturnType<typeof startAllureRenderer> {
  const before = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `--import ${pathToFileURL(preload).href}`;
  try {
    return startAllureRenderer();
  } finally {
    if (before === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = before;
  }
}

/** Every data block of a single-file page, as text. */
function pageText(file: string): string {
  return [...compactedPageData(readFileSync(file, 'utf8'))!.values()].map((b) => b.toString('utf8')).join('\n');
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

  it('loads only the Allure modules a report of ours uses', async () => {
    const dir = resultsDir();
    const pack = join(dir, 'allure-results.json.gz');
    expect(packAllureResults(join(dir, 'allure-results'), pack)).toBeGreaterThan(0);
    // Every module the child loads, written by a hook of its own (registered first, so it sees the child's stand-ins).
    const seen = join(dir, 'loaded.txt');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      [
        "import { appendFileSync } from 'node:fs';",
        `export async function load(url, context, next) { appendFileSync(${JSON.stringify(seen)}, url.slice(0, 300) + '\\n'); ` +
          'return next(url, context); }',
      ].join('\n'),
    );
    const preload = join(dir, 'preload.mjs');
    writeFileSync(preload, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    const renderer = rendererWithPreload(preload);
    const out = await renderSingleFileReport(
      { results: { pack }, output: join(dir, 'allure-report'), name: 'loading test page' },
      renderer,
    );
    const text = pageText(out.file);
    expect(text).toContain('renders a check titled for this test');
    const loaded = readFileSync(seen, 'utf8').split('\n');
    // Not vacuous: the hook saw the generator and its readers load.
    expect(loaded.some((u) => u.endsWith('/@allurereport/core/dist/store/store.js'))).toBe(true);
    expect(loaded.some((u) => u.endsWith('/@allurereport/reader/dist/allure2/index.js'))).toBe(true);
    const unused = ['/node_modules/axios/', '/@allurereport/service/', '/node-stream-zip/', '/zip-stream/'];
    unused.push('/@allurereport/summary/', '/reader/dist/index.js', '/reader/dist/xcresult/index.js');
    // readConfig's TypeScript loader: our config is an .mjs.
    unused.push('/node_modules/jiti/');
    expect(loaded.filter((u) => unused.some((m) => u.includes(m)))).toEqual([]);
  });

  it('hands the packed files to the reader as bytes, not through a stream each', async () => {
    const dir = resultsDir();
    const results = join(dir, 'allure-results');
    writeFileSync(join(results, 'a1-attachment.txt'), 'GET /api/v1/payments/query HTTP/1.1');
    const raw = JSON.parse(readFileSync(join(results, '0b7e2f6a-1111-4222-8333-944455556666-result.json'), 'utf8'));
    raw.attachments = [{ name: 'request and response', source: 'a1-attachment.txt', type: 'text/plain' }];
    writeFileSync(join(results, '0b7e2f6a-1111-4222-8333-944455556666-result.json'), JSON.stringify(raw));
    const pack = join(dir, 'allure-results.json.gz');
    expect(packAllureResults(results, pack)).toBeGreaterThan(0);
    // The reader's BufferResultFile streams its bytes through fs.ReadStream.from: counted in the child, written at its end.
    const count = join(dir, 'streams.txt');
    const preload = join(dir, 'count-streams.mjs');
    writeFileSync(
      preload,
      [
        "import fs, { writeFileSync } from 'node:fs';",
        'let n = 0;',
        'const from = fs.ReadStream.from;',
        'fs.ReadStream.from = function (...a) { n++; return from.apply(this, a); };',
        `process.on('exit', () => writeFileSync(${JSON.stringify(count)}, String(n)));`,
      ].join('\n'),
    );
    const renderer = rendererWithPreload(preload);
    const out = await renderSingleFileReport({ results: { pack }, output: join(dir, 'allure-report'), name: 'bytes test page' }, renderer);
    await renderer.ended;
    const text = pageText(out.file);
    // The result and its attachment both reached the page.
    expect(text).toContain('renders a check titled for this test');
    expect(text).toContain('GET /api/v1/payments/query HTTP/1.1');
    expect(readFileSync(count, 'utf8')).toBe('0');
  });

  it('reads an allurerc.ts through the TypeScript loader it loads only then', async () => {
    const dir = resultsDir();
    const output = join(dir, 'ts-report');
    const configFile = join(dir, 'allurerc.ts');
    const config = { name: 'ts config page', output, plugins: { awesome: { options: { singleFile: true } } } };
    writeFileSync(configFile, `const config: Record<string, unknown> = ${JSON.stringify(config)};\nexport default config;\n`);
    const renderer = startAllureRenderer();
    await renderer.render({ cwd: dir, configFile, results: join(dir, 'allure-results') });
    expect(readFileSync(join(output, 'index.html'), 'utf8')).toContain('ts config page');
    expect(await renderer.ended).toBe(0);
  });

  it('reads the results it loads a reader for only when they come (a JUnit file, a folder)', async () => {
    const dir = resultsDir();
    const results = join(dir, 'allure-results');
    writeFileSync(
      join(results, 'junit.xml'),
      '<testsuite name="s"><testcase name="a JUnit case read on demand" classname="c"/></testsuite>',
    );
    const out = await renderSingleFileReport({ results, output: join(dir, 'allure-report'), name: 'junit test page' });
    const text = pageText(out.file);
    expect(text).toContain('renders a check titled for this test');
    expect(text).toContain('a JUnit case read on demand');
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
