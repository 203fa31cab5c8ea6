/**
 * A stale status after a newer one (webhook.dup.stale-status, should): the receiver that lets it become the order's
 * status is warned against by that clause, through the inspection hook; one that keeps the newer status, or takes
 * the status after querying the order, passes; without the hook it is skipped, never passed.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/main.js';
import type { MerchantResult } from '../../harness/merchant/check.js';
import { runReceiver } from '../../harness/merchant/receiver/run.js';
import { merchantVerdict } from '../../harness/merchant/report.js';
import { type ReceiverBehaviour, startReceiver } from './receiver-app.js';

const ID = 'M100001';
const SECRET = 'sk_test_stale_receiver_3c7a9e1f5b';
const ENV = 'MPSI_TEST_STALE_RECEIVER_SECRET';
const CLAUSE = 'webhook.dup.stale-status';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  delete process.env[ENV];
});

async function judged(faults: string[], hooks?: Partial<ReceiverBehaviour>, hook = true): Promise<MerchantResult> {
  const rx = await startReceiver({ merchantId: ID, secret: SECRET, faults, hooks });
  closers.push(rx.close);
  const results = await runReceiver({
    url: rx.url,
    merchantId: ID,
    secret: SECRET,
    seed: 17,
    inspectUrl: hook ? rx.inspectUrl : undefined,
    only: [CLAUSE],
  });
  expect(results.map((r) => r.clauses[0])).toEqual([CLAUSE]);
  return results[0]!;
}

describe('a stale status arriving after a newer one', () => {
  it('a receiver that sets the order to the late PENDING fails the clause, as a should-level warning naming both statuses', async () => {
    const r = await judged(['stale-overwrites-newer']);
    expect(r.status).toBe('failed');
    expect(r.level).toBe('should');
    expect(r.findings.map((f) => [f.clause, f.code, f.level])).toEqual([[CLAUSE, 'STALE_STATUS_ACTED_ON', 'should']]);
    expect(r.findings[0]!.message).toMatch(/^refund \S+: PENDING, arriving after SUCCESS, became the order's acted-on status/);
    expect(r.evidence.some((l) => /PENDING \(sent before SUCCESS, arriving after it\)/.test(l))).toBe(true);
    expect(merchantVerdict([r]).exitCode).toBe(0);
  });

  it('a receiver that keeps the newer status passes', async () => {
    expect((await judged([])).status).toBe('passed');
  });

  it('a receiver that queries the order and takes the answered status passes, whatever the service answered', async () => {
    const r = await judged([], { onStale: 'query', queryOrder: (event) => (event === 'refund.updated' ? 'PENDING' : 'SUCCESS') });
    expect([r.status, r.reason]).toEqual(['passed', undefined]);
    expect(r.evidence.some((l) => l.includes('"queried":true'))).toBe(true);
  });

  it('without an inspection hook it is skipped, never passed', async () => {
    const r = await judged(['stale-overwrites-newer'], undefined, false);
    expect([r.status, r.reason]).toEqual(['skipped', expect.stringMatching(/^precondition: .*--inspect-url/)]);
  });

  it('receiver --inspect-url shows it in the certificate: the clause, its level and the statuses seen', async () => {
    process.env[ENV] = SECRET;
    const rx = await startReceiver({ merchantId: ID, secret: SECRET, faults: ['stale-overwrites-newer'] });
    closers.push(rx.close);
    const dir = mkdtempSync(join(tmpdir(), 'merchant-stale-'));
    const code = await main([
      'receiver',
      '--url',
      rx.url,
      '--inspect-url',
      rx.inspectUrl,
      '--merchant',
      ID,
      '--secret-env',
      ENV,
      '--reports',
      dir,
      '--seed',
      '5',
      '--check',
      CLAUSE,
      '--no-html',
    ]);
    expect(code).toBe(0);
    const md = readFileSync(join(dir, 'certificate.md'), 'utf8');
    expect(md).toContain(CLAUSE);
    expect(md).toContain('STALE_STATUS_ACTED_ON');
    expect(md).not.toContain(SECRET);
  });
});
