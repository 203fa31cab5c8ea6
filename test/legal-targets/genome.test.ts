/**
 * The genome and its true profile: the genome's readings are the reference's catalogue, the true profile
 * of the empty genome is the reference profile and of the alt set the alt profile (both hand-written,
 * so the mechanical derivation is checked against two independent descriptions), and every genome's
 * true profile passes the kit's loader.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DECLINE_CARD_POOL,
  READING_NAMES,
  REFERENCE_GENES,
  retryWaitsGene,
  targetGenes,
  targetGenome,
} from '../../fixtures/arbitraries/genome.js';
import { centsNumberOf } from '../../harness/facts/money.js';
import { defaultBehaviour } from '../../reference/behaviour.js';
import { pricePointNearestWithin } from '../../reference/readings/amounts.js';
import { readingCatalogue, READING_SETS } from '../../reference/readings/index.js';
import { loadTrueProfile, startOrder, targetDescription, trueProfile, unroundableOf } from './genome.js';

/**
 * A profile without what names it, and without the reference's magic-value triggers: a genome's target has them, and its
 * true profile leaves them unsaid (trueProfile), which is as true (the checks then use the switch).
 */
function withoutIdentity(p: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, name: _n, description: _d, embedded: _e, ...rest } = p;
  const sandbox = rest['sandbox'] as Record<string, unknown> | undefined;
  if (sandbox?.['triggers'] === undefined) return rest;
  const { triggers: _t, ...others } = sandbox;
  return { ...rest, sandbox: others };
}

describe('target genome', () => {
  it('spans exactly the readings of the reference', () => {
    expect([...READING_NAMES]).toEqual(readingCatalogue.map((r) => r.name));
  });

  it('derives the reference profile from the empty genome and the alt profile from the readings of the alt set', () => {
    const ref = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Record<string, unknown>;
    const alt = JSON.parse(readFileSync('fixtures/profiles/reference-alt.json', 'utf8')) as Record<string, unknown>;
    expect(withoutIdentity(trueProfile({ readings: [] }) as unknown as Record<string, unknown>)).toEqual(withoutIdentity(ref));
    const altGenome = { readings: READING_NAMES.filter((n) => READING_SETS['alt']!.includes(n)) };
    expect(withoutIdentity(trueProfile(altGenome) as unknown as Record<string, unknown>)).toEqual(withoutIdentity(alt));
    // The same start order as the alt set, so this genome is the alt target itself.
    expect(startOrder(altGenome)).toEqual([...READING_SETS['alt']!]);
  });

  it("derives the reference profile from the reference's own accounts and channels, restated as genes", () => {
    const ref = JSON.parse(readFileSync('fixtures/profiles/reference.json', 'utf8')) as Record<string, unknown>;
    const derived = withoutIdentity(trueProfile({ readings: [], target: REFERENCE_GENES }) as unknown as Record<string, unknown>);
    // Channel names are labels in findings, not facts of the target: the genes have none.
    const unnamed = (p: Record<string, unknown>) =>
      JSON.parse(JSON.stringify(p, (k, v) => (k === 'name' && typeof v === 'string' && v.startsWith('cash-app') ? undefined : v)));
    expect(unnamed(derived)).toEqual(unnamed(withoutIdentity(ref)));
  });

  it('draws decline cards that are Luhn-valid and none of the other fixture cards', () => {
    const luhn = (n: string) =>
      [...n]
        .reverse()
        .reduce((sum, d, i) => sum + (i % 2 === 1 ? ((Number(d) * 2) % 10) + Math.floor((Number(d) * 2) / 10) : Number(d)), 0) %
        10 ===
      0;
    for (const n of DECLINE_CARD_POOL) expect(luhn(n), n).toBe(true);
    const others = ['4242424242424242', '4000000000009235', '4000000000000119', '4000000000003220'];
    expect(DECLINE_CARD_POOL.filter((n) => others.includes(n))).toEqual([]);
  });

  it('draws every optional gene of the open world in some genome and leaves it out of others', () => {
    const optional = ['shapes', 'methodNames', 'requiredFields', 'notForPayouts', 'merchantPayments', 'queryParams', 'lengths'].concat([
      'triggers',
      'merchantFees',
      'moneyTerms',
      'autoSettle',
    ]);
    const has = (t: object, k: string) => Object.hasOwn(t, k);
    const drawn = fc.sample(targetGenes(), { seed: 3, numRuns: 200 });
    expect(optional.filter((k) => !drawn.some((t) => has(t, k)))).toEqual([]);
    expect(optional.filter((k) => drawn.every((t) => has(t, k)))).toEqual([]);
  });

  it('draws readings only when asked to, on the reference accounts (what a version-2 profile can say)', () => {
    for (const g of fc.sample(targetGenome({ accounts: false }), { seed: 1, numRuns: 50 })) {
      expect(g.target).toBeUndefined();
      expect(loadTrueProfile(g).profile.embedded?.target).toBeUndefined();
    }
  });

  it("draws retry schedules inside the document's figures: 8 growing waits from about 15 s to about 40 min, 80 to 100 min in all", () => {
    fc.assert(
      fc.property(retryWaitsGene(), (w) => {
        expect(w).toHaveLength(8);
        expect(w[0]).toBeGreaterThanOrEqual(13_000);
        expect(w[0]).toBeLessThanOrEqual(17_000);
        expect(w[7]).toBeGreaterThanOrEqual(35 * 60_000);
        expect(w[7]).toBeLessThanOrEqual(45 * 60_000);
        for (let i = 1; i < 8; i++) expect(w[i]).toBeGreaterThanOrEqual(w[i - 1]!);
        const span = w.reduce((a, b) => a + b, 0);
        expect(span).toBeGreaterThanOrEqual(83 * 60_000);
        expect(span).toBeLessThanOrEqual(97 * 60_000);
      }),
      { numRuns: 500 },
    );
  });

  const unroundableTitle =
    "derives unroundable amounts the reference's own rounding (each method's, or the reading's nearest within 0.50) charges no tier for";
  it(unroundableTitle, () => {
    const reading = pricePointNearestWithin.roundToTier!;
    fc.assert(
      fc.property(targetGenes(), fc.boolean(), (t, near) => {
        const methods = (['APPLE_PAY', 'GOOGLE_PAY'] as const).map((m) => {
          const within = near ? 50 : t.roundingByMethod![m].nearestWithinCents;
          return { tiers: t.tiersCents![m], ...(within !== undefined ? { nearestWithinCents: within } : {}) };
        });
        const amounts = unroundableOf(methods);
        expect(amounts.length).toBeGreaterThan(0);
        for (const a of amounts)
          for (const m of methods) {
            const cents = BigInt(centsNumberOf(a));
            const big = m.tiers.map((c) => BigInt(c));
            const rule =
              m.nearestWithinCents === undefined ? undefined : { mode: 'nearest' as const, maxDistanceCents: BigInt(m.nearestWithinCents) };
            const charged = near ? reading(cents, big) : defaultBehaviour.roundToTier(cents, big, rule);
            expect(charged, `${a} on ${m.tiers.join()} (${m.nearestWithinCents ?? 'up'})`).toBeUndefined();
          }
      }),
      { numRuns: 300 },
    );
  });

  it('gives every genome a true profile the loader accepts', () => {
    fc.assert(
      fc.property(targetGenome(), (g) => {
        const loaded = loadTrueProfile(g).profile;
        expect(loaded.embedded?.readings).toEqual(startOrder(g));
        expect(loaded.embedded?.target).toEqual(g.target ? targetDescription(g.target) : undefined);
      }),
      { numRuns: 200 },
    );
  });

  it("tells every value a target requires within that target's own length of the field", () => {
    // A vendor's own values fit its own limits: a required metadata value longer than the said metadata length is a
    // profile no vendor writes, and every checkout would be refused by it.
    let told = 0;
    fc.assert(
      fc.property(targetGenome(), (g) => {
        const p = trueProfile(g);
        const max = p.lengths?.maxLength?.metadata;
        const values = [p.checkout?.extras, ...Object.values(p.checkout?.extrasByMethod ?? {})].map((e) => e?.['metadata']);
        for (const v of values)
          if (typeof v === 'string' && max !== undefined) {
            told += 1;
            expect(v.length).toBeLessThanOrEqual(max);
          }
        // The target's own magic e-mails and reasons, too.
        const ways = Object.values(p.sandbox?.triggers ?? {}).flat();
        for (const w of ways)
          if (w.way === 'email' || w.way === 'reason') {
            const limit = p.lengths?.maxLength?.[w.way];
            if (limit !== undefined) expect(w.value.length, `${w.way} ${w.value}`).toBeLessThanOrEqual(limit);
          }
      }),
      { numRuns: 300, seed: 42 },
    );
    expect(told).toBeGreaterThan(0);
  });
});
