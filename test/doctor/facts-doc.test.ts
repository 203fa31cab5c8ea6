import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FACTS_HEADING, renderFactsSection } from '../../scripts/profile-facts-doc.js';

describe('docs/PROFILE.md lists what verifies each fact', () => {
  it('matches the schema and harness/doctor/facts.ts (regenerate with npx tsx scripts/profile-facts-doc.ts)', () => {
    const doc = readFileSync(new URL('../../docs/PROFILE.md', import.meta.url), 'utf8');
    expect(doc.slice(doc.indexOf(FACTS_HEADING))).toBe(renderFactsSection());
  });
});
