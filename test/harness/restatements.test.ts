/**
 * A restatement is a claim to prove: a clause the registry lists as restated by others is credited only when faults of
 * its own exist and each is killed by a check of a restating clause; and the kill matrix reports every clause a fault
 * made fail, its own and the knock-on ones.
 */
import { describe, expect, it } from 'vitest';
import { defineSuite } from '../../harness/check/define.js';
import type { CheckResult } from '../../harness/check/run.js';
import { clauses, restatements } from '../../harness/clauses/registry.js';
import { clauseCoverage } from '../../harness/proof/coverage.js';
import { checksNaming, classify, type FaultInfo, type FaultRow, killingClauses, webhookModeFor } from '../../harness/proof/kill-matrix.js';
import { faultCatalogue } from '../../reference/index.js';

const restating = defineSuite('x', { area: 'webhooks', resource: 'payment' }, [
  { title: 'a', clause: ['event.none.expiry'], run: async () => {} },
  { title: 'b', clause: ['event.none.chargeback'], run: async () => {} },
]);
const reg = clauses.filter((c) => ['state.no-webhook.expiry-chargeback', 'event.none.expiry', 'event.none.chargeback'].includes(c.id));
const row = (name: string, clause: string, verdict: FaultRow['verdict']) => ({ name, clause, verdict }) as unknown as FaultRow;

describe('restatements', () => {
  it('credits a restated clause when its own fault is killed by the restating checks', () => {
    const r = clauseCoverage([restating], [row('f', 'state.no-webhook.expiry-chargeback', 'killed')], {}, reg);
    expect(r.rows.find((x) => x.id === 'state.no-webhook.expiry-chargeback')).toMatchObject({ status: 'restated' });
  });

  it('does not credit a restated clause without a fault of its own, even when every restating clause is proved', () => {
    const faults = [row('e', 'event.none.expiry', 'killed'), row('c', 'event.none.chargeback', 'killed')];
    const r = clauseCoverage([restating], faults, {}, reg);
    expect(r.rows.find((x) => x.id === 'event.none.expiry')?.status).toBe('proved');
    expect(r.rows.find((x) => x.id === 'state.no-webhook.expiry-chargeback')?.status).not.toBe('restated');
    expect(r.violations.map((v) => v.id)).toContain('state.no-webhook.expiry-chargeback');
  });

  it('does not credit a restated clause one of whose faults survived', () => {
    const faults = [row('f', 'state.no-webhook.expiry-chargeback', 'killed'), row('g', 'state.no-webhook.expiry-chargeback', 'survived')];
    expect(clauseCoverage([restating], faults, {}, reg).rows[0]!.status).not.toBe('restated');
  });

  it('gives every restated clause of the registry a fault of its own in the catalogue', () => {
    const without = Object.keys(restatements).filter((id) => !faultCatalogue.some((f) => f.clause === id));
    expect(without).toEqual([]);
  });

  it("runs the restating clauses' checks against a fault of a restated clause, with their schedule", () => {
    expect(killingClauses('state.no-webhook.expiry-chargeback')).toEqual([
      'state.no-webhook.expiry-chargeback',
      'event.none.expiry',
      'event.none.chargeback',
    ]);
    expect(checksNaming([restating], 'state.no-webhook.expiry-chargeback').map((c) => c.check.id)).toEqual(['x/a', 'x/b']);
    expect(webhookModeFor('limit.attempts')).toBe('full');
  });
});

describe('kill matrix findings', () => {
  const fault = { name: 'f', clause: 'payout.fields', doc: '' } as FaultInfo;
  const failed = (checkId: string, ...charged: string[]) =>
    ({ checkId, status: 'failed', findings: charged.map((clause) => ({ clause, code: 'X' })) }) as unknown as CheckResult;

  it('reports every clause a fault made fail, its own and the knock-on ones', () => {
    const c = classify(fault, [failed('p/a', 'payout.fields', 'state.payout.values'), failed('p/b', 'state.payout.values')]);
    expect(c.killedBy).toEqual(['p/a']);
    expect(c.failedClauses).toEqual({ 'payout.fields': ['p/a'], 'state.payout.values': ['p/a', 'p/b'] });
  });
});
