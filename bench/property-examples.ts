/**
 * The suites that hold property checks, run alone against the embedded reference on loopback and
 * with a 100 ms round trip (`embedded.latencyMs` 50, as `serve --latency 50`), no doctor, no webhooks: the wall time
 * of the run and the time of its property checks, which is what running independent examples at once changes.
 * Give another clone of the kit as ROOT to measure it the same way (before/after in one sitting).
 *
 *   npx tsx bench/property-examples.ts [ROOT=.] [conditions=loopback,latency] [seed=1] [suites=all that hold properties]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { log, round, writeReport } from './support/report.js';
import { readResults } from '../harness/run/results.js';

const KIT = resolve(process.argv[2] ?? '.');
const CONDITIONS = (process.argv[3] ?? 'loopback,latency').split(',');
const SEED = Number(process.argv[4] ?? 1);
const SUITES =
  process.argv[5] ?? 'amounts,signing,price-points,idempotency,mutual-exclusion,payment-methods,refund-errors,refunds,payout-errors';

const base = JSON.parse(readFileSync(join(KIT, 'fixtures/profiles/reference.json'), 'utf8')) as Record<string, unknown>;
const source = (id: string) => readFileSync(join(KIT, 'suites', `${id.split('/')[0]}.ts`), 'utf8');

const outcomes = [];
for (const c of CONDITIONS) {
  const dir = mkdtempSync(join(tmpdir(), `mpsi-examples-${c}-`));
  const profile = { ...base };
  delete profile.$schema;
  if (c === 'latency') profile.embedded = { ...(profile.embedded as object), latencyMs: 50 };
  writeFileSync(join(dir, 'profile.json'), JSON.stringify(profile));
  const reports = join(dir, 'reports');
  const load1mAtStart = round(loadavg()[0]!, 2);
  const t0 = performance.now();
  const args = ['run', '--profile', join(dir, 'profile.json'), '--seed', String(SEED), '--suite', SUITES];
  const exitCode = await new Promise<number>((done) => {
    const child = spawn(
      process.execPath,
      [join(KIT, 'bin/mpsi-conformance.js'), ...args, '--reports', reports, '--no-html', '--no-doctor'],
      {
        cwd: KIT,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    child.on('exit', (code) => done(code ?? 1));
  });
  const seconds = round((performance.now() - t0) / 1000, 1);
  const results = readResults(join(reports, 'results'));
  rmSync(dir, { recursive: true, force: true });
  // A check is a property check when its suite's source calls property(...) in it: counted by the title it declares.
  const isProperty = (r: { checkId: string; title: string }) => {
    const s = source(r.checkId);
    const at = s.indexOf(JSON.stringify(r.title).slice(1, -1));
    const next = s.indexOf('title:', at + 1);
    return at >= 0 && s.slice(at, next < 0 ? undefined : next).includes('await property(');
  };
  const props = results.filter(isProperty);
  const o = {
    condition: c,
    kit: KIT,
    load1mAtStart,
    seconds,
    exitCode,
    checks: results.length,
    passed: results.filter((r) => r.status === 'passed').length,
    failed: results.filter((r) => r.status === 'failed').map((r) => r.checkId),
    propertyChecks: props.length,
    propertySeconds: round(props.reduce((a, r) => a + r.durationMs, 0) / 1000, 1),
    longestProperty: props.length ? round(Math.max(...props.map((r) => r.durationMs)) / 1000, 1) : 0,
  };
  outcomes.push(o);
  log(
    `${c} (${KIT}): ${o.seconds} s wall (load ${o.load1mAtStart}), exit ${o.exitCode}, ${o.passed}/${o.checks} passed` +
      `${o.failed.length ? ` (failed: ${o.failed.join(', ')})` : ''}; ${o.propertyChecks} property checks: ` +
      `Σ ${o.propertySeconds} s, longest ${o.longestProperty} s`,
  );
}
log(`→ ${writeReport('property-examples', { seed: SEED, outcomes })}`);
