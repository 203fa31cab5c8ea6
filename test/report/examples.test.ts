import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasClause } from '../../harness/clauses/registry.js';
import { loadExpectations } from '../../harness/report/expectations.js';
import mutualExclusion from '../../suites/mutual-exclusion.js';
import { ROOT } from '../cli/helpers.js';

/** The examples people copy must keep working with the kit as it is. */
describe('examples', () => {
  it('expectations.json is a valid expectations file naming real clauses and checks', () => {
    const x = loadExpectations(join(ROOT, 'examples', 'expectations.json'), {
      isClause: hasClause,
      checks: new Set(mutualExclusion.checks.map((c) => c.id)),
    });
    expect(x.entries.length).toBeGreaterThan(0);
    expect(x.entries.every((e) => e.comment.length > 0)).toBe(true);
    // It shows a dispute of the kit too, with its reason and link, beside the target's known deviations.
    expect(x.entries.find((e) => e.kind === 'disputed')?.link).toMatch(/^https:\/\//);
  });

  it('the GitHub Actions job gates on run, uploads the reports, and merges shards into one verdict', () => {
    const yml = readFileSync(join(ROOT, 'examples', 'github-actions.yml'), 'utf8');
    expect(yml).toContain('npx mpsi-conformance run');
    expect(yml).toMatch(/--shard \$\{\{ matrix\.shard \}\}\/\$SHARDS/);
    expect(yml).toMatch(/npx mpsi-conformance report \$\(.*--from/);
    expect(yml).toContain('npx mpsi-conformance verify-certificate reports/certificate.json');
    expect(yml).toContain('actions/upload-artifact');
    expect(yml).toContain('reports/junit.xml');
    expect(yml).not.toMatch(/\t/);
  });
});
