/**
 * Methods as a target may have them beyond the reference's own: names it does not know (an open alphabet), optional
 * checkout fields a method requires, and a merchant's own payment channel ranges (reference/sandbox-data.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../reference/index.js';
import { resolveTarget, type TargetDescription } from '../../reference/sandbox-data.js';
import { checkoutBody, payoutBody, usd } from './helpers/builders.js';
import { call, keyOf, LOWBAL, PRIMARY, type Reply, SECOND } from './helpers/client.js';

const TARGET: TargetDescription = {
  otherMethodNames: ['SEPA_DEBIT', 'WIRE'],
  paymentMethods: ['CARD', 'SEPA_DEBIT'],
  paymentChannels: {
    CARD: { ranges: [{ minCents: 50, maxCents: 100_000 }], refunds: 'partial', refundSettlesImmediately: false },
    SEPA_DEBIT: { ranges: [{ minCents: 100, maxCents: 50_000 }], refunds: 'full-only', refundSettlesImmediately: false },
  },
  payoutChannels: { WIRE: { currencies: ['USD'], minCents: 100, maxCents: 90_000, cancelable: true } },
  payeeFields: { WIRE: ['name', 'account'] },
  checkoutRequiredFields: { SEPA_DEBIT: ['return_url'], '*': ['metadata'] },
  merchants: [
    {
      id: 'M100003',
      paymentMethods: ['CARD', 'SEPA_DEBIT'],
      paymentChannels: { SEPA_DEBIT: { ranges: [{ minCents: 500, maxCents: 2_000 }] } },
    },
  ],
};

let ref: RunningReference;
let faulty: RunningReference;
beforeAll(async () => {
  ref = await startReference({ target: TARGET });
  faulty = await startReference({ target: TARGET, faults: ['merchant-payment-range-of-primary'] });
});
afterAll(async () => {
  await ref.close();
  await faulty.close();
});

function answered(r: Reply): string {
  return r.json?.code === 0 ? 'ok' : `${r.json?.code} ${keyOf(r)}`;
}

const sepa = (over: Record<string, unknown> = {}) =>
  checkoutBody({ payment_method: 'SEPA_DEBIT', trans_amount: usd('10.00'), metadata: 'm', ...over });

describe('a target with methods of its own', () => {
  it('takes a method name the reference does not know as any method, and still refuses one nobody named', async () => {
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', sepa()))).toBe('ok');
    const wire = payoutBody({ payment_method: 'WIRE', payee: { name: 'Grace Hopper', account: 'GB33' } });
    expect(answered(await call(ref.url, '/api/v1/payouts/create', wire))).toBe('ok');
    const other = checkoutBody({ payment_method: 'BLIK', metadata: 'm' });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', other))).toBe('3003 unsupportedPaymentMethod');
    // A known method with no payout channel is not available for payouts.
    const sepaPayout = payoutBody({ payment_method: 'SEPA_DEBIT', payee: { name: 'Grace Hopper', account: 'GB33' } });
    expect(answered(await call(ref.url, '/api/v1/payouts/create', sepaPayout))).toBe('5007 unsupportedPayoutMethod');
  });

  it('refuses a checkout without a field its method (or every method) requires, naming the field', async () => {
    const { return_url: _, ...noReturn } = sepa();
    const r = await call(ref.url, '/api/v1/payments/checkout', noReturn);
    expect(answered(r)).toBe('400 invalidRequest');
    const { metadata: __, ...noMeta } = checkoutBody({ payment_method: 'CARD', trans_amount: usd('10.00') });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', noMeta))).toBe('400 invalidRequest');
    // CARD requires no return_url here.
    const { return_url: ___, ...cardNoReturn } = checkoutBody({ payment_method: 'CARD', metadata: 'm' });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', cardNoReturn))).toBe('ok');
  });

  it("keeps a merchant's own channel range for it alone, and a fault applies the primary's to every merchant", async () => {
    const at = (value: string) => sepa({ trans_amount: usd(value) });
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', at('4.99'), { creds: LOWBAL }))).toBe('2006 amountOutOfRange');
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', at('5.00'), { creds: LOWBAL }))).toBe('ok');
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', at('20.01'), { creds: LOWBAL }))).toBe('2006 amountOutOfRange');
    expect(answered(await call(ref.url, '/api/v1/payments/checkout', at('4.99'), { creds: PRIMARY }))).toBe('ok');
    expect(answered(await call(faulty.url, '/api/v1/payments/checkout', at('4.99'), { creds: LOWBAL }))).toBe('ok');
  });

  it('gives the second merchant its own CARD range by default (1.00 to 5000.00)', async () => {
    const d = await startReference();
    try {
      const card = (value: string) => checkoutBody({ payment_method: 'CARD', trans_amount: usd(value) });
      expect(answered(await call(d.url, '/api/v1/payments/checkout', card('0.99'), { creds: SECOND }))).toBe('2006 amountOutOfRange');
      expect(answered(await call(d.url, '/api/v1/payments/checkout', card('1.00'), { creds: SECOND }))).toBe('ok');
      expect(answered(await call(d.url, '/api/v1/payments/checkout', card('0.99'), { creds: PRIMARY }))).toBe('ok');
    } finally {
      await d.close();
    }
  });

  it('refuses a description naming a method nobody declared, or requiring a field a checkout cannot require', () => {
    expect(() => resolveTarget({ paymentMethods: ['CARD', 'BLIK'] })).toThrow(/unknown method/);
    expect(() => resolveTarget({ otherMethodNames: ['blik'] })).toThrow(/otherMethodNames/);
    expect(() => resolveTarget({ checkoutRequiredFields: { CARD: ['card' as 'metadata'] } })).toThrow(/checkoutRequiredFields/);
  });
});
