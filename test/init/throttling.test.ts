/**
 * Throttling in init and doctor: behind a gateway that answers HTTP 429 beyond a rate, init
 * notices, says so, paces itself and writes `http.rateLimit` into the draft with its evidence (the rate at which
 * the throttling began); the doctor notices and advises it, without a WRONG item (throttling is never a verdict).
 * Without the gateway neither proposes a rate.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import type { Profile } from '../../harness/profile/types.js';
import { startReference } from '../../reference/index.js';
import { callMain } from '../cli/helpers.js';
import { trueProfile } from '../legal-targets/genome.js';

const SECRET_ENV = 'INIT_THROTTLING_SECRET';
// Below the rate init probes at even on a loaded machine (about 40 a second on this one), so the gateway throttles it.
const RATE = 20;

async function initAgainst(rateLimit: number | undefined): Promise<{ code: number | null; stdout: string; draft: Profile; todo: string }> {
  const truth = trueProfile({ readings: [] });
  const ref = await startReference({ port: 0, timeScale: 0.005, rateLimit });
  const out = join(mkdtempSync(join(tmpdir(), 'mpsi-init-throttle-')), 'draft.json');
  process.env[SECRET_ENV] = truth.merchants.primary.secret!;
  try {
    const r = await callMain([
      'init',
      '--target',
      ref.url,
      '--merchant',
      truth.merchants.primary.id,
      '--secret-env',
      SECRET_ENV,
      '--out',
      out,
    ]);
    return { ...r, draft: JSON.parse(readFileSync(out, 'utf8')) as Profile, todo: readFileSync(`${out}.todo.md`, 'utf8') };
  } finally {
    delete process.env[SECRET_ENV];
    await ref.close();
  }
}

describe('init behind a throttling gateway', () => {
  it(`notices the 429s, says so, and writes http.rateLimit (at most the gateway's ${RATE}) with the onset as evidence`, async () => {
    const r = await initAgainst(RATE);
    expect(r.code, r.stdout.slice(-2000)).toBe(0);
    expect(r.stdout).toMatch(/the target throttles: HTTP 429\/503 answers after \d+ requests/);
    const rate = r.draft.http?.rateLimit;
    expect(rate).toBeDefined();
    // The gateway let the requests of the second before the first 429 through: the proposal is that count, not above the limit.
    expect(rate!).toBeLessThanOrEqual(RATE);
    expect(rate!).toBeGreaterThanOrEqual(RATE - 3);
    expect(r.todo).toMatch(new RegExp(`\`http\\.rateLimit\` = \`${rate}\` — the target throttled init from request \\d+ on`));
  }, 180_000);

  it('proposes no rate when nothing throttles it', async () => {
    const r = await initAgainst(undefined);
    expect(r.code).toBe(0);
    expect(r.draft.http?.rateLimit).toBeUndefined();
    expect(r.stdout).not.toMatch(/throttles/);
  }, 180_000);
});

describe('the doctor behind a throttling gateway', () => {
  it('advises http.rateLimit as a warning, and calls nothing WRONG for it', async () => {
    const truth = trueProfile({ readings: [] });
    const ref = await startReference({ port: 0, timeScale: truth.webhooks!.timeScale, rateLimit: RATE });
    try {
      const report = await runDoctor({ loaded: parseProfile(JSON.stringify(truth), 'true.json'), baseUrl: ref.url, webhooks: false });
      const item = report.items.find((i) => i.path === 'http.rateLimit');
      expect(item?.status).toBe('warning');
      expect(item?.answered).toMatch(/throttled from request \d+ on/);
      const proposed = Number(/"rateLimit": (\d+)/.exec(item?.fix ?? '')?.[1]);
      // Sent at once, the doctor's requests tell the limit less sharply than init's: never above it, within half of it.
      expect(proposed).toBeLessThanOrEqual(RATE);
      expect(proposed).toBeGreaterThanOrEqual(RATE / 2);
      expect(report.items.filter((i) => i.status === 'wrong').map((i) => `${i.path}: ${i.answered}`)).toEqual([]);
      expect(report.exitCode).toBe(0);
    } finally {
      await ref.close();
    }
  }, 180_000);

  it('advises nothing when nothing throttles it', async () => {
    const truth = trueProfile({ readings: [] });
    const ref = await startReference({ port: 0, timeScale: truth.webhooks!.timeScale });
    try {
      const report = await runDoctor({ loaded: parseProfile(JSON.stringify(truth), 'true.json'), baseUrl: ref.url, webhooks: false });
      expect(report.items.find((i) => i.path === 'http.rateLimit')).toBeUndefined();
    } finally {
      await ref.close();
    }
  }, 180_000);
});
