/**
 * docs/generated/ is generated from the code (scripts/gen-pages.ts): the command table and flag tables, the
 * profile's JSON Schema with each field's version and verifier, the clause registry with its checks and faults. Each
 * committed page must be exactly what the generator renders now, so a new flag, field, clause, check or fault that is
 * not in the pages fails here, saying the command that brings them up to date.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_PAGES, REGENERATE, generatedPath, renderPage } from '../../scripts/gen-pages.js';

describe('docs/generated/', () => {
  for (const page of GENERATED_PAGES)
    it(`${page} is what the code generates (if not, run: ${REGENERATE})`, async () => {
      let committed = '';
      try {
        committed = readFileSync(generatedPath(page), 'utf8');
      } catch {
        // missing: the comparison below fails with the command to run
      }
      const fresh = await renderPage(page);
      expect(committed === fresh, `docs/generated/${page} is stale: run ${REGENERATE} and commit the page`).toBe(true);
    }, 120_000);
});
