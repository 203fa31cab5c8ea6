import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currentRecorder, newRecorder, note, recordFinding, withRecorder } from '../../harness/check/context.js';
import { defineSuite } from '../../harness/check/define.js';
import { failCheck } from '../../harness/check/expect.js';
import { NoVerdict, PreconditionSkip } from '../../harness/check/failure.js';
import { assertIndependent, property, type PropertyParams } from '../../harness/check/property.js';
import { runCheck } from '../../harness/check/run.js';
import type { Target } from '../../harness/target.js';

/**
 * Independent property examples run several at a time, yet a check must come out as the sequential
 * `fc.assert` would make it: the same values in the same order, the same first failure, fast-check's own report
 * (seed, path, counterexample, shrinks) and the same typed outcome. Overlap is counted, never timed.
 */

/** Lets `n` turns of the event loop pass: examples finish in an order set by their values, not by when they began. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

const arb = fc.record({ n: fc.integer({ min: -1_000, max: 1_000 }), s: fc.string({ maxLength: 6 }) });
type V = { n: number; s: string };
/** Later examples (by value) finish sooner than earlier ones, often: a merge by completion order would show. */
const delay = (v: V) => 1 + ((v.n + 1_000) % 7);

async function failureOf(run: () => Promise<void>): Promise<Error> {
  try {
    await run();
  } catch (err) {
    return err as Error;
  }
  throw new Error('the property did not fail');
}

describe('independent property examples', () => {
  const params: PropertyParams = { seed: 20261125, numRuns: 40, endOnFailure: true };

  it('tries exactly the values fast-check tries, and records them in generation order', async () => {
    const sequential = newRecorder();
    await withRecorder(sequential, () =>
      fc.assert(
        fc.asyncProperty(arb, async (v) => {
          note(JSON.stringify(v));
        }),
        params,
      ),
    );
    const independent = newRecorder();
    await withRecorder(independent, () =>
      assertIndependent(
        arb,
        async (v) => {
          await turns(delay(v));
          note(JSON.stringify(v));
        },
        params,
        6,
      ),
    );
    expect(sequential.notes).toHaveLength(40);
    expect(independent.notes).toEqual(sequential.notes);
  });

  it('runs up to the width at once, and the sequential run one at a time', async () => {
    const overlap = async (independent: boolean) => {
      let inFlight = 0;
      let most = 0;
      const body = async (v: V) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await turns(delay(v));
        inFlight--;
      };
      if (independent) await assertIndependent(arb, body, params, 5);
      else await fc.assert(fc.asyncProperty(arb, body), params);
      return most;
    };
    expect(await overlap(false)).toBe(1);
    expect(await overlap(true)).toBe(5);
  });

  for (const endOnFailure of [true, false]) {
    it(`fails with the sequential report (endOnFailure ${endOnFailure}): the first failing value in generation order`, async () => {
      const p = { ...params, numRuns: 60, endOnFailure };
      // Several examples fail; an early one takes longest, so a later failure finishes first under concurrency.
      const fails = (v: V) => v.n > 300;
      let shrinkOverlap = 0;
      let afterFirstPhase = false;
      let inFlight = 0;
      const body = async (v: V) => {
        inFlight++;
        if (afterFirstPhase) shrinkOverlap = Math.max(shrinkOverlap, inFlight);
        await turns(fails(v) ? 20 - (v.n % 10) : delay(v));
        inFlight--;
        if (fails(v)) throw new Error(`too big: ${v.n}`);
      };
      const sequential = await failureOf(() => fc.assert(fc.asyncProperty(arb, body), p));
      let calls = 0;
      const independent = await failureOf(() =>
        assertIndependent(
          arb,
          async (v) => {
            calls++;
            // The replay asks for no example before the failing one; any later call is a shrink candidate.
            if (calls > p.numRuns) afterFirstPhase = true;
            await body(v);
          },
          p,
          8,
        ),
      );
      expect(sequential.message).toMatch(/Counterexample/);
      expect(independent.message).toBe(sequential.message);
      expect((independent.cause as Error).message).toBe((sequential.cause as Error).message);
      if (!endOnFailure) expect(sequential.message).not.toMatch(/Shrunk 0 time/);
      expect(shrinkOverlap).toBeLessThanOrEqual(1);
    });
  }

  for (const failsFirst of [false, true]) {
    it(`leaves an arbitrary that throws to the sequential run (an example fails before: ${failsFirst})`, async () => {
      // With this seed the 13th value is the first in 350..399 and the 7th the first in 700..799.
      const throwing = fc.integer({ min: 0, max: 1_000 }).map((n) => {
        if (n >= 350 && n < 400) throw new Error(`cannot draw ${n}`);
        return n;
      });
      const sent: number[][] = [[], []];
      const body = (into: number[]) => async (n: number) => {
        into.push(n);
        if (failsFirst && n >= 700 && n < 800) throw new Error(`fails at ${n}`);
      };
      const sequential = await failureOf(() => fc.assert(fc.asyncProperty(throwing, body(sent[0]!)), params));
      const independent = await failureOf(() => assertIndependent(throwing, body(sent[1]!), params, 4));
      expect(failsFirst ? (sequential.cause as Error).message : sequential.message).toMatch(
        failsFirst ? /fails at 7\d\d/ : /cannot draw 3\d\d/,
      );
      expect(String(independent.cause)).toBe(String(sequential.cause));
      expect(independent.message).toBe(sequential.message);
      expect(sent[1]).toEqual(sent[0]);
      expect(sent[0]!.length).toBe(failsFirst ? 7 : 12);
    });
  }

  it('refuses fc.pre, which would change the values fast-check draws after it', async () => {
    const err = await failureOf(() =>
      assertIndependent(
        arb,
        async (v) => {
          fc.pre(v.n % 3 !== 0);
        },
        params,
        4,
      ),
    );
    expect(err.message).toMatch(/cannot use fc\.pre/);
  });

  it('keeps no recording of examples after the first failure that were already under way', async () => {
    const rec = newRecorder();
    const seen: number[] = [];
    let k = 0;
    await failureOf(() =>
      withRecorder(rec, () =>
        assertIndependent(
          fc.nat(),
          async () => {
            const i = k++;
            seen.push(i);
            // Example 2 fails at once; 3…7 started beside it and finish after it.
            if (i === 2) throw new Error('fails');
            await turns(3);
            note(`example ${i}`);
          },
          { seed: 7, numRuns: 20, endOnFailure: true },
          8,
        ),
      ),
    );
    expect(seen.length).toBeGreaterThan(3);
    expect(rec.notes).toEqual(['example 0', 'example 1']);
  });
});

describe('a check whose examples are independent ends as the sequential one does', () => {
  const target = { profile: { http: { concurrency: 4 } } } as unknown as Target;
  const settings = { seed: 11, numRuns: 30, webhooks: 'off' as const };

  /** The same check written twice, once marked independent; `outcome` decides what an example does. */
  const resultOf = async (independent: boolean, outcome: (v: number) => void) => {
    const [check] = defineSuite('x', { area: 'amounts', resource: 'payment' }, [
      {
        title: 'holds for every value',
        clause: 'amount.value.max-2-decimals',
        async run(ctx) {
          await property(
            ctx,
            fc.integer({ min: 0, max: 99 }),
            async (v) => {
              await turns(1 + (v % 5));
              if (currentRecorder() === undefined) throw new Error('example ran outside its check');
              outcome(v);
            },
            { independent },
          );
        },
      },
    ]).checks;
    const r = await runCheck(check!, target, settings);
    return {
      status: r.status,
      reason: r.reason,
      inconclusive: r.inconclusive,
      findings: r.findings,
      notes: r.notes,
      exercised: r.exercised,
    };
  };

  const outcomes: [string, string, (v: number) => void][] = [
    [
      'a typed finding',
      'failed',
      (v) => v > 70 && failCheck({ code: 'TOO_BIG', title: `${v} is too big`, expected: '≤ 70', seen: String(v) }),
    ],
    [
      'no verdict (throttled)',
      'inconclusive',
      (v) => {
        if (v > 80) throw new NoVerdict('throttled', `still throttled at ${v}`);
      },
    ],
    [
      'a precondition',
      'skipped',
      (v) => {
        if (v > 60) throw new PreconditionSkip(`needs ${v}`, { declare: ['sandbox.x'] });
      },
    ],
    [
      'a harness error',
      'broken',
      (v) => {
        if (v > 50) throw new TypeError(`broke at ${v}`);
      },
    ],
    [
      'an invariant finding and notes',
      'failed',
      (v) => {
        note(`saw ${v}`);
        if (v % 4 === 0) recordFinding({ code: 'INV', clause: 'env.body.object', level: 'must', title: 't', message: String(v) });
      },
    ],
  ];
  for (const [name, status, outcome] of outcomes) {
    it(`${name}: ${status}`, async () => {
      const sequential = await resultOf(false, outcome);
      expect(sequential.status).toBe(status);
      const independent = await resultOf(true, outcome);
      expect(independent).toEqual(sequential);
    });
  }

  it('passes when every example passes, with the same credit', async () => {
    const sequential = await resultOf(false, () => {});
    expect(sequential.status).toBe('passed');
    expect(await resultOf(true, () => {})).toEqual(sequential);
  });
});
