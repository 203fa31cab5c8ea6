/**
 * init on a target whose card payment path carries the merchant order number (`/payments/{merchant_order_no}/card`) and on
 * one whose payout creation path carries the merchant payout number (`/payouts/{merchant_payout_no}/submit`): init tries
 * those shapes after the fixed ones (harness/init/candidates.ts NUMBERED_CANDIDATES) and writes the path once a record it
 * created was served through it (served.ts), with the part it learnt there; whatever it leaves out is a TODO
 * (test/init/absent-parts.test.ts): no fact of the true profile left out unsaid, 0 wrong values.
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
    '$gene: the templated path and its part learnt, no wrong value, nothing left out unsaid',
    async ({ shapes, part, endpoint }) => {
      const g = shaped(shapes);
      // The target really is that shape: its true profile says the templated path.
      expect(trueProfile(g).endpoints[endpoint]).toMatch(/\{merchant_(order|payout)_no\}/);
      const r = await initOverGenome(g);
      expect(r.exit, r.stdout.slice(-600)).toBe(0);
      expect(r.selfReported).toBe(false);
      expect(r.wrong).toEqual([]);
      expect(r.untold).toEqual([]);
      expect(r.draft?.endpoints[endpoint]).toBe(trueProfile(g).endpoints[endpoint]);
      expect(r.draft?.[part]).toBeDefined();
      expect(r.todos.map((t) => t.path)).not.toContain(part);
    },
    300_000,
  );
});
