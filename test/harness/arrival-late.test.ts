/**
 * Heavy load: the embedded reference writes each webhook attempt at a time it records
 * (reference/lag.ts logWrites), and our receiver, in a vitest worker starved of CPU, notes it up to 700 ms later in
 * many short stalls, none significant alone. The figures here are those of a quick run beside four busy loops
 * (load 13–17): an attempt written at +80 ms was noted at +794 ms (714 ms late), while the worker's meter saw its
 * longest stall at 164 ms. The old excuses (the longest single stall) charged the target with that time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newRecorder, withRecorder } from '../../harness/check/context.js';
import { CheckFailure } from '../../harness/check/failure.js';
import { arrivalLateMs, LagMeter, noteWebhookWritten, parseWrites, useLagMeter, useWriteTimes } from '../../harness/check/lag.js';
import {
  arrivalLate,
  attemptAllowanceMs,
  gapBounds,
  judgedGaps,
  lagExcuse,
  machineShareNote,
  type WebhookTiming,
  within,
} from '../../harness/webhooks/schedule.js';
import type { Delivery } from '../../harness/webhooks/types.js';
import { confirmedByRetrial, lagExplains, type TrialFinding } from '../../suites/support/webhook-scenarios.js';
import { logWrites, writesFileOf } from '../../reference/lag.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

afterEach(() => {
  useLagMeter(undefined);
  useWriteTimes(undefined);
});

/** The receiver's meter in the observed run: one 164-ms stall and many short ones (1.2 s lost in 1.5 s, in bits). */
function starvedMeter(until: number): LagMeter {
  const meter = new LagMeter();
  meter.record(until - 900, 164);
  for (let at = until - 1500; at <= until; at += 40) meter.record(at, 30);
  return meter;
}

const T0 = 1_000_000;

describe('arrivalLateMs: how late our receiver noted an attempt the embedded sandbox wrote', () => {
  it('reads the sandbox write file (reference/lag.ts), and takes the latest write of that nonce before the arrival', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-writes-'));
    try {
      const file = writesFileOf(join(dir, 'stalls.txt'));
      const log = logWrites(file);
      log('n-1', T0 + 80);
      log('n-2', T0 + 100);
      log('n-1', T0 + 5_000); // a fault that reuses the first attempt's nonce
      log('bad nonce with spaces', T0);
      const writes = parseWrites(readFileSync(file, 'utf8'));
      expect([...writes.keys()]).toEqual(['n-1', 'n-2']);
      useWriteTimes(writes);
      expect(arrivalLateMs('n-1', T0 + 794)).toBe(714);
      expect(arrivalLateMs('n-1', T0 + 5_003)).toBe(3);
      // Unknown to the sandbox (a target that is not ours), or written after we noted it: nothing to excuse.
      expect(arrivalLateMs('other', T0 + 794)).toBe(0);
      expect(arrivalLateMs(undefined, T0 + 794)).toBe(0);
      expect(arrivalLateMs('n-2', T0 + 90)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes the write times of a reference in this process (the proof: conformant runs, kill matrix)', () => {
    noteWebhookWritten('local-1', T0 + 80);
    expect(arrivalLateMs('local-1', T0 + 794)).toBe(714);
  });
});

describe('an acknowledged webhook sent again while our receiver noted it late (limit.ack-time)', () => {
  // `in-time` success at +500 ms of our noting; the reference's limit (1000 ms) runs from its write.
  const delivery = { receivedAt: T0 + 794, repliedAt: T0 + 1_294, reply: 'in-time' as const, headers: { 'x-nonce': 'n-1' } };
  const finding: TrialFinding = {
    code: 'WEBHOOK_ACK_TIME_SHORT',
    clause: 'limit.ack-time',
    message: 'm',
    expected: 'e',
    seen: 's',
    acknowledged: { delivery, ackTimeoutMs: 1000, jitterMs: 150 },
  };

  it('is explained by the time between the sandbox write and our noting, which no single stall showed', async () => {
    useLagMeter(starvedMeter(delivery.receivedAt));
    useWriteTimes(new Map([['n-1', [T0 + 80]]]));
    expect(lagExplains(finding)).toMatch(/our acknowledgement left 1214 ms after the webhook could have reached us/);
    const rec = newRecorder();
    await expect(withRecorder(rec, () => confirmedByRetrial(async () => finding))).rejects.toBeInstanceOf(CheckFailure);
    // Noted as our machine's: runCheck retries it, and a lasting one ends with no verdict (test/harness/lag.test.ts).
    expect(rec.machineBusy).toHaveLength(1);
  });

  it('is charged when the sandbox wrote it just before we noted it: the target gave less than its limit', () => {
    useLagMeter(starvedMeter(delivery.receivedAt));
    useWriteTimes(new Map([['n-1', [T0 + 790]]]));
    expect(lagExplains(finding)).toBeUndefined();
    // A target that is not ours: the meter alone, as before.
    useWriteTimes(new Map());
    expect(lagExplains(finding)).toBeUndefined();
  });
});

describe('lagExcuse with the sandbox write times (webhook.retry.growing-waits)', () => {
  const timing: WebhookTiming = { timeScale: 0.005, ackTimeoutMs: 1000, deliveryWaitMs: 3000, tolerance: 0.25, jitterMs: 150 };
  // A `reject` reply: the attempt takes nothing on our side; 75 ms expected, bounds 0 .. 244 ms.
  const b = gapBounds(timing, 15_000, 0);
  const first = { receivedAt: T0 + 10, headers: { 'x-nonce': 'a-1' } };

  it('excuses a first retry noted late by the time between its write and our noting', () => {
    // Written 78 ms after the first arrival (a 75-ms wait), noted 495 ms after that: gap 573 ms, 329 ms over.
    const second = { receivedAt: T0 + 583, headers: { 'x-nonce': 'a-2' } };
    useLagMeter(starvedMeter(second.receivedAt));
    useWriteTimes(
      new Map([
        ['a-1', [T0 + 5]],
        ['a-2', [T0 + 88]],
      ]),
    );
    const gap = second.receivedAt - first.receivedAt;
    expect(arrivalLate(second)).toBe(495);
    expect(lagExcuse(gap, b, first.receivedAt, second.receivedAt, 'the first wait', [first, second])).toMatch(
      /the first wait missed its bounds by 329 ms; our receiver noted the later delivery 495 ms after the sandbox had written it/,
    );
    // Without the write times (the old excuse), the longest single stall (164 ms) cannot excuse 329 ms.
    expect(lagExcuse(gap, b, first.receivedAt, second.receivedAt, 'the first wait')).toBeUndefined();
  });

  it('still charges a sender that waited too long (webhook-first-wait-60s: 300 ms), noted at once', () => {
    const second = { receivedAt: T0 + 312, headers: { 'x-nonce': 'a-2' } };
    useLagMeter(starvedMeter(second.receivedAt));
    useWriteTimes(
      new Map([
        ['a-1', [T0 + 8]],
        ['a-2', [T0 + 310]],
      ]),
    );
    expect(lagExcuse(second.receivedAt - first.receivedAt, b, first.receivedAt, second.receivedAt, 'the first wait', [first, second])).toBe(
      undefined,
    );
  });

  it('does not count the earlier arrival noted late against a span too long: that only shortens it', () => {
    const late1 = { receivedAt: T0 + 700, headers: { 'x-nonce': 'a-1' } };
    const second = { receivedAt: T0 + 1_100, headers: { 'x-nonce': 'a-2' } };
    useLagMeter(new LagMeter());
    useWriteTimes(
      new Map([
        ['a-1', [T0]],
        ['a-2', [T0 + 1_098]],
      ]),
    );
    expect(lagExcuse(400, b, late1.receivedAt, second.receivedAt, 'the first wait', [late1, second])).toBeUndefined();
  });
});

describe("judgedGaps: a gap judged on the embedded sandbox's own plan (webhook.retry.growing-waits)", () => {
  const timing: WebhookTiming = { timeScale: 0.005, ackTimeoutMs: 1000, deliveryWaitMs: 3000, tolerance: 0.25, jitterMs: 150 };
  const b = gapBounds(timing, 15_000, 0);
  /** Two attempts of one webhook, the receiver refusing at once (`reject`), as judgedGaps reads them. */
  function attempts(received: [number, number]): Delivery[] {
    return received.map(
      (at, i) => ({ receivedAt: at, seq: i, reply: 'reject', headers: { 'x-nonce': `p-${i + 1}` } }) as unknown as Delivery,
    );
  }

  it('takes off what a starved machine put in the gap: a late write, a late noting, our reply handled late', () => {
    // Written at +0, our `reject` handled by the sandbox 180 ms later, a 75-ms wait, written 260 ms after it was due,
    // noted 120 ms after that: measured 635 ms, of which the sandbox's own is the 75-ms wait.
    useWriteTimes(
      new Map([
        ['p-1', [{ at: T0 }]],
        ['p-2', [{ at: T0 + 515, dueAt: T0 + 255, waitMs: 75 }]],
      ]),
    );
    const g = judgedGaps(timing, attempts([T0 + 0, T0 + 635]));
    expect(g).toEqual({ measured: [635], judged: [75], exact: [true] });
    expect(within(g.judged[0]!, b)).toBe(true);
    expect(machineShareNote(g)).toMatch(/measured the gaps 635 ms; judged on the embedded sandbox's own \(75 ms\)/);
  });

  it('still charges a sandbox whose own wait is too long (webhook-first-wait-60s: 300 ms), however busy the machine', () => {
    useWriteTimes(
      new Map([
        ['p-1', [{ at: T0 }]],
        ['p-2', [{ at: T0 + 900, dueAt: T0 + 305, waitMs: 300 }]],
      ]),
    );
    const g = judgedGaps(timing, attempts([T0 + 2, T0 + 950]));
    expect(g.judged).toEqual([300]);
    expect(within(g.judged[0]!, b)).toBe(false);
  });

  it("keeps our receiver's own reply delay in the target's share, and a wait begun before the write shortens it", () => {
    const slow = { ...attempts([T0, T0 + 600])[0]!, reply: 'slow' } as Delivery;
    useWriteTimes(
      new Map([
        ['p-1', [{ at: T0 }]],
        ['p-2', [{ at: T0 + 600, dueAt: T0 + 2_000 + 75, waitMs: 75 }]],
      ]),
    );
    const allowance = attemptAllowanceMs(timing, slow);
    expect(judgedGaps(timing, [slow, attempts([T0, T0 + 2_100])[1]!]).judged).toEqual([75 + Math.min(2_000, allowance)]);
    useWriteTimes(
      new Map([
        ['p-1', [{ at: T0 + 40 }]],
        ['p-2', [{ at: T0 + 60, dueAt: T0 + 60, waitMs: 50 }]],
      ]),
    );
    expect(judgedGaps(timing, attempts([T0 + 40, T0 + 60])).judged).toEqual([50 - 30]);
  });

  it('judges a target that is not ours (no write log) on what was measured, so that lagExcuse alone may excuse', () => {
    useWriteTimes(new Map());
    expect(judgedGaps(timing, attempts([T0, T0 + 400]))).toEqual({ measured: [400], judged: [400], exact: [false] });
    // An old write log (write times only, no plan) is not enough to judge on the sandbox's own gap either.
    useWriteTimes(
      new Map([
        ['p-1', [T0]],
        ['p-2', [T0 + 390]],
      ]),
    );
    expect(judgedGaps(timing, attempts([T0, T0 + 400])).exact).toEqual([false]);
  });
});

describe('logWrites: the plan of each attempt, read back by the kit', () => {
  it('writes the due time and the wait beside the write time, and parseWrites reads both forms', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-writes-'));
    try {
      const file = writesFileOf(join(dir, 'stalls.txt'));
      const log = logWrites(file);
      log('n-1', T0 + 80, { dueAt: T0 + 75.4, waitMs: 75 });
      log('n-2', T0 + 90);
      expect(readFileSync(file, 'utf8')).toBe(`${T0 + 80} n-1 ${T0 + 75} 75\n${T0 + 90} n-2\n`);
      expect([...parseWrites(readFileSync(file, 'utf8'))]).toEqual([
        ['n-1', [{ at: T0 + 80, dueAt: T0 + 75, waitMs: 75 }]],
        ['n-2', [{ at: T0 + 90 }]],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
