import { describe, expect, it } from 'vitest';
import { expectedSeconds, FAR_ROUND_TRIP_MS, fileKey, readDurations, startOrder, workersFor } from '../../harness/run/sequencer.js';

const id = (k: string): string => k;

describe('the order suite files start in', () => {
  const quick = readDurations().quick;
  const files = Object.keys(quick);

  it('keeps one of the first workers for a file that sends: the longest one, in place of the shortest webhook file', () => {
    const order = startOrder(files, id, quick, 3, 0.005);
    // durations.json: the three longest quick files are webhook files (watch windows); stateful is next.
    expect(order.slice(0, 4)).toEqual(['webhook-ack', 'webhook-no-event', 'stateful', 'webhook-retry']);
    expect([...order].sort()).toEqual([...files].sort());
  });

  it('is longest first when a file that sends is already among the first workers, or with one worker', () => {
    const seconds = { 'webhook-ack': 3, stateful: 2, 'webhook-retry': 1, amounts: 0.5 };
    expect(startOrder(Object.keys(seconds), id, seconds, 3, 0.005)).toEqual(['webhook-ack', 'stateful', 'webhook-retry', 'amounts']);
    const waits = { 'webhook-ack': 3, 'webhook-retry': 1, amounts: 0.5 };
    expect(startOrder(Object.keys(waits), id, waits, 1, 0.005)).toEqual(['webhook-ack', 'webhook-retry', 'amounts']);
  });

  it('keys a file alike from the sources and from the build, so a built run starts its files longest first too', () => {
    expect(fileKey('/kit/suites/stateful.test.ts')).toBe('stateful');
    expect(fileKey('/kit/dist/suites/stateful.test.js')).toBe('stateful');
    const built = files.map((k) => `/kit/dist/suites/${k}.test.js`);
    const order = startOrder(built, fileKey, quick, 3, 0.005).map(fileKey);
    expect(order.slice(0, 3)).toEqual(['webhook-ack', 'webhook-no-event', 'stateful']);
  });

  it('starts the webhook files first at real time, where their waits set the run', () => {
    expect(startOrder(files, id, quick, 3, 1).slice(0, 3)).toEqual(['webhook-ack', 'webhook-no-event', 'webhook-retry']);
  });

  it('at real time starts both 75-s webhook files at once, with a third worker for the rest beside them', () => {
    const d = readDurations();
    const realtime = expectedSeconds(d, 'quick', 1);
    expect(realtime).toBe(d.realtime);
    expect(expectedSeconds(d, 'quick', 0.005)).toBe(d.quick);
    const workers = workersFor(1);
    expect(workers).toBe(3);
    expect(workersFor(0.005)).toBe(2);
    const head = startOrder(Object.keys(realtime), id, realtime, workers, 1).slice(0, workers - 1);
    expect(head.sort()).toEqual(['webhook-delivery', 'webhook-retry']);
  });

  it('keeps four workers for a far target, two for one a few ms away or whose round trip is unknown', () => {
    expect(workersFor(0.005, 100)).toBe(4);
    expect(workersFor(0.005, FAR_ROUND_TRIP_MS)).toBe(4);
    expect(workersFor(0.005, 3)).toBe(2);
    expect(workersFor(0.005, undefined)).toBe(2);
    // At real time the waits set the run: three, far or not.
    expect(workersFor(1, 3)).toBe(3);
    expect(workersFor(1, 100)).toBe(3);
  });

  it('keeps the longest webhook file first in full mode, where the retry schedule sets the run', () => {
    const full = readDurations().full;
    const order = startOrder(Object.keys(full), id, full, 3, 0.02);
    expect(order[0]).toBe('webhook-retry');
    expect(order.slice(0, 3).some((k) => !k.startsWith('webhook-'))).toBe(true);
  });
});
