/**
 * Time and money terms a vendor keeps, as the reference can be them (reference/sandbox-data.ts): proceeds that wait as a
 * pending balance until a delay passes or a control releases them (`proceedsAfter`), what a chargeback takes
 * (`chargebackDebit`), refunds that settle and checkouts that expire by themselves (`refundsSettleAfter`,
 * `checkoutsExpireAfter`). Over plain HTTP with the tests' own signing helper.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningReference, startReference, type TargetDescription } from '../../reference/index.js';
import { cardBody, checkoutBody, payoutBody, refundBody, usd } from './helpers/builders.js';
import { type Creds, call, keyOf, LOWBAL, PRIMARY } from './helpers/client.js';
import { sleep } from './helpers/receiver.js';

let ref: RunningReference | undefined;
afterEach(async () => {
  await ref?.close();
  ref = undefined;
});

async function start(target: TargetDescription, faults: string[] = []): Promise<RunningReference> {
  ref = await startReference({ target, faults });
  return ref;
}

async function payByCard(r: RunningReference, value: string, creds: Creds = PRIMARY): Promise<{ order_no: string }> {
  const p = await call(r.url, '/api/v1/payments/card', cardBody({ trans_amount: usd(value) }), { creds });
  expect(p.json.code).toBe(0);
  return p.json.data;
}

const usdPayout = (r: RunningReference, id: string) => r.balances()[id]!.payout['USD']!;

describe('pending proceeds (proceedsAfter)', () => {
  it('"control": a payment credits nothing a payout can draw on, and a payout against it is refused 5004', async () => {
    const r = await start({ paymentsCredit: ['payout'], proceedsAfter: 'control' });
    const before = usdPayout(r, LOWBAL.id);
    await payByCard(r, '40.00', LOWBAL);
    expect(usdPayout(r, LOWBAL.id)).toBe(before);
    // A cent above the balance with the bank transfer's fee (0.25 + 0.5 %, at least 0.50): refused, the proceeds wait.
    const above = (before - 50n + 1n).toString().padStart(3, '0');
    const value = `${above.slice(0, -2)}.${above.slice(-2)}`;
    const po = await call(r.url, '/api/v1/payouts/create', payoutBody({ trans_amount: usd(value) }), { creds: LOWBAL });
    expect([po.json.code, keyOf(po)]).toEqual([5004, 'insufficientFunds']);
  });

  it('a delay: the proceeds become available once it has passed, never before', async () => {
    const r = await start({ paymentsCredit: ['payout', 'refund'], proceedsAfter: 300 });
    const before = r.balances()[PRIMARY.id]!;
    await payByCard(r, '40.00');
    expect(r.balances()[PRIMARY.id]).toEqual(before);
    await sleep(400);
    const after = r.balances()[PRIMARY.id]!;
    expect(after.payout['USD']! - before.payout['USD']!).toBe(4000n);
    expect(after.refund - before.refund).toBe(4000n);
  });

  it('the fault pending-proceeds-paid-out-early credits them at once', async () => {
    const r = await start({ paymentsCredit: ['payout'], proceedsAfter: 'control' }, ['pending-proceeds-paid-out-early']);
    const before = usdPayout(r, LOWBAL.id);
    await payByCard(r, '40.00', LOWBAL);
    expect(usdPayout(r, LOWBAL.id) - before).toBe(4000n);
  });
});

describe("a chargeback's debit (chargebackDebit)", () => {
  it('takes the amount charged and its fee from the balance it names', async () => {
    const r = await start({ chargebackDebit: { from: 'payout', fee: { fixedCents: 1500 } } });
    const p = await payByCard(r, '20.00');
    const before = r.balances()[PRIMARY.id]!;
    const cb = await call(r.url, '/sandbox/v1/payments/chargeback', { order_no: p.order_no });
    expect(cb.json.code).toBe(0);
    const after = r.balances()[PRIMARY.id]!;
    expect(after.payout['USD']! - before.payout['USD']!).toBe(-3500n);
    expect(after.refund).toBe(before.refund);
  });

  it('takes nothing where the description says nothing', async () => {
    const r = await start({});
    const p = await payByCard(r, '20.00');
    const before = r.balances();
    expect((await call(r.url, '/sandbox/v1/payments/chargeback', { order_no: p.order_no })).json.code).toBe(0);
    expect(r.balances()).toEqual(before);
  });
});

describe('records that end by themselves', () => {
  it('refundsSettleAfter: a PENDING refund is SUCCESS once the delay has passed, and the settle control is then refused', async () => {
    const r = await start({ refundsSettleAfter: { afterMs: 300, status: 'SUCCESS' } });
    const p = await payByCard(r, '40.00');
    const b = refundBody({ original_order_no: p.order_no, refund_amount: usd('10.00') });
    const made = await call(r.url, '/api/v1/refunds/create', b);
    expect(made.json.data.status).toBe('PENDING');
    const query = () => call(r.url, '/api/v1/refunds/query', { merchant_refund_no: b['merchant_refund_no'] });
    expect((await query()).json.data.status).toBe('PENDING');
    await sleep(400);
    expect((await query()).json.data.status).toBe('SUCCESS');
    const settle = await call(r.url, '/sandbox/v1/refunds/settle', { refund_no: made.json.data.refund_no, outcome: 'FAILED' });
    expect(keyOf(settle)).toBe('validationFailed');
  });

  it('checkoutsExpireAfter: an unpaid checkout expires once the delay has passed and can no longer be completed', async () => {
    const r = await start({ checkoutsExpireAfter: { afterMs: 300 } });
    const c = await call(r.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: 'PAYPAL' }));
    expect(c.json.code).toBe(0);
    const paidNow = await call(r.url, '/api/v1/payments/checkout', checkoutBody({ payment_method: 'PAYPAL' }));
    const done = await call(r.url, '/sandbox/v1/checkout/complete', { order_no: paidNow.json.data.order_no, outcome: 'SUCCESS' });
    expect(done.json.code).toBe(0);
    await sleep(400);
    const late = await call(r.url, '/sandbox/v1/checkout/complete', { order_no: c.json.data.order_no, outcome: 'SUCCESS' });
    expect(keyOf(late)).toBe('validationFailed');
    // A paid one stays paid.
    const q = await call(r.url, '/api/v1/payments/query', { order_no: paidNow.json.data.order_no });
    expect(q.json.data.status).toBe('SUCCESS');
  });

  it('refuses a description it cannot be', async () => {
    await expect(startReference({ target: { proceedsAfter: -1 } })).rejects.toThrow(/proceedsAfter/);
    await expect(startReference({ target: { checkoutsExpireAfter: { afterMs: Number.NaN } } })).rejects.toThrow(/checkoutsExpireAfter/);
  });
});
