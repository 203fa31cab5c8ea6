/**
 * The merchant side's wall times, as a merchant's CI would see them: `receiver` (the CLI in its
 * own process, the document's 5-second acknowledgement time, --no-html) against the project's
 * correct test receiver, against the same receiver with the `hangs` fault, and against an
 * endpoint that accepts connections and never answers; and the overhead of `serve --audit`'s
 * observer on the sandbox (the same client requests with and without it).
 *
 *   npx tsx bench/merchant.ts [seed=20261122]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientAudit } from '../harness/merchant/audit/audit.js';
import { auditKeys, auditOperations } from '../harness/merchant/audit/keys.js';
import { loadProfile } from '../harness/profile/load.js';
import { REFERENCE_PROFILE } from '../harness/run/config.js';
import { startReference } from '../reference/index.js';
import { runClient } from '../test/merchant/client-app.js';
import { startReceiver } from '../test/merchant/receiver-app.js';
import { log, pool, ROOT, round, writeReport } from './support/report.js';

const SEED = Number(process.argv[2] ?? 20261122);
const SECRET = 'sk_test_bench_receiver_1f2e3d4c5b6a';

async function receiverCli(
  url: string,
  extra: string[] = [],
): Promise<{ seconds: number; exitCode: number; checks: Record<string, number> }> {
  const reports = mkdtempSync(join(tmpdir(), 'mpsi-bench-merchant-'));
  const t0 = performance.now();
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'harness/cli/main.ts'),
        'receiver',
        '--url',
        url,
        '--merchant',
        'M100001',
        '--secret-env',
        'BENCH_SECRET',
        '--seed',
        String(SEED),
        '--reports',
        reports,
        '--no-html',
        ...extra,
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, BENCH_SECRET: SECRET },
      },
    );
    child.on('exit', (c) => resolve(c ?? 1));
  });
  const seconds = round((performance.now() - t0) / 1000, 2);
  const checks: Record<string, number> = {};
  try {
    for (const c of (JSON.parse(readFileSync(join(reports, 'certificate.json'), 'utf8')) as { checks: { status: string }[] }).checks)
      checks[c.status] = (checks[c.status] ?? 0) + 1;
  } catch {
    // no certificate: the run could not be made
  }
  rmSync(reports, { recursive: true, force: true });
  return { seconds, exitCode, checks };
}

const rows: Record<string, unknown>[] = [];
for (const [label, faults, hook] of [
  ['correct receiver, inspection hook', [], true],
  ['correct receiver, no hook', [], false],
  ['receiver with the hangs fault', ['hangs'], false],
] as const) {
  const rx = await startReceiver({ merchantId: 'M100001', secret: SECRET, faults: [...faults] });
  const r = await receiverCli(rx.url, hook ? ['--inspect-url', rx.inspectUrl] : []);
  await rx.close();
  log(`receiver: ${label}: ${r.seconds} s, exit ${r.exitCode}, ${JSON.stringify(r.checks)}`);
  rows.push({ label, ...r });
}
const silent = createServer(() => {});
await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
const s = await receiverCli(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`);
silent.closeAllConnections();
silent.close();
log(`receiver: endpoint that never answers: ${s.seconds} s, exit ${s.exitCode}, ${JSON.stringify(s.checks)}`);
rows.push({ label: 'endpoint that never answers', ...s });

// serve --audit: the same 50 client sessions (5 requests each, 4 at a time) with and without the observer.
const loaded = loadProfile(REFERENCE_PROFILE);
const keys = auditKeys(loaded);
const primary = keys.find((k) => k.id === 'M100001')!;
const audit: Record<string, number> = {};
for (const withAudit of [false, true, false, true]) {
  const a = new ClientAudit(keys, auditOperations(loaded));
  const ref = await startReference(withAudit ? { onExchange: (x) => a.record(x) } : {});
  const t0 = performance.now();
  await pool(50, 4, (i) =>
    runClient({ baseUrl: ref.url, merchantId: 'M100001', testKey: primary.test, productionKey: primary.production!, seed: i }),
  );
  const ms = performance.now() - t0;
  await ref.close();
  audit[withAudit ? 'withAuditMs' : 'withoutAuditMs'] = round(ms, 0);
}
log(
  `serve --audit observer: 50 client sessions ${audit['withoutAuditMs']} ` +
    `ms without, ${audit['withAuditMs']} ms with (second of two rounds each)`,
);
log(
  `→ ${writeReport('merchant', {
    seed: SEED,
    command: 'npx tsx harness/cli/main.ts receiver --url URL --merchant M100001 --secret-env VAR --seed S --no-html',
    receiver: rows,
    audit,
  })}`,
);
