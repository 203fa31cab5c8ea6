/**
 * init on a target whose card payment path carries the merchant order number (`/payments/{merchant_order_no}/card`) and on
 * one whose payout creation path carries the merchant payout number (`/payouts/{merchant_payout_no}/submit`): init's search
 * of fixed paths cannot reach either, so it writes no value of the part it could not learn and names each in a TODO with
 * why (harness/init/todos.ts addAbsentPartTodos): no fact of the true profile left out unsaid, 0 wrong values.
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { ShapesGene } from '../../fixtures/arbitraries/genes/shapes.js';
import { trueProfile } from './genome.js';
import { initOverGenome } from './init.js';

const shaped = (shapes: ShapesGene): TargetGenome => ({ readings: [], target: { ...REFERENCE_GENES, shapes } });

describe('init on a target whose creation path carries the merchant number', () => {
  it.each([
    { gene: 'cardPaymentNumbered', shapes: { cardPaymentNumbered: true } as ShapesGene, part: 'cardPayment', endpoint: 'cardPayment' },
    { gene: 'payoutCreateNumbered', shapes: { payoutCreateNumbered: true } as ShapesGene, part: 'payouts', endpoint: 'payoutCreate' },
  ] as const)(
    '$gene: no wrong value, and a TODO naming the part it could not learn',
    async ({ shapes, part, endpoint }) => {
      const g = shaped(shapes);
      // The target really is that shape: its true profile says the templated path.
      expect(trueProfile(g).endpoints[endpoint]).toMatch(/\{merchant_(order|payout)_no\}/);
      const r = await initOverGenome(g);
      expect(r.exit, r.stdout.slice(-600)).toBe(0);
      expect(r.selfReported).toBe(false);
      expect(r.wrong).toEqual([]);
      expect(r.untold).toEqual([]);
      expect(r.draft?.[part]).toBeUndefined();
      const todo = r.todos.find((t) => t.path === part);
      expect(todo?.what).toMatch(/carrying the merchant (order|payout) number/);
      if (part === 'cardPayment') expect(r.todos.map((t) => t.path)).toContain('methods.card');
    },
    300_000,
  );
});
