/**
 * A generated target of the version-4 facts (test/legal-targets/templates.ts): a refund created under its payment's
 * path, refunds and payouts found and cancelled by the number in their path, a card awaiting 3-D Secure under a status
 * of its own, a method only the second merchant has, without refunds. With its true profile the doctor says nothing
 * WRONG, quick and full runs are conformant, and the payout-cancel and refund checks run rather than skip. With the
 * reference's fixed paths in the profile instead, the doctor names those paths, not the refund template or support.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { SuiteDef } from '../../harness/check/define.js';
import { runDoctor } from '../../harness/doctor/run.js';
import type { SuiteResult } from '../../harness/run/inprocess.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';
import { loadTrueProfile } from './genome.js';
import { doctorWrong } from './properties.js';
import { TEMPLATED_GENOME, WITHOUT_V4 } from './templates.js';

let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

async function run(webhooks: 'quick' | 'full'): Promise<SuiteResult[]> {
  const loaded = loadTrueProfile(TEMPLATED_GENOME);
  const ref = await startEmbeddedReference(loaded.profile);
  try {
    return await runInProcess({ loaded, baseUrl: ref.url, suites, settings: { seed: 36, numRuns: 3, webhooks } });
  } finally {
    await ref.close();
  }
}

const line = (r: SuiteResult) => `${r.result.checkId}: ${r.result.status} ${r.result.reason ?? ''}`;
/** The checks of payout cancel and of refunds, by their suites and titles. */
const CANCEL_OR_REFUND = /^(payouts|payout-errors)\/.*cancel|^(refunds|refund-errors)\//;

describe('a target whose paths carry numbers, with two pending statuses and a second-merchant-only method', () => {
  it('its true profile says what the templates need: version 5, numbers in the paths, no payment number in the refund body', () => {
    const p = loadTrueProfile(TEMPLATED_GENOME).profile;
    // Version 4 says the templated paths; the reference's BANK_TRANSFER fee has a minimum, which only version 5 says.
    expect(p.profileVersion).toBe(5);
    expect(p.endpoints.payoutCancel).toBe('/api/v1/merchant/payouts/{payout_no}/cancel');
    expect(p.endpoints.refundCreate).toBe('/api/v1/merchant/payments/{order_no}/refunds');
    expect(Object.values(p.refunds!.template)).not.toContain(`\${merchantOrderNo}`);
    expect(p.cardPayment!.pendingStatus).toBe('AUTHENTICATING');
    expect(p.refunds!.supportByMerchant).toEqual({ second: { KLARNA: 'none' } });
  });

  it('the doctor is clean on its true profile and verifies the templated paths and the card pending status', async () => {
    const loaded = loadTrueProfile(TEMPLATED_GENOME);
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
      const of = (status: string) => report.items.filter((i) => i.status === status).map((i) => `${i.path}: ${i.answered}`);
      expect(of('wrong')).toEqual([]);
      expect(of('doubt')).toEqual([]);
      const verified = new Set(report.items.filter((i) => i.status === 'verified').map((i) => i.path));
      for (const path of ['endpoints.refundCreate', 'endpoints.refundQuery', 'endpoints.payoutQuery', 'cardPayment.pendingStatus'])
        expect(verified).toContain(path);
      // The cancel path, by the cancel it carried (a payout given back).
      expect(verified).toContain('payouts.methods.BANK_TRANSFER.cancel');
    } finally {
      await ref.close();
    }
  }, 120_000);

  it('a quick run is conformant, and the payout-cancel and refund checks run', async () => {
    const results = await run('quick');
    expect(results.filter((r) => r.result.status === 'failed' || r.result.status === 'broken').map(line)).toEqual([]);
    const ours = results.filter((r) => CANCEL_OR_REFUND.test(r.result.checkId));
    expect(ours.length).toBeGreaterThan(20);
    expect(ours.filter((r) => r.result.status !== 'passed').map(line)).toEqual([]);
    // The method only the second merchant has, without refunds: refused notSupported, not skipped.
    expect(
      results.find((r) => r.result.checkId.startsWith('refund-errors/refuses-a-refund-on-a-method-without-refund-support'))?.result.status,
    ).toBe('passed');
    // Nothing skips but what needs the full webhook schedule, or another merchant's own facts, which this target has none of.
    const skipped = results.filter(
      (r) => r.result.status === 'skipped' && !/webhooks mode is not full|merchants\.<role>\.facts/.test(r.result.reason ?? ''),
    );
    expect(skipped.map(line)).toEqual([]);
  }, 600_000);

  it('a full run (--webhooks full) is conformant, every check run', async () => {
    const results = await run('full');
    // Every check runs but those that need another merchant's own facts, which this target has none of.
    const notRun = (r: (typeof results)[number]) => r.result.status === 'skipped' && /merchants\.<role>\.facts/.test(r.result.reason ?? '');
    expect(results.filter((r) => r.result.status !== 'passed' && !notRun(r)).map(line)).toEqual([]);
  }, 900_000);

  it("with the reference's fixed paths in the profile, the doctor names the paths, not the refund template or support", async () => {
    const { wrong } = await doctorWrong(WITHOUT_V4, TEMPLATED_GENOME);
    expect(wrong.some((w) => w.startsWith('endpoints.refundCreate'))).toBe(true);
    expect(wrong.some((w) => w.startsWith('endpoints.payoutCancel'))).toBe(true);
    expect(wrong.filter((w) => /^(refunds\.|payouts\.methods)/.test(w))).toEqual([]);
  }, 120_000);
});
