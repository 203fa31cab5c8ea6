/** The run's Allure results writer: the files allure's own writer would publish, kept in memory and written once as the pack. */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestResult, TestResultContainer } from 'allure-js-commons';
import { FileSystemWriter } from 'allure-js-commons/sdk/reporter';
import { describe, expect, it } from 'vitest';
import { readAllurePack } from '../../harness/report/allure-pack.js';
import { MemoryResultsWriter } from '../../harness/report/allure-writer.js';

describe('MemoryResultsWriter', () => {
  it('keeps the files allure writes, under the same names and with the same bytes, and writes them as one pack', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-writer-'));
    const folder = join(dir, 'allure-results');
    const own = new FileSystemWriter({ resultsDir: folder });
    const mem = new MemoryResultsWriter();
    for (const w of [own, mem]) {
      w.writeResult({ uuid: 'r1', name: 'a check' } as TestResult);
      w.writeGroup({ uuid: 'g1', children: ['r1'] } as unknown as TestResultContainer);
      w.writeAttachment('a1-attachment.txt', Buffer.from('POST /x\n'));
      w.writeEnvironmentInfo({ seed: '1' });
      w.writeCategoriesDefinitions([{ name: 'c', matchedStatuses: [] }]);
      w.writeGlobals('x-globals.json', { errors: [], attachments: [] });
    }
    const names = readdirSync(folder).sort();
    expect([...mem.files.keys()].sort()).toEqual(names);
    for (const f of names) expect(mem.files.get(f)!.toString('utf8'), f).toBe(readFileSync(join(folder, f), 'utf8'));
    const pack = join(dir, 'allure-results.json.gz');
    expect(mem.writePack(pack)).toBeGreaterThan(0);
    expect(readdirSync(dir).sort()).toEqual(['allure-results', 'allure-results.json.gz']);
    expect(new Map([...readAllurePack(pack)].map(([f, b]) => [f, b.toString('utf8')]))).toEqual(
      new Map([...mem.files].map(([f, b]) => [f, b.toString('utf8')])),
    );
  });
});
