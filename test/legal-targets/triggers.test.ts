/**
 * A sandbox that causes its failures by magic values in the request, as most real ones do ("Transient failure: code 500
 * queryFailed (try again)"; "Order creation failed"; "refundFailed: refund request failed"): an order-number prefix for
 * each failure, no switch. With the true profile (sandbox.triggers) the five transient-failure clauses run and pass;
 * each fault that ignores a magic trigger is killed by its own clause; the doctor verifies each declared way and calls a
 * wrong one WRONG.
 */
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { parseProfile, type LoadedProfile } from '../../harness/profile/load.js';
import { runKillMatrix } from '../../harness/proof/kill-matrix.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue } from '../../reference/index.js';
import { readFileSync } from 'node:fs';
import type { Profile } from '../../harness/profile/types.js';

const FIVE = ['err.pay.query-failed', 'query.transient', 'err.pay.creation-failed', 'err.ref.system-busy', 'err.ref.failed'];

/** The reference's profile with its switch and failing reason taken away, and the given ways, the target's and the profile's. */
function prefixed(target: Record<string, unknown[]>, declared: Record<string, unknown[]>): { loaded: LoadedProfile; profile: Profile } {
  const p = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Profile;
  delete p.sandbox!.armFailure;
  delete p.refunds!.failingReason;
  p.embedded = { target: { sandbox: { triggers: target } } };
  p.sandbox!.triggers = declared as NonNullable<Profile['sandbox']>['triggers'];
  return { loaded: parseProfile(JSON.stringify(p), 'prefixed.json'), profile: p };
}

const TARGET = {
  QUERY_FAILED: [{ way: 'numberPrefix', value: 'QF-', count: 1 }],
  ORDER_CREATION_FAILED: [{ way: 'numberPrefix', value: 'BUSY-' }],
  REFUND_SYSTEM_BUSY: [{ way: 'numberPrefix', value: 'RB-' }],
  REFUND_FAILED: [{ way: 'numberPrefix', value: 'RF-' }],
};
const order = (value: string, count?: number) => ({ way: 'numberPrefix', number: 'merchantOrderNo', value, ...(count ? { count } : {}) });
const DECLARED = {
  queryFailed: [order('QF-', 1)],
  orderCreationFailed: [order('BUSY-')],
  refundSystemBusy: [order('RB-')],
  refundFailed: [order('RF-')],
};

describe('a sandbox that fails requests by order-number prefixes', () => {
  it('the five transient-failure clauses run and pass with the true profile', async () => {
    const { loaded } = prefixed(TARGET, DECLARED);
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const suites = await loadSuites();
      const res = await runInProcess({
        loaded,
        baseUrl: ref.url,
        suites,
        settings: { seed: 1, numRuns: 3, webhooks: 'quick' },
        filter: (s) => s.name === 'transient-failures' || s.name === 'refund-errors',
      });
      const failed = res.filter((r) => r.result.status === 'failed' || r.result.status === 'broken');
      expect(failed.map((r) => `${r.result.checkId}: ${r.result.reason ?? r.result.findings.map((f) => f.code).join(', ')}`)).toEqual([]);
      const transient = res.filter((r) => r.suite === 'transient-failures');
      expect(transient.map((r) => `${r.result.checkId}: ${r.result.status}`)).toEqual(transient.map((r) => `${r.result.checkId}: passed`));
      const proved = new Set(transient.flatMap((r) => r.result.exercised));
      expect(FIVE.filter((c) => !proved.has(c))).toEqual([]);
    } finally {
      await ref.close();
    }
  }, 300_000);

  it('kills each fault that ignores a magic trigger by a check of its own clause', async () => {
    const { loaded } = prefixed(TARGET, DECLARED);
    const faults = faultCatalogue.filter((f) => f.name.startsWith('magic-'));
    expect(faults.map((f) => f.clause).sort()).toEqual([...FIVE].sort());
    const rows = await runKillMatrix({ loaded, suites: await loadSuites(), seed: 1, numRuns: 3, faults, parallel: 2 });
    expect(rows.map((r) => `${r.name}: ${r.verdict} ${r.collateral.join(', ')} ${r.errors.join('; ')}`.trim())).toEqual(
      faults.map((f) => `${f.name}: killed`),
    );
  }, 600_000);

  it('skips "try again" naming the count where every query carrying the prefix fails, and still proves the failure', async () => {
    const { loaded } = prefixed(
      { ...TARGET, QUERY_FAILED: [{ way: 'numberPrefix', value: 'QF-' }] },
      { ...DECLARED, queryFailed: [order('QF-')] },
    );
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const res = await runInProcess({
        loaded,
        baseUrl: ref.url,
        suites: await loadSuites(),
        settings: { seed: 1, numRuns: 3, webhooks: 'quick' },
        filter: (s) => s.name === 'transient-failures',
      });
      const by = new Map(res.map((r) => [r.result.title, r.result]));
      const retried = by.get('answers the same payment query with the record when it is tried again after a transient failure')!;
      expect(retried.status).toBe('skipped');
      expect(retried.reason).toMatch(/count/);
      expect(by.get('answers a payment query that fails transiently with 500 queryFailed')!.status).toBe('passed');
    } finally {
      await ref.close();
    }
  }, 300_000);

  it('the doctor verifies each declared way, and calls a wrong value or a way of another kind WRONG naming it', async () => {
    const doctorOn = async (declared: Record<string, unknown[]>) => {
      const { loaded } = prefixed(TARGET, declared);
      const ref = await startEmbeddedReference(prefixed(TARGET, DECLARED).loaded.profile);
      try {
        const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
        const of = (status: string) => report.items.filter((i) => i.status === status && i.path.startsWith('sandbox.triggers'));
        return { verified: of('verified').map((i) => i.path), wrong: of('wrong').map((i) => `${i.path}: ${i.fix ?? ''}`), all: report };
      } finally {
        await ref.close();
      }
    };
    const right = await doctorOn(DECLARED);
    expect(right.wrong).toEqual([]);
    expect(right.all.items.filter((i) => i.status === 'wrong').map((i) => i.path)).toEqual([]);
    expect(right.verified.sort()).toEqual([
      'sandbox.triggers.orderCreationFailed[0]',
      'sandbox.triggers.queryFailed[0]',
      'sandbox.triggers.refundFailed[0]',
      'sandbox.triggers.refundSystemBusy[0]',
    ]);
    // A prefix the sandbox does not have: the query carrying it is answered with the record.
    const typo = await doctorOn({ ...DECLARED, queryFailed: [order('QX-', 1)] });
    expect(typo.wrong).toEqual([
      expect.stringMatching(/^sandbox\.triggers\.queryFailed\[0\]: give in sandbox\.triggers\.queryFailed\[0\] the value/),
    ]);
    // The refund prefixes swapped: each causes the other refusal.
    const swapped = await doctorOn({ ...DECLARED, refundSystemBusy: [order('RF-')], refundFailed: [order('RB-')] });
    expect(swapped.wrong.sort()).toEqual([
      'sandbox.triggers.refundFailed[0]: move the way to sandbox.triggers.refundSystemBusy',
      'sandbox.triggers.refundSystemBusy[0]: move the way to sandbox.triggers.refundFailed',
    ]);
  }, 300_000);
});

/**
 * The other ways, on one sandbox: a header, a card, an e-mail, an exact amount and an amount's ending ("a full run drew a
 * partial refund of 7.91, which the sandbox fails by design"): the five clauses pass, and the checks that draw refund and
 * payment amounts never meet a magic one.
 */
describe('a sandbox that fails requests by a header, a card, an e-mail, an amount and an amount ending', () => {
  const target = {
    QUERY_FAILED: [{ way: 'header', name: 'X-Mock-Response', value: 'QUERY_FAILED', count: 1 }],
    ORDER_CREATION_FAILED: [
      { way: 'card', value: '4000000000000259' },
      { way: 'email', value: 'busy@merchant.invalid' },
    ],
    REFUND_SYSTEM_BUSY: [{ way: 'amount', value: '5.02' }],
    REFUND_FAILED: [{ way: 'amountEnding', value: '.91' }],
  };
  const declared = {
    queryFailed: [{ way: 'header', name: 'X-Mock-Response', value: 'QUERY_FAILED', count: 1 }],
    orderCreationFailed: [
      { way: 'card', value: '4000000000000259' },
      { way: 'email', value: 'busy@merchant.invalid' },
    ],
    refundSystemBusy: [{ way: 'amount', value: '5.02' }],
    refundFailed: [{ way: 'amountEnding', value: '.91' }],
  };

  it('passes the five clauses and every refund and amount check, whatever amounts are drawn', async () => {
    const { loaded } = prefixed(target, declared);
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const res = await runInProcess({
        loaded,
        baseUrl: ref.url,
        suites: await loadSuites(),
        settings: { seed: 7, numRuns: 25, webhooks: 'quick' },
        filter: (s) => ['transient-failures', 'refund-errors', 'refunds', 'amounts', 'stateful'].includes(s.name),
      });
      const failed = res.filter((r) => r.result.status === 'failed' || r.result.status === 'broken');
      expect(failed.map((r) => `${r.result.checkId}: ${r.result.reason ?? r.result.findings.map((f) => f.code).join(', ')}`)).toEqual([]);
      const transient = res.filter((r) => r.suite === 'transient-failures');
      expect(transient.map((r) => `${r.result.checkId}: ${r.result.status}`)).toEqual(transient.map((r) => `${r.result.checkId}: passed`));
      expect(FIVE.filter((c) => !transient.some((r) => r.result.exercised.includes(c)))).toEqual([]);
    } finally {
      await ref.close();
    }
  }, 400_000);

  it('the doctor verifies each of them', async () => {
    const { loaded } = prefixed(target, declared);
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
      const triggers = report.items.filter((i) => i.path.startsWith('sandbox.triggers'));
      expect(triggers.map((i) => `${i.path}: ${i.status}`).sort()).toEqual([
        'sandbox.triggers.orderCreationFailed[0]: verified',
        'sandbox.triggers.orderCreationFailed[1]: verified',
        'sandbox.triggers.queryFailed[0]: verified',
        'sandbox.triggers.refundFailed[0]: verified',
        'sandbox.triggers.refundSystemBusy[0]: verified',
      ]);
    } finally {
      await ref.close();
    }
  }, 300_000);
});
