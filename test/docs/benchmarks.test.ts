/**
 * BENCHMARKS.md is the table bench/figures.json renders (bench/figures.ts): the current figure of each measure with
 * the command that reproduces it, the machine, the load, the date and the commit. The page must be exactly what the
 * data file renders, and stay small enough to read.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCHMARKS_FILE, readFigures, renderBenchmarks } from '../../bench/figures.js';

describe('BENCHMARKS.md', () => {
  it('is what bench/figures.json renders (if not, run: npm run bench -- --write)', () => {
    expect(readFileSync(BENCHMARKS_FILE, 'utf8') === renderBenchmarks(readFigures()), 'run: npm run bench -- --write').toBe(true);
  });

  it('gives every figure its command, machine, load, date and commit, in at most 30 KB', () => {
    const f = readFigures();
    expect(f.rows.length).toBeGreaterThan(10);
    for (const r of f.rows) {
      for (const k of ['what', 'figure', 'goal', 'command', 'load', 'date'] as const) expect(r[k].trim(), `${r.what}: ${k}`).not.toBe('');
      expect(r.date, r.what).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(r.commit, r.what).toMatch(/^[0-9a-f]{7,40}$/);
      expect(f.machines[r.machine], r.what).toBeDefined();
    }
    expect(Buffer.byteLength(readFileSync(BENCHMARKS_FILE))).toBeLessThanOrEqual(30 * 1024);
  });
});
