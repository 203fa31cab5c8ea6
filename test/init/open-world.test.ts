/**
 * init over the open world's targets: payout methods the vendor names only by a fee or a merchant's own facts, a wallet
 * the target renamed at checkout tried as a payout method, the parameters the vendor says a query needs sent with init's
 * own lookups, the TODOs that say no answer lists a target's methods, a part left out quoting what the vendor told of it,
 * a method checked against the tiers the vendor gives it, the lookup names the vendor gives, and the vendor's shared
 * price-point rule beside a method's own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validParts } from '../../harness/cli/init.js';
import { lookUp } from '../../harness/init/card-refund.js';
import type { MethodFinding } from '../../harness/init/checkout.js';
import { draft, type State } from '../../harness/init/draft.js';
import { Evidence } from '../../harness/init/evidence.js';
import { Prober } from '../../harness/init/prober.js';
import { afterTold, methodsTodos, sendToldQueryParams, toldPricePointMethods, withPlacedMethods } from '../../harness/init/run.js';
import { addStandingTodos } from '../../harness/init/todos.js';
import { toldJudge } from '../../harness/init/told-judge.js';
import { parseHint, Vendor } from '../../harness/init/told.js';
import type { Profile } from '../../harness/profile/types.js';

/** A profile template's variable as written, "${name}". */
const v = (name: string) => `\${${name}}`;

describe('the payout method names the vendor’s facts mention', () => {
  it('include those named by a payout fee and by a merchant’s own facts, never the fee for every method ("*")', () => {
    const vendor = new Vendor([
      parseHint('fees.payouts.WIRE={"fixed":"0.07"}'),
      parseHint('fees.payouts={"*":{"fixed":"1.00"}}'),
      parseHint('fees.payments.KLARNA={"fixed":"0.30"}'),
      parseHint('merchants.second.facts.limits.payouts.TWINT.max=1000.09'),
      parseHint('merchants.lowBalance.payoutMethods=["SEPA_CREDIT"]'),
    ]);
    expect(vendor.payoutMethodNames()).toEqual(['WIRE', 'TWINT', 'SEPA_CREDIT']);
  });
});

describe('the payout candidates', () => {
  it('add each method the checkout placed as the target’s (TWINT for a renamed wallet), not one it did not know', () => {
    const found = (method: string, cls: MethodFinding['cls']): MethodFinding => ({ method, cls, pricePoint: false, evidence: '' });
    const placed = [found('TWINT', 'accepted'), found('BLIK', 'notEnabled'), found('VENMO', 'noChannel'), found('ZZ', 'unknown')];
    expect(withPlacedMethods(['BANK_TRANSFER', 'PAYPAL'], placed)).toEqual(['BANK_TRANSFER', 'PAYPAL', 'TWINT', 'BLIK', 'VENMO']);
  });
});

describe('a query the vendor says needs a parameter beside its lookup number', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = undefined;
  });

  it("carries it in init's requests to that query's path (its number filled in), and no other path's", async () => {
    const seen: { path: string; body: Record<string, unknown> }[] = [];
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 0, msg: 'ok', data: {} }));
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const p = new Prober({
      baseUrl: url,
      merchantId: 'M1',
      secret: 'k',
      budget: 50,
      timeLimitMs: 30_000,
      deadlineMs: 5000,
      progress: () => {},
    });
    try {
      const vendor = new Vendor([
        parseHint(`queryParams.payout={"store_id":"${v('merchantId')}"}`),
        parseHint('queryParams.payment={"app_id":"S-14"}'),
      ]);
      const paths = { payoutCreate: '/api/v1/payouts/submit', payoutQuery: '/api/v1/payouts/{merchant_payout_no}', paymentQuery: '/q' };
      sendToldQueryParams(p, vendor, paths, 'M1');
      await p.post('/api/v1/payouts/ip1', {});
      await p.post('/api/v1/payouts/ip2', { store_id: 'mine' });
      await p.post('/api/v1/payouts/submit', { merchant_payout_no: 'ip3' });
      await p.post('/q', { merchant_order_no: 'io4' });
    } finally {
      await p.close();
    }
    expect(seen.map((s) => s.body)).toEqual([
      { store_id: 'M1' },
      { store_id: 'mine' },
      { merchant_payout_no: 'ip3' },
      { merchant_order_no: 'io4', app_id: 'S-14' },
    ]);
  });
});

describe('the methods no answer lists', () => {
  it('are one TODO for checkout methods of other names, closing with every name tried', () => {
    const ev = new Evidence(() => {});
    const f = (method: string, cls: MethodFinding['cls']): MethodFinding => ({ method, cls, pricePoint: false, evidence: 'e' });
    methodsTodos(ev, [f('CARD', 'accepted'), f('PAYPAL', 'notEnabled'), f('INIT_NO_SUCH_METHOD_ZZ', 'unknown')]);
    const t = ev.todos.find((x) => x.path === 'methods.checkout (other names)');
    expect(t?.what).toMatch(/\(names tried: CARD, PAYPAL\)$/);
  });

  it('are, for payouts, a TODO for the methods and one for their ranges where a payouts part is drafted', () => {
    const ev = new Evidence(() => {});
    const profile = {
      merchants: { primary: { id: 'M1' } },
      methods: { checkout: ['CARD'] },
      endpoints: {},
      payouts: { methods: { WIRE: { cancel: false } } },
    } as unknown as Profile;
    addStandingTodos(ev, profile);
    const paths = ev.todos.map((t) => t.path);
    expect(paths).toEqual(expect.arrayContaining(['payouts.methods', 'limits.payouts']));
    expect(ev.todos.find((t) => t.path === 'payouts.methods')?.what).toMatch(/besides WIRE/);
  });
});

describe("a part left out with the vendor's facts in it", () => {
  it('quotes each value the vendor told of it in its TODO', () => {
    const draft = {
      profileVersion: 5,
      name: 'd',
      baseUrl: 'http://127.0.0.1:1',
      environment: 'sandbox',
      merchants: { primary: { id: 'M1', secretEnv: 'S' }, unknownId: 'ZZ' },
      endpoints: { checkout: '/api/v1/payments/checkout' },
      methods: { checkout: ['CARD'], unknown: 'ZZ' },
      payouts: { balances: { primary: '100000.00' } },
    } as unknown as Profile;
    const told = [{ path: 'payouts.balances.primary', source: 'h.json#/payouts/balances/primary', value: '100000.00' }];
    const { dropped } = validParts(draft, 'd', { S: 'k' }, told);
    expect(dropped[0]?.path).toBe('payouts');
    expect(dropped[0]?.what).toMatch(/the vendor says payouts\.balances\.primary = "100000\.00"$/);
  });
});

describe('a checkout section without its order number’s path', () => {
  it('is left out as a TODO that quotes what init learnt of it', () => {
    const ev = new Evidence(() => {});
    const st: State = {
      paths: { checkout: '/api/v1/payments/checkout' },
      limits: {},
      tiers: {},
      shape: {
        path: '/api/v1/payments/checkout',
        extras: { notify_url: 'http://127.0.0.1:9/hook' },
        byMethod: { PAYPAL: { return_url: 'https://merchant.invalid/return' } },
        notifyUrl: 'http://127.0.0.1:9/hook',
      },
      methods: [{ method: 'CARD', cls: 'accepted', pricePoint: false, evidence: 'e' }],
      fields: { status: 'status', pendingStatus: 'PENDING' },
    };
    const profile = draft({ baseUrl: 'http://127.0.0.1:1', merchantId: 'M1', secretEnv: 'S' }, st, ev);
    expect(profile.checkout).toBeUndefined();
    const t = ev.todos.find((x) => x.path === 'checkout');
    expect(t?.what).toContain(`"extras":{"notify_url":"${v('notifyUrl')}"}`);
    expect(t?.what).toContain('"pendingStatus":"PENDING"');
    expect(t?.what).toContain('"extrasByMethod":{"PAYPAL":{"return_url":"https://merchant.invalid/return"}}');
  });
});

describe('a method refused for its amount at every probe, whose own tiers the vendor gives', () => {
  /** A checkout stub: GOOGLE_PAY charges the nearest of `tiers` within 0.12 and refuses any other amount. */
  const stub = (tiers: bigint[]) =>
    ({
      phase: () => {},
      newNo: () => 'io1',
      post: async (_path: string, body: { trans_amount: { value: string } }) => {
        const c = BigInt(Math.round(Number(body.trans_amount.value) * 100));
        const near = tiers
          .filter((t) => (t > c ? t - c : c - t) <= 12n)
          .sort((a, b) => Number((a > c ? a - c : c - a) - (b > c ? b - c : c - b)));
        if (near.length === 0) return { envelope: true, code: 422, key: 'notSupported' };
        const v = (Number(near[0]) / 100).toFixed(2);
        return { envelope: true, code: 0, data: { trans_amount: { currency: 'USD', value: v } } };
      },
    }) as unknown as Prober;
  const state = (): State => ({
    paths: {},
    limits: {},
    tiers: {},
    shape: { path: '/c', extras: {}, byMethod: {}, notifyUrl: 'http://127.0.0.1:9/h' },
    methods: [{ method: 'GOOGLE_PAY', cls: 'accepted', pricePoint: false, evidence: 'every amount refused' }],
  });
  const vendor = new Vendor([
    parseHint('pricePoints={"tiers":["1.00"],"rounding":"up","tiersByMethod":{"GOOGLE_PAY":["1.00","3.00","20.00"]}}'),
    parseHint('pricePoints.ruleByMethod={"GOOGLE_PAY":{"rounding":"nearest","maxDistance":"0.12","tie":"up"}}'),
  ]);

  it('is a price-point method with those tiers when checkouts at them are charged as told, its TODOs settled', async () => {
    const st = state();
    const ev = new Evidence(() => {});
    ev.todo('methods.pricePoint (GOOGLE_PAY)', 'whether GOOGLE_PAY rounds to price points');
    ev.todo('pricePoints (GOOGLE_PAY)', "GOOGLE_PAY's tiers");
    await toldPricePointMethods(stub([100n, 300n, 2000n]), ev, st, vendor);
    expect(st.methods![0]!.pricePoint).toBe(true);
    expect(st.tiers['GOOGLE_PAY']?.tiers).toEqual([100n, 300n, 2000n]);
    expect(ev.todos).toEqual([]);
  });

  it('stays undecided, its TODOs standing, when the target charges otherwise', async () => {
    const st = state();
    const ev = new Evidence(() => {});
    ev.todo('methods.pricePoint (GOOGLE_PAY)', 'whether GOOGLE_PAY rounds to price points');
    await toldPricePointMethods(stub([100n, 500n]), ev, st, vendor);
    expect(st.methods![0]!.pricePoint).toBe(false);
    expect(ev.todos.map((t) => t.path)).toEqual(['methods.pricePoint (GOOGLE_PAY)']);
  });
});

describe("a lookup's field name the vendor gives, beside the document's that init wrote", () => {
  it('is taken where the lookup path carries the number (no answer bears on the name), left to the answers elsewhere', () => {
    const st = (refundQuery: string): State => ({ paths: { refundQuery }, limits: {}, tiers: {} });
    const templated = toldJudge(st('/api/v1/merchant/refunds/{refund_no}'))('refunds.queryBy.serviceNo', 'refund_order_no', 'refund_no');
    expect(templated).toMatchObject({ consistent: true });
    expect(toldJudge(st('/api/v1/refunds/query'))('refunds.queryBy.serviceNo', 'refund_order_no', 'refund_no')).toBeUndefined();
  });
});

describe("a lookup's service-number field the vendor names", () => {
  /** A refund query taking refund_no and refund_order_no alike (a target that reads other spellings too). */
  const stub = {
    post: async (_path: string, body: Record<string, unknown>) =>
      body['merchant_refund_no'] === 'ir1' || body['refund_no'] === 'R1' || body['refund_order_no'] === 'R1'
        ? { envelope: true, code: 0, data: { refund_no: 'R1', merchant_refund_no: 'ir1' } }
        : { envelope: true, code: 5002, key: 'notFound' },
  } as unknown as Prober;

  it('is tried first, so a target that takes it and another spelling is written as the vendor names it', async () => {
    const candidates: [string, unknown][] = [['refund_no', 'R1']];
    const told = await lookUp(stub, '/api/v1/refunds/query', candidates, 'ir1', 'refund_no', 'merchant_refund_no', 'refund_order_no');
    expect(told?.queryBy).toEqual({ serviceNo: 'refund_order_no', merchantNo: 'merchant_refund_no' });
    const own = await lookUp(stub, '/api/v1/refunds/query', candidates, 'ir1', 'refund_no', 'merchant_refund_no');
    expect(own?.queryBy.serviceNo).toBe('refund_no');
  });
});

describe("the vendor's shared price-point rule, beside a method with its own", () => {
  it("drops the distance and tie the draft took from that method's walk, which the shared rule does not say", () => {
    const walk = (rounding: 'up' | 'nearest', extra: { maxDistance?: bigint; tie?: 'up' } = {}) => ({
      tiers: [100n, 300n],
      rounding,
      unroundable: [],
      samples: [],
      ...extra,
    });
    const st: State = {
      paths: {},
      limits: {},
      tiers: { GOOGLE_PAY: walk('nearest', { maxDistance: 14n, tie: 'up' }), APPLE_PAY: walk('up') },
    };
    const profile = {
      methods: { checkout: ['CARD'], pricePoint: ['GOOGLE_PAY', 'APPLE_PAY'] },
      pricePoints: { tiers: ['1.00', '3.00'], rounding: 'up', maxDistance: '0.14', tie: 'up', unroundable: [] },
    } as unknown as Profile;
    const vendor = new Vendor([
      parseHint('pricePoints={"tiers":["1.00","3.00"],"rounding":"up"}'),
      parseHint('pricePoints.ruleByMethod={"GOOGLE_PAY":{"rounding":"nearest","maxDistance":"0.14","tie":"up"}}'),
    ]);
    afterTold(profile, st, vendor);
    expect(profile.pricePoints).toEqual({ tiers: ['1.00', '3.00'], rounding: 'up', unroundable: [] });
    // A distance a method the shared rule speaks for showed stays.
    const kept = { ...profile, pricePoints: { ...profile.pricePoints!, maxDistance: '0.14' } } as Profile;
    afterTold(kept, { ...st, tiers: { ...st.tiers, APPLE_PAY: walk('up', { maxDistance: 14n }) } }, vendor);
    expect(kept.pricePoints?.maxDistance).toBe('0.14');
  });
});
