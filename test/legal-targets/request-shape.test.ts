/**
 * Targets that ask more of a request than the document shows (profile version 5): a parameter every query needs beside
 * its lookup number ("Only `merchant_order_no`/`order_no` lookup inputs are shown, other query parameters: not shown."),
 * and shorter limits of the strings the kit chooses ("Maximum lengths of string fields and maximum request body size: not
 * shown."). With the true profile the checks that send them pass and the doctor calls nothing WRONG. Left unsaid, the
 * query parameter is a clear doctor finding on queryParams (the run never starts, so no check blames the target's
 * clauses for queries it could not read), and an unsaid length is no verdict: the checks it stops are skipped naming it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { type LoadedProfile, parseProfile } from '../../harness/profile/load.js';
import { conformantRun } from '../../harness/proof/run.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { loadSuites } from '../../harness/run/suites.js';
import { loadTrueProfile, trueProfile } from './genome.js';

/** Every query needs the sending merchant's id as `store_id`. */
const STORE_ID: TargetGenome = {
  readings: [],
  target: { ...REFERENCE_GENES, queryParams: { kinds: ['payment', 'refund', 'payout'], field: 'store_id', value: 'merchantId' } },
};

/** Shorter than every value the kit writes by default: numbers of 16 characters, names and texts of 8. */
const SHORT: TargetGenome = {
  readings: [],
  target: {
    ...REFERENCE_GENES,
    lengths: {
      maxLength: { merchantOrderNo: 16, merchantRefundNo: 16, merchantPayoutNo: 16, goodsName: 8, description: 8, metadata: 8, reason: 24 },
      maxBodyBytes: 8_192,
    },
  },
};

const QUERY_SUITES = ['payment-query', 'mutual-exclusion', 'refunds', 'payouts', 'signing'];
const TEXT_SUITES = ['checkout', 'refunds', 'payouts', 'envelope', 'signing'];
let all: SuiteDef[];
const pick = (names: readonly string[]) => all.filter((s) => names.includes(s.name));

beforeAll(async () => {
  all = await loadSuites();
  for (const n of [...QUERY_SUITES, ...TEXT_SUITES]) expect(all.map((s) => s.name)).toContain(n);
});

/** The true profile of `g` with `edit` applied, through the kit's loader. */
function edited(g: TargetGenome, edit: (p: ReturnType<typeof trueProfile>) => void): LoadedProfile {
  const p = trueProfile(g);
  edit(p);
  return parseProfile(JSON.stringify(p), 'edited.json');
}

async function doctorOf(loaded: LoadedProfile) {
  const ref = await startEmbeddedReference(loaded.profile);
  try {
    return await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
  } finally {
    await ref.close();
  }
}

describe('a target whose every query needs the merchant id as store_id', () => {
  const loaded = loadTrueProfile(STORE_ID);

  it('says the parameter in the true profile, as a template of the merchant id', () => {
    expect(loaded.profile.profileVersion).toBe(5);
    expect(loaded.profile.queryParams).toEqual({
      payment: { store_id: `\${merchantId}` },
      refund: { store_id: `\${merchantId}` },
      payout: { store_id: `\${merchantId}` },
    });
  });

  it('passes the query checks (CONFORMANT): every query carries it, the lookup rules judged as the document says', async () => {
    const run = await conformantRun(loaded, pick(QUERY_SUITES), 3, 4, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.inconclusive).toEqual([]);
    expect(Object.keys(run.exercised ?? {})).toEqual(
      expect.arrayContaining(['err.pay.order-not-found', 'err.req.mutually-required', 'err.req.mutually-exclusive']),
    );
  }, 300_000);

  it('verifies it with the doctor (nothing WRONG): carried, it is read; left out, the query is refused', async () => {
    const report = await doctorOf(loaded);
    expect(report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered}`)).toEqual([]);
    for (const kind of ['payment', 'refund', 'payout']) {
      const item = report.items.find((i) => i.path === `queryParams.${kind}`);
      expect(item?.status, kind).toBe('verified');
      expect(item?.answered, kind).toContain('the target needs them');
    }
  }, 300_000);

  it('names queryParams when the profile leaves the parameter unsaid: a clear WRONG, no check run against the target', async () => {
    const unsaid = edited(STORE_ID, (p) => delete p.queryParams);
    const report = await doctorOf(unsaid);
    const item = report.items.find((i) => i.path === 'queryParams.payment');
    expect(item?.status).toBe('wrong');
    expect(item?.fix).toContain('queryParams.payment');
    // Nothing else is blamed on the target: no doubt charged to a clause of the query.
    expect(report.items.filter((i) => i.status === 'doubt').map((i) => i.path)).toEqual([]);
  }, 300_000);
});

describe('a target that takes no parameter the profile says', () => {
  it('is WRONG on queryParams: the target refuses the query carrying it (a legal profile without it explains the answer)', async () => {
    // The reference refuses fields it does not know; a service that ignores them is verified alike (the document allows both).
    const extra = edited({ readings: [], target: REFERENCE_GENES }, (p) => {
      p.queryParams = { payment: { store_id: 'S-17' } };
    });
    const report = await doctorOf(extra);
    const item = report.items.find((i) => i.path === 'queryParams.payment');
    expect(item?.status).toBe('wrong');
    expect(item?.fix).toContain('queryParams.payment');
  }, 300_000);
});

describe('a target with shorter string limits', () => {
  const loaded = loadTrueProfile(SHORT);

  it('says them in the true profile', () => {
    expect(loaded.profile.lengths?.maxLength).toMatchObject({ merchantOrderNo: 16, goodsName: 8, metadata: 8 });
    expect(loaded.profile.lengths?.maxBodyBytes).toBe(8_192);
  });

  it('passes the checks that write text and numbers (CONFORMANT): every value within its said length', async () => {
    const run = await conformantRun(loaded, pick(TEXT_SUITES), 5, 4, 'quick');
    expect(run.failed).toEqual([]);
    expect(run.inconclusive).toEqual([]);
    expect(run.passed).toBeGreaterThan(20);
  }, 300_000);

  it('runs the doctor with them said: nothing WRONG', async () => {
    const report = await doctorOf(loaded);
    expect(report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered}`)).toEqual([]);
  }, 300_000);

  it('gives no false verdict when the profile leaves them unsaid: the checks a length stops are skipped naming it', async () => {
    const unsaid = edited(SHORT, (p) => delete p.lengths);
    const ref = await startEmbeddedReference(unsaid.profile);
    try {
      const res = await runInProcess({
        loaded: unsaid,
        baseUrl: ref.url,
        suites: pick(TEXT_SUITES),
        settings: { seed: 5, numRuns: 4, webhooks: 'quick' },
      });
      const failed = res.filter((r) => r.result.status === 'failed' || r.result.status === 'broken');
      expect(failed.map((r) => `${r.result.checkId}: ${r.result.reason ?? r.result.findings.map((f) => f.clause).join(', ')}`)).toEqual([]);
      const skippedForLength = res.filter((r) => r.result.status === 'skipped' && /lengths\.maxLength\./.test(r.result.reason ?? ''));
      expect(skippedForLength.length).toBeGreaterThan(0);
    } finally {
      await ref.close();
    }
    const report = await doctorOf(unsaid);
    expect(report.items.filter((i) => i.status === 'wrong' || i.status === 'doubt').map((i) => `${i.path}: ${i.answered}`)).toEqual([]);
    expect(report.items.some((i) => i.status === 'not-verifiable' && /lengths\.maxLength\./.test(i.answered ?? ''))).toBe(true);
  }, 300_000);
});
