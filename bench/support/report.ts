/**
 * Shared by the bench scripts: where figures go (reports/bench/<name>.json), the machine they were
 * measured on, percentiles, and a small worker pool.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BENCH_DIR = join(ROOT, 'reports', 'bench');

export function machine(): Record<string, unknown> {
  const c = cpus();
  return {
    cores: c.length,
    cpu: c[0]?.model ?? 'unknown',
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage1m: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** Writes reports/bench/<name>.json and returns its path. */
export function writeReport(name: string, figures: Record<string, unknown>): string {
  mkdirSync(BENCH_DIR, { recursive: true });
  const file = join(BENCH_DIR, `${name}.json`);
  writeFileSync(file, `${JSON.stringify({ bench: name, at: new Date().toISOString(), machine: machine(), ...figures }, null, 2)}\n`);
  return file;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function mb(bytes: number): number {
  return round(bytes / 1024 / 1024, 1);
}

/** Runs fn over `count` indices with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
}

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}
