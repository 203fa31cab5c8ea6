/**
 * allure-vitest's reporter, writing each check's Allure result soon after the check ends instead of
 * all of them when the run ends. The writing is the base class's own (handleTask); only its moment
 * moves: into the run, where it overlaps webhook waits, rather than after the last check, where a
 * couple of thousand files (results, steps, attachments) kept a finished run open for seconds.
 *
 * One check is written per turn of the event loop: this process also answers the workers (module
 * requests, task updates), which must not wait behind a burst of writes when many concurrent checks
 * end together. The results stay in memory (MemoryResultsWriter, allure-writer.ts) and are written
 * once, as one pack, when the run ends.
 */
import type { ReporterRuntime, Writer } from 'allure-js-commons/sdk/reporter';
import AllureVitestReporter from 'allure-vitest/reporter';
import type { RunnerTask } from 'vitest';
import type { TestCase, TestModule, Vitest } from 'vitest/node';
import { MemoryResultsWriter } from './allure-writer.js';

export default class StreamingAllureReporter extends AllureVitestReporter {
  private readonly written = new Set<string>();
  private readonly queue: RunnerTask[] = [];
  private draining = false;
  private readonly pack: string;
  private readonly writer = new MemoryResultsWriter();

  /** `pack`: the file the results are written to when the run ends (allure-pack.ts). */
  constructor(config: Omit<ConstructorParameters<typeof AllureVitestReporter>[0], 'resultsDir'> & { pack: string }) {
    super(config);
    this.pack = config.pack;
  }

  override onInit(vitest: Vitest): void {
    super.onInit(vitest);
    // The base class builds its runtime with allure's own writer (a file per result, fsync each): results stay in memory.
    const runtime = (this as unknown as { allureReporterRuntime: ReporterRuntime & { writer: Writer } }).allureReporterRuntime;
    runtime.writer = this.writer;
    // Interrupted (vitest ends itself with process.exit on SIGINT/SIGTERM, before any run end): the checks that finished
    // still reach the pack, as they reached the folder when each result was a file of its own.
    process.once('exit', this.writeOnce);
  }

  private packed = false;

  private readonly writeOnce = (): void => {
    if (this.packed) return;
    this.packed = true;
    process.off('exit', this.writeOnce);
    for (const task of this.queue.splice(0)) this.handleTask(task);
    this.writer.writePack(this.pack);
  };

  onTestCaseResult(test: TestCase): void {
    // TestCase.task is vitest's own task object: the one the base class reads at the end of the run.
    const task = (test as unknown as { task?: RunnerTask }).task;
    if (!task) return;
    this.queue.push(task);
    if (!this.draining) {
      this.draining = true;
      setImmediate(() => this.drainOne());
    }
  }

  private drainOne(): void {
    const task = this.queue.shift();
    if (task) this.handleTask(task);
    if (this.queue.length > 0) setImmediate(() => this.drainOne());
    else this.draining = false;
  }

  override handleTask(task: RunnerTask): void {
    // At the end of the run the base class walks every module again: suites (hook errors) still
    // count, checks already written do not.
    if (task.type !== 'suite' && this.written.has(task.id)) return;
    super.handleTask(task);
    if (task.type !== 'suite') this.written.add(task.id);
  }

  override onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    for (const task of this.queue.splice(0)) this.handleTask(task);
    super.onTestRunEnd(modules);
    this.writeOnce();
  }
}
