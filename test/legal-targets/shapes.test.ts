/**
 * The shapes genes (fixtures/arbitraries/genes/shapes.ts), each on a target of its own: a card payment path carrying
 * `{merchant_order_no}`, a payout creation path carrying `{merchant_payout_no}`, the whole service under a base path,
 * the payment record nested deeper, a refund request's own fields under a key, the payout settle control's status reason
 * in a field of the vendor's, a gateway answering HTTP 429 beyond a rate. With its true profile each target is judged
 * CONFORMANT by the checks its gene touches and the doctor calls nothing WRONG; a profile that does not say the shape is
 * refused by the doctor (the target really is that shape); the faults of the checks each shape needs are killed on it.
 * A base path is also met as a vendor meets it: one profile whose baseUrl is "${BASE_URL}", the address given as --target.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome, targetGenes } from '../../fixtures/arbitraries/genome.js';
import type { ShapesGene } from '../../fixtures/arbitraries/genes/shapes.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import { runKillMatrix } from '../../harness/proof/kill-matrix.js';
import { conformantRun } from '../../harness/proof/run.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue, startReference } from '../../reference/index.js';
import { loadTrueProfile, targetDescription, trueProfile } from './genome.js';

const shaped = (shapes: ShapesGene): TargetGenome => ({ readings: [], target: { ...REFERENCE_GENES, shapes } });

interface Case {
  readonly row: string;
  readonly shapes: ShapesGene;
  /** The suites whose checks meet the shape. */
  readonly suites: readonly string[];
  /** What the true profile says of it. */
  readonly says: (p: ReturnType<typeof trueProfile>) => unknown;
  readonly said: unknown;
  /** Faults of the checks the shape needs, each killed on its target by a check of its own clause. */
  readonly faults: readonly string[];
}

const CASES: readonly Case[] = [
  {
    row: 'N9a',
    shapes: { cardPaymentNumbered: true },
    suites: ['card-payments', 'idempotency', 'payment-query'],
    says: (p) => p.endpoints.cardPayment,
    said: '/api/v1/payments/{merchant_order_no}/card',
    faults: ['decline-only-first-card', 'idem-payment-duplicate-accepted'],
  },
  {
    row: 'N12a',
    shapes: { payoutCreateNumbered: true },
    suites: ['payouts', 'payout-errors', 'idempotency'],
    says: (p) => p.endpoints.payoutCreate,
    said: '/api/v1/payouts/{merchant_payout_no}/submit',
    faults: ['idem-payout-duplicate-accepted'],
  },
  {
    row: 'R16',
    shapes: { basePath: '/gateway/mpsi/v2' },
    suites: ['envelope', 'auth-headers', 'payment-query', 'card-payments'],
    says: (p) => (p.embedded?.target as { basePath?: string } | undefined)?.basePath,
    said: '/gateway/mpsi/v2',
    faults: ['success-record-at-top-level'],
  },
  {
    row: 'N3a',
    shapes: { paymentRecordPath: ['payment', 'order'] },
    suites: ['payment-query', 'checkout', 'card-payments'],
    says: (p) => p.paymentRecord?.orderNo,
    said: 'payment.order.order_no',
    faults: ['query-record-nested'],
  },
  {
    row: 'N4a',
    shapes: { refundRequestUnder: 'refund' },
    suites: ['refunds', 'refund-errors'],
    says: (p) => Object.keys(p.refunds?.template ?? {}),
    said: ['original_merchant_order_no', 'refund'],
    faults: ['refund-exceed-allowed', 'duplicate-refund-wrong-key'],
  },
  {
    row: 'R17',
    shapes: { settleReason: { field: 'remark', text: 'Bank rejected: account closed' } },
    suites: ['webhook-body', 'payouts'],
    says: (p) => [p.sandbox?.settlePayout?.reason, p.sandbox?.settlePayout?.template['remark']],
    said: ['Bank rejected: account closed', `\${reason}`],
    faults: ['payout-reason-canned'],
  },
  {
    // A settle control that takes no reason: the profile says none, and any status_reason text passes.
    row: 'R17',
    shapes: { settleReason: null },
    suites: ['webhook-body', 'payouts'],
    says: (p) => [p.sandbox?.settlePayout?.reason, Object.values(p.sandbox?.settlePayout?.template ?? {}).includes(`\${reason}`)],
    said: [undefined, false],
    faults: ['webhook-payout-no-status-reason'],
  },
  {
    row: 'N17',
    shapes: { rateLimit: 120 },
    suites: ['envelope', 'payment-query'],
    says: (p) => [p.http?.rateLimit, p.embedded?.rateLimit],
    said: [120, 120],
    faults: [],
  },
];

let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

describe('the genome draws each shape in a minority of targets', () => {
  it('draws every part of the shapes gene, each in about a third of genomes or fewer', () => {
    const drawn = fc.sample(targetGenes(), { seed: 11, numRuns: 300 });
    for (const key of [
      'cardPaymentNumbered',
      'payoutCreateNumbered',
      'basePath',
      'paymentRecordPath',
      'refundRequestUnder',
      'settleReason',
      'rateLimit',
    ]) {
      const share = drawn.filter((g) => g.shapes && key in g.shapes).length / drawn.length;
      expect([key, share > 0.15 && share < 0.5]).toEqual([key, true]);
    }
  });
});

describe.each(CASES)('$row: a target with $shapes', (c) => {
  const genome = shaped(c.shapes);

  it('is said by its true profile', () => {
    expect(c.says(loadTrueProfile(genome).profile)).toEqual(c.said);
  });

  it('is CONFORMANT with its true profile on the checks the shape touches, and the doctor calls nothing WRONG', async () => {
    const loaded = loadTrueProfile(genome);
    const ref = await startEmbeddedReference(loaded.profile);
    try {
      const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: false });
      expect(report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered}`)).toEqual([]);
    } finally {
      await ref.close();
    }
    const run = await conformantRun(
      loaded,
      suites.filter((s) => c.suites.includes(s.name)),
      13,
      3,
      'quick',
    );
    expect(run.failed).toEqual([]);
    expect(run.passed).toBeGreaterThan(5);
  }, 300_000);

  it.skipIf(c.faults.length === 0)(
    'kills the faults of the checks it needs, each by its own clause',
    async () => {
      const loaded = loadTrueProfile(genome);
      const faults = faultCatalogue.filter((f) => c.faults.includes(f.name));
      expect(faults.map((f) => f.name).sort()).toEqual([...c.faults].sort());
      const rows = await runKillMatrix({ loaded, suites, seed: 1, numRuns: 5, faults, parallel: 2 });
      expect(rows.map((r) => `${r.name}: ${r.verdict}${r.errors.length > 0 ? ` ${r.errors.join('; ')}` : ''}`)).toEqual(
        faults.map((f) => `${f.name}: killed`),
      );
    },
    300_000,
  );
});

describe('a profile that does not say the shape is not the target', () => {
  it.each([
    ['N9a', 'endpoints.cardPayment', { cardPaymentNumbered: true }],
    ['N12a', 'endpoints.payoutCreate', { payoutCreateNumbered: true }],
    ['N3a', 'paymentRecord', { paymentRecordPath: ['payment', 'order'] }],
    ['N4a', 'refunds.template', { refundRequestUnder: 'refund' }],
  ] as const)(
    '%s: the doctor calls the reference-shaped profile WRONG on %s',
    async (_row, field, shapes) => {
      // The true profile of the reference's own shapes, beside a target that has the drawn one.
      const plain = loadTrueProfile({ readings: [], target: REFERENCE_GENES });
      const ref = await startEmbeddedReference(loadTrueProfile(shaped(shapes as ShapesGene)).profile);
      try {
        const report = await runDoctor({ loaded: plain, baseUrl: ref.url, webhooks: false });
        expect(report.items.filter((i) => i.status === 'wrong').some((i) => i.path.startsWith(field))).toBe(true);
      } finally {
        await ref.close();
      }
    },
    300_000,
  );
});

describe('R16: one profile for every instance of a sandbox served under a base path', () => {
  it('takes the baseUrl variable BASE_URL from --target, ending with the base path: doctor 0 WRONG, the checks pass', async () => {
    const genome = shaped({ basePath: '/mpsi' });
    const ref = await startReference({ target: targetDescription(genome.target!) });
    try {
      expect(ref.url.endsWith('/mpsi')).toBe(true);
      const p = trueProfile(genome) as unknown as Record<string, unknown>;
      delete p['embedded'];
      p['baseUrl'] = `\${BASE_URL}`;
      const loaded = parseProfile(JSON.stringify(p), 'instance.json', {}, { baseUrl: ref.url });
      expect(loaded.profile.baseUrl).toBe(ref.url);
      const report = await runDoctor({ loaded, baseUrl: loaded.profile.baseUrl, webhooks: false });
      expect(report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered}`)).toEqual([]);
      const out = await runInProcess({
        loaded,
        baseUrl: loaded.profile.baseUrl,
        suites,
        settings: { seed: 3, numRuns: 3, webhooks: 'off' },
        filter: (s) => ['envelope', 'payment-query', 'refunds', 'payouts'].includes(s.name),
      });
      const results = out.map((r) => r.result);
      expect(results.filter((r) => r.status === 'failed' || r.status === 'broken').map((r) => r.checkId)).toEqual([]);
      expect(results.filter((r) => r.status === 'passed').length).toBeGreaterThan(10);
      // The same profile at the sandbox's origin (the prefix dropped) is not that target: the doctor says so.
      const dropped = parseProfile(JSON.stringify(p), 'instance.json', {}, { baseUrl: new URL(ref.url).origin });
      const wrong = await runDoctor({ loaded: dropped, baseUrl: dropped.profile.baseUrl, webhooks: false });
      expect(wrong.exitCode).not.toBe(0);
    } finally {
      await ref.close();
    }
  }, 300_000);
});
