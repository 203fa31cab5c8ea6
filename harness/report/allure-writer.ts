/**
 * Where a run's Allure results go: into vitest main's memory, and onto the disk once, as the pack
 * (allure-pack.ts) the CLI completes and renders. allure-js-commons' FileSystemWriter published every
 * file through a temporary file, fsync and a rename; even written plainly, the ~1,400 files of a quick
 * run cost vitest's main process (the thread that also answers the workers) their open, write and
 * close, and the CLI their read and delete. Nothing reads them while the run goes on, and a run that
 * crashes has no report either way. The file names and contents are the ones allure's writer gives.
 */
import type { TestResult, TestResultContainer } from 'allure-js-commons';
import { stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter';
import { readFileSync } from 'node:fs';
import { type AllureFiles, writeAllurePack } from './allure-pack.js';

export class MemoryResultsWriter implements Writer {
  readonly files: AllureFiles = new Map();

  writeResult(result: TestResult): void {
    this.files.set(`${result.uuid}-result.json`, Buffer.from(JSON.stringify(result)));
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
