/**
 * What the doctor reads as evidence: a refusal that comes after the method check shows the
 * method enabled; price points are probed on every price-point method; the tie rule is verified (a
 * contrary charge is a doubt, the rounding clause's to judge); entries no check can use are warned of,
 * in words that do not contradict themselves.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { loadProfile } from '../../harness/profile/load.js';
import { profileWith } from './support.js';

const ALT = fileURLToPath(new URL('../../fixtures/profiles/reference-alt.json', import.meta.url));

describe('doctor: evidence', () => {
  it(`reads insufficientFunds for a merchant whose balance is below the amount \
as the payout method enabled (the issue's lowBalance case), not as WRONG`, async () => {
    // A payout minimum (10.00) above the low-balance merchant's balance (5.00): its probe meets insufficientFunds.
    const r = await runDoctor({
      loaded: loadProfile(profileWith((p) => (p.limits.payouts.BANK_TRANSFER.min = '10.00'))),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const item = r.items.find((i) => i.path === 'merchants.lowBalance.payoutMethods[0]');
    expect(item?.status, JSON.stringify(item)).toBe('verified');
    expect(item?.answered).toMatch(/code 5004 insufficientFunds: a refusal that comes after the method check/);
    expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    expect(r.exitCode).toBe(0);
  }, 30_000);

  it('probes the tiers on every price-point method, not only the first', async () => {
    const r = await runDoctor({ loaded: loadProfile(profileWith(() => {})), baseUrl: 'embedded', webhooks: false });
    for (const m of ['APPLE_PAY', 'GOOGLE_PAY']) {
      expect(r.items.filter((i) => i.status === 'verified' && i.assumption.startsWith(`${m} accepts the tier`)).length, m).toBe(7);
      expect(r.items.filter((i) => i.status === 'verified' && i.assumption.startsWith(`${m} refuses`)).length, m).toBe(3);
    }
  }, 30_000);

  it(`verifies pricePoints.tie (rounding "nearest"); a tie rule the target \
does not follow is a doubt on the rounding clause, not a profile error`, async () => {
    const right = await runDoctor({ loaded: loadProfile(ALT), baseUrl: 'embedded', webhooks: false });
    expect(right.items.filter((i) => i.path === 'pricePoints.tie').map((i) => i.status)).toContain('verified');
    const wrongTie = await runDoctor({
      loaded: loadProfile(profileWith((p) => (p.pricePoints.tie = 'down'), undefined, ALT)),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const tie = wrongTie.items.filter((i) => i.path === 'pricePoints.tie');
    expect(tie.map((i) => i.status)).toContain('doubt');
    expect(tie.find((i) => i.status === 'doubt')?.clauses).toContain('payment.price-point.round');
    expect(wrongTie.exitCode).toBe(0);
  }, 30_000);

  it(`verifies payouts.methods.*.usdOnly with a EUR payout: a method said to take \
EUR that refuses it is WRONG; one said USD-only that takes it is a doubt`, async () => {
    const right = await runDoctor({ loaded: loadProfile(profileWith(() => {})), baseUrl: 'embedded', webhooks: false });
    expect(
      right.items
        .filter((i) => i.path.endsWith('.usdOnly'))
        .map((i) => `${i.path} ${i.status}`)
        .sort(),
    ).toEqual(['payouts.methods.BANK_TRANSFER.usdOnly verified', 'payouts.methods.PAYPAL.usdOnly verified']);
    const swapped = await runDoctor({
      loaded: loadProfile(
        profileWith((p) => {
          p.payouts.methods.BANK_TRANSFER.usdOnly = true;
          p.payouts.methods.PAYPAL.usdOnly = false;
        }),
      ),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const bank = swapped.items.find((i) => i.path === 'payouts.methods.BANK_TRANSFER.usdOnly');
    expect(bank?.status).toBe('doubt');
    expect(bank?.clauses).toEqual(['payout.usd-only-methods']);
    const paypal = swapped.items.find((i) => i.path === 'payouts.methods.PAYPAL.usdOnly');
    expect(paypal?.status).toBe('wrong');
    expect(paypal?.answered).toMatch(/code 5008 amountOutOfRange: amount or currency refused at 1\.00 EUR/);
    expect(paypal?.answered).toMatch(/either the method takes USD only/);
  }, 30_000);

  it(`calls the declared EUR range WRONG, not the currency, when a EUR payout is refused at the range's declared minimum \
and taken inside it`, async () => {
    const r = await runDoctor({
      loaded: loadProfile(profileWith((p) => (p.limits.payouts.BANK_TRANSFER.byCurrency.EUR.min = '0.50'))),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const item = (path: string) => r.items.filter((i) => i.path === path).map((i) => i.status);
    expect(item('payouts.methods.BANK_TRANSFER.usdOnly')).toEqual(['verified']);
    expect(item('limits.payouts.BANK_TRANSFER.byCurrency.EUR')).toEqual(['wrong']);
    const range = r.items.find((i) => i.path === 'limits.payouts.BANK_TRANSFER.byCurrency.EUR');
    expect(range?.answered).toMatch(/amountOutOfRange at 0\.50 EUR, the minimum the profile declares, and 10\.00 EUR accepted/);
    expect(r.exitCode).toBe(2);
  }, 30_000);

  it('warns of entries no check can use, and says of an unread internal name it verified that no check reads it', async () => {
    const r = await runDoctor({
      loaded: loadProfile(
        profileWith((p) => {
          p.limits.payments.KLARNA = { min: '1.00', max: '10.00' };
        }),
      ),
      baseUrl: 'embedded',
      webhooks: false,
    });
    const warnings = r.items.filter((i) => i.status === 'warning');
    expect(warnings.map((i) => i.path)).toEqual(expect.arrayContaining(['limits.payments.KLARNA']));
    // The doctor's probe verified the internal name of notify_url: one line says it, verified, and that no check reads it
    // (never a warning "no check reads it" beside a line "verified" of the same field).
    const internal = r.items.filter((i) => i.path === 'internalFieldNames.notify_url');
    expect(internal.map((i) => i.status)).toEqual(['verified']);
    expect(internal[0]!.answered).toMatch(/verified, though no check reads it/);
    expect(`${internal[0]!.assumption} ${internal[0]!.answered}`).not.toMatch(/a check uses/);
    expect(r.exitCode).toBe(0);
  }, 30_000);
});
