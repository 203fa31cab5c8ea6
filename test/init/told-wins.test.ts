/**
 * A value the vendor told beside init's own (harness/init/told-judge.ts): written as told wherever the target's answers
 * are consistent with it (an acknowledgement limit inside the bracket the probes found, a clock ratio within the
 * measure's allowance, a list the probes saw a part of), else kept as the target answered under a TODO naming the answer
 * that contradicts it; a hinted method is paid with the fields the hints say it requires; no told fact is printed as a TODO.
 */
import { describe, expect, it } from 'vitest';
import { classifyMethods, type CheckoutShape } from '../../harness/init/checkout.js';
import type { State } from '../../harness/init/draft.js';
import { Evidence } from '../../harness/init/evidence.js';
import type { Answer, Prober } from '../../harness/init/prober.js';
import { seedToldExtras } from '../../harness/init/run.js';
import { answersTodo, applyTold, parseHint, Vendor } from '../../harness/init/told.js';
import { toldJudge } from '../../harness/init/told-judge.js';

type Obj = Record<string, unknown>;

function webhooksDraft(ackTimeoutMs: number, timeScale: number): Obj {
  return { webhooks: { receiver: { host: '127.0.0.1', port: 0 }, timeScale, ackTimeoutMs, deliveryWaitMs: 3000, tolerance: 0.25 } };
}

/** init's state after a webhook measure: a reply after 800 ms taken, one after 1,600 ms not; the scale measured 0.011. */
const measured: State = {
  paths: {},
  limits: {},
  tiers: {},
  webhooks: { arrives: true, timeScale: 0.011, ackTimeoutMs: 800, ackBracket: { waitedMs: 800, notWaitedMs: 1600 } },
};

function apply(draft: Obj, hints: string[], st: State) {
  const ev = new Evidence(() => {});
  const vendor = new Vendor(hints.map((h) => parseHint(h)));
  applyTold(draft, vendor, ev, toldJudge(st, vendor));
  return ev;
}

describe('a told value the answers are consistent with', () => {
  it("is written as told: an acknowledgement limit of 1000 ms where init's probes put it between 800 and 1,600", () => {
    const draft = webhooksDraft(800, 0.011);
    const ev = apply(draft, ['webhooks.ackTimeoutMs=1000', 'webhooks.timeScale=0.01'], measured);
    expect(draft['webhooks']).toMatchObject({ ackTimeoutMs: 1000, timeScale: 0.01 });
    expect(ev.todos).toEqual([]);
    // Counted as learnt, with the bracket that allows it, in place of init's own figure.
    expect(ev.values.filter((v) => v.path === 'webhooks.ackTimeoutMs')).toEqual([
      expect.objectContaining({ value: 1000, evidence: expect.stringMatching(/between 800 ms .* and 1600 ms/) }),
    ]);
  });

  it('is a TODO naming the answer where the answers contradict it', () => {
    const draft = webhooksDraft(800, 0.011);
    const ev = apply(draft, ['webhooks.ackTimeoutMs=2000', 'webhooks.timeScale=0.005'], measured);
    expect(draft['webhooks']).toMatchObject({ ackTimeoutMs: 800, timeScale: 0.011 });
    const what = (p: string) => ev.todos.find((t) => t.path === p)?.what;
    expect(what('webhooks.ackTimeoutMs')).toMatch(/a reply after 1600 ms was not taken/);
    expect(what('webhooks.timeScale')).toMatch(/retry waits init measured give 0\.011/);
  });

  it('is a hinted list kept whole where the probes found a part of it: 102 tiers over the 40 walked', () => {
    const tiers = Array.from({ length: 102 }, (_, i) => BigInt(99 + 100 * i));
    const text = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
    const walked = tiers.slice(0, 40);
    // The walk's samples: each tier charged as asked, a cent above it rounded up to the next.
    const samples: [bigint, bigint | undefined][] = walked.flatMap((t, i) => [
      [t, t],
      [t + 1n, tiers[i + 1]!],
    ]);
    const st: State = { paths: {}, limits: {}, tiers: { APPLE_PAY: { tiers: walked, rounding: 'up', unroundable: [], samples } } };
    const draft: Obj = { pricePoints: { tiers: walked.map(text), rounding: 'up', unroundable: [] } };
    const ev = apply(draft, [`pricePoints.tiers=${JSON.stringify(tiers.map(text))}`], st);
    expect((draft['pricePoints'] as { tiers: string[] }).tiers).toHaveLength(102);
    expect(ev.todos).toEqual([]);
    // A list the walk's charges contradict (a tier missing) is not written, and the TODO names the charge.
    const short = tiers.filter((t) => t !== tiers[5]).map(text);
    const draft2: Obj = { pricePoints: { tiers: walked.map(text), rounding: 'up', unroundable: [] } };
    const ev2 = apply(draft2, [`pricePoints.tiers=${JSON.stringify(short)}`], st);
    expect((draft2['pricePoints'] as { tiers: string[] }).tiers).toHaveLength(40);
    expect(ev2.todos[0]?.what).toMatch(/APPLE_PAY 5\.00 was charged 5\.99/);
  });

  it("is a shared price list and rule where every method walked has its own in the vendor's facts", () => {
    const own = [100n, 500n, 1000n];
    const samples: [bigint, bigint | undefined][] = [
      [100n, 100n],
      [101n, 500n],
      [1001n, undefined],
    ];
    const st: State = { paths: {}, limits: {}, tiers: { GOOGLE_PAY: { tiers: own, rounding: 'up', unroundable: [1001n], samples } } };
    const draft: Obj = { pricePoints: { tiers: ['1.00', '5.00', '10.00'], rounding: 'up', unroundable: ['10.01'] } };
    const hints = [
      'pricePoints.tiers=["0.99","2.99"]',
      'pricePoints.rounding=down',
      'pricePoints.tiersByMethod.GOOGLE_PAY=["1.00","5.00","10.00"]',
      'pricePoints.ruleByMethod.GOOGLE_PAY={"rounding":"up"}',
    ];
    const ev = apply(draft, hints, st);
    expect(draft['pricePoints']).toMatchObject({ tiers: ['0.99', '2.99'], rounding: 'down' });
    expect(ev.todos).toEqual([]);
    // Without the method's own list and rule, the shared ones speak for its walk, and its charges contradict them.
    const draft2: Obj = { pricePoints: { tiers: ['1.00', '5.00', '10.00'], rounding: 'up', unroundable: ['10.01'] } };
    const ev2 = apply(draft2, hints.slice(0, 2), st);
    expect(draft2['pricePoints']).toMatchObject({ tiers: ['1.00', '5.00', '10.00'], rounding: 'up' });
    expect(ev2.todos.map((t) => t.path).sort()).toEqual(['pricePoints.rounding', 'pricePoints.tiers']);
  });

  it("is a method's own list judged with the rule told beside it, not the one its walk inferred", () => {
    // Charged as tiers 1.00, 30.00, 100.00 to the nearest within 0.31 (ties up) say; the walk read "up" without a distance.
    const samples: [bigint, bigint | undefined][] = [
      [100n, 100n],
      [131n, 100n],
      [132n, undefined],
      [2969n, 3000n],
      [3000n, 3000n],
    ];
    const st: State = { paths: {}, limits: {}, tiers: { GOOGLE_PAY: { tiers: [100n, 3000n], rounding: 'up', unroundable: [], samples } } };
    const list = 'pricePoints.tiersByMethod.GOOGLE_PAY=["1.00","30.00","100.00"]';
    const rule = 'pricePoints.ruleByMethod.GOOGLE_PAY={"rounding":"nearest","maxDistance":"0.31","tie":"up"}';
    const draft: Obj = { pricePoints: { tiers: ['1.00', '30.00'], rounding: 'up', unroundable: [] } };
    const ev = apply(draft, [list, rule], st);
    expect((draft['pricePoints'] as { tiersByMethod: Obj }).tiersByMethod['GOOGLE_PAY']).toEqual(['1.00', '30.00', '100.00']);
    expect(ev.todos).toEqual([]);
    const ev2 = apply({ pricePoints: { tiers: ['1.00', '30.00'], rounding: 'up', unroundable: [] } }, [list], st);
    expect(ev2.todos.map((t) => t.path)).toEqual(['pricePoints.tiersByMethod.GOOGLE_PAY']);
  });

  it("is a method list longer than the probes' (in the draft's order), unless it names a method the target refused", () => {
    const st: State = {
      paths: {},
      limits: {},
      tiers: {},
      methods: [
        { method: 'CARD', cls: 'accepted', pricePoint: false, evidence: '10.37 → code 0' },
        { method: 'BLIK', cls: 'notEnabled', pricePoint: false, evidence: '10.37 → code 3003 paymentMethodUnavailable' },
      ],
    };
    const draft: Obj = { methods: { checkout: ['CARD'], unknown: 'ZZ' } };
    apply(draft, ['methods.checkout=["ACH_DEBIT","CARD"]'], st);
    expect((draft['methods'] as Obj)['checkout']).toEqual(['CARD', 'ACH_DEBIT']);
    const draft2: Obj = { methods: { checkout: ['CARD'], unknown: 'ZZ' } };
    const ev = apply(draft2, ['methods.checkout=["BLIK","CARD"]'], st);
    expect((draft2['methods'] as Obj)['checkout']).toEqual(['CARD']);
    expect(ev.todos[0]?.what).toMatch(/a checkout of BLIK was answered .*paymentMethodUnavailable/);
  });
});

describe('a told test card', () => {
  const probeCard = { card_number: '4242424242424243', cardholder_name: 'Init Probe', exp_month: 12, exp_year: 2031, cvc: '123' };
  const st: State = { paths: {}, limits: {}, tiers: {} };

  it("is written with the vendor's holder, expiry and invalid number where init made up its own", () => {
    const draft: Obj = { cardPayment: { cards: { invalid: { ...probeCard } } } };
    const told = { card_number: '4242424242424241', cardholder_name: 'Ada Lovelace', exp_month: 12, exp_year: 2099, cvc: '123' };
    const ev = apply(draft, [`cardPayment.cards.invalid=${JSON.stringify(told)}`], st);
    expect((draft['cardPayment'] as { cards: Obj }).cards['invalid']).toEqual(told);
    expect(ev.todos).toEqual([]);
  });

  it("keeps init's invalid number under a TODO where the told one passes the Luhn check", () => {
    const draft: Obj = { cardPayment: { cards: { invalid: { ...probeCard } } } };
    const ev = apply(draft, ['cardPayment.cards.invalid.card_number="4242424242424242"'], st);
    expect((draft['cardPayment'] as { cards: { invalid: Obj } }).cards.invalid['card_number']).toBe('4242424242424243');
    expect(ev.todos.map((t) => t.path)).toEqual(['cardPayment.cards.invalid.card_number']);
  });
});

describe('a told fact', () => {
  it('is never printed as a TODO: a TODO its field was told is held, and printed only if the told value does not settle it', () => {
    const lines: string[] = [];
    const ev = new Evidence((l) => lines.push(l));
    const vendor = new Vendor([parseHint('merchants.second={"id":"M2","secretEnv":"S2"}'), parseHint('endpoints.refundQuery=/nope')]);
    ev.holdWhere((path) => answersTodo(vendor, path));
    ev.todo('merchants.second', 'another merchant');
    ev.todo('endpoints.refundQuery', 'the path');
    ev.todo('sandbox', 'the controls');
    expect(lines.filter((l) => l.includes('TODO'))).toEqual(['  TODO sandbox: the controls']);
    vendor.refute('endpoints.refundQuery');
    applyTold({ endpoints: {} }, vendor, ev);
    expect(lines.filter((l) => l.includes('TODO'))).toEqual(['  TODO sandbox: the controls', '  TODO endpoints.refundQuery: the path']);
    expect(lines.join('\n')).not.toMatch(/TODO merchants\.second/);
  });
});

describe('a hinted method', () => {
  it('is paid with the fields the hints say it requires, not dropped as not enabled', async () => {
    // SEPA_DEBIT without billing_address is refused as not enabled (a legal answer: required fields are "not shown").
    const p = {
      newNo: (() => {
        let n = 0;
        return () => `init-t-o${++n}`;
      })(),
      phase: () => {},
      post: async (_path: string, body: Obj): Promise<Answer> => {
        if (body.payment_method === 'SEPA_DEBIT' && !body.billing_address)
          return { envelope: true, http: 200, code: 3003, key: 'paymentMethodUnavailable', message: 'not available' };
        if (body.payment_method === 'SEPA_DEBIT' || body.payment_method === 'CARD')
          return { envelope: true, http: 200, code: 0, data: { order_no: 'O1', trans_amount: body.trans_amount } };
        return { envelope: true, http: 200, code: 3003, key: 'unsupportedPaymentMethod', message: 'unknown' };
      },
    } as unknown as Prober;
    const shape: CheckoutShape = { path: '/api/v1/payments/checkout', extras: {}, byMethod: {}, notifyUrl: 'http://127.0.0.1:1/hook' };
    const vendor = new Vendor([parseHint('checkout.extrasByMethod.SEPA_DEBIT={"billing_address":{"country":"DE"}}')]);
    seedToldExtras(shape, vendor);
    const found = await classifyMethods(p, new Evidence(() => {}), shape, [], ['SEPA_DEBIT', 'CARD']);
    expect(found.find((f) => f.method === 'SEPA_DEBIT')?.cls).toBe('accepted');
  });
});
