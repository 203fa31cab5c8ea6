/**
 * Behind a 100 ms round trip the doctor's payouts were one chain of about 25 round trips:
 * the record, every limit probe, the USD-only probes, then each payout made per merchant released in turn. The primary's
 * limit probes now run beside the releases (themselves side by side), while what needs the money back still waits for
 * it: the low-balance probes for that merchant's release, the EUR payouts and the payout settled as success for the
 * primary's. The reference here answers 20 ms late each way, so requests that overlap are seen to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DoctorReport } from '../../harness/doctor/model.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { loadProfile } from '../../harness/profile/load.js';
import { type RunningReference, startReference } from '../../reference/index.js';
import { profileWith, REFERENCE_PROFILE } from './support.js';

interface Seen {
  path: string;
  // biome-ignore lint/suspicious/noExplicitAny: request bodies are free-form JSON
  body: Record<string, any>;
  receivedAt: number;
  answeredAt: number;
  code: number;
}

describe('doctor: the payouts’ independent probes side by side', () => {
  const seen: Seen[] = [];
  let ref: RunningReference;
  let report: DoctorReport;
  beforeAll(async () => {
    ref = await startReference({
      timeScale: 0.02,
      latencyMs: 20,
      onExchange: (x) => {
        if (/payout/.test(x.path)) {
          seen.push({
            path: x.path,
            body: JSON.parse(x.body?.toString() ?? '{}'),
            receivedAt: x.receivedAt,
            answeredAt: x.answeredAt,
            code: x.code,
          });
        }
      },
    });
    report = await runDoctor({ loaded: loadProfile(REFERENCE_PROFILE), baseUrl: ref.url });
  }, 60_000);
  afterAll(() => ref?.close());

  /** The service numbers of the payouts made first, one per merchant and method, from the report's evidence. */
  function madeFirst(role: string): string[] {
    return report.items
      .filter((i) => new RegExp(`payouts are enabled for ${role} \\(`).test(i.assumption))
      .flatMap((i) => i.exchanges ?? [])
      .map((id) => JSON.parse(report.exchanges.find((e) => e.id === id)!.responseBody!).data.payout_no as string);
  }
  // Accepted ones: a method without cancel is first asked to cancel (and refuses) before its settlement gives it back.
  const releasesOf = (nos: readonly string[]) =>
    seen.filter((s) => (/cancel$/.test(s.path) || s.body.outcome === 'FAILED') && s.code === 0 && nos.includes(s.body.payout_no));
  const creates = (test: (amount: { currency: string; value: string }) => boolean) =>
    seen.filter((s) => /create$/.test(s.path) && test(s.body.trans_amount));
  const LIMITS = ['0.99', '10000.00', '10000.01', '50000.00', '50000.01'];

  it('runs the limit probes beside the releases of the payouts made first, every probe still sent, verdicts unchanged', () => {
    expect(report.exitCode).toBe(0);
    const all = ['primary', 'second', 'lowBalance'].flatMap(madeFirst);
    expect(all).toHaveLength(5);
    const releases = releasesOf(all);
    expect(releases).toHaveLength(5);
    const limits = creates((a) => a.currency === 'USD' && LIMITS.includes(a.value));
    expect(limits).toHaveLength(6);
    // One after another, every release came after the last limit probe's answer.
    expect(Math.min(...releases.map((s) => s.answeredAt))).toBeLessThan(Math.max(...limits.map((s) => s.receivedAt)));
  });

  it('sends what needs the money back only after its release: low-balance probes, EUR payouts, the payout settled as success', () => {
    const low = Math.max(...releasesOf(madeFirst('lowBalance')).map((s) => s.answeredAt));
    // The balance 5.00 covers 4.50 and its BANK_TRANSFER fee (0.25 + 0.5 %, at least 0.50), not 4.51 and its fee.
    const lowProbes = creates((a) => a.currency === 'USD' && (a.value === '4.50' || a.value === '4.51'));
    expect(lowProbes).toHaveLength(2);
    for (const s of lowProbes) expect(s.receivedAt).toBeGreaterThanOrEqual(low);
    const primary = Math.max(...releasesOf(madeFirst('primary')).map((s) => s.answeredAt));
    const eur = creates((a) => a.currency === 'EUR');
    expect(eur).toHaveLength(2);
    for (const s of eur) expect(s.receivedAt).toBeGreaterThanOrEqual(primary);
    const success = seen.filter((s) => s.body.outcome === 'SUCCESS');
    expect(success).toHaveLength(1);
    expect(success[0]!.receivedAt).toBeGreaterThanOrEqual(primary);
  });

  it('lists the payout items in the order they had when they ran one after another, whichever answer came first', () => {
    const said = report.items.map((i) => `${i.path}: ${i.assumption}`);
    const limits = said.filter((x) => x.startsWith('limits.payouts.'));
    expect(limits.map((x) => x.split(':')[0])).toEqual([
      'limits.payouts.BANK_TRANSFER.max',
      'limits.payouts.BANK_TRANSFER.min',
      'limits.payouts.BANK_TRANSFER.max',
      'limits.payouts.PAYPAL.max',
      'limits.payouts.PAYPAL.min',
      'limits.payouts.PAYPAL.max',
    ]);
    const from = said.indexOf('payouts.data.payoutNo: a payout answer holds data.payout_no');
    expect(said.slice(from, from + 6).map((x) => x.split(':')[0])).toEqual([
      'payouts.data.payoutNo',
      'payouts.data.status',
      'payouts.queryBy.serviceNo',
      'payouts.queryBy.merchantNo',
      'payouts.methods.BANK_TRANSFER.usdOnly',
      'payouts.methods.PAYPAL.usdOnly',
    ]);
    const settled = said.filter((x) => x.startsWith('sandbox.settlePayout:'));
    expect(settled).toHaveLength(2);
    expect(settled[0]).toBe('sandbox.settlePayout: settles a fresh payout as FAILED');
    // The one payout the doctor spends is said, with what it took.
    const spent = /\(it is spent: \d+\.\d\d USD, its fee included, leaves the primary's payout balance\)$/;
    expect(settled[1]).toMatch(/^sandbox\.settlePayout: settles a fresh payout as SUCCESS /);
    expect(settled[1]).toMatch(spent);
    expect(said.filter((x) => x.startsWith('merchants.lowBalance.payoutBalance:'))).toHaveLength(2);
  });

  it('names a moved cancel path once when the payouts released side by side both meet it', async () => {
    const r = await runDoctor({
      loaded: loadProfile(
        profileWith((p) => {
          p.endpoints.payoutCancel = '/api/v1/payouts/cancel-moved';
          // Both methods verified through a cancel: two releases side by side meet the moved path.
          p.payouts.methods.PAYPAL.cancel = true;
        }),
      ),
      baseUrl: 'embedded',
    });
    expect(r.exitCode).toBe(2);
    expect(r.items.filter((i) => i.path === 'endpoints.payoutCancel' && i.status === 'wrong')).toHaveLength(1);
  }, 60_000);
});
