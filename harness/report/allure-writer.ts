/**
 * Where a run's Allure results go: into vitest main's memory, and onto the disk once, as the pack
 * (allure-pack.ts) the CLI completes and renders. allure-js-commons' FileSystemWriter published every
 * file through a temporary file, fsync and a rename; even written plainly, the ~1,400 files of a quick
 * run cost vitest's main process (the thread that also answers the workers) their open, write and
 * close, and the CLI their read and delete. Nothing reads them while the run goes on, and a run that
 * crashes has no report either way. The file names and contents are the ones allure's writer gives.
 */
import type { TestResult, TestResultContainer } from 'allure-js-commons';
import { md5, stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter';
import { readFileSync } from 'node:fs';
import { type AllureFiles, writeAllurePack } from './allure-pack.js';

export class MemoryResultsWriter implements Writer {
  readonly files: AllureFiles = new Map();

  writeResult(result: TestResult): void {
    this.files.set(`${result.uuid}-result.json`, Buffer.from(JSON.stringify(sourceNamed(result))));
  }

  writeGroup(result: TestResultContainer): void {
    this.files.set(`${result.uuid}-container.json`, Buffer.from(JSON.stringify(result)));
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    this.files.set(distFileName, content);
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    this.files.set(distFileName, readFileSync(from));
  }

  writeEnvironmentInfo(info: Parameters<Writer['writeEnvironmentInfo']>[0]): void {
    this.files.set('environment.properties', Buffer.from(stringifyEnvInfo(info)));
  }

  writeCategoriesDefinitions(categories: Parameters<Writer['writeCategoriesDefinitions']>[0]): void {
    this.files.set('categories.json', Buffer.from(JSON.stringify(categories)));
  }

  writeGlobals(distFileName: string, info: Parameters<Writer['writeGlobals']>[1]): void {
    this.files.set(distFileName, Buffer.from(JSON.stringify(info)));
  }

  /** Writes what was collected as the pack; the CLI rewrites it once completed, hence the fastest gzip level. */
  writePack(packFile: string): number {
    return writeAllurePack(this.files, packFile, 1);
  }
}

/** `dist/suites/<concern>.test.js`, a suite file as the compiled kit runs it, and the source file it was compiled from. */
const COMPILED_SUITE = /^dist\/suites\/([^/#]+)\.test\.js#/;

/**
 * A check run by the compiled kit (an installed package, or a clone running its fresh dist/) named by its source
 * file, as the sources name it: allure-vitest names a test by its file's path, and derives the ids the report's
 * history follows from that name, so the same check would be another test, its history lost, each time a clone
 * switched between its sources and its build.
 */
export function sourceNamed(result: TestResult): TestResult {
  const at = result.fullName?.indexOf(':') ?? -1;
  const legacy = result.fullName?.slice(at + 1);
  const m = legacy === undefined ? null : COMPILED_SUITE.exec(legacy);
  if (!result.fullName || !legacy || !m) return result;
  const concern = m[1]!;
  const renamedLegacy = `suites/${concern}.test.ts#${legacy.slice(m[0].length)}`;
  const fullName = `${result.fullName.slice(0, at + 1)}${renamedLegacy}`;
  // Ids are replaced only where allure derived them from the name (one set by the check itself stays).
  const testCaseId = result.testCaseId === md5(result.fullName) ? md5(fullName) : result.testCaseId;
  const historyId =
    result.historyId && result.testCaseId && result.historyId.startsWith(`${result.testCaseId}:`)
      ? `${testCaseId}${result.historyId.slice(result.testCaseId.length)}`
      : result.historyId;
  const titlePath = result.titlePath?.flatMap((part, i, all) =>
    part === 'dist' && all[i + 1] === 'suites' ? [] : part === `${concern}.test.js` ? [`${concern}.test.ts`] : [part],
  );
  const labels = result.labels.map((label) => {
    if (label.name === 'package')
      return { ...label, value: label.value.replace(`dist.suites.${concern}.test.js`, `suites.${concern}.test.ts`) };
    if (label.name === '_fallbackTestCaseId' && label.value === md5(legacy)) return { ...label, value: md5(renamedLegacy) };
    return label;
  });
  return {
    ...result,
    fullName,
    labels,
    ...(testCaseId ? { testCaseId } : {}),
    ...(historyId ? { historyId } : {}),
    ...(titlePath ? { titlePath } : {}),
  };
}
