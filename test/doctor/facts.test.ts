/**
 * Every fact a profile can state is verified by the doctor or listed with the reason it is not:
 * the profile schema's leaves, each named by an item of the doctor run on true profiles of generated targets (the
 * reference's own, every drawn reading at once, the wide accounts genome), or given a fate in harness/doctor/facts.ts
 * (verified with a larger part, not verifiable and why, or not a fact of the target). A new schema field with neither
 * fails here, naming it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { coverage, fateOf, itemSegments, LEAF_FATES, leafName, profileLeaves } from '../../harness/doctor/facts.js';
import { profileSchema } from '../../harness/profile/schema.js';
import { runDoctor } from '../../harness/doctor/run.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { loadTrueProfile } from '../legal-targets/genome.js';
import { FIXED_GENOMES } from '../legal-targets/properties.js';

describe('every fact of the profile: verified by the doctor, or listed as not verifiable with its reason', () => {
  const items: string[][] = [];
  beforeAll(async () => {
    const genomes = [FIXED_GENOMES[0]!, FIXED_GENOMES[2]!, FIXED_GENOMES[FIXED_GENOMES.length - 1]!].map((f) => f.genome);
    for (const g of genomes) {
      const loaded = loadTrueProfile(g);
      const ref = await startEmbeddedReference(loaded.profile);
      try {
        const report = await runDoctor({ loaded, baseUrl: ref.url, webhooks: true });
        for (const i of report.items) items.push(itemSegments(i.path));
      } finally {
        await ref.close();
      }
    }
  }, 300_000);

  it('walks the schema', () => {
    const names = profileLeaves().map(leafName);
    expect(names).toContain('merchants.primary.id');
    expect(names).toContain('limits.payments.*.channels[].min');
    expect(names).toContain('internalFieldNames.*');
    expect(names.length).toBeGreaterThan(150);
  });

  it('gives each leaf a verifier (an item of the doctor naming it) or a stated fate', () => {
    const { lines, problems } = coverage(profileLeaves(), items);
    console.log(lines.join('\n'));
    expect(problems).toEqual([]);
  });

  it('names a new field of the schema that has neither', () => {
    const schema = structuredClone(profileSchema()) as { properties: { payouts: { properties: Record<string, unknown> } } };
    schema.properties.payouts.properties['settlementDays'] = { type: 'integer' };
    expect(coverage(profileLeaves(schema), items).problems).toEqual([
      'payouts.settlementDays: no item of the doctor names it, and harness/doctor/facts.ts LEAF_FATES gives no reason',
    ]);
  });

  it('states no fate for a field the schema does not have', () => {
    const leaves = profileLeaves();
    const stale = Object.keys(LEAF_FATES).filter((pattern) => !leaves.some((l) => fateOf(l)?.pattern === pattern));
    expect(stale).toEqual([]);
  });
});
