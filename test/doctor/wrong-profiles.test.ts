/**
 * Deliberately wrong profiles against the embedded reference: each stops `run` in its doctor phase
 * with exit 2, names the field to fix, and no check runs (no results, no certificate).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callMain } from '../cli/helpers.js';
import { profileWith, readDoctor, type Json } from './support.js';

interface Case {
  what: string;
  edit: (p: Json) => void;
  /** The profile path the doctor must name as wrong. */
  field: string;
  /** What the wrong item's answer must say. */
  says: RegExp;
  webhooks?: boolean;
}

const CASES: Case[] = [
  {
    what: 'a wrong secret',
    edit: (p) => (p.merchants.primary.secret = 'sk_test_not_the_key_0000000000'),
    field: 'merchants.primary.secret',
    says: /merchants\.primary\.secret is not this merchant's key/,
  },
  {
    what: 'the production key as the secret (a profile that does not declare it as productionSecret: the loader refuses one that does)',
    edit: (p) => {
      delete p.merchants.primary.productionSecret;
      p.merchants.primary.secret = 'sk_live_primary_7d3f1a9c5e2b8046';
    },
    field: 'merchants.primary.secret',
    says: /not this merchant's key \(it looks like a production key/,
  },
  {
    what: 'a wrong merchant id',
    edit: (p) => (p.merchants.second.id = 'M100077'),
    field: 'merchants.second.id',
    says: /merchants\.second\.id is not a merchant id the target knows/,
  },
  {
    what: 'an unknown id the target knows',
    edit: (p) => (p.merchants.unknownId = 'M100002'),
    field: 'merchants.unknownId',
    says: /the target knows this id/,
  },
  {
    what: 'a wrong endpoint path',
    edit: (p) => (p.endpoints.refundQuery = '/api/v1/refund/query'),
    field: 'endpoints.refundQuery',
    says: /the target has no such path/,
  },
  {
    what: 'a payout method the target does not enable for the low-balance merchant',
    // The reference enables no PayPal payouts for the low-balance merchant (reference/README.md).
    edit: (p) => (p.merchants.lowBalance.payoutMethods = ['BANK_TRANSFER', 'PAYPAL']),
    field: 'merchants.lowBalance.payoutMethods[1]',
    says: /code 5007/,
  },
  {
    what: "the issue's case: payout methods left to the default (all of payouts.methods) for the low-balance merchant, which lacks PayPal",
    edit: (p) => delete p.merchants.lowBalance.payoutMethods,
    field: 'merchants.lowBalance.payoutMethods',
    says: /code 5007/,
  },
  {
    what: 'a wrong data path',
    edit: (p) => (p.checkout.data.orderNo = 'orderNo'),
    field: 'checkout.data.orderNo',
    says: /data\.orderNo is absent \(data has order_no/,
  },
  {
    what: 'a wrong pending status',
    edit: (p) => (p.checkout.pendingStatus = 'CREATED'),
    field: 'checkout.pendingStatus',
    says: /status "PENDING"/,
  },
  {
    what: 'a test card with another outcome',
    edit: (p) => (p.cardPayment.cards.decline = p.cardPayment.cards.success),
    field: 'cardPayment.cards.decline',
    says: /: charged$/,
  },
  {
    what: 'a wrong sandbox control path (answered with an envelope, as the target answers any unknown path)',
    edit: (p) => (p.sandbox.expireCheckout.path = '/sandbox/v1/checkouts/expire'),
    field: 'sandbox.expireCheckout.path',
    says: /the answer the target gives to a path it does not have/,
  },
  {
    what: 'a wrong query field',
    edit: (p) => (p.refunds.queryBy.serviceNo = 'refundNo'),
    field: 'refunds.queryBy.serviceNo',
    says: /code 400 invalidRequest/,
  },
  {
    what: "a channel maximum above the target's",
    edit: (p) => (p.limits.payments.CARD.max = '20000.00'),
    field: 'limits.payments.CARD.max',
    says: /code 2006 amountOutOfRange/,
  },
  // Was here: refunds.support.CASH_APP = 'partial' (the target refuses a partial refund with notSupported).
  // That refusal is one the document names, and a target may give it wrongly on a channel that takes partial
  // refunds (refund.channel-support): a doubt, not a profile error — see test/doctor/doubts.test.ts.
  {
    what: 'an unreachable receiver',
    edit: (p) => {
      p.webhooks.receiver.publicUrl = 'http://127.0.0.1:9/hooks';
      p.webhooks.deliveryWaitMs = 1000;
    },
    field: 'webhooks.receiver.publicUrl',
    says: /no delivery for/,
    webhooks: true,
  },
];

describe('doctor: a wrong profile stops the run before any check', () => {
  for (const c of CASES) {
    it(`${c.what}: exit 2 naming ${c.field}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mpsi-doctor-run-'));
      const profile = profileWith(c.edit, dir);
      const reports = join(dir, 'reports');
      const r = await callMain([
        'run',
        '--profile',
        profile,
        '--suite',
        'mutual-exclusion',
        '--webhooks',
        c.webhooks ? 'quick' : 'off',
        '--no-html',
        '--reports',
        reports,
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      const reason = r.stderr.split('\n').filter((l) => l.startsWith('mpsi-conformance:'));
      expect(reason).toHaveLength(1);
      expect(reason[0]).toContain(`the profile is wrong about this target (doctor): fix ${c.field}`);
      const report = readDoctor(reports);
      const wrong = report.items.filter((i) => i.status === 'wrong');
      expect(wrong.map((i) => i.path)).toContain(c.field);
      expect(wrong.find((i) => i.path === c.field)!.answered).toMatch(c.says);
      expect(report.exitCode).toBe(2);
      // No check ran: nothing a check writes exists.
      expect(existsSync(join(reports, 'results'))).toBe(false);
      expect(existsSync(join(reports, 'certificate.json'))).toBe(false);
      expect(existsSync(join(reports, 'run.json'))).toBe(false);
      // Secrets (the production key included) never reach the doctor's files.
      for (const f of ['doctor.json', 'doctor.md']) {
        const text = readFileSync(join(reports, f), 'utf8');
        expect(text).not.toContain('sk_live_primary_7d3f1a9c5e2b8046');
        expect(text).not.toContain('sk_test_primary_5f2c9a7e41d84b06');
      }
    }, 30_000);
  }

  it('parity: a wrong profile on side B stops the comparison (exit 2) naming the side and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-doctor-parity-'));
    const wrong = profileWith((p) => (p.checkout.pendingStatus = 'CREATED'), dir);
    const reports = join(dir, 'reports');
    const r = await callMain([
      'parity',
      '--a',
      profileWith(() => {}),
      '--b',
      wrong,
      '--suite',
      'mutual-exclusion',
      '--webhooks',
      'off',
      '--no-html',
      '--reports',
      reports,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /cannot run parity: profile reference \(side B\) is wrong about its target \(doctor\): fix checkout\.pendingStatus/,
    );
    expect(readDoctor(reports, 'doctor-a').exitCode).toBe(0);
    expect(readDoctor(reports, 'doctor-b').exitCode).toBe(2);
    expect(existsSync(join(reports, 'parity.json'))).toBe(false);
  }, 30_000);

  it("names every merchant whose credentials are wrong at once, even when the primary's are", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mpsi-doctor-keys-'));
    const profile = profileWith((p) => {
      p.merchants.primary.secret = 'sk_test_not_the_key_0000000000';
      p.merchants.lowBalance.id = 'M100077';
    }, dir);
    const r = await callMain(['doctor', '--profile', profile, '--reports', dir]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const wrong = readDoctor(dir)
      .items.filter((i) => i.status === 'wrong')
      .map((i) => i.path);
    expect(wrong).toEqual(['merchants.primary.secret', 'merchants.lowBalance.id']);
    expect(r.stdout).toContain('fix merchants.primary.secret, merchants.lowBalance.id (no check ran)');
  }, 30_000);
});
