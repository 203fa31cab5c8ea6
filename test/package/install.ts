/**
 * Packs the kit and installs the tarball into a fresh project, offline, as a user's repository would
 * get it. Shared by test/package/install.test.ts and bench/package-start.ts.
 *
 * Offline: `npm ci` of the kit filled the npm cache with every dependency's tarball, but not with the
 * registry's metadata (packuments) that a lockfile-less `npm install <tarball>` needs to pick versions.
 * So the project gets the lockfile a user's repository would have: the kit's own lockfile entries for
 * its runtime dependencies (dev-only ones left out) placed where the chosen layout puts them, plus the
 * tarball. `npm ci --offline` then installs from the cache alone; a request to the registry fails.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

export const KIT = resolve(import.meta.dirname, '../..');

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
  dependencies?: Record<string, string>;
  [k: string]: unknown;
}

/** How the package manager lays the kit's dependencies out. */
export type Layout =
  /** npm's default: every dependency hoisted to the project's node_modules. */
  | 'hoisted'
  /** npm's --install-strategy=linked: pnpm's isolated layout (a store, the kit a symlink into it, no hoisting). */
  | 'linked'
  /** `npm i -g`'s layout: the dependencies nested inside the kit's own node_modules. */
  | 'nested';

export interface Packed {
  tarball: string;
  files: number;
  bytes: number;
  ms: number;
}

/**
 * npm's environment for the installs: every request goes through a proxy on a closed loopback port, so
 * one that slipped past --offline would fail instead of quietly using the network. (The registry stays
 * the default: the cache is keyed by its URLs.)
 */
export const OFFLINE_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  npm_config_offline: 'true',
  npm_config_proxy: 'http://127.0.0.1:9/',
  npm_config_https_proxy: 'http://127.0.0.1:9/',
  npm_config_noproxy: '',
  npm_config_update_notifier: 'false',
};

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: OFFLINE_ENV });
}

/** `npm pack` of the kit (its prepack builds dist/) into dir. */
export function packKit(dir: string): Packed {
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const out = JSON.parse(npm(['pack', '--json', '--pack-destination', dir], KIT)) as Array<{
    filename: string;
    size: number;
    entryCount: number;
  }>;
  const info = out[0]!;
  return { tarball: join(dir, basename(info.filename)), files: info.entryCount, bytes: info.size, ms: performance.now() - t0 };
}

/** A project whose only dependency is the packed kit, installed offline in the given layout; resolves to the install time (ms). */
export async function installKit(project: string, tarball: string, layout: Layout): Promise<number> {
  mkdirSync(project, { recursive: true });
  const kitLock = JSON.parse(readFileSync(join(KIT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const kitPkg = JSON.parse(readFileSync(join(KIT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies: Record<string, string>;
    bin: Record<string, string>;
    engines: Record<string, string>;
  };
  const spec = `file:${tarball}`;
  const pkg = { name: 'user-project', version: '1.0.0', private: true, dependencies: { [kitPkg.name]: spec } };
  const packages: Record<string, LockEntry> = {
    '': { name: pkg.name, version: pkg.version, dependencies: pkg.dependencies },
    [`node_modules/${kitPkg.name}`]: {
      version: kitPkg.version,
      resolved: spec,
      dependencies: kitPkg.dependencies,
      bin: kitPkg.bin,
      engines: kitPkg.engines,
    },
  };
  const base = layout === 'nested' ? `node_modules/${kitPkg.name}/` : '';
  for (const [path, entry] of Object.entries(kitLock.packages)) {
    if (path === '' || entry.dev || entry.link) continue;
    const { devOptional: _, ...rest } = entry;
    packages[`${base}${path}`] = entry.devOptional ? { ...rest, optional: true } : rest;
  }
  writeFileSync(join(project, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(
    join(project, 'package-lock.json'),
    `${JSON.stringify({ name: pkg.name, version: pkg.version, lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
  const t0 = performance.now();
  const strategy = layout === 'linked' ? ['--install-strategy=linked'] : [];
  await promisify(execFile)('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...strategy], {
    cwd: project,
    env: OFFLINE_ENV,
    maxBuffer: 32 << 20,
  });
  return performance.now() - t0;
}
