/**
 * What init once got wrong on a target written apart from the kit, each on the smallest target that shows it: another money field in a
 * payment record (refunded_amount 0.00) taken for the charge; usdOnly "learnt" from a duplicate answer;
 * a payout amount field assumed (trans_amount) and the limits read through balance refusals; a draft that
 * did not validate leaving nothing written; printed commands that fail when pasted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chargedOtherThan } from '../../harness/init/checkout.js';
import { Evidence } from '../../harness/init/evidence.js';
import { variable } from '../../harness/init/fields.js';
import { learnPayouts } from '../../harness/init/payouts.js';
import type { Answer, Prober } from '../../harness/init/prober.js';
import { validParts } from '../../harness/cli/init.js';
import { kitBin, kitCommand } from '../../harness/kit/invocation.js';
import { parseProfile } from '../../harness/profile/load.js';
import type { Profile } from '../../harness/profile/types.js';
import { ROOT } from '../cli/helpers.js';

const usd = (value: string) => ({ currency: 'USD', value });

describe('the amount charged, read from an answer', () => {
  it('is not another money field: a refunded_amount of 0.00 beside a trans_amount as asked proves no price point', () => {
    expect(chargedOtherThan({ order_no: 'O1', trans_amount: usd('10.37'), refunded_amount: usd('0.00') }, 1037n)).toBeUndefined();
  });

  it('is trans_amount where the answer has one, even with other amounts beside it', () => {
    expect(chargedOtherThan({ trans_amount: usd('11.00'), requested_amount: usd('10.37'), refunded_amount: usd('0.00') }, 1037n)).toBe(
      1100n,
    );
  });

  it('without trans_amount, is the one positive amount that differs and is not named like another money field, else unknown', () => {
    expect(chargedOtherThan({ amount: usd('11.00'), refunded_amount: usd('0.00'), fee: usd('0.30') }, 1037n)).toBe(1100n);
    // Two candidates: the charged one cannot be told apart.
    expect(chargedOtherThan({ amount: usd('11.00'), paid: usd('12.00') }, 1037n)).toBeUndefined();
    // A zero is never a charge.
    expect(chargedOtherThan({ amount: usd('0.00') }, 1037n)).toBeUndefined();
  });
});

/**
 * A payout endpoint as such a target had it: the amount in payout_amount (trans_amount not read),
 * duplicates refused before the currency is looked at, the balance (500.00) checked before the range
 * (1.00–10,000.00), PAYPAL USD-only.
 */
function payoutTarget(): { p: Prober; sent: Record<string, unknown>[] } {
  const used = new Set<string>();
  const sent: Record<string, unknown>[] = [];
  let n = 0;
  let payouts = 0;
  const answer = (body: Record<string, unknown>): Answer => {
    const method = String(body.payment_method);
    if (!['BANK_TRANSFER', 'PAYPAL', 'CASH_APP'].includes(method))
      return { envelope: true, http: 200, code: 5007, key: 'unsupportedPaymentMethod', message: 'Unknown payment method' };
    if (method === 'CASH_APP')
      return { envelope: true, http: 200, code: 5007, key: 'unsupportedPayoutMethod', message: 'Not available for payouts' };
    const amount = body.payout_amount as { currency: string; value: string } | undefined;
    if (amount === undefined)
      return { envelope: true, http: 200, code: 400, key: 'invalidRequest', message: 'Field PayoutAmount is required' };
    const no = String(body.merchant_payout_no);
    if (used.has(no)) return { envelope: true, http: 200, code: 422, key: 'duplicatePayoutOrder', message: 'Payout number already exists' };
    used.add(no);
    const cents = Math.round(Number(amount.value) * 100);
    if (cents > 50_000) return { envelope: true, http: 200, code: 5004, key: 'insufficientFunds', message: 'Insufficient balance' };
    if (cents < 100 || cents > 1_000_000 || (method === 'PAYPAL' && amount.currency !== 'USD'))
      return { envelope: true, http: 200, code: 5008, key: 'amountOutOfRange', message: 'Amount not accepted' };
    payouts += 1;
    return { envelope: true, http: 200, code: 0, data: { payout_no: `PO${payouts}`, merchant_payout_no: no, status: 'PENDING' } };
  };
  const p = {
    newNo: (kind: string) => `init-t-${kind}${++n}`,
    phase: () => {},
    post: async (_path: string, body: unknown) => {
      sent.push(structuredClone(body) as Record<string, unknown>);
      return answer(body as Record<string, unknown>);
    },
  } as unknown as Prober;
  return { p, sent };
}

describe('payouts against a target written apart from the kit', () => {
  it(`discovers the amount field, assumes no literal amount, reads usdOnly \
only from a currency refusal, and writes no limit the balance hid`, async () => {
    const { p, sent } = payoutTarget();
    const ev = new Evidence(() => {});
    const r = await learnPayouts(p, ev, { create: '/api/v1/payouts/create' }, 'http://127.0.0.1:1/hook');
    expect(r).toBeDefined();
    expect(r!.template.payout_amount).toBe(variable('amount'));
    expect(r!.template).not.toHaveProperty('trans_amount');
    // Every probe after the discovery carries its amount in the field the target reads.
    expect(
      sent.filter((b) => b.payment_method === 'PAYPAL').every((b) => b.payout_amount !== undefined && b.trans_amount === undefined),
    ).toBe(true);
    expect(r!.methods.PAYPAL?.usdOnly).toBe(true);
    expect(r!.methods.BANK_TRANSFER?.usdOnly).toBe(false);
    // The balance is checked before the range here: no limit is read through insufficientFunds.
    expect(r!.limits).toEqual({});
    expect(ev.todos.map((t) => t.path)).toEqual(expect.arrayContaining(['limits.payouts.BANK_TRANSFER', 'limits.payouts.PAYPAL']));
    const usd = ev.values.find((v) => v.path === 'payouts.methods.PAYPAL.usdOnly');
    expect(usd?.evidence).toMatch(/EUR.*code 5008 amountOutOfRange/);
  });

  it('leaves the payout body a TODO, with the answer, when the target names no amount field and reads none', async () => {
    const ev = new Evidence(() => {});
    const p = {
      newNo: () => 'init-t-p1',
      phase: () => {},
      post: async (): Promise<Answer> => ({ envelope: true, http: 200, code: 400, key: 'invalidRequest', message: 'Bad request' }),
    } as unknown as Prober;
    expect(await learnPayouts(p, ev, { create: '/x' }, 'http://127.0.0.1:1/hook')).toBeUndefined();
    expect(ev.todos.find((t) => t.path === 'payouts.template')?.what).toMatch(/code 400 invalidRequest/);
  });
});

describe('a draft part that does not validate', () => {
  it('is left out as a TODO quoting the problem, and the rest is written valid', () => {
    const truth = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Profile;
    const draft = structuredClone(truth);
    // The draft: an amount the declared rule rounds, listed as unroundable.
    draft.pricePoints!.unroundable = [draft.pricePoints!.tiers[0]!];
    const env = {};
    expect(() => parseProfile(JSON.stringify(draft), 'd', env)).toThrow(/pricePoints\.unroundable/);
    const { profile, dropped, invalid } = validParts(draft, 'd', env);
    expect(invalid).toEqual([]);
    expect(() => parseProfile(JSON.stringify(profile), 'd', env)).not.toThrow();
    expect(dropped[0]?.path).toBe('pricePoints');
    expect(dropped[0]?.what).toMatch(/pricePoints\.unroundable\[0\].*rounded/);
    expect(profile.endpoints).toEqual(truth.endpoints);
    expect(profile.limits).toEqual(truth.limits);
  });
});

describe("a draft part the vendor's facts went into", () => {
  it('is left out as a TODO naming the facts and the problem, not as a bug of init', () => {
    const truth = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Profile;
    const draft = structuredClone(truth);
    draft.pricePoints!.unroundable = [draft.pricePoints!.tiers[0]!];
    const told = [{ path: 'pricePoints.tiers', source: 'vendor.yaml#/paths/~1checkout' }];
    const { dropped } = validParts(draft, 'd', {}, told);
    expect(dropped[0]).toMatchObject({ path: 'pricePoints', told: true });
    expect(dropped[0]?.what).toMatch(
      /the vendor's facts for this part \(vendor\.yaml#\/paths\/~1checkout\) and init's probes do not make a valid part/,
    );
    expect(dropped[0]?.what).not.toMatch(/bug/);
  });
});

describe('printed commands', () => {
  it('are `npx mpsi-conformance …` when the kit is installed, `node <absolute bin> …` in a clone', () => {
    expect(kitCommand(['doctor', '--profile', '/tmp/a b.json'], true)).toBe("npx mpsi-conformance doctor --profile '/tmp/a b.json'");
    expect(kitCommand(['run', '--profile', 'p.json'], false)).toBe(`node ${kitBin()} run --profile p.json`);
    expect(kitBin()).toBe(join(ROOT, 'bin', 'mpsi-conformance.js'));
  });
});
