/**
 * Price points where the profile leaves facts unsaid or bounds them: a profile that says "nearest within 1.00" and no
 * tie (neither the document nor the vendor says which way a half-way amount goes), on a target that rounds 1.49 down; and
 * a wallet whose declared limits end at its top tier (99.99), which the target enforces with 2006 although 100.00 is
 * within 1.00 of that tier ("No available channel accepts the amount"). Both are legal: the price-point and webhook-body
 * checks judge neither the midpoint nor an amount above the declared maximum, and still fail a target that rounds wrong.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import { amountBetweenPricePoints, amountsNextToPricePoints } from '../../fixtures/arbitraries/price-points.js';
import type { SuiteDef } from '../../harness/check/define.js';
import { parseProfile } from '../../harness/profile/load.js';
import { pricePointRule } from '../../harness/profile/price-points.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadSuites } from '../../harness/run/suites.js';
import fc from 'fast-check';
import { trueProfile } from './genome.js';

const WALLETS = ['APPLE_PAY', 'GOOGLE_PAY'] as const;
const GENOME: TargetGenome = {
  readings: [],
  target: { ...REFERENCE_GENES, roundingByMethod: { APPLE_PAY: { nearestWithinCents: 100 }, GOOGLE_PAY: { nearestWithinCents: 100 } } },
};

/** The genome's true profile with the tie left unsaid and each wallet's limits ending at its top tier; its target rounds ties down. */
function unsaidTieProfile() {
  const p = trueProfile(GENOME);
  const pp = p.pricePoints!;
  delete pp.tie;
  for (const r of Object.values(pp.ruleByMethod ?? {})) delete r.tie;
  const top = pp.tiers.at(-1)!;
  p.limits!.payments = { ...p.limits!.payments, ...Object.fromEntries(WALLETS.map((m) => [m, { min: '0.01', max: top }])) };
  const channels = (p.embedded!.target as { paymentChannels: Record<string, Record<string, unknown>> }).paymentChannels;
  for (const m of WALLETS)
    channels[m] = {
      ...channels[m],
      rounding: { mode: 'nearest', maxDistanceCents: 100, ties: 'down' },
      maxCents: Math.round(Number(top) * 100),
    };
  return parseProfile(JSON.stringify(p), 'price-point-unsaid.json');
}

let suites: SuiteDef[];
beforeAll(async () => {
  suites = await loadSuites();
});

async function run(faults: string[] = []) {
  const loaded = unsaidTieProfile();
  const ref = await startEmbeddedReference(loaded.profile, faults);
  try {
    return await runInProcess({
      loaded,
      baseUrl: ref.url,
      suites,
      settings: { seed: 7, numRuns: 12, webhooks: 'quick' },
      filter: (s, c) => s.name === 'price-points' || (s.name === 'webhook-body' && /requested_amount/.test(c.title)),
    });
  } finally {
    await ref.close();
  }
}

describe('price points with the tie unsaid and a declared maximum at the top tier', () => {
  it('never draws a midpoint when the tie is unsaid, nor an amount or tier outside the declared channel', () => {
    const loaded = unsaidTieProfile();
    const rule = pricePointRule(loaded.profile.pricePoints!, 'APPLE_PAY');
    expect(rule.tie).toBeUndefined();
    const inside = (c: number) => c >= 1 && c <= 9999;
    const near = amountsNextToPricePoints(rule, [], inside).map((c) => c.requested);
    expect(near).not.toContain('1.49');
    expect(near).not.toContain('100.00');
    const drawn = fc.sample(amountBetweenPricePoints(rule, [], inside)!, { seed: 3, numRuns: 400 }).map((c) => c.requested);
    expect(drawn).not.toContain('1.49');
    expect(drawn.every((v) => Number(v) <= 99.99)).toBe(true);
    // Without the bound the rule does round 100.00 to 99.99: the bound, not the rule, keeps it out.
    expect(amountsNextToPricePoints(rule).map((c) => c.requested)).toContain('100.00');
  });

  it('passes on a target that rounds half-way amounts down and refuses 100.00 with 2006', async () => {
    const results = await run();
    const ran = results.filter((r) => r.result.status !== 'skipped');
    expect(ran.length).toBeGreaterThanOrEqual(4);
    for (const r of results) expect(r.result.status, `${r.result.checkId}: ${r.result.reason ?? ''}`).not.toBe('failed');
  }, 180_000);

  it('still fails a target that rounds to another tier than the declared rule', async () => {
    const results = await run(['price-point-round-down']);
    expect(results.some((r) => r.result.status === 'failed')).toBe(true);
  }, 180_000);
});
