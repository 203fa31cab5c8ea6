/**
 * Receiver certification holds for every hostile receiver: one that streams a reply without end,
 * resets or closes every connection it accepts, answers bytes that are not HTTP, or dribbles its
 * reply. Each is reachable (only a refused or unroutable connection is "unreachable", exit 2) and
 * broken: every run ends with a certificate (exit 1) naming what it did, each check within the
 * document's 5 s and the kit's 1 s grace (and the time our own loaded process may lose).
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unreachableReason } from '../../harness/cli/receiver.js';
import { main } from '../../harness/cli/main.js';
import { HOSTILE_DOC, type HostileKind, startHostile } from './hostile-receivers.js';

const ID = 'M100001';
const ENV = 'MPSI_TEST_HOSTILE_SECRET';
/** The deadline of one delivery (5 s and the kit's 1 s grace), and what a loaded machine may add to when it is noticed. */
const DEADLINE_MS = 6000;
const LOAD_MS = 2000;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  delete process.env[ENV];
});

interface Certified {
  code: number;
  checks: { checkId: string; status: string; durationMs: number; findings: { message: string }[]; reason?: string }[];
  dir: string;
}

/** One `receiver` run against a fresh hostile receiver; `only` narrows the checks (each is one delivery long on these). */
async function certify(kind: HostileKind, only: string[] = []): Promise<Certified> {
  const rx = await startHostile(kind);
  closers.push(rx.close);
  process.env[ENV] = 'sk_test_hostile_3c5e7a9b1d2f';
  const dir = mkdtempSync(join(tmpdir(), `hostile-${kind}-`));
  const code = await main([
    'receiver',
    ...['--url', rx.url, '--merchant', ID, '--secret-env', ENV, '--reports', dir, '--seed', '5', '--no-html'],
    ...only.flatMap((c) => ['--check', c]),
  ]);
  const json = existsSync(join(dir, 'certificate.json'))
    ? (JSON.parse(readFileSync(join(dir, 'certificate.json'), 'utf8')) as { checks: Certified['checks'] })
    : { checks: [] };
  return { code, checks: json.checks, dir };
}

function expectCertified(kind: HostileKind, c: Certified): void {
  expect(c.code, `${kind}: exit code`).toBe(1);
  expect(existsSync(join(c.dir, 'certificate.md'))).toBe(true);
  expect(existsSync(join(c.dir, 'junit.xml'))).toBe(true);
  const said = c.checks.flatMap((k) => [...k.findings.map((f) => f.message), k.reason ?? '']);
  expect(
    said.some((m) => HOSTILE_DOC[kind].finding.test(m)),
    `${kind}: a finding says what the receiver did`,
  ).toBe(true);
  for (const k of c.checks) expect(k.durationMs, `${kind}: ${k.checkId}`).toBeLessThan(DEADLINE_MS + LOAD_MS);
}

/** One check of each shape: acknowledgement, time, a forgery's twin, input refused before parsing. */
const SAMPLE = [
  'acknowledges-every-valid-payment-updated',
  'replies-within-5-seconds',
  'refuses-a-signature-made-with-another-key',
  'refuses-an-unsigned-body-that-is-not-json',
];

describe('receiver certification of hostile receivers', () => {
  it('only a refused or unroutable connection is unreachable; a reset or a close is the receiver answering', () => {
    for (const code of ['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'ETIMEDOUT'])
      expect(unreachableReason(code)).toBe(code);
    for (const code of ['ECONNRESET', 'EPIPE', undefined]) expect(unreachableReason(code)).toBeUndefined();
  });

  it.each(['streamer', 'slow-loris'] as const)(
    'a %s: each check ends at the deadline and says the receiver was still sending',
    async (kind) => {
      const c = await certify(kind, SAMPLE);
      expectCertified(kind, c);
      expect(c.checks.length).toBe(SAMPLE.length);
      const ack = c.checks.find((k) => k.checkId.includes('payment-updated'))!;
      expect(ack.findings[0]!.message).toMatch(/still sending after \d+ bytes at the deadline, 5 s \(the document's rule\)/);
    },
    30_000,
  );

  // The resetter's reset could reach the reachability probe before its connect event: run after run, never "unreachable".
  it.each([
    ['resetter', 10],
    ['closer', 3],
    ['garbage', 3],
  ] as const)(
    'a %s gets a failing certificate naming what it did, every run (%i runs, the first with every check)',
    async (kind, runs) => {
      for (let i = 0; i < runs; i++) {
        const c = await certify(kind, i === 0 ? [] : SAMPLE);
        expectCertified(kind, c);
        await closers.pop()?.();
      }
    },
    120_000,
  );
});
