/**
 * The ways a sandbox causes a failure (sandbox.triggers, harness/profile/triggers.ts): the loader's errors, the ways of
 * each kind (the switch and refunds.failingReason among them), and the kit's own values avoiding the magic ones: a drawn
 * amount never hits a declared magic amount or ending, a merchant number never starts or ends as a declared one.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { amountValueInsideChannels, amountValueWithAtMostTwoDecimals } from '../../fixtures/arbitraries/amounts.js';
import {
  cumulativeRefundsExceedingCents,
  partialRefundCents,
  refundCentsAboveOriginal,
  refundSplitOfCents,
} from '../../fixtures/arbitraries/refund-amounts.js';
import { valueOfCents } from '../../harness/facts/money.js';
import { avoidMagic, defaultAmount } from '../../harness/ops.js';
import { parseProfile } from '../../harness/profile/load.js';
import { centsCarrying, MagicValues, triggerPath, triggersOf } from '../../harness/profile/triggers.js';
import type { Profile } from '../../harness/profile/types.js';
import { openSession } from '../../harness/run/session.js';

function profileWith(edit: (p: Profile) => void): Profile {
  const p = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Profile;
  edit(p);
  return p;
}
const load = (p: Profile) => parseProfile(JSON.stringify(p), 'triggers.json');
const triggers = (t: NonNullable<Profile['sandbox']>['triggers']) =>
  profileWith((p) => {
    p.sandbox!.triggers = t;
  });

describe('the loader on sandbox.triggers', () => {
  it('takes every way, complete', () => {
    expect(() =>
      load(
        triggers({
          queryFailed: [{ way: 'numberPrefix', number: 'merchantOrderNo', value: 'QF-', count: 1 }, { way: 'control' }],
          orderCreationFailed: [
            { way: 'amount', value: '5.02' },
            { way: 'card', value: '4000000000000259' },
            { way: 'email', value: 'busy@example.com' },
          ],
          refundSystemBusy: [{ way: 'header', name: 'X-Mock-Response', value: 'BUSY' }],
          refundFailed: [
            { way: 'amountEnding', value: '.91' },
            { way: 'numberSuffix', number: 'merchantRefundNo', value: '-F' },
            { way: 'reason', value: 'fail me' },
          ],
        }),
      ),
    ).not.toThrow();
  });

  it.each<[string, NonNullable<Profile['sandbox']>['triggers'], RegExp]>([
    ['an ending not of cents', { refundFailed: [{ way: 'amountEnding', value: '.9' }] }, /refundFailed\[0\]\.value: the end of an amount/],
    ['an amount with three decimals', { orderCreationFailed: [{ way: 'amount', value: '5.021' }] }, /\[0\]\.value: a positive amount/],
    [
      "a refund's number for a payment's failure",
      { queryFailed: [{ way: 'numberPrefix', number: 'merchantRefundNo', value: 'Q' }] },
      /queryFailed\[0\]\.number: queryFailed is no refund's/,
    ],
    [
      'a header every request sends',
      { refundSystemBusy: [{ way: 'header', name: 'X-Sign', value: 'x' }] },
      /name: X-Sign is a header every request/,
    ],
    ['a reason for a query', { queryFailed: [{ way: 'reason', value: 'x' }] }, /a refund reason causes only a refund's failure/],
    ['the switch without its value', { queryFailed: [{ way: 'control' }] }, /declare it there/],
    ['an unknown way', { queryFailed: [{ way: 'cookie', value: 'x' } as never] }, /way/],
  ])('refuses %s with a clear error naming the field', (_, t, message) => {
    const p = triggers(t);
    if (JSON.stringify(t).includes('"control"')) delete p.sandbox!.armFailure;
    expect(() => load(p)).toThrow(message);
  });

  it('refuses a success card that is a magic card, and a version-4 profile naming the field', () => {
    const card = profileWith((p) => {
      p.sandbox!.triggers = { orderCreationFailed: [{ way: 'card', value: p.cardPayment!.cards.success!.card_number }] };
    });
    expect(() => load(card)).toThrow(/cardPayment\.cards\.success: its number is a trigger's magic card/);
    const v4 = triggers({ refundFailed: [{ way: 'amountEnding', value: '91' }] });
    v4.profileVersion = 4;
    expect(() => load(v4)).toThrow(/sandbox\.triggers: is a profile format version 5 field.*set it to 5/);
  });
});

describe('the ways of each failure', () => {
  it('lists the declared ways, then the switch and the failing reason, each at its own field', () => {
    const p = triggers({ refundFailed: [{ way: 'amountEnding', value: '.91' }] });
    const ways = triggersOf(p, 'refundFailed');
    expect(ways).toEqual([{ way: 'amountEnding', value: '.91' }, { way: 'control' }, { way: 'reason', value: 'sandbox:refund-failed' }]);
    expect(ways.map((w) => triggerPath(p, 'refundFailed', w))).toEqual([
      'sandbox.triggers.refundFailed[0]',
      'sandbox.armFailure.failures.refundFailed',
      'refunds.failingReason',
    ]);
  });

  it('finds an amount carrying an ending inside a range, near the one asked for', () => {
    const w = { way: 'amountEnding' as const, value: '.91' };
    expect(valueOfCents(centsCarrying(w, { min: 100n, max: 10_000n }, 1000n)!)).toBe('10.91');
    expect(valueOfCents(centsCarrying(w, { min: 100n, max: 1050n }, 1000n)!)).toBe('9.91');
    expect(centsCarrying(w, { min: 100n, max: 150n }, 120n)).toBeUndefined();
    expect(centsCarrying({ way: 'amount', value: '5.02' }, { min: 100n, max: 10_000n }, 1000n)).toBe(502n);
  });
});

describe("the kit's own values avoid the declared magic values", () => {
  const magic = new MagicValues(
    triggers({
      refundFailed: [{ way: 'amountEnding', value: '.91' }],
      orderCreationFailed: [{ way: 'amount', value: '10.00' }],
      queryFailed: [{ way: 'numberSuffix', number: 'merchantOrderNo', value: '7' }],
      refundSystemBusy: [{ way: 'numberPrefix', number: 'merchantOrderNo', value: 'K' }],
    }),
  );
  const avoid = (c: number) => magic.amount(c);
  const hits = (c: number) => valueOfCents(c).endsWith('.91') || c === 1000;

  it('a drawn refund or payment amount never hits a magic ending or amount', () => {
    const draws: number[] = [];
    for (const total of [1000, 2391, 9999]) {
      draws.push(...fc.sample(partialRefundCents(total, avoid), { numRuns: 300, seed: total }));
      draws.push(...fc.sample(refundSplitOfCents(total, 4, avoid), { numRuns: 100, seed: total }).flat());
      draws.push(...fc.sample(refundCentsAboveOriginal(total, avoid), { numRuns: 100, seed: total }));
      for (const d of fc.sample(cumulativeRefundsExceedingCents(total, 3, avoid), { numRuns: 100, seed: total }))
        draws.push(...d.accepted, d.excess);
    }
    draws.push(
      ...fc.sample(amountValueWithAtMostTwoDecimals({ min: 891, max: 1091 }, avoid), { numRuns: 300, seed: 1 }).map((v) => v.cents),
    );
    draws.push(...fc.sample(amountValueInsideChannels([{ min: 1, max: 200 }], avoid), { numRuns: 300, seed: 2 }).map((v) => v.cents));
    expect(draws.length).toBeGreaterThan(2000);
    expect(draws.filter(hits)).toEqual([]);
    // Without avoidance the same draws do hit them: the filter is what keeps them out.
    const plain = fc.sample(partialRefundCents(2391), { numRuns: 2000, seed: 5 });
    expect(plain.some(hits)).toBe(true);
  });

  it('a default amount moves off a magic one, and merchant numbers avoid a magic prefix and suffix', () => {
    const p = triggers({
      orderCreationFailed: [{ way: 'amount', value: '10.00' }],
      queryFailed: [{ way: 'numberSuffix', number: 'merchantOrderNo', value: '7' }],
      refundSystemBusy: [{ way: 'numberPrefix', number: 'merchantOrderNo', value: 'K' }],
    });
    const { target } = openSession({ loaded: load(p), baseUrl: 'http://127.0.0.1:9' });
    expect(defaultAmount(target, 'PAYPAL')).not.toBe('10.00');
    expect(avoidMagic(target)(1000)).toBe(true);
    const numbers = Array.from({ length: 40 }, (_, i) => target.newNo(i % 2 ? 'order' : 'refund'));
    expect(numbers.filter((n) => n.startsWith('K') || n.endsWith('7'))).toEqual([]);
    expect(new Set(numbers).size).toBe(numbers.length);
  });

  it("takes another run prefix when the kit's first lead is magic and a suffix ends every first counter", () => {
    // A suffix of "1" makes every lead's first number magic; the run prefix must still avoid the prefix "K".
    const p = triggers({
      queryFailed: [
        { way: 'numberPrefix', number: 'merchantOrderNo', value: 'K' },
        { way: 'numberSuffix', number: 'merchantOrderNo', value: '1' },
      ],
    });
    const { target } = openSession({ loaded: load(p), baseUrl: 'http://127.0.0.1:9' });
    const numbers = Array.from({ length: 30 }, () => target.newNo('order'));
    expect(numbers.filter((n) => n.startsWith('K') || n.endsWith('1'))).toEqual([]);
  });
});
