import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderFaultsDoc } from '../../scripts/faults-doc.js';

describe('docs/FAULTS.md', () => {
  it('matches the fault catalogue (regenerate with npx tsx scripts/faults-doc.ts)', () => {
    const committed = readFileSync(new URL('../../docs/FAULTS.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderFaultsDoc());
  });
});
