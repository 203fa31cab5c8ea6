/**
 * The doctor against the embedded reference: the reference profile is verified whole (exit 0), a
 * production profile gets queries and authentication probes only (no record is created), and the
 * run's certificate says the doctor verified the profile.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { loadProfile } from '../../harness/profile/load.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { callMain } from '../cli/helpers.js';
import { profileWith, readDoctor, REFERENCE_PROFILE } from './support.js';

describe('doctor against the reference', () => {
  it('verifies every assumption of the reference profile (exit 0), with warnings only for entries no check reads', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'mpsi-doctor-ok-'));
    const r = await callMain(['doctor', '--reports', reports]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = readDoctor(reports);
    expect(report.counts.wrong).toBe(0);
    // Only what no request can show without spending it, each saying why.
    expect(report.items.filter((i) => i.status === 'not-verifiable').map((i) => i.path)).toEqual([
      'merchants.primary.productionSecret',
      'merchants.second.productionSecret',
      // Version 3: the interface shows no name or login; created status asked of card refunds only.
      'merchants.primary.name',
      'merchants.primary.login',
      // The second merchant's balances (a check pays out a cent above them): shown only by a payout above a balance.
      'merchants.second.payoutBalances',
      'merchants.lowBalance.refundBalance',
      'merchants.lowBalance.payoutBalances',
      'refunds.createdStatus.PAYPAL',
      'refunds.createdStatus.CASH_APP',
      'refunds.fee',
      'payouts.balances.primary',
      'webhooks.ackTimeoutMs',
    ]);
    // The clock the webhook checks scale their waits by: measured from a refused webhook's retry.
    expect(report.items.find((i) => i.path === 'webhooks.timeScale')?.status).toBe('verified');
    // Internal names no check reads are verified by their probes and said so on the verified line, never warned apart.
    expect(report.items.filter((i) => i.status === 'warning').map((i) => i.path)).toEqual([]);
    for (const path of [
      'internalFieldNames.trans_amount',
      'internalFieldNames["trans_amount.value"]',
      'internalFieldNames["trans_amount.currency"]',
      'internalFieldNames.notify_url',
      'internalFieldNames.return_url',
    ])
      expect(report.items.find((i) => i.path === path)?.status, path).toBe('verified');
    const verified = new Set(report.items.filter((i) => i.status === 'verified').map((i) => i.path));
    for (const path of [
      'baseUrl',
      'merchants.primary',
      'merchants.second',
      'merchants.frozen',
      'merchants.lowBalance',
      'merchants.unknownId',
      'endpoints.paymentQuery',
      'endpoints.refundQuery',
      'endpoints.payoutQuery',
      'endpoints.refundCreate',
      'methods.checkout[0]',
      'methods.notEnabled',
      'methods.unknown',
      'merchants.second.paymentMethods',
      'merchants.second.payoutMethods',
      'limits.payments.CARD.min',
      'limits.payments.CARD.max',
      'limits.payouts.BANK_TRANSFER.max',
      'pricePoints.tiers[0]',
      'pricePoints.unroundable[0]',
      'checkout.data.orderNo',
      'checkout.data.status',
      'checkout.pendingStatus',
      'paymentRecord.orderNo',
      'paymentRecord.status',
      'paymentRecord.requestedAmount',
      'cardPayment.data.orderNo',
      'cardPayment.cards.success',
      'cardPayment.cards.decline',
      'cardPayment.cards.risk',
      'cardPayment.cards.invalid',
      'cardPayment.cards.noChannel',
      'refunds.data.refundNo',
      'refunds.queryBy.serviceNo',
      'refunds.queryBy.merchantNo',
      'refunds.failingReason',
      'payouts.data.payoutNo',
      'payouts.queryBy.merchantNo',
      'payouts.methods.BANK_TRANSFER.cancel',
      'payouts.methods.PAYPAL.cancel',
      'payouts.notForPayouts',
      'sandbox.completeCheckout',
      'sandbox.expireCheckout',
      'sandbox.chargeback',
      'sandbox.settleRefund',
      'sandbox.settlePayout',
      'webhooks.receiver',
      'webhooks.deliveryWaitMs',
      'merchants.lowBalance.payoutBalance',
      'pricePoints.rounding',
      'refunds.support.CARD',
      'refunds.support.PAYPAL',
      'refunds.support.CASH_APP',
      'refunds.support.APPLE_PAY',
      'refunds.support.GOOGLE_PAY',
      // Version-2 sections of the reference profile.
      'methods.noChannel',
      'merchants.lowBalance.paymentMethods[0]',
      'merchants.lowBalance.payoutMethods[0]',
      'limits.payments.CASH_APP.channels[0].max',
      'limits.payments.CASH_APP.channels[1].min',
      'limits.payments.CASH_APP.channels',
      'cardPayment.cards.pending',
      'sandbox.completeCard',
      'sandbox.armFailure.failures.queryFailed',
      'sandbox.armFailure.failures.orderCreationFailed',
      'sandbox.armFailure.failures.refundSystemBusy',
      'sandbox.armFailure.failures.refundFailed',
    ]) {
      expect(verified, path).toContain(path);
    }
    expect(r.stdout).toMatch(
      new RegExp(
        String.raw`^doctor: \d+ verified, 0 wrong, 12 not verifiable, 0 doubts, 0 warnings — \d+ requests in [\d.]+ s; ` +
          'the numbers it created start with K[0-9A-Z]+$',
        'm',
      ),
    );
    // The money it moved, whole: each payout given back but the one settled as success; each payment paid, listed.
    const moved = report.moved!;
    expect(moved.payouts.map((x) => x.end).sort()).toEqual([...Array(9).fill('given back'), 'spent']);
    expect(moved.payments.length).toBeGreaterThan(5);
    for (const x of moved.payments)
      expect([x.merchantOrderNo.startsWith(report.numbersStartWith), x.amount, x.orderNo]).not.toContain(undefined);
    expect(moved.payments.some((x) => x.paidBy === 'card payment') && moved.payments.some((x) => x.paidBy !== 'card payment')).toBe(true);
    expect(r.stdout).toMatch(
      /^doctor: moved money — \d+ payment\(s\) paid \([\d.]+ USD; .*10 payout\(s\) made .*9 given back, 1 spent, 0 held/m,
    );
    expect(existsSync(join(reports, 'doctor.md'))).toBe(true);
    expect(readFileSync(join(reports, 'doctor.md'), 'utf8')).toContain(
      `| payment (card payment) | M100001 | ` + `${moved.payments.find((x) => x.paidBy === 'card payment')!.merchantOrderNo} |`,
    );
    const text = readFileSync(join(reports, 'doctor.json'), 'utf8') + readFileSync(join(reports, 'doctor.md'), 'utf8');
    for (const secret of [
      'sk_test_primary_5f2c9a7e41d84b06',
      'sk_test_second_8b1e6d3c90a24f57',
      'sk_test_lowbal_2d7a4f9c6e1b3058',
      'sk_test_frozen_9c4e2b7d1a6f3085',
    ])
      expect(text).not.toContain(secret);
  }, 30_000);

  it(`gives back what it takes: six doctors in a row on one reference (each paying \
out 2.00 for the low-balance merchant, whose balance is 5.00) all find it intact`, async () => {
    const loaded = loadProfile(REFERENCE_PROFILE);
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      for (let i = 0; i < 6; i++) {
        const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
        expect(
          report.items.filter((x) => x.status === 'wrong'),
          `round ${i + 1}`,
        ).toEqual([]);
      }
    } finally {
      await ref.close();
    }
  }, 60_000);

  it('gives a production profile a doctor that moves no money: no record is created on the target', async () => {
    const file = profileWith((p) => {
      p.environment = 'production';
      // A production profile's key is its secret: no production key beside it.
      delete p.merchants.primary.productionSecret;
      delete p.merchants.second.productionSecret;
    });
    const loaded = loadProfile(file);
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const report = await runDoctor({ loaded, baseUrl: ref.url });
      expect(ref.counts()).toEqual({ payments: 0, refunds: 0, payouts: 0 });
      expect(report.movesNoMoney).toBe(true);
      expect(report.exitCode).toBe(0);
      const byPath = new Map(report.items.map((i) => [i.path, i.status]));
      expect(byPath.get('merchants.primary')).toBe('verified');
      expect(byPath.get('endpoints.refundQuery')).toBe('verified');
      expect(byPath.get('endpoints.checkout')).toBe('not-verifiable');
      expect(byPath.get('environment')).toBe('not-verifiable');
    } finally {
      await ref.close();
    }
  }, 30_000);

  it('a run records in its certificate that the doctor verified the profile, and --no-doctor that it did not', async () => {
    for (const noDoctor of [false, true]) {
      const reports = mkdtempSync(join(tmpdir(), 'mpsi-doctor-cert-'));
      const r = await callMain([
        'run',
        '--suite',
        'mutual-exclusion',
        '--webhooks',
        'off',
        '--no-html',
        '--reports',
        reports,
        ...(noDoctor ? ['--no-doctor'] : []),
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const md = readFileSync(join(reports, 'certificate.md'), 'utf8');
      if (noDoctor) {
        expect(md).toContain('| Profile doctor | not run (--no-doctor)');
        expect(existsSync(join(reports, 'doctor.json'))).toBe(false);
      } else {
        expect(md).toMatch(
          new RegExp(
            String.raw`\| Profile doctor \| the profile's assumptions were verified against the target before the checks: ` +
              String.raw`\d+ verified, 14 not verifiable, 0 warnings \(doctor\.md\) \|`,
          ),
        );
        expect(readDoctor(reports).exitCode).toBe(0);
      }
      const v = await callMain(['verify-certificate', join(reports, 'certificate.json')]);
      expect(v.code, v.stdout + v.stderr).toBe(0);
    }
  }, 120_000);

  it('is bounded: past its request or time budget it sends nothing more and says what was left unverified', async () => {
    const loaded = loadProfile(REFERENCE_PROFILE);
    const byCount = await runDoctor({ loaded, baseUrl: 'embedded', webhooks: false, maxRequests: 5 });
    expect(byCount.requests).toBe(5);
    expect(byCount.items.find((i) => i.path === 'top level')?.answered).toBe("the doctor's request budget (5) is spent");
    const byTime = await runDoctor({ loaded, baseUrl: 'embedded', webhooks: false, maxMs: 0 });
    expect(byTime.requests).toBe(0);
    expect(byTime.items.find((i) => i.path === 'top level')?.answered).toMatch(/time budget \(0 s\) is spent/);
  }, 30_000);

  it('lists a declared production key as not verifiable in a sandbox, sends nothing with it, and never writes it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-doctor-live-'));
    const file = profileWith((p) => {
      p.merchants.primary.productionSecret = 'sk_live_primary_7d3f1a9c5e2b8046';
      delete p.merchants.second.productionSecret;
      p.merchants.second.productionSecretEnv = 'MPSI_DOCTOR_TEST_LIVE';
    }, dir);
    process.env.MPSI_DOCTOR_TEST_LIVE = 'sk_live_second_3a8c6e1f9b2d7054';
    try {
      const r = await callMain(['doctor', '--profile', file, '--reports', dir]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const report = readDoctor(dir);
      expect(report.items.find((i) => i.path === 'merchants.primary.productionSecret')?.status).toBe('not-verifiable');
      expect(report.items.find((i) => i.path === 'merchants.second.productionSecretEnv')?.status).toBe('not-verifiable');
      const written = readFileSync(join(dir, 'doctor.json'), 'utf8') + readFileSync(join(dir, 'doctor.md'), 'utf8') + r.stdout + r.stderr;
      expect(written).not.toContain('sk_live_primary_7d3f1a9c5e2b8046');
      expect(written).not.toContain('sk_live_second_3a8c6e1f9b2d7054');
    } finally {
      delete process.env.MPSI_DOCTOR_TEST_LIVE;
    }
  }, 30_000);

  it(`verifies the alternative-readings profile against the reference \
started with those readings (other paths, names, statuses, rounding)`, async () => {
    const loaded = loadProfile(fileURLToPath(new URL('../../fixtures/profiles/reference-alt.json', import.meta.url)));
    const r = await runDoctor({ loaded, baseUrl: 'embedded' });
    expect(r.items.filter((i) => i.status === 'wrong')).toEqual([]);
    expect(r.exitCode).toBe(0);
    const verified = new Set(r.items.filter((i) => i.status === 'verified').map((i) => i.path));
    for (const path of [
      'checkout.pendingStatus',
      'paymentRecord.status',
      'refunds.queryBy.serviceNo',
      'payouts.data.payoutNo',
      'pricePoints.rounding',
      'webhooks.receiver',
    ])
      expect(verified, path).toContain(path);
  }, 30_000);
});
