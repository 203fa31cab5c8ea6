/**
 * The genome and its true profile: the genome's readings are the reference's catalogue, the true profile
 * of the empty genome is the reference profile and of the alt set the alt profile (both hand-written,
 * so the mechanical derivation is checked against two independent descriptions), and every genome's
 * true profile passes the kit's loader.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { READING_NAMES, targetGenome } from '../../fixtures/arbitraries/genome.js';
import { readingCatalogue, READING_SETS } from '../../reference/readings/index.js';
import { loadTrueProfile, startOrder, trueProfile } from './genome.js';

function withoutIdentity(p: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _s, name: _n, description: _d, embedded: _e, ...rest } = p;
  return rest;
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

  it('gives every genome a true profile the loader accepts', () => {
    fc.assert(
      fc.property(targetGenome(), (g) => {
        expect(loadTrueProfile(g).profile.embedded?.readings).toEqual(startOrder(g));
      }),
      { numRuns: 200 },
    );
  });
});
