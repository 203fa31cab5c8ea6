/**
 * The doctor's money account (harness/doctor/ledger.ts) equals the balance movement the target records: against the
 * reference with fees on payments, refunds and payouts and payments crediting both balances (its balances read before
 * and after the doctor), every merchant's payout balance per currency and refund balance moved exactly as the account
 * sums say, the chargeback's debit (balances.chargeback) included. A vendor's doctor report once said "Payouts made: 0"
 * after six, and explained 14.48 of the 39.58 USD that left the primary's balance: refund fees, a chargeback and payout
 * fees were missing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import { renderDoctorMarkdown, movedLine } from '../../harness/doctor/render.js';
import { centsOf } from '../../harness/facts/money.js';
import type { DoctorReport } from '../../harness/doctor/model.js';
import { type MerchantBalances, type RunningReference, startReference } from '../../reference/index.js';
import { REFERENCE_PROFILE, type Json } from './support.js';

const target = {
  fees: {
    payments: { CARD: { fixedCents: 30, percentMillionths: 29_000 }, PAYPAL: { fixedCents: 49, percentMillionths: 34_900 } },
    refunds: { CARD: { fixedCents: 15, percentMillionths: 10_000 } },
    payouts: { BANK_TRANSFER: { fixedCents: 25, percentMillionths: 5_000 }, PAYPAL: { fixedCents: 10 } },
  },
  paymentsCredit: ['payout', 'refund'] as const,
  // What a chargeback takes, stated: the payment's amount and a fee of 15.00 from the USD payout balance.
  chargebackDebit: { from: 'payout' as const, fee: { fixedCents: 1500 } },
};

function profile() {
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as Json;
  delete p['$schema'];
  p['fees'] = {
    payments: { CARD: { fixed: '0.30', percent: '2.9' }, PAYPAL: { fixed: '0.49', percent: '3.49' } },
    refunds: { CARD: { fixed: '0.15', percent: '1' } },
    payouts: { BANK_TRANSFER: { fixed: '0.25', percent: '0.5' }, PAYPAL: { fixed: '0.10' } },
  };
  p['balances'] = { paymentsCredit: ['payout', 'refund'], chargeback: { from: 'payout', fee: { fixed: '15.00' } } };
  // A creation answered late is one the account cannot count (it lists it apart): on a machine shared with other runs,
  // the deadline is long enough that every answer comes.
  p['http'] = { ...p['http'], deadlineMs: 60_000 };
  p['webhooks'] = { ...p['webhooks'], deliveryWaitMs: 20_000 };
  return parseProfile(JSON.stringify(p), 'fees.json', {});
}

let ref: RunningReference;
let report: DoctorReport;
let before: Record<string, MerchantBalances>;
let after: Record<string, MerchantBalances>;
beforeAll(async () => {
  ref = await startReference({ target, timeScale: 0.005 });
  before = ref.balances();
  report = await runDoctor({ loaded: profile(), baseUrl: ref.url, maxMs: 300_000 });
  after = ref.balances();
}, 320_000);
afterAll(async () => {
  await ref?.close();
});

describe("the doctor's money account", () => {
  it('lists every payment, refund, payout, fee and chargeback its requests caused', () => {
    const m = report.moved!;
    expect(m.payments.length).toBeGreaterThan(5);
    expect(m.refunds.length).toBeGreaterThan(2);
    expect(m.payouts.length).toBeGreaterThan(5);
    expect(m.chargebacks).toHaveLength(1);
    // Every fee is the profile's: a card payment of 10.00 pays 0.30 + 2.9 % = 0.59.
    const card = m.payments.find((x) => x.paidBy === 'card payment' && x.amount === '10.00');
    expect(card?.fee).toBe('0.59');
    expect(m.refunds.every((x) => x.fee !== undefined && centsOf(x.fee) > 0n)).toBe(true);
    expect(m.payouts.filter((x) => x.method === 'BANK_TRANSFER').every((x) => x.fee !== undefined && centsOf(x.fee) >= 25n)).toBe(true);
    expect(m.payouts.filter((x) => x.end === 'spent')).toHaveLength(1);
  });

  it('sums them per merchant, balance and currency: equal to the balance movement the target records', () => {
    const m = report.moved!;
    expect(m.unanswered ?? []).toEqual([]);
    const sum = (merchant: string, balance: 'payout' | 'refund', currency: string) =>
      m.balances
        .filter((l) => l.merchant === merchant && l.balance === balance && l.currency === currency)
        .reduce((s, l) => s + (l.moved.startsWith('-') ? -centsOf(l.moved.slice(1)) : centsOf(l.moved)), 0n);
    let moved = 0;
    for (const [id, b] of Object.entries(after)) {
      for (const currency of new Set([...Object.keys(b.payout), ...Object.keys(before[id]!.payout)])) {
        const recorded = (b.payout[currency] ?? 0n) - (before[id]!.payout[currency] ?? 0n);
        expect(sum(id, 'payout', currency), `${id} payout ${currency}`).toBe(recorded);
        if (recorded !== 0n) moved += 1;
      }
      const recorded = b.refund - before[id]!.refund;
      expect(sum(id, 'refund', 'USD'), `${id} refund`).toBe(recorded);
      if (recorded !== 0n) moved += 1;
    }
    // The account is not trivially equal: the primary's balances moved (credits, refunds and their fees, the payout
    // spent and its fee); what the other merchants' payouts took was given back.
    expect(moved).toBeGreaterThanOrEqual(2);
    expect(sum('M100001', 'payout', 'USD')).not.toBe(0n);
    expect(sum('M100001', 'refund', 'USD')).not.toBe(0n);
    // Nothing was left uncounted: the chargeback's debit is the profile's (balances.chargeback), summed with the rest.
    expect(m.balances.flatMap((l) => l.unknown)).toEqual([]);
    expect(m.balances.some((l) => l.balance === 'not stated')).toBe(false);
    expect(m.chargebacks.map((x) => x.fee)).toEqual(['15.00']);
  });

  it('says the account in doctor.md and on the terminal', () => {
    const md = renderDoctorMarkdown(report);
    expect(md).toMatch(/\*\*Refunds made: \d+\*\*/);
    expect(md).toMatch(/\*\*Chargebacks: 1\*\*/);
    expect(md).toMatch(/\| M100001 \| payout \| USD \| -?\d+\.\d\d \|/);
    expect(movedLine(report)).toMatch(/\d+ refund\(s\) .*1 chargeback\(s\); balances: M100001 payout -?\d+\.\d\d USD/);
  });
});
