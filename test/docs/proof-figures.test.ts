/**
 * The figures of the kit's own proof that the documents quote are the ones proof/kit-proof.json holds: each quoted
 * line is what scripts/proof-figures.ts writes from the file (`npm run docs:generate` rewrites them).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUOTED_FIGURES, shippedProof, withFigures } from '../../scripts/proof-figures.js';

const root = join(import.meta.dirname, '..', '..');

describe("the kit's own proof as the documents quote it", () => {
  for (const q of QUOTED_FIGURES)
    it(`${q.file} quotes proof/kit-proof.json (if not, run: npm run docs:generate)`, () => {
      const { now, fresh } = withFigures(root, q, shippedProof());
      expect(now === fresh, `${q.file}: the line beginning ${q.startsWith} differs from proof/kit-proof.json`).toBe(true);
    });
});
