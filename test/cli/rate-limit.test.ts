/**
 * Throttling is never a verdict (issue 23): the whole quick suite against the reference behind a gateway that answers
 * HTTP 429 (HTML, Retry-After, unsigned) beyond 50 requests/s is CONFORMANT, exit 0, with the same checks passed as on
 * loopback, and the run says how many answers were throttled. Without the throttling path the same run exits 2 before
 * any check: the doctor takes the gateway's 429s for a wrong profile (with --no-doctor, issue 23 saw NON-CONFORMANT).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_PROFILE, runCli, tempReports } from './helpers.js';

interface Stored {
  checkId: string;
  status: string;
}

function statuses(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of readdirSync(join(dir, 'results'))) {
    if (!f.endsWith('.json')) continue;
    const r = JSON.parse(readFileSync(join(dir, 'results', f), 'utf8')) as Stored;
    out.set(r.checkId, r.status);
  }
  return out;
}

const passed = (m: Map<string, string>): string[] =>
  [...m]
    .filter(([, s]) => s === 'passed')
    .map(([id]) => id)
    .sort();

describe('the reference behind serve --rate-limit 50', () => {
  it('quick run (webhooks off): CONFORMANT, exit 0, the same checks passed as on loopback, throttled answers counted', async () => {
    const seed = '4242';
    // Webhooks off in both runs: the gateway stands in front of requests, not between the reference and the receiver,
    // and the webhook timing checks are not yet robust on a loaded machine (issue 23's fourth item: at a load average
    // of 20, webhook-ack's late-acknowledgement check failed on plain loopback too). What is compared is the gateway's
    // effect alone.
    const profile = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as Record<string, unknown> & { webhooks: Record<string, unknown> };
    const variant = (dir: string, embedded: Record<string, unknown>): string => {
      const file = join(dir, 'profile.json');
      writeFileSync(
        file,
        JSON.stringify(
          {
            ...profile,
            $schema: undefined,
            webhooks: { ...profile.webhooks, timeScale: 0.02 },
            embedded: { ...(profile.embedded as object), ...embedded },
          },
          null,
          2,
        ),
      );
      return file;
    };
    const loopback = tempReports('loopback');
    const plain = await runCli(
      ['run', '--profile', variant(loopback, {}), '--seed', seed, '--webhooks', 'off', '--no-html', '--reports', loopback],
      { timeoutMs: 240_000 },
    );
    expect(plain.code, plain.stdout.slice(-3000) + plain.stderr).toBe(0);

    const gated = tempReports('ratelimit');
    const r = await runCli(
      ['run', '--profile', variant(gated, { rateLimit: 50 }), '--seed', seed, '--webhooks', 'off', '--no-html', '--reports', gated],
      { timeoutMs: 400_000 },
    );
    expect(r.code, r.stdout.slice(-3000) + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Verdict: CONFORMANT/);

    const cert = JSON.parse(readFileSync(join(gated, 'certificate.json'), 'utf8')) as {
      verdict: string;
      exitCode: number;
      traffic: { throttledAnswers: number; throttleWaitMs: number };
    };
    expect(cert).toMatchObject({ verdict: 'conformant', exitCode: 0 });
    expect(cert.traffic.throttledAnswers).toBeGreaterThan(0);
    expect(cert.traffic.throttleWaitMs).toBeGreaterThan(0);
    const run = JSON.parse(readFileSync(join(gated, 'run.json'), 'utf8')) as { traffic?: { throttledAnswers: number } };
    expect(run.traffic?.throttledAnswers).toBe(cert.traffic.throttledAnswers);

    const a = statuses(loopback);
    const b = statuses(gated);
    expect(passed(b)).toEqual(passed(a));
    expect([...b.values()].filter((s) => s === 'failed' || s === 'inconclusive' || s === 'broken')).toEqual([]);
  }, 660_000);
});
