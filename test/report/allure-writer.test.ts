/** The run's Allure results writer: the files allure's own writer would publish, written plainly. */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestResult, TestResultContainer } from 'allure-js-commons';
import { FileSystemWriter } from 'allure-js-commons/sdk/reporter';
import { describe, expect, it } from 'vitest';
import { PlainResultsWriter } from '../../harness/report/allure-writer.js';

describe('PlainResultsWriter', () => {
  it('writes results, containers and attachments under the names allure reads, and leaves no temporary file', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'mpsi-writer-')), 'allure-results');
    const w = new PlainResultsWriter(dir, new FileSystemWriter({ resultsDir: dir }));
    w.writeResult({ uuid: 'r1', name: 'a check' } as TestResult);
    w.writeGroup({ uuid: 'g1', children: ['r1'] } as unknown as TestResultContainer);
    w.writeAttachment('a1-attachment.txt', Buffer.from('POST /x\n'));
    w.writeEnvironmentInfo({ seed: '1' });
    expect(readdirSync(dir).sort()).toEqual(['a1-attachment.txt', 'environment.properties', 'g1-container.json', 'r1-result.json']);
    expect(JSON.parse(readFileSync(join(dir, 'r1-result.json'), 'utf8'))).toEqual({ uuid: 'r1', name: 'a check' });
    expect(readFileSync(join(dir, 'a1-attachment.txt'), 'utf8')).toBe('POST /x\n');
    expect(readFileSync(join(dir, 'environment.properties'), 'utf8')).toContain('seed=1');
  });
});
