/**
 * The two searches on synthetic targets: channel limits with gaps (the reference has none) and every
 * rounding rule (the reference rounds up, without a maximum distance).
 */
import { describe, expect, it } from 'vitest';
import { bisectLimits, type RangeProber } from '../../harness/init/limits.js';
import { walkTiers } from '../../harness/init/price-points.js';
import type { Answer, Prober } from '../../harness/init/prober.js';
import { completeBody, defaultFiller, getPath, internalNameIn, snakeOf, variable } from '../../harness/init/fields.js';
import { learnCheckoutShape, nameFor } from '../../harness/init/checkout.js';
import type { CardResult } from '../../harness/init/card-refund.js';
import { learnOtherCards } from '../../harness/init/cards.js';
import { Evidence } from '../../harness/init/evidence.js';

function rangeTarget(channels: [bigint, bigint][], duplicatesAfterLimits = true): RangeProber & { created: number } {
  const used = new Set<string>();
  let n = 0;
  const t = {
    created: 0,
    async send(c: bigint, no: string): Promise<Answer> {
      const dup = used.has(no);
      if (dup && !duplicatesAfterLimits) return { envelope: true, code: 422, key: 'duplicateMerchantOrder' };
      if (!channels.some(([lo, hi]) => c >= lo && c <= hi)) return { envelope: true, code: 2006, key: 'amountOutOfRange' };
      if (dup) return { envelope: true, code: 422, key: 'duplicateMerchantOrder' };
      used.add(no);
      t.created += 1;
      return { envelope: true, code: 0, data: {} };
    },
    newNo: () => `n${++n}`,
    inRange: (a: Answer) => (a.code === 0 ? true : a.key === 'amountOutOfRange' ? false : undefined),
    isDuplicate: (a: Answer) => a.key === 'duplicateMerchantOrder',
  };
  return t;
}

describe('bisectLimits', () => {
  it('finds one channel to the cent, reusing one number so nothing more is created', async () => {
    const t = rangeTarget([[50n, 1_000_000n]]);
    await t.send(1000n, 'first');
    const b = await bisectLimits(t, 1000n, 'first');
    expect(b.limits).toEqual({ min: '0.50', max: '10000.00' });
    expect(b.reusedNumber).toBe(true);
    expect(t.created).toBe(1);
  });

  it('lists the channels of a method whose accepted amounts have gaps', async () => {
    const t = rangeTarget([
      [100n, 50_000n],
      [100_000n, 2_000_000n],
    ]);
    await t.send(1000n, 'first');
    const b = await bisectLimits(t, 1000n, 'first');
    expect(b.limits).toEqual({
      min: '1.00',
      max: '20000.00',
      channels: [
        { min: '1.00', max: '500.00' },
        { min: '1000.00', max: '20000.00' },
      ],
    });
  });

  it('finds a second range beyond a decade of refusals above the first (LEGAL_TARGETS_SEED=716206771)', async () => {
    // The old search went up by tens from the accepted amount and stopped at the first refusal: 50.64 was written as the max.
    const t = rangeTarget([
      [50n, 5_064n],
      [20_000n, 20_755n],
    ]);
    await t.send(1000n, 'first');
    const b = await bisectLimits(t, 1000n, 'first');
    expect(b.limits).toEqual({
      min: '0.50',
      max: '207.55',
      channels: [
        { min: '0.50', max: '50.64' },
        { min: '200.00', max: '207.55' },
      ],
    });
    expect(b.probes).toBeLessThan(400);
    expect(b.resolution).toMatch(/narrower than that/);
  });

  it('finds a range below the accepted one, and an overlap reads as one range', async () => {
    const t = rangeTarget([
      [7n, 90n],
      [5_000n, 80_000n],
      [60_000n, 150_000n],
    ]);
    await t.send(10_000n, 'first');
    const b = await bisectLimits(t, 10_000n, 'first');
    expect(b.limits).toEqual({
      min: '0.07',
      max: '1500.00',
      channels: [
        { min: '0.07', max: '0.90' },
        { min: '50.00', max: '1500.00' },
      ],
    });
  });

  it('uses fresh numbers when the target checks duplicates before limits', async () => {
    const t = rangeTarget([[100n, 250_000n]], false);
    await t.send(1000n, 'first');
    const b = await bisectLimits(t, 1000n, 'first');
    expect(b.limits).toEqual({ min: '1.00', max: '2500.00' });
    expect(b.reusedNumber).toBe(false);
  });
});

const TIERS = [99n, 199n, 499n, 999n, 1999n];

function rounding(rule: 'up' | 'down' | 'nearest', opts: { maxDistance?: bigint; tie?: 'up' | 'down' } = {}) {
  return async (c: bigint): Promise<bigint | undefined> => {
    const below = [...TIERS].reverse().find((t) => t <= c);
    const above = TIERS.find((t) => t >= c);
    let r: bigint | undefined;
    if (rule === 'up') r = above;
    else if (rule === 'down') r = below;
    else if (below === undefined) r = above;
    else if (above === undefined) r = below;
    else r = c - below < above - c ? below : c - below > above - c ? above : opts.tie === 'down' ? below : above;
    if (r === undefined) return undefined;
    if (opts.maxDistance !== undefined && (r > c ? r - c : c - r) > opts.maxDistance) return undefined;
    return r;
  };
}

describe('walkTiers', () => {
  it('rounding up: every tier, the rule, amounts above the top refused', async () => {
    const w = await walkTiers(rounding('up'), 1_000_000n);
    expect(w.tiers).toEqual(TIERS);
    expect(w.rounding).toBe('up');
    expect(w.maxDistance).toBeUndefined();
    expect(w.unroundable.length).toBeGreaterThan(0);
  });

  it('rounding up within a maximum distance: the distance to the cent', async () => {
    const w = await walkTiers(rounding('up', { maxDistance: 100n }), 1_000_000n);
    expect(w.tiers).toEqual(TIERS);
    expect(w.rounding).toBe('up');
    expect(w.maxDistance).toBe(100n);
  });

  it('rounding down: every tier and the rule', async () => {
    const w = await walkTiers(rounding('down'), 1_000_000n);
    expect(w.tiers).toEqual(TIERS);
    expect(w.rounding).toBe('down');
  });

  it('rounding to the nearest, ties up and ties down', async () => {
    for (const tie of ['up', 'down'] as const) {
      const w = await walkTiers(rounding('nearest', { tie }), 1_000_000n);
      expect(w.tiers).toEqual(TIERS);
      expect(w.rounding).toBe('nearest');
      expect(w.tie).toBe(tie);
    }
  });
});

describe('field names', () => {
  it('reads an internal name from a message and maps it back to the snake path', () => {
    expect(internalNameIn('Field TradeInfo.GoodsName is required', 'trade_info.goods_name')).toBe('TradeInfo.GoodsName');
    expect(internalNameIn('parameter "tradeInfo.goodsName" missing', 'trade_info.goods_name')).toBe('tradeInfo.goodsName');
    expect(internalNameIn('Field NotifyURL must be a string', 'notify_url')).toBe('NotifyURL');
    expect(internalNameIn('The request is invalid.', 'notify_url')).toBeUndefined();
    expect(nameFor('Field PayMethod is required', 'payment_method')).toBe('PayMethod');
    expect(nameFor('Field OrderAmount.Value must be a string', 'trans_amount.value')).toBe('OrderAmount.Value');
    expect(nameFor('Field OrderAmount is required', 'trans_amount.value')).toBeUndefined();
    expect(nameFor('Unknown field "x" in Body', 'payment_method')).toBeUndefined();
    expect(snakeOf('BillingAddress.PostalCode')).toBe('billing_address.postal_code');
    expect(snakeOf('DeviceIP')).toBe('device_ip');
    expect(snakeOf('trade_info.goods_name')).toBe('trade_info.goods_name');
  });
});

describe('walkTiers with a maximum distance and nearest rounding (the alternative reading)', () => {
  it('finds every tier, the distance and the tie, and refuses only amounts the rule cannot round', async () => {
    const tiers = [99n, 199n, 499n, 999n, 1999n, 4999n, 9999n];
    const charge = async (c: bigint): Promise<bigint | undefined> => {
      const below = [...tiers].reverse().find((t) => t <= c);
      const above = tiers.find((t) => t >= c);
      const cands = [below, above].filter((t): t is bigint => t !== undefined);
      const best = cands.sort((x, y) => Number((x > c ? x - c : c - x) - (y > c ? y - c : c - y)) || Number(y - x))[0]!;
      return (best > c ? best - c : c - best) <= 50n ? best : undefined;
    };
    const w = await walkTiers(charge, 1_000_000n);
    expect(w.tiers).toEqual(tiers);
    expect(w.rounding).toBe('nearest');
    expect(w.maxDistance).toBe(50n);
    expect(w.tie).toBe('up');
    for (const u of w.unroundable) expect(await charge(u)).toBeUndefined();
  });
});

describe('walkTiers over tiers far apart with a narrow window (LEGAL_TARGETS_SEED=1780717439)', () => {
  // Apple Pay of that genome: 2.00, 15.00, 30.00, 50.00, each charged within 0.13 of an amount, every other amount refused.
  const tiers = [200n, 1500n, 3000n, 5000n];
  const charge = async (c: bigint): Promise<bigint | undefined> => tiers.find((t) => (t > c ? t - c : c - t) <= 13n);

  it('reaches a tier the checkout probe saw charged, and says where its steps began to grow', async () => {
    const blind = await walkTiers(charge, 1_000_000n);
    expect(blind.tiers).toEqual([]);
    const w = await walkTiers(charge, 1_000_000n, 40, [[203n, 200n]]);
    expect(w.tiers[0]).toBe(200n);
    expect(w.maxDistance).toBe(13n);
    // The list found is not the whole one, and the walk says from where it could have stepped over a tier.
    expect(w.tiers).not.toEqual(tiers);
    expect(w.coarseFrom).toBeDefined();
    expect(w.coarseFrom!).toBeLessThan(1500n);
  });
});

describe('walkTiers within a probe budget (LEGAL_TARGETS_SEED=1160150158)', () => {
  // Google Pay's own tiers, each charged within 0.11: walked to 3× each tier by 12-cent steps, some 2,600 checkouts.
  const tiers = [100n, 200n, 500n, 1000n, 2000n, 5000n, 10000n];
  const charge = async (c: bigint): Promise<bigint | undefined> => tiers.find((t) => (t > c ? t - c : c - t) <= 11n);

  it('stops at its budget and says from where the tiers are unsearched', async () => {
    const w = await walkTiers(charge, 10_000_000n, 40, [], 400);
    expect(w.samples.length).toBeLessThanOrEqual(400);
    expect(w.coarseFrom).toBeDefined();
    // What it found below that point is true.
    for (const t of w.tiers) expect(tiers).toContain(t);
  });
});

describe('completeBody', () => {
  it('grows an object where the target asks again for a field it was given as text (a beneficiary), then its fields', async () => {
    // The target: "beneficiary is required" while it is absent or not an object, then each of its fields by name.
    const target = {
      async post(_path: string, body: Record<string, unknown>): Promise<Answer> {
        const b = body['beneficiary'];
        const missing =
          b === null || typeof b !== 'object'
            ? 'beneficiary'
            : ['name', 'account'].map((f) => `beneficiary.${f}`).find((f) => getPath(body, f) === undefined);
        return missing
          ? { envelope: true, code: 400, key: 'invalidRequest', message: `${missing} is required` }
          : { envelope: true, code: 0, data: {} };
      },
    } as unknown as Prober;
    const done = await completeBody(
      target,
      '/payouts',
      { merchant_payout_no: '' },
      defaultFiller('http://n', () => ({})),
      () => {},
    );
    expect(done.answer.code).toBe(0);
    expect(done.body['beneficiary']).toEqual({ name: 'Init Probe', account: 'US00INIT0000000001' });
    expect(done.added).toEqual(['beneficiary', 'beneficiary.name', 'beneficiary.account']);
  });
});

describe('learnCheckoutShape', () => {
  it("a field the checkout asks for gets the vendor's told literal (metadata every payment carries), a variable init's value", async () => {
    // The target: metadata and notify_url are required, one at a time; it does not check the metadata's value.
    const sent: Record<string, unknown>[] = [];
    const p = {
      phase: () => {},
      newNo: () => 'o1',
      post: async (_path: string, body: Record<string, unknown>): Promise<Answer> => {
        sent.push(structuredClone(body));
        const missing = ['metadata', 'notify_url'].find((f) => body[f] === undefined);
        return missing
          ? { envelope: true, http: 200, code: 400, key: 'invalidRequest', message: `Field ${missing} is required` }
          : { envelope: true, http: 200, code: 0, data: {} };
      },
    } as unknown as Prober;
    const ev = new Evidence(() => {});
    const told = { metadata: 'conformance-order', notify_url: variable('notifyUrl') };
    const shape = await learnCheckoutShape(p, ev, '/api/v1/payments/checkout', 'http://127.0.0.1:1/hook', 'CARD', told);
    expect(shape.extras).toEqual({ metadata: 'conformance-order', notify_url: 'http://127.0.0.1:1/hook' });
    expect(sent.at(-1)?.['metadata']).toBe('conformance-order');
    expect(ev.values.find((v) => v.path === 'checkout.extras')?.value).toEqual({
      metadata: 'conformance-order',
      notify_url: variable('notifyUrl'),
    });
  });
});

describe('learnOtherCards', () => {
  it("reads the pending card's status as the card payment's pending one (cardPayment.pendingStatus)", async () => {
    const card = { card_number: '4242424242424242', cardholder_name: 'Init Probe', exp_month: 12, exp_year: 2031, cvc: '123' };
    const result = {
      method: 'CARD',
      template: {},
      card,
      data: { orderNo: 'order_no', status: 'status' },
      successStatus: 'SUCCESS',
      paid: { merchantOrderNo: 'o0', cents: 1037n },
      body: (no: string, cents: bigint) => ({ merchant_order_no: no, trans_amount: { currency: 'USD', value: String(cents) } }),
    } as unknown as CardResult;
    let n = 0;
    const p = {
      phase: () => {},
      newNo: () => `o${++n}`,
      post: async (_path: string, body: Record<string, unknown>): Promise<Answer> => {
        const number = (body['card'] as { card_number: string }).card_number;
        if (number === '4000000000003220') return { envelope: true, http: 200, code: 0, data: { order_no: 'X', status: 'PENDING_3DS' } };
        if (number === '4000000000000002') return { envelope: true, http: 200, code: 422, key: 'paymentFailed', message: 'declined' };
        return { envelope: true, http: 200, code: 0, data: { order_no: 'Y', status: 'SUCCESS' } };
      },
    } as unknown as Prober;
    const ev = new Evidence(() => {});
    const found = await learnOtherCards(p, ev, '/api/v1/payments/card', result, 'SUCCESS', 'http://127.0.0.1:1/hook');
    expect(found.cards.pending?.card_number).toBe('4000000000003220');
    expect(found.pendingStatus).toBe('PENDING_3DS');
    expect(ev.values.find((v) => v.path === 'cardPayment.pendingStatus')?.value).toBe('PENDING_3DS');
  });
});
