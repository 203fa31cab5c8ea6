/** The run's Allure results writer: the files allure's own writer would publish, kept in memory and written once as the pack. */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestResult, TestResultContainer } from 'allure-js-commons';
import { FileSystemWriter } from 'allure-js-commons/sdk/reporter';
import { describe, expect, it } from 'vitest';
import { readAllurePack } from '../../harness/report/allure-pack.js';
import { MemoryResultsWriter, sourceNamed } from '../../harness/report/allure-writer.js';
import { sourceNamedJunit } from '../../harness/report/source-names.js';

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

// The same check of one seed's run from the sources and from dist/ (2026-11-25), as allure-vitest named it.
const TITLE = 'auth-headers refuses a request without X-MerchantID as unauthorized';
const FROM_SOURCES = {
  uuid: 's',
  fullName: `mpsi-conformance:suites/auth-headers.test.ts#${TITLE}`,
  titlePath: ['mpsi-conformance', 'suites', 'auth-headers.test.ts', 'auth-headers'],
  testCaseId: '81ef006748fac588deb40bd7149bfaac',
  historyId: '81ef006748fac588deb40bd7149bfaac:265ad996268b266e840432f51e6614b5',
  labels: [
    { name: 'language', value: 'javascript' },
    { name: '_fallbackTestCaseId', value: '77ddb3f46ec81049b80ed5146121fdd2' },
    { name: 'package', value: 'mpsi-conformance.suites.auth-headers.test.ts' },
    { name: 'clause', value: 'auth.missing-header' },
  ],
} as TestResult;
const FROM_DIST = {
  uuid: 'd',
  fullName: `mpsi-conformance:dist/suites/auth-headers.test.js#${TITLE}`,
  titlePath: ['mpsi-conformance', 'dist', 'suites', 'auth-headers.test.js', 'auth-headers'],
  testCaseId: '9dc06f847364cb6b0d9ad2a07aa83888',
  historyId: '9dc06f847364cb6b0d9ad2a07aa83888:265ad996268b266e840432f51e6614b5',
  labels: [
    { name: 'language', value: 'javascript' },
    { name: '_fallbackTestCaseId', value: '500fd0b91e02243f8512fa043adf9f04' },
    { name: 'package', value: 'mpsi-conformance.dist.suites.auth-headers.test.js' },
    { name: 'clause', value: 'auth.missing-header' },
  ],
} as TestResult;

describe('sourceNamed', () => {
  it('names a check run from the compiled kit as its source file does, with the ids the report history follows', () => {
    const { uuid: _d, ...renamed } = sourceNamed(FROM_DIST);
    const { uuid: _s, ...expected } = FROM_SOURCES;
    expect(renamed).toEqual(expected);
  });

  it('leaves a check run from the sources, and ids the check set itself, as they are', () => {
    expect(sourceNamed(FROM_SOURCES)).toBe(FROM_SOURCES);
    const own = sourceNamed({ ...FROM_DIST, testCaseId: 'set-by-the-check', historyId: 'set-by-the-check:1' });
    expect([own.testCaseId, own.historyId]).toEqual(['set-by-the-check', 'set-by-the-check:1']);
  });

  it('is what the writer stores', () => {
    const mem = new MemoryResultsWriter();
    mem.writeResult(FROM_DIST);
    expect(JSON.parse(mem.files.get('d-result.json')!.toString('utf8')).fullName).toBe(FROM_SOURCES.fullName);
  });
});

describe('sourceNamedJunit', () => {
  it("names compiled suite files as their sources in JUnit's testsuite names and testcase class names, nothing else", () => {
    const xml =
      '<testsuite name="suites/amounts.test.js" tests="1">\n' +
      '<testcase classname="suites/amounts.test.js" name="amounts accepts suites/x.test.js as text" time="0.1">\n' +
      '</testcase>\n</testsuite>\n<testsuite name="other/y.test.js" tests="0">\n</testsuite>\n';
    expect(sourceNamedJunit(xml)).toBe(
      '<testsuite name="suites/amounts.test.ts" tests="1">\n' +
        '<testcase classname="suites/amounts.test.ts" name="amounts accepts suites/x.test.js as text" time="0.1">\n' +
        '</testcase>\n</testsuite>\n<testsuite name="other/y.test.js" tests="0">\n</testsuite>\n',
    );
    expect(sourceNamedJunit(sourceNamedJunit(xml))).toBe(sourceNamedJunit(xml));
  });
});
