/**
 * The conformance run's terminal output: which suite runs, how many checks are done, failures as
 * they happen, what a webhook wait is waiting for — on a terminal as a status line, in CI logs as
 * plain lines with a heartbeat. At the end it writes run-status.json (files that failed to load,
 * unhandled errors, checks that failed in vitest itself) for the CLI's verdict.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import type { SerializedError } from 'vitest';
import { clockTime, parseProgress } from './progress.js';
import type { RunStatus } from './verdict.js';
import { firstLine } from '../kit/text.js';

export interface ProgressReporterOptions {
  /** Where run-status.json goes. */
  runStatusFile: string;
  /** Output stream; default process.stdout. */
  out?: NodeJS.WriteStream;
  /** Heartbeat interval when not on a terminal, ms (default 30 s). */
  heartbeatMs?: number;
  /** Applied to everything printed (console output of checks included). */
  redact?: (text: string) => string;
}

interface Wait {
  check: string;
  what: string;
  timeoutMs: number;
  started: number;
  /** When the wait ends at the latest (ms since the epoch). */
  until: number;
}

export interface TestRecord {
  checkId?: string;
  name: string;
  state: string;
  outcome?: string;
  error?: string;
}

function suiteOf(t: TestCase): string {
  return t.parent.type === 'suite' ? t.parent.name : basename(t.module.moduleId).replace(/\.test\.ts$/, '');
}

function seconds(ms: number): string {
  if (ms >= 120_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export default class ProgressReporter implements Reporter {
  private readonly opts: ProgressReporterOptions;
  private readonly out: NodeJS.WriteStream;
  private readonly tty: boolean;
  private started = Date.now();
  private known = 0;
  private done = 0;
  private failed = 0;
  private expectedFail = 0;
  private noVerdict = 0;
  private throttledAnswers = 0;
  private throttleWaitMs = 0;
  private readonly running = new Map<
    string,
    { done: number; passed: number; failed: number; skipped: number; expected: number; started: number }
  >();
  private readonly waits = new Map<string, Wait>();
  private readonly tests: TestRecord[] = [];
  private statusShown = false;
  private timer: NodeJS.Timeout | undefined;
  private lastHeartbeat = Date.now();

  constructor(opts: ProgressReporterOptions) {
    this.opts = opts;
    this.out = opts.out ?? process.stdout;
    this.tty = Boolean(this.out.isTTY) && !process.env.CI;
  }

  onInit(_vitest: Vitest): void {
    this.started = Date.now();
    this.timer = setInterval(() => this.tick(), this.tty ? 250 : 1000);
    this.timer.unref();
  }

  private line(text: string): void {
    this.clearStatus();
    this.out.write(`${this.opts.redact ? this.opts.redact(text) : text}\n`);
    this.drawStatus();
  }

  private clearStatus(): void {
    if (this.tty && this.statusShown) {
      this.out.write('\r\x1b[K');
      this.statusShown = false;
    }
  }

  private statusText(): string {
    const parts = [`[${this.done}/${this.known}] checks`, `${this.failed} failed`];
    if (this.expectedFail > 0) parts.push(`${this.expectedFail} expected failures`);
    if (this.noVerdict > 0) parts.push(`${this.noVerdict} no verdict`);
    if (this.throttledAnswers > 0) parts.push(`${this.throttledAnswers} throttled (${seconds(this.throttleWaitMs)} waited)`);
    if (this.running.size > 0) parts.push(`running: ${[...this.running.keys()].join(', ')}`);
    // The wait that ends last is the one the run is waiting on.
    const w = [...this.waits.values()].sort((a, b) => b.until - a.until)[0];
    if (w)
      parts.push(
        `${w.check} waits for ${w.what} until ${clockTime(w.until)} (${seconds(Math.max(0, w.until - Date.now()))}` +
          ` left)${this.waits.size > 1 ? ` (+${this.waits.size - 1} more)` : ''}`,
      );
    return parts.join(' · ');
  }

  private drawStatus(): void {
    // Not before the first suite is collected: global setup still prints its own line then.
    if (!this.tty || this.known === 0) return;
    const cols = this.out.columns || 120;
    const text = this.statusText();
    this.out.write(`\r\x1b[K${text.length > cols - 1 ? `${text.slice(0, cols - 2)}…` : text}`);
    this.statusShown = true;
  }

  private tick(): void {
    if (this.tty) {
      this.drawStatus();
      return;
    }
    const every = this.opts.heartbeatMs ?? 30_000;
    if (Date.now() - this.lastHeartbeat >= every && (this.running.size > 0 || this.waits.size > 0)) {
      this.lastHeartbeat = Date.now();
      this.line(`  … ${seconds(Date.now() - this.started)}: ${this.statusText()}`);
    }
  }

  onTestModuleCollected(m: TestModule): void {
    for (const _ of m.children.allTests()) this.known += 1;
  }

  onTestSuiteReady(): void {}

  onTestCaseReady(t: TestCase): void {
    const s = suiteOf(t);
    if (!this.running.has(s)) {
      this.running.set(s, { done: 0, passed: 0, failed: 0, skipped: 0, expected: 0, started: Date.now() });
      if (!this.tty) this.line(`▶ ${s}`);
    }
  }

  onTestCaseResult(t: TestCase): void {
    const s = suiteOf(t);
    const r = t.result();
    const meta = t.meta() as Record<string, unknown>;
    const outcome = typeof meta.mpsiOutcome === 'string' ? meta.mpsiOutcome : undefined;
    const counts = this.running.get(s) ?? { done: 0, passed: 0, failed: 0, skipped: 0, expected: 0, started: Date.now() };
    this.running.set(s, counts);
    this.done += 1;
    counts.done += 1;
    const error = r.state === 'failed' ? (r.errors?.[0]?.message ?? 'failed') : undefined;
    this.tests.push({
      checkId: typeof meta.mpsiCheckId === 'string' ? meta.mpsiCheckId : undefined,
      name: t.fullName,
      state: r.state,
      outcome,
      error,
    });
    if (outcome === 'inconclusive') {
      // Thrown in vitest so that it never reads as passed; not the target's doing, so never counted as failed.
      this.noVerdict += 1;
      const first = headlineOf(meta, error);
      this.line(`  ? ${s} › ${t.name} — ${first}`);
    } else if (r.state === 'failed') {
      this.failed += 1;
      counts.failed += 1;
      const first = headlineOf(meta, error);
      this.line(`  ✗ ${s} › ${t.name}\n      ${first}`);
    } else if (r.state === 'skipped') counts.skipped += 1;
    else if (outcome === 'expected-fail') {
      this.expectedFail += 1;
      counts.expected += 1;
      this.line(`  ◦ ${s} › ${t.name} — failed as expected (known deviation)`);
    } else {
      counts.passed += 1;
      if (outcome === 'unexpected-pass')
        this.line(`  ! ${s} › ${t.name} — passed, but the expectations file expects otherwise (unexpected pass)`);
    }
  }

  onTestModuleEnd(m: TestModule): void {
    const names = new Set<string>();
    for (const t of m.children.allTests()) names.add(suiteOf(t));
    for (const s of names) {
      const c = this.running.get(s);
      if (!c) continue;
      this.running.delete(s);
      const bits = [`${c.passed} passed`, `${c.failed} failed`, `${c.skipped} skipped`];
      if (c.expected > 0) bits.push(`${c.expected} expected failures`);
      this.line(
        `${c.failed > 0 ? '✗' : '✓'} ${s.padEnd(22)} ${bits.join(' · ')}  (${seconds(Date.now() - c.started)}` +
          `)   [${this.done}/${this.known} checks, ${this.failed} failed so far]`,
      );
    }
    for (const e of m.errors()) this.line(`✗ ${basename(m.moduleId)} could not run: ${firstLine(e)}`);
  }

  onUserConsoleLog(log: { content: string; type: 'stdout' | 'stderr'; taskId?: string }): void {
    const lines = log.content.split('\n');
    const rest: string[] = [];
    for (const l of lines) {
      const e = parseProgress(l);
      if (!e) {
        if (l !== '') rest.push(l);
        continue;
      }
      if (e.kind === 'throttled') {
        this.throttledAnswers += e.answers;
        this.throttleWaitMs += e.waitMs;
        this.drawStatus();
      } else if (e.kind === 'wait') {
        const started = Date.now();
        this.waits.set(e.id, { check: e.check, what: e.what, timeoutMs: e.timeoutMs, started, until: e.until ?? started + e.timeoutMs });
        if (!this.tty && e.timeoutMs >= 5000)
          this.line(
            `  … ${e.check}: waiting up to ${seconds(e.timeoutMs)} for ${e.what}, until ${clockTime(e.until ?? started + e.timeoutMs)}`,
          );
        else this.drawStatus();
      } else {
        const w = this.waits.get(e.id);
        this.waits.delete(e.id);
        if (!this.tty && w && w.timeoutMs >= 5000)
          this.line(`    ${e.check}: wait for ${w.what} ended after ${seconds(e.ms)} (${e.got} deliver${e.got === 1 ? 'y' : 'ies'})`);
      }
    }
    if (rest.length > 0) this.line(rest.join('\n'));
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>, reason: TestRunEndReason): void {
    if (this.timer) clearInterval(this.timer);
    this.clearStatus();
    const moduleErrors: RunStatus['moduleErrors'] = [];
    for (const m of modules) {
      for (const e of m.errors()) moduleErrors.push({ file: basename(m.moduleId), message: e.message });
      for (const s of m.children.allSuites())
        for (const e of s.errors()) moduleErrors.push({ file: basename(m.moduleId), message: `${s.name}: ${e.message}` });
    }
    const status: RunStatus & { tests: TestRecord[]; durationMs: number } = {
      moduleErrors,
      unhandledErrors: unhandledErrors.map((e) => e.message ?? String(e)),
      reason,
      tests: this.tests,
      durationMs: Date.now() - this.started,
    };
    const failed = this.tests.filter((t) => t.state === 'failed' && t.outcome !== 'inconclusive');
    if (failed.length > 0) {
      this.line(`\nFailures (${failed.length}; every detail is in the report and the certificate):`);
      for (const t of failed.slice(0, 15)) {
        const lines = (t.error ?? '').split('\n');
        this.line(
          `\n  ✗ ${t.name}\n${lines
            .slice(0, 10)
            .map((l) => (l.trim() === '' ? '' : `    ${l}`))
            .join('\n')}${lines.length > 10 ? '\n    …' : ''}`,
        );
      }
      if (failed.length > 15) this.line(`\n  … and ${failed.length - 15} more`);
      this.line('');
    }
    mkdirSync(dirname(this.opts.runStatusFile), { recursive: true });
    writeFileSync(this.opts.runStatusFile, `${JSON.stringify(status, null, 2)}\n`);
    this.out.write(
      `vitest finished in ${seconds(status.durationMs)}: ${this.done} checks, ${this.failed} failed` +
        `${this.noVerdict ? `, ${this.noVerdict} without verdict` : ''}` +
        `${this.throttledAnswers ? `, ${this.throttledAnswers} throttled answers (${seconds(this.throttleWaitMs)} waited)` : ''}` +
        `${moduleErrors.length ? `, ${moduleErrors.length} suite file errors` : ''}` +
        `${unhandledErrors.length ? `, ${unhandledErrors.length} unhandled errors` : ''}\n`,
    );
  }
}

/**
 * A check's headline as the worker made it from the result (`mpsiHeadline`); only an error vitest raised without one
 * (a hook, a crash: foreign text) is cut to its first line.
 */
function headlineOf(meta: Record<string, unknown>, error: string | undefined): string {
  return typeof meta.mpsiHeadline === 'string' ? meta.mpsiHeadline : firstLine(error ?? '');
}
