/**
 * A reports folder that stays small (issue 27): history/ keeps the last N runs, allure-results/ is
 * packed into one file once the page is built, and `report` rebuilds the page from the pack.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderSingleFileReport } from '../../harness/report/allure.js';
import { packAllureResults, unpackAllureResults } from '../../harness/report/allure-pack.js';
import { reportPaths } from '../../harness/report/paths.js';
import { runCli, SMALL_SUITE, tempReports } from '../cli/helpers.js';

function resultsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mpsi-lean-'));
  const results = join(dir, 'allure-results');
  mkdirSync(results);
  const uuid = '0b7e2f6a-1111-4222-8333-944455556666';
  writeFileSync(
    join(results, `${uuid}-result.json`),
    JSON.stringify({ uuid, historyId: 'h1', name: 'a check', fullName: 'lean/one', status: 'passed', stage: 'finished', start: 1, stop: 2, labels: [], steps: [], attachments: [], parameters: [] }),
  );
  return dir;
}

function historyLines(file: string): number {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '').length;
}

describe('history/', () => {
  it('keeps the last N runs, not every run', async () => {
    const dir = resultsDir();
    const history = join(dir, 'history', 'allure-history.jsonl');
    const render = () => renderSingleFileReport({ results: join(dir, 'allure-results'), output: join(dir, 'allure-report'), name: 'lean', history, historyLimit: 2 });
    for (let i = 0; i < 4; i++) await render();
    expect(historyLines(history)).toBe(2);
  }, 60_000);
});

describe('allure-results packed', () => {
  it('packs the folder into one file and restores it byte for byte', () => {
    const dir = resultsDir();
    const folder = join(dir, 'allure-results');
    writeFileSync(join(folder, 'x-attachment.bin'), Buffer.from([0, 255, 10, 13]));
    const before = Object.fromEntries(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f)).toString('base64')]));
    const pack = join(dir, 'allure-results.json.gz');
    expect(packAllureResults(folder, pack)).toBeGreaterThan(0);
    expect(existsSync(folder)).toBe(false);
    expect(unpackAllureResults(pack, folder)).toBe(true);
    expect(Object.fromEntries(readdirSync(folder).map((f) => [f, readFileSync(join(folder, f)).toString('base64')]))).toEqual(before);
    expect(existsSync(pack)).toBe(false);
  });

  it('refuses a pack that names a file outside its folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-lean-'));
    const pack = join(dir, 'p.json.gz');
    writeFileSync(pack, gzipSync(JSON.stringify({ format: 'mpsi-allure-results/1', files: { '../evil': '' } })));
    expect(() => unpackAllureResults(pack, join(dir, 'allure-results'))).toThrow(/outside its folder/);
  });

  it('a run leaves the pack, not the folder; `report` rebuilds the page from it; --keep-allure-results keeps the folder', async () => {
    const dir = tempReports('lean');
    const paths = reportPaths(dir);
    const run = await runCli(['run', '--suite', SMALL_SUITE, '--webhooks', 'off', '--reports', dir, '--history', '1']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(existsSync(paths.allureResults)).toBe(false);
    expect(existsSync(paths.allureResultsPack)).toBe(true);
    expect(existsSync(paths.allureHtml)).toBe(true);
    const again = await runCli(['report', '--reports', dir, '--keep-allure-results', '--history', '1']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(existsSync(paths.allureHtml)).toBe(true);
    expect(existsSync(paths.allureResults)).toBe(true);
    expect(existsSync(paths.allureResultsPack)).toBe(false);
    expect(historyLines(paths.history)).toBe(1);
  }, 120_000);
});
