/**
 * Where a run's Allure results go: allure-js-commons' FileSystemWriter publishes every file through a
 * temporary file, fsync and a rename, synchronously, in vitest's main process. For the ~2,400 files of
 * a quick run that was 1.0 s of fsync and 0.7 s of open on the thread that also answers the workers.
 * Nothing reads these files while the run writes them (the report is made after the run, on this
 * machine), and a crash loses the run however they were written: results, containers and attachments
 * are written once, plainly. The rare files (environment, categories, globals, copied attachments)
 * still go through allure's own writer.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestResult, TestResultContainer } from 'allure-js-commons';
import type { Writer } from 'allure-js-commons/sdk/reporter';

export class PlainResultsWriter implements Writer {
  private made = false;

  constructor(
    private readonly resultsDir: string,
    private readonly rare: Writer,
  ) {}

  private path(name: string): string {
    if (!this.made) {
      mkdirSync(this.resultsDir, { recursive: true });
      this.made = true;
    }
    return join(this.resultsDir, name);
  }

  writeResult(result: TestResult): void {
    writeFileSync(this.path(`${result.uuid}-result.json`), JSON.stringify(result));
  }

  writeGroup(result: TestResultContainer): void {
    writeFileSync(this.path(`${result.uuid}-container.json`), JSON.stringify(result));
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    writeFileSync(this.path(distFileName), content);
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    this.rare.writeAttachmentFromPath(distFileName, from);
  }

  writeEnvironmentInfo(info: Parameters<Writer['writeEnvironmentInfo']>[0]): void {
    this.rare.writeEnvironmentInfo(info);
  }

  writeCategoriesDefinitions(categories: Parameters<Writer['writeCategoriesDefinitions']>[0]): void {
    this.rare.writeCategoriesDefinitions(categories);
  }

  writeGlobals(distFileName: string, info: Parameters<Writer['writeGlobals']>[1]): void {
    this.rare.writeGlobals(distFileName, info);
  }
}
