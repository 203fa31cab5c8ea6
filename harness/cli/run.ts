import { spawn } from 'node:child_process';
import { rmSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, intFlag, UsageError } from './args.js';
import { defaultRunConfig, RUN_CONFIG_ENV, type RunConfig } from '../run/config.js';
import { loadProfile, ProfileError } from '../profile/load.js';

export const RUN_HELP = `mpsi-conformance run [options]

  --profile FILE        target profile (default: fixtures/profiles/reference.json, the embedded reference)
  --target URL          base URL of the target (overrides the profile's baseUrl)
  --suite NAME          only this suite (repeatable, or comma-separated)
  --clause ID           only checks of this clause or clause prefix (repeatable)
  --seed N              fast-check seed (printed by every run; replays it)
  --runs N              fast-check runs per property check (default 20)
  --webhooks MODE       quick | full | off (default quick)
  --expectations FILE   known deviations of this target
  --reports DIR         where results, JUnit, Allure and the certificate go (default reports/)
  --fault NAME          switch on a fault in the embedded reference (repeatable; for demos)
`;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export async function runMain(argv: string[]): Promise<number> {
  const { flags, rest } = parseArgs(argv, {
    profile: 'value', target: 'value', suite: 'multi', clause: 'multi', seed: 'value', runs: 'value',
    webhooks: 'value', expectations: 'value', reports: 'value', fault: 'multi', help: 'bool',
  });
  if (flags.help) {
    process.stdout.write(RUN_HELP);
    return 0;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const cfg: RunConfig = defaultRunConfig();
  if (flags.profile) cfg.profilePath = resolve(String(flags.profile));
  if (flags.target) {
    const u = String(flags.target);
    if (!/^https?:\/\/[^/]+/.test(u)) throw new UsageError(`--target must be an http(s) URL, got ${JSON.stringify(u)}`);
    cfg.targetUrl = u.replace(/\/+$/, '');
  }
  cfg.suites = (flags.suite as string[] | undefined) ?? [];
  cfg.clauses = (flags.clause as string[] | undefined) ?? [];
  cfg.seed = intFlag(flags.seed, 'seed', -0x80000000, 0x7fffffff) ?? cfg.seed;
  cfg.numRuns = intFlag(flags.runs, 'runs', 1, 100_000) ?? cfg.numRuns;
  if (flags.webhooks) {
    const w = String(flags.webhooks);
    if (w !== 'quick' && w !== 'full' && w !== 'off') throw new UsageError(`--webhooks must be quick, full or off, got ${JSON.stringify(w)}`);
    cfg.webhooks = w;
  }
  if (flags.expectations) cfg.expectationsPath = resolve(String(flags.expectations));
  if (flags.reports) cfg.reportsDir = resolve(String(flags.reports));
  cfg.faults = (flags.fault as string[] | undefined) ?? [];

  try {
    const { profile } = loadProfile(cfg.profilePath);
    if (profile.baseUrl !== 'embedded' || cfg.targetUrl) await ensureReachable(cfg.targetUrl ?? profile.baseUrl);
    else if (cfg.faults.length > 0) {
      const { faultCatalogue } = await import('../../reference/index.js');
      const unknown = cfg.faults.filter((f) => !faultCatalogue.some((k) => k.name === f));
      if (unknown.length) throw new UsageError(`unknown fault ${unknown.join(', ')} (known: ${faultCatalogue.map((k) => k.name).join(', ')})`);
    }
  } catch (err) {
    if (err instanceof ProfileError || err instanceof UsageError) {
      process.stderr.write(`mpsi-conformance: cannot run: ${err.message.split('\n').join('\n  ')}\n`);
      return 2;
    }
    throw err;
  }

  // Stale results from an earlier run would mix into this run's report and certificate.
  for (const d of ['allure-results', 'results']) rmSync(resolve(cfg.reportsDir, d), { recursive: true, force: true });
  mkdirSync(cfg.reportsDir, { recursive: true });

  const code = await runVitest(cfg);
  return code === 0 ? 0 : 1;
}

async function ensureReachable(url: string): Promise<void> {
  try {
    await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
  } catch (err) {
    throw new UsageError(`target unreachable: ${url} (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message})`);
  }
}

function runVitest(cfg: RunConfig): Promise<number> {
  return new Promise((resolveCode) => {
    const child = spawn(process.execPath, [resolve(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', resolve(ROOT, 'vitest.conformance.config.ts')], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, [RUN_CONFIG_ENV]: JSON.stringify(cfg) },
    });
    child.on('exit', (code) => resolveCode(code ?? 1));
  });
}
