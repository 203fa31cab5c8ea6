/**
 * The kit measures the time its own process lost, extends webhook windows by it
 * (bounded), and retries a timing finding within it; a lasting one is no verdict, never a failure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newRecorder, withRecorder } from '../../harness/check/context.js';
import type { CheckDef } from '../../harness/check/define.js';
import { CheckFailure } from '../../harness/check/failure.js';
import { LagMeter, useLagMeter } from '../../harness/check/lag.js';
import { runCheck } from '../../harness/check/run.js';
import type { Target } from '../../harness/target.js';
import { awaitDeliveries } from '../../harness/webhooks/expect.js';
import { lagExcuse } from '../../harness/webhooks/schedule.js';
import type { Delivery, Receiver } from '../../harness/webhooks/types.js';
import { confirmedByRetrial } from '../../suites/support/webhook-scenarios.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function blockFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // the busy loop stands for a machine that cannot run us
  }
}

afterEach(() => useLagMeter(undefined));

describe('LagMeter', () => {
  it('measures a stall of the event loop as lost time', async () => {
    const meter = new LagMeter({ intervalMs: 5 }).start();
    try {
      await sleep(30);
      const from = Date.now();
      blockFor(200);
      await sleep(30);
      const to = Date.now();
      expect(meter.lostDuring(from, to)).toBeGreaterThanOrEqual(150);
      expect(meter.longestStallDuring(from, to)).toBeGreaterThanOrEqual(150);
      // A window before the stall lost nothing of it.
      expect(meter.lostDuring(from - 25, from - 1)).toBeLessThan(150);
    } finally {
      meter.stop();
    }
  });

  it('counts only the part of a stall inside the window', () => {
    const meter = new LagMeter({ intervalMs: 10 });
    meter.record(1_000, 100); // stalled 900..1000
    meter.record(2_000, 1); // timer noise: not lost time
    meter.record(3_000, 300); // stalled 2700..3000
    expect(meter.lostDuring(0, 5_000)).toBe(400);
    expect(meter.lostDuring(950, 2_800)).toBe(150);
    expect(meter.longestStallDuring(0, 5_000)).toBe(300);
    expect(meter.lostDuring(1_001, 2_699)).toBe(0);
  });
});

/** A receiver whose every wait ends empty after its timeout, our process losing `lostPerWait[i]` ms in wait i. */
function fakeTarget(meter: LagMeter, lostPerWait: number[], arriveOnWait?: number): { t: Target; waits: number[] } {
  const waits: number[] = [];
  const delivery = {
    seq: 1,
    receivedAt: 0,
    method: 'POST',
    headers: {},
    body: Buffer.from('{}'),
    json: {},
    signature: { ok: true },
    reply: 'success',
  } as unknown as Delivery;
  const receiver = {
    url: 'http://127.0.0.1:1/x',
    async waitFor(_f: unknown, _p: unknown, timeoutMs: number) {
      const i = waits.length;
      waits.push(Math.round(timeoutMs));
      await sleep(timeoutMs);
      meter.record(Date.now(), lostPerWait[i] ?? 0);
      return arriveOnWait !== undefined && i >= arriveOnWait ? [delivery] : [];
    },
  } as unknown as Receiver;
  const t = { receiver: () => receiver, profile: { webhooks: { ackTimeoutMs: 100 } }, notifyUrl: () => receiver.url } as unknown as Target;
  return { t, waits };
}

describe('awaitDeliveries on a busy machine', () => {
  it('extends a window by the time our process lost in it, then concludes', async () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    const { t, waits } = fakeTarget(meter, [60, 0]);
    const rec = newRecorder();
    const ds = await withRecorder(rec, () => awaitDeliveries(t, {}, (x) => x.length > 0, 100));
    expect(ds).toEqual([]);
    expect(waits).toEqual([100, 60]);
    expect(rec.machineBusy).toEqual([]);
  });

  it('gives a late webhook the time our process lost', async () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    const { t, waits } = fakeTarget(meter, [80], 1);
    const ds = await withRecorder(newRecorder(), () => awaitDeliveries(t, {}, (x) => x.length > 0, 100));
    expect(ds).toHaveLength(1);
    expect(waits).toEqual([100, 80]);
  });

  it('stretches a window at most to four times its length, and notes lost time beyond that', async () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    // Every wait loses all of its time: the window is extended up to three more window lengths, then no more.
    const { t, waits } = fakeTarget(meter, new Array<number>(10).fill(1_000));
    const rec = newRecorder();
    await withRecorder(rec, () => awaitDeliveries(t, {}, (x) => x.length > 0, 100));
    expect(waits[0]).toBe(100);
    const extended = waits.slice(1).reduce((a, b) => a + b, 0);
    expect(extended).toBeLessThanOrEqual(300);
    expect(extended).toBeGreaterThanOrEqual(250);
    expect(rec.machineBusy).toHaveLength(1);
    expect(rec.machineBusy[0]).toMatch(/our process lost \d+ ms of a 100 ms webhook window/);
  });

  it('does not extend a window in which nothing was lost', async () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    const { t, waits } = fakeTarget(meter, [10]);
    await withRecorder(newRecorder(), () => awaitDeliveries(t, {}, (x) => x.length > 0, 100));
    expect(waits).toEqual([100]);
  });
});

describe('confirmedByRetrial with our lag', () => {
  const finding = (delivery: { receivedAt: number; repliedAt?: number; reply: 'in-time' | 'success' }) => ({
    code: 'WEBHOOK_ACK_TIME_SHORT',
    clause: 'limit.ack-time' as const,
    message: 'm',
    expected: 'e',
    seen: 's',
    acknowledged: { delivery, ackTimeoutMs: 1000, jitterMs: 150 },
  });

  it('notes a resend seen twice as within our lag when our reply left after the limit', async () => {
    useLagMeter(new LagMeter());
    const rec = newRecorder();
    const late = finding({ receivedAt: 10_000, repliedAt: 10_900, reply: 'in-time' });
    await expect(withRecorder(rec, () => confirmedByRetrial(async () => late))).rejects.toBeInstanceOf(CheckFailure);
    expect(rec.machineBusy[0]).toMatch(/our acknowledgement left 900 ms after .*limit 1000 ms/);
  });

  it('counts the stall our process had before it noted the arrival', async () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    meter.record(10_000, 400);
    const rec = newRecorder();
    await expect(
      withRecorder(rec, () => confirmedByRetrial(async () => finding({ receivedAt: 10_000, repliedAt: 10_500, reply: 'in-time' }))),
    ).rejects.toBeInstanceOf(CheckFailure);
    expect(rec.machineBusy).toHaveLength(1);
  });

  it('charges a resend seen twice when our reply left in time, or the target hung up before it was due', async () => {
    useLagMeter(new LagMeter());
    for (const d of [
      { receivedAt: 10_000, repliedAt: 10_520, reply: 'in-time' as const },
      { receivedAt: 10_000, reply: 'in-time' as const },
    ]) {
      const rec = newRecorder();
      await expect(withRecorder(rec, () => confirmedByRetrial(async () => finding(d)))).rejects.toBeInstanceOf(CheckFailure);
      expect(rec.machineBusy).toEqual([]);
    }
  });
});

function check(run: CheckDef['run']): CheckDef {
  return { id: 'x.check', title: 't', clauses: ['event.payment.updated'], level: 'must', run } as unknown as CheckDef;
}

const SETTINGS = { seed: 1, numRuns: 1, webhooks: 'quick' as const };
const fake = {} as Target;

describe('runCheck: a timing finding within our lag', () => {
  const notSent = () =>
    new CheckFailure({
      code: 'WEBHOOK_NOT_SENT',
      clause: 'event.payment.updated',
      level: 'must',
      title: 'no webhook',
      message: 'no webhook',
    });

  it('is retried with a new run, and a lasting one ends with no verdict (machine too busy)', async () => {
    let runs = 0;
    const { recordMachineBusy } = await import('../../harness/check/context.js');
    const r = await runCheck(
      check(async () => {
        runs += 1;
        recordMachineBusy(`lost ${runs}`);
        throw notSent();
      }),
      fake,
      SETTINGS,
    );
    expect(runs).toBe(2);
    expect(r.status).toBe('inconclusive');
    expect(r.inconclusive).toEqual({ cause: 'machine-busy' });
    expect(r.findings).toEqual([]);
    expect(r.reason).toMatch(/^no verdict \(machine too busy\): WEBHOOK_NOT_SENT: lost 1; and again .*lost 2/);
  });

  it('takes the second run when our machine kept up that time', async () => {
    let runs = 0;
    const { recordMachineBusy } = await import('../../harness/check/context.js');
    const passing = await runCheck(
      check(async () => {
        runs += 1;
        if (runs === 1) {
          recordMachineBusy('lost');
          throw notSent();
        }
      }),
      fake,
      SETTINGS,
    );
    expect(passing.status).toBe('passed');
    expect(passing.notes[0]).toMatch(/^first try: WEBHOOK_NOT_SENT: lost; run again/);
    runs = 0;
    const failing = await runCheck(
      check(async () => {
        runs += 1;
        if (runs === 1) recordMachineBusy('lost');
        throw notSent();
      }),
      fake,
      SETTINGS,
    );
    expect(failing.status).toBe('failed');
    expect(failing.findings[0]!.code).toBe('WEBHOOK_NOT_SENT');
  });

  it('charges at once a timing finding without lost time, and any other finding whatever the lag', async () => {
    let runs = 0;
    const { recordMachineBusy } = await import('../../harness/check/context.js');
    const plain = await runCheck(
      check(async () => {
        runs += 1;
        throw notSent();
      }),
      fake,
      SETTINGS,
    );
    expect([plain.status, runs]).toEqual(['failed', 1]);
    runs = 0;
    const other = await runCheck(
      check(async () => {
        runs += 1;
        recordMachineBusy('lost');
        throw new CheckFailure({
          code: 'WEBHOOK_FIELD_WRONG',
          clause: 'webhook.body.status',
          level: 'must',
          title: 'wrong',
          message: 'wrong',
        });
      }),
      fake,
      SETTINGS,
    );
    expect([other.status, runs]).toEqual(['failed', 1]);
  });
});

describe('lagExcuse: a retry wait outside its bounds', () => {
  const b = { min: 50, max: 250 };

  it('is excused by the longest single stall between the two arrivals, at most up to 4x its bound', () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    meter.record(10_500, 400); // stalled 10100..10500
    expect(lagExcuse(600, b, 10_000, 10_600, 'the first wait')).toMatch(
      /the first wait missed its bounds by 350 ms; our process lost 400 ms/,
    );
    // A miss larger than that stall stands.
    expect(lagExcuse(700, b, 10_000, 10_700, 'the first wait')).toBeUndefined();
  });

  it('is not excused by many short stalls that add up: one timer is late by the stall it fell in', () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    for (let at = 10_100; at <= 11_000; at += 100) meter.record(at, 80); // 10 stalls of 80 ms: 800 ms lost in all
    expect(lagExcuse(900, b, 10_000, 10_900, 'the first wait')).toBeUndefined();
  });

  it('never excuses a wait ten times its bound, however much we lost', () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    meter.record(12_500, 2_500);
    expect(lagExcuse(2_500, b, 10_000, 12_500, 'the first wait')).toBeUndefined();
    expect(lagExcuse(1_000, b, 10_000, 12_500, 'the first wait')).toBeDefined();
  });

  it('excuses a wait too short only by the stall that made us note its first arrival late', () => {
    const meter = new LagMeter();
    useLagMeter(meter);
    meter.record(10_100, 100); // stalled 10000..10100: the first arrival was stamped at 10100
    for (let at = 10_300; at <= 12_000; at += 100) meter.record(at, 90); // much lost later on, which only lengthens spans
    expect(lagExcuse(20, b, 10_100, 10_120, 'the first wait')).toMatch(/missed its bounds by 30 ms/);
    expect(lagExcuse(1, { min: 1_000, max: 3_000 }, 10_100, 10_101, 'the span')).toBeUndefined();
  });

  it('excuses nothing when our process kept up', () => {
    useLagMeter(new LagMeter());
    expect(lagExcuse(300, b, 10_000, 10_300, 'the first wait')).toBeUndefined();
  });
});
