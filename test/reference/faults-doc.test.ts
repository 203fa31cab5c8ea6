import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultBehaviour } from '../../reference/behaviour.js';
import { behaviourHooks, renderFaultsDoc } from '../../scripts/faults-doc.js';

describe('docs/FAULTS.md', () => {
  it('matches the fault catalogue (regenerate with npx tsx scripts/faults-doc.ts)', () => {
    const committed = readFileSync(new URL('../../docs/FAULTS.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderFaultsDoc());
  });

  it('lists every hook a fault may replace, each with a line saying what it decides', () => {
    const hooks = behaviourHooks();
    expect(hooks.map((h) => h.name).sort()).toEqual(Object.keys(defaultBehaviour).sort());
    expect(hooks.filter((h) => h.doc === '').map((h) => h.name)).toEqual([]);
  });
});
