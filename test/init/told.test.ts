/**
 * What the vendor tells init (harness/init/told.ts): --hint values read as JSON or text, a hints file's leaves with
 * their pointers, a later source overriding an earlier one, and the draft taking only what no probe learnt or refuted.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../harness/cli/args.js';
import { Evidence } from '../../harness/init/evidence.js';
import { applyTold, parseHint, readHintsFile, Vendor } from '../../harness/init/told.js';
import { confirmTold, toldWalk } from '../../harness/init/told-tiers.js';

describe('--hint and --hints', () => {
  it('reads a value as JSON where it reads as JSON, else as text', () => {
    expect(parseHint('endpoints.cardPayment=/v2/charges/card-present').value).toBe('/v2/charges/card-present');
    expect(parseHint('methods.checkout=["CARD","SEPA_DEBIT"]').value).toEqual(['CARD', 'SEPA_DEBIT']);
    expect(parseHint('http.rateLimit=20').value).toBe(20);
    expect(parseHint('merchants.second={"id":"M2","secretEnv":"S2"}').value).toEqual({ id: 'M2', secretEnv: 'S2' });
  });

  it('refuses a hint without a value, a path outside the profile, and broken JSON', () => {
    expect(() => parseHint('endpoints.cardPayment')).toThrow(UsageError);
    expect(() => parseHint('nosuchfield.x=1')).toThrow(/not a profile field/);
    expect(() => parseHint('methods.checkout=["CARD"')).toThrow(/does not parse/);
  });

  it("names each leaf of a hints file by its JSON pointer, and a --hint wins over the file's leaf", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-told-'));
    const file = join(dir, 'hints.json');
    writeFileSync(file, JSON.stringify({ endpoints: { cardPayment: '/a', payoutCancel: '/payouts/{payout_no}/cancel' } }));
    const vendor = new Vendor([...readHintsFile(file), parseHint('endpoints.cardPayment=/b')]);
    expect(vendor.at('endpoints.cardPayment')).toBe('/b');
    expect(vendor.sourceOf('endpoints.payoutCancel')).toBe(`${file}#/endpoints/payoutCancel`);
    expect(() => readHintsFile(join(dir, 'absent.json'))).toThrow(/cannot be read/);
  });

  it('lists the method names told, for init to try first', () => {
    const vendor = new Vendor([
      parseHint('methods.checkout=["SEPA_DEBIT","CARD"]'),
      parseHint('limits.payments.BLIK={"min":"1.00","max":"9.00"}'),
      parseHint('payouts.methods.SWIFT_WIRE={"cancel":true}'),
    ]);
    expect(vendor.methodNames()).toEqual(['SEPA_DEBIT', 'CARD', 'BLIK']);
    expect(vendor.payoutMethodNames()).toEqual(['SWIFT_WIRE']);
  });
});

describe("a hint typed by the profile's schema", () => {
  it('keeps a string field as the text written, a number field as the number', () => {
    expect(parseHint('refunds.fee=0.30').value).toBe('0.30');
    expect(parseHint('pricePoints.maxDistance=1.00').value).toBe('1.00');
    expect(parseHint('pricePoints.tiers=[0.99, 1.00]').value).toEqual(['0.99', '1.00']);
    expect(parseHint('refunds={"fee":0.30,"failingReason":"FAIL"}').value).toEqual({ fee: '0.30', failingReason: 'FAIL' });
    expect(parseHint('webhooks.timeScale=0.01').value).toBe(0.01);
    expect(parseHint('webhooks.ackTimeoutMs=1000').value).toBe(1000);
    // A template's fields are free-form: a number there is the number written.
    expect(parseHint('checkout.extras={"device":{"width":1080}}').value).toEqual({ device: { width: 1080 } });
    expect(parseHint('methods.notEnabled=true').value).toBe('true');
  });

  it('types a hints file the same way', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-told-'));
    const file = join(dir, 'hints.json');
    writeFileSync(file, '{"refunds": {"fee": 0.30}, "http": {"rateLimit": 20}}');
    const told = readHintsFile(file);
    expect(told.find((t) => t.path === 'refunds.fee')?.value).toBe('0.30');
    expect(told.find((t) => t.path === 'http.rateLimit')?.value).toBe(20);
  });

  it('addresses a map key holding a dot as the reference pages show it (internalFieldNames.card.exp_month)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-told-'));
    const file = join(dir, 'hints.json');
    writeFileSync(file, JSON.stringify({ internalFieldNames: { 'card.exp_month': 'Card.ExpMonth' } }));
    const vendor = new Vendor([
      ...readHintsFile(file),
      parseHint('internalFieldNames.card.cvc=Card.Cvc'),
      parseHint('internalFieldNames={"billing_address.country":"BillingAddress.Country"}'),
    ]);
    expect(vendor.sourceOf('internalFieldNames.card.exp_month')).toBe(`${file}#/internalFieldNames/card.exp_month`);
    const draft: Record<string, unknown> = { internalFieldNames: { payment_method: 'PaymentMethod' } };
    applyTold(draft, vendor, new Evidence(() => {}));
    expect(draft['internalFieldNames']).toEqual({
      payment_method: 'PaymentMethod',
      'card.exp_month': 'Card.ExpMonth',
      'card.cvc': 'Card.Cvc',
      'billing_address.country': 'BillingAddress.Country',
    });
  });
});

describe('the draft takes what the vendor told', () => {
  it('writes what no probe learnt, keeps what the target answered over a contradiction, and skips a refuted leaf', () => {
    const ev = new Evidence(() => {});
    ev.todo('merchants.second', 'another merchant');
    ev.todo('sandbox', 'the controls');
    ev.todo('endpoints.refundQuery', 'the path');
    const draft: Record<string, unknown> = { methods: { checkout: ['CARD'], unknown: 'ZZ' }, endpoints: {} };
    const vendor = new Vendor([
      parseHint('merchants.second={"id":"M2","secretEnv":"S2"}'),
      parseHint('methods.checkout=["CARD","PAYPAL"]'),
      parseHint('endpoints.refundQuery=/nope'),
    ]);
    vendor.refute('endpoints.refundQuery');
    const written = applyTold(draft, vendor, ev);
    expect(written.map((w) => w.path)).toEqual(['merchants.second.id', 'merchants.second.secretEnv']);
    expect(draft['merchants']).toEqual({ second: { id: 'M2', secretEnv: 'S2' } });
    expect((draft['methods'] as { checkout: string[] }).checkout).toEqual(['CARD']);
    expect(draft['endpoints']).toEqual({});
    const todos = ev.todos.map((t) => t.path);
    // Settled: merchants.second. Still open: the controls (nothing told), the refuted path, the contradiction.
    expect(todos).toEqual(['sandbox', 'endpoints.refundQuery', 'methods.checkout']);
    expect(ev.told.map((t) => t.source)).toEqual(['--hint merchants.second', '--hint merchants.second']);
  });
});

describe('a TODO about one case', () => {
  it('stays when the vendor told its section: the list may not reach that case', () => {
    const ev = new Evidence(() => {});
    ev.todo('pricePoints (GOOGLE_PAY)', 'refused at every probe');
    ev.todo('pricePoints.unroundable', 'none refused');
    applyTold({}, new Vendor([parseHint('pricePoints={"tiers":["0.99"],"rounding":"up","unroundable":["5.00"]}')]), ev);
    expect(ev.todos.map((t) => t.path)).toEqual(['pricePoints (GOOGLE_PAY)']);
  });
});

describe("the vendor's price list", () => {
  const vendor = new Vendor([
    parseHint('pricePoints={"tiers":["1.99","9.99"],"rounding":"nearest","maxDistance":"0.10","unroundable":["50.00"]}'),
  ]);
  /** A target charging the nearest of `tiers` within 0.10, refusing an amount farther from every one. */
  const target =
    (tiers: bigint[]) =>
    async (c: bigint): Promise<bigint | undefined> => {
      const near = tiers.filter((t) => (t > c ? t - c : c - t) <= 10n);
      return near.sort((a, b) => Number((a > c ? a - c : c - a) - (b > c ? b - c : c - b)))[0];
    };

  it('is learnt when every amount that tells rules apart is charged as it says', async () => {
    const w = toldWalk(vendor, 'APPLE_PAY')!;
    expect(w.tiers).toEqual([199n, 999n]);
    const r = await confirmTold(w, target([199n, 999n]));
    expect(r.disagree).toEqual([]);
    expect(r.confirmed?.samples.length).toBe(r.asked);
  });

  it('is not used when the target charges otherwise', async () => {
    const r = await confirmTold(toldWalk(vendor, 'APPLE_PAY')!, target([199n, 500n]));
    expect(r.confirmed).toBeUndefined();
    expect(r.disagree.length).toBeGreaterThan(0);
  });
});
