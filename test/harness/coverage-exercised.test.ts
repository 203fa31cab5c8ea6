import { describe, expect, it } from 'vitest';
import { defineSuite } from '../../harness/check/define.js';
import { clauseCoverage } from '../../harness/proof/coverage.js';
import type { FaultRow } from '../../harness/proof/kill-matrix.js';
import { clauses } from '../../harness/clauses/registry.js';

describe('clause coverage', () => {
  const suite = defineSuite('x', { area: 'refunds', resource: 'refund' }, [
    { title: 'a', clause: ['err.ref.failed', 'err.ref.codes'], run: async () => {} },
  ]);
  const fault = { name: 'f', clause: 'err.ref.failed', verdict: 'killed' } as unknown as FaultRow;
  const reg = clauses.filter((c) => c.id === 'err.ref.failed' || c.id === 'err.ref.codes');

  it('shows, per clause, the checks that exercised it on the conformant reference, not those that name it', () => {
    const r = clauseCoverage([suite], [fault], {}, reg, { 'err.ref.failed': ['x/a'] });
    expect(r.rows.find((x) => x.id === 'err.ref.failed')).toMatchObject({ status: 'proved', checks: ['x/a'], exercisedBy: ['x/a'] });
    expect(r.rows.find((x) => x.id === 'err.ref.codes')).toMatchObject({ checks: ['x/a'], exercisedBy: [] });
  });

  it('says nothing about exercise when the proof did not run the reference', () => {
    expect(clauseCoverage([suite], [fault], {}, reg).rows[0]!.exercisedBy).toBeUndefined();
  });
});
