/**
 * A vendor that credits each successful payment (its amount less a payment fee) to the merchant's USD payout balance and
 * takes a fee with every BANK_TRANSFER payout, described as such by its profile (`fees`, `balances.paymentsCredit`):
 * the doctor finds its profile true, and quick and full runs are CONFORMANT — no check judges the USD balance the
 * payments raise as a constant (INTERFACE.md › Payout errors 5004 insufficientFunds), while the balances payments do
 * not move (EUR) are still judged with the fee.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callMain } from '../cli/helpers.js';
import { profileWith, readDoctor } from './support.js';

const PAYMENT_FEE = { fixedCents: 30, percentMillionths: 29_000 };
/** The reference with payment fees on every method, the README's BANK_TRANSFER payout fee, and payments crediting. */
const TARGET = {
  paymentsCredit: ['payout'],
  fees: {
    payments: Object.fromEntries(['CARD', 'PAYPAL', 'CASH_APP', 'APPLE_PAY', 'GOOGLE_PAY'].map((m) => [m, PAYMENT_FEE])),
    payouts: { BANK_TRANSFER: { fixedCents: 25, percentMillionths: 5000, minCents: 50 } },
  },
};

function movingProfile(dir: string): string {
  return profileWith((p) => {
    p.embedded = { target: TARGET };
    p.fees = { ...p.fees, payments: { '*': { fixed: '0.30', percent: '2.9' } } };
    p.balances = { paymentsCredit: ['payout'] };
  }, dir);
}

describe('a target whose payments credit the payout balance (amount less fee), with payout fees', () => {
  it('gets a clean doctor and a CONFORMANT quick run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-moving-quick-'));
    const r = await callMain(['run', '--profile', movingProfile(dir), '--reports', dir]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doctor = readDoctor(dir);
    expect(doctor.counts.wrong).toBe(0);
    // The moving USD balance is not asked; the reason names the fact.
    const low = doctor.items.find((i) => i.path === 'merchants.lowBalance.payoutBalance');
    expect(low?.status).toBe('not-verifiable');
    expect(low?.answered).toMatch(/balances\.paymentsCredit/);
  }, 600_000);

  it('gets a CONFORMANT full run (the whole webhook schedule)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-moving-full-'));
    const r = await callMain(['run', '--profile', movingProfile(dir), '--reports', dir, '--webhooks', 'full']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, 900_000);
});
