/**
 * The doctor's version-2 paths against a small fake target (test/doctor/fake-target.ts), since the
 * reference does not serve them yet: per-merchant methods, channels with a gap, the pending card and
 * the complete-card control, armed failures. The true profile is verified; each wrong one is named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import { FAKE_CARDS, fakeProfile, startFakeTarget, type FakeTarget } from './fake-target.js';
import type { Json } from './support.js';

let fake: FakeTarget;
beforeAll(async () => {
  fake = await startFakeTarget();
});
afterAll(async () => {
  await fake.close();
});

async function doctorWith(edit: (p: Json) => void = () => {}) {
  const p = fakeProfile(fake.url);
  edit(p);
  return runDoctor({ loaded: parseProfile(JSON.stringify(p), 'fake.json', {}), baseUrl: fake.url });
}

describe('doctor: version-2 profile sections on a fake target', () => {
  it(`verifies the true profile: methods per merchant, each channel \
and the gap, the pending card, complete-card, armed failures`, async () => {
    const r = await doctorWith();
    expect(
      r.items.filter((i) => i.status === 'wrong'),
      JSON.stringify(r.items, null, 1),
    ).toEqual([]);
    expect(r.exitCode).toBe(0);
    const verified = r.items.filter((i) => i.status === 'verified').map((i) => i.path);
    for (const path of [
      'merchants.primary.paymentMethods[0]',
      'merchants.primary.paymentMethods[1]',
      'merchants.second.paymentMethods[0]',
      'limits.payments.PAYPAL.channels[0].min',
      'limits.payments.PAYPAL.channels[0].max',
      'limits.payments.PAYPAL.channels[1].min',
      'limits.payments.PAYPAL.channels[1].max',
      'limits.payments.PAYPAL.channels',
      'limits.payments.PAYPAL.max',
      'methods.notEnabled',
      'cardPayment.cards.success',
      'cardPayment.cards.decline',
      'cardPayment.cards.pending',
      'sandbox.completeCard',
      'sandbox.armFailure.failures.queryFailed',
      'sandbox.armFailure.failures.orderCreationFailed',
    ]) {
      expect(verified, path).toContain(path);
    }
  }, 20_000);

  const cases: [string, (p: Json) => void, string, RegExp][] = [
    [
      'a payment method the target does not enable for the second merchant',
      (p) => (p.merchants.second.paymentMethods = ['PAYPAL', 'CARD']),
      'merchants.second.paymentMethods[1]',
      /code 3003 paymentMethodUnavailable/,
    ],
    [
      "a channel maximum above the target's",
      (p) => (p.limits.payments.PAYPAL.channels[0].max = '200.00'),
      'limits.payments.PAYPAL.channels[0].max',
      /code 2006 amountOutOfRange/,
    ],
    [
      'a pending card that is charged at once',
      (p) => (p.cardPayment.cards.pending.card_number = FAKE_CARDS.success),
      'cardPayment.cards.pending',
      /: charged$/,
    ],
    [
      'an armed failure the target does not arm',
      (p) => (p.sandbox.armFailure.failures.queryFailed = 'QUERY_FAIL'),
      'sandbox.armFailure.failures.queryFailed',
      /the armed failure did not happen/,
    ],
    [
      'a wrong complete-card path',
      (p) => (p.sandbox.completeCard.path = '/sandbox/v1/card/complete'),
      'sandbox.completeCard.path',
      /the target has no such path/,
    ],
  ];
  for (const [what, edit, path, says] of cases) {
    it(`${what}: wrong, naming ${path}`, async () => {
      const r = await doctorWith(edit);
      expect(r.exitCode).toBe(2);
      const item = r.items.find((i) => i.status === 'wrong' && i.path === path);
      expect(
        item,
        JSON.stringify(
          r.items.filter((i) => i.status !== 'verified'),
          null,
          1,
        ),
      ).toBeDefined();
      expect(item!.answered).toMatch(says);
    }, 20_000);
  }
});
