/**
 * A merchant's own fees (reference/sandbox-data.ts `merchants[].paymentFees`, `refundFees`, `payoutFees`): each replaces
 * every merchant's for that merchant alone. The README's second merchant pays its own BANK_TRANSFER fee, 0.5 % at least
 * 15.00, the low-balance one 0.25 + 12 % at most 0.50; the faults that ignore the cap or the merchant's own fee move the
 * edge of a balance.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningReference, startReference, type TargetDescription } from '../../reference/index.js';
import { cardBody, payoutBody, refundBody, usd } from './helpers/builders.js';
import { call, LOWBAL, PRIMARY, SECOND, type Creds } from './helpers/client.js';

const CREATE = '/api/v1/payouts/create';
const CANCEL = '/api/v1/payouts/cancel';
let ref: RunningReference | undefined;
afterEach(async () => {
  await ref?.close();
  ref = undefined;
});

async function payout(value: string, creds: Creds, currency = 'USD'): Promise<{ code: unknown; payoutNo?: string }> {
  const r = await call(ref!.url, CREATE, payoutBody({ trans_amount: { currency, value } }), { creds });
  return { code: r.json.code, payoutNo: r.json.data?.payout_no };
}

describe("a merchant's own payout fee (the README's)", () => {
  it("takes the second merchant's own fee: its USD 2500.00 covers 2485.00 and 15.00, not 2485.01", async () => {
    ref = await startReference();
    expect((await payout('2485.01', SECOND)).code).toBe(5004);
    const within = await payout('2485.00', SECOND);
    expect(within.code).toBe(0);
    await call(ref.url, CANCEL, { payout_no: within.payoutNo }, { creds: SECOND });
  });

  it("charges every merchant's fee instead where the merchant's own is ignored (merchant-payout-fee-ignored)", async () => {
    ref = await startReference({ faults: ['merchant-payout-fee-ignored'] });
    // Every merchant's fee on 2485.01 is 12.68: the payout fits 2500.00.
    expect((await payout('2485.01', SECOND)).code).toBe(0);
  });

  it("caps the low-balance merchant's own fee at 0.50 in EUR too, and not where the cap is ignored (payout-fee-cap-ignored)", async () => {
    ref = await startReference();
    const held = await payout('2.50', LOWBAL, 'EUR');
    expect(held.code).toBe(0);
    await ref.close();
    ref = await startReference({ faults: ['payout-fee-cap-ignored'] });
    // 0.25 + 12 % of 2.50 is 0.55: without its cap the fee does not fit EUR 3.00 beside 2.50.
    expect((await payout('2.50', LOWBAL, 'EUR')).code).toBe(5004);
  });
});

describe("a merchant's own payment and refund fees (a target description's)", () => {
  // Payments credit the refund balance with their amount less the payment fee: the low-balance merchant keeps 0.50 of a
  // 2.00 payment (its own fee 1.50), beside its 1.00, and pays its own refund fee of 0.60.
  const target: TargetDescription = {
    fees: { payments: {}, refunds: { CARD: { fixedCents: 30 } } },
    paymentsCredit: ['refund'],
    merchants: [{ id: 'M100003', paymentFees: { CARD: { fixedCents: 150 } }, refundFees: { CARD: { fixedCents: 60 } } }],
  };

  async function paid(creds: Creds, value: string): Promise<string> {
    const r = await call(ref!.url, '/api/v1/payments/card', cardBody({ trans_amount: usd(value) }), { creds });
    expect(r.json.code).toBe(0);
    return r.json.data.order_no;
  }

  it("judges the low-balance merchant's refund balance with its own fees: 0.90 and 0.60 fit 1.50, 0.91 does not", async () => {
    ref = await startReference({ target });
    const orderNo = await paid(LOWBAL, '2.00');
    const refund = (value: string) =>
      call(ref!.url, '/api/v1/refunds/create', refundBody({ original_order_no: orderNo, refund_amount: usd(value) }), { creds: LOWBAL });
    expect((await refund('0.91')).json.code).toBe(422);
    expect((await refund('0.90')).json.code).toBe(0);
  });

  it('leaves every other merchant on the shared fees', async () => {
    ref = await startReference({ target });
    const orderNo = await paid(PRIMARY, '2.00');
    const r = await call(ref.url, '/api/v1/refunds/create', refundBody({ original_order_no: orderNo, refund_amount: usd('2.00') }), {
      creds: PRIMARY,
    });
    expect(r.json.code).toBe(0);
  });
});
