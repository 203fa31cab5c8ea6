/**
 * The embedded reference runs in a process of its own, so its late timers are invisible to the
 * worker's meter. It writes its stalls down (reference/lag.ts) and the worker's meter counts them
 * (harness/check/lag.ts stallFile), so a webhook the busy reference sent late is excused, not charged.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LagMeter, parseStalls, stallFile } from '../../harness/check/lag.js';
import { logStalls } from '../../reference/lag.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'mpsi-lag-test-'));
  dirs.push(d);
  return join(d, 'stalls.txt');
}

function blockFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // this process cannot run its timers
  }
}

describe("the reference's stalls in the kit's meter", () => {
  it('writes a stall of its process as one line the kit parses', async () => {
    const file = tempFile();
    const stop = logStalls(file);
    await new Promise((r) => setTimeout(r, 30));
    const before = Date.now();
    blockFor(150);
    await new Promise((r) => setTimeout(r, 50));
    stop();
    const stalls = stallFile(file)();
    const longest = Math.max(...stalls.filter((s) => s.at >= before).map((s) => s.lateMs));
    expect(longest).toBeGreaterThanOrEqual(120);
  });

  it('counts another process’s stalls in the window they fell in, and only there', () => {
    const file = tempFile();
    const meter = new LagMeter({ now: () => 10_000 });
    expect(meter.longestStallDuring(9_000, 9_500)).toBe(0);
    writeFileSync(file, '9400 300\n');
    meter.addSource(stallFile(file));
    expect(meter.longestStallDuring(9_000, 9_500)).toBe(300);
    expect(meter.longestStallDuring(9_450, 9_900)).toBe(0);
  });

  it('reads a missing or garbled file as no stalls: it can excuse nothing', () => {
    expect(stallFile(join(tmpdir(), 'mpsi-no-such-dir', 'x'))()).toEqual([]);
    expect(parseStalls('abc\n12 x\n\n100 20\n')).toEqual([{ at: 100, lateMs: 20 }]);
  });
});
