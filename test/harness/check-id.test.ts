import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { currentRecorder } from '../../harness/check/context.js';
import { defineSuite } from '../../harness/check/define.js';
import { property } from '../../harness/check/property.js';
import { runCheck } from '../../harness/check/run.js';
import { narrateReceiver, parseProgress } from '../../harness/report/progress.js';
import type { Target } from '../../harness/target.js';
import type { Receiver } from '../../harness/webhooks/types.js';

/**
 * The running check's id travels in its recorder: the webhook waits of concurrent checks sharing one
 * receiver are narrated under the check that waits, without an AsyncLocalStorage per suite file (each one enabled
 * makes every promise of the worker dearer).
 */
describe("the running check's id", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const target = { profile: { http: { concurrency: 4 } } } as unknown as Target;
  const settings = { seed: 7, numRuns: 12, webhooks: 'off' as const };

  it('is known in the check body and in each of its independent property examples', async () => {
    const seen: (string | undefined)[] = [];
    const [check] = defineSuite('ids', { area: 'amounts', resource: 'payment' }, [
      {
        title: 'knows its id',
        clause: 'amount.value.max-2-decimals',
        async run(ctx) {
          seen.push(currentRecorder()?.checkId);
          await property(
            ctx,
            fc.integer({ min: 0, max: 9 }),
            async () => {
              await new Promise<void>((resolve) => setImmediate(resolve));
              seen.push(currentRecorder()?.checkId);
            },
            { independent: true },
          );
        },
      },
    ]).checks;
    const r = await runCheck(check!, target, settings);
    expect(r.status).toBe('passed');
    expect(seen.length).toBeGreaterThan(1);
    expect(new Set(seen)).toEqual(new Set([check!.id]));
  });

  it("names the waiting check in a receiver wait's progress line, each of two concurrent checks its own", async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => {
      lines.push(line);
    });
    const inner = {
      waitFor: async () => {
        await new Promise<void>((resolve) => setTimeout(resolve, 5));
        return [];
      },
      deliveries: () => [],
    } as unknown as Receiver;
    const receiver = narrateReceiver(inner, () => currentRecorder()?.checkId ?? 'the suite', 0);
    const [a, b] = defineSuite('waits', { area: 'amounts', resource: 'payment' }, [
      { title: 'waits first', clause: 'amount.value.max-2-decimals', run: () => receiver.waitFor({}, () => false, 5).then(() => {}) },
      { title: 'waits second', clause: 'amount.value.max-2-decimals', run: () => receiver.waitFor({}, () => false, 5).then(() => {}) },
    ]).checks;
    await Promise.all([runCheck(a!, target, settings), runCheck(b!, target, settings)]);
    const waits = lines.map(parseProgress).filter((e) => e?.kind === 'wait');
    expect(waits.map((e) => (e as { check: string }).check).sort()).toEqual([a!.id, b!.id].sort());
  });
});

describe('narrated receiver waits', () => {
  const inner = (ms: number) =>
    ({
      waitFor: async () => {
        await new Promise<void>((resolve) => setTimeout(resolve, ms));
        return [];
      },
      deliveries: () => [],
    }) as unknown as Receiver;

  it('says nothing of a wait that ends within the grace (two console lines a wait), and both ends of a longer one', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => {
      lines.push(line);
    });
    await narrateReceiver(inner(0), () => 'quick', 200).waitFor({}, () => false, 10_000);
    expect(lines.map(parseProgress).filter(Boolean)).toEqual([]);
    await narrateReceiver(inner(60), () => 'slow', 20).waitFor({ event: 'payment.updated' }, () => false, 10_000);
    const events = lines.map(parseProgress);
    expect(events.map((e) => e?.kind)).toEqual(['wait', 'wait-end']);
    expect(events[0]).toMatchObject({ check: 'slow', what: 'payment.updated', timeoutMs: 10_000 });
    vi.restoreAllMocks();
  });
});
