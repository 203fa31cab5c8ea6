/**
 * version.no-camelcase on a profile that declares webhooks: where the target does not require notify_url (a card payment,
 * on the reference), a camelCase notifyUrl is observed through the webhook it would bring, never left to a skip saying
 * webhooks are missing. The check passes on the reference and fails on the fault that takes camelCase names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../../harness/profile/load.js';
import type { Profile } from '../../harness/profile/types.js';
import { startEmbeddedReference } from '../../harness/run/embedded.js';
import { runInProcess } from '../../harness/run/inprocess.js';
import naming from '../../suites/naming.js';
import { ROOT } from '../cli/helpers.js';

const TITLE = 'sends no webhook to a notify_url given only under its camelCase name notifyUrl';

async function runAgainst(faults: string[]) {
  const truth = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'profiles', 'reference.json'), 'utf8')) as Profile;
  const ref = await startEmbeddedReference(truth, faults);
  try {
    const loaded = parseProfile(JSON.stringify(truth), 'reference.json', {});
    const res = await runInProcess({
      loaded,
      baseUrl: ref.url,
      suites: [naming],
      settings: { seed: 1, numRuns: 5, webhooks: 'quick' },
      filter: (_s, c) => c.title === TITLE || c.clauses.includes('version.no-camelcase'),
    });
    return res.map((r) => r.result);
  } finally {
    await ref.close();
  }
}

describe('a camelCase notifyUrl on a profile with webhooks', () => {
  it('is observed through the webhook: passed on the reference, no check of the clause skipped for want of webhooks', async () => {
    const results = await runAgainst([]);
    const mine = results.find((r) => r.title === TITLE);
    expect(mine?.status).toBe('passed');
    for (const r of results) expect(r.reason ?? '').not.toMatch(/without webhooks/);
  }, 60_000);

  it('fails on the fault that takes camelCase names, charged to the naming clause', async () => {
    const mine = (await runAgainst(['accept-camelcase'])).find((r) => r.title === TITLE);
    expect(mine?.status).toBe('failed');
    expect(mine?.findings.map((f) => f.code)).toContain('CAMELCASE_FIELD_USED');
    expect(mine?.findings.map((f) => f.clause)).toContain('conv.snake-case');
  }, 60_000);
});
