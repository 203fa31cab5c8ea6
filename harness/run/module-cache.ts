/**
 * vitest's transformed-module cache (`experimental.fsModuleCache`), kept between runs without two runs ever sharing a
 * folder that either of them writes. vitest clears its cache folder whole when the lockfile it finds above the kit
 * differs from the one it last saw: two installs of the kit on one machine, sharing one folder under the OS temp folder,
 * cleared it under each other's workers (ENOENT: every suite "could not run"). So each run transforms into a folder of
 * its own, seeded with hard links to the entries of a shared store, and publishes the entries it made into the store
 * when it ends. An entry's name is vitest's hash of everything its content depends on (the module's id and source,
 * vitest's version and configuration): an entry never changes once written. It is published under a temporary name
 * and renamed in the store's folder, so a reader sees a whole entry or none; a run reads through its own links, which
 * stay valid whatever happens to the store meanwhile. An entry that does not end with vitest's metadata is not
 * seeded (vitest transforms that module again) and not published: a damaged or missing entry costs a transform, never
 * the run. Any trouble with the store itself (not writable, another user's) means a run without the shared entries.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownFolder } from '../kit/ajv-cache.js';
import { COMPILED, KIT_ROOT } from '../kit/kit-files.js';

/** In a clone beside vitest's own cache (node_modules/.vite); installed, in the OS temp folder (the kit's may be read-only). */
export const MODULE_STORE_DIR = COMPILED
  ? join(tmpdir(), 'mpsi-conformance-modules')
  : join(KIT_ROOT, 'node_modules', '.vite', 'mpsi-modules');

/** A run's folder left behind by a run that did not end (killed) is removed by a later run after this long. */
const STALE_RUN_MS = 24 * 3600_000;

/** vitest's entry names: a SHA-1 in hex. */
const ENTRY_NAME = /^[0-9a-f]{40}$/;

/** What vitest appends to each entry: this marker, then its metadata as base64 JSON (cli-api's FileSystemModuleCache). */
const META_MARKER = '\n//# vitestCache=';

export interface RunModuleCache {
  /** The run's own folder: vitest's `fsModuleCachePath` (and, below it, its `cacheDir`). */
  dir: string;
  /** How many entries of the store were linked in. */
  seeded: number;
  /** Publishes the run's new entries into the store and removes the run's folder; never throws. */
  close(): void;
}

/** True when the file is a whole vitest entry: its metadata marker and a metadata that parses. */
export function wholeEntry(file: string): boolean {
  try {
    const text = readFileSync(file, 'utf8');
    const at = text.lastIndexOf(META_MARKER);
    if (at < 0) return false;
    const encoded = text.slice(at + META_MARKER.length);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
    const meta: unknown = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    return meta !== null && typeof meta === 'object';
  } catch {
    return false;
  }
}

/** A hard link where the file system allows one, a copy otherwise. */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

function entriesOf(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => ENTRY_NAME.test(n));
  } catch {
    return [];
  }
}

/** Removes the folders of runs that never ended; another run's live folder is far younger than STALE_RUN_MS. */
function pruneStaleRuns(runs: string): void {
  let names: string[];
  try {
    names = readdirSync(runs);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    try {
      if (now - statSync(join(runs, name)).mtimeMs > STALE_RUN_MS) rmSync(join(runs, name), { recursive: true, force: true });
    } catch {
      // another run pruned it first
    }
  }
}

/** Publishes one entry: linked under a temporary name in the store's folder, then renamed, so no reader sees half of it. */
function publish(from: string, entries: string, name: string): void {
  const part = join(entries, `.part-${randomBytes(8).toString('hex')}`);
  try {
    linkOrCopy(from, part);
    renameSync(part, join(entries, name));
  } catch {
    try {
      unlinkSync(part);
    } catch {
      // nothing was written
    }
  }
}

/** A folder for this run's module cache, seeded from the store at `store`. */
export function openRunModuleCache(store: string = MODULE_STORE_DIR): RunModuleCache {
  const entries = join(store, 'entries');
  const runs = join(store, 'runs');
  mkdirSync(entries, { recursive: true, mode: 0o700 });
  mkdirSync(runs, { recursive: true, mode: 0o700 });
  pruneStaleRuns(runs);
  const dir = join(runs, `${process.pid}-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir, { mode: 0o700 });
  // Code is run from these entries: only from a store of this user's that nobody else may write to.
  const trusted = ownFolder(store) && ownFolder(entries);
  const seededNames = new Set<string>();
  if (trusted) {
    for (const name of entriesOf(entries)) {
      const from = join(entries, name);
      if (!wholeEntry(from)) continue;
      try {
        linkOrCopy(from, join(dir, name));
        seededNames.add(name);
      } catch {
        // gone meanwhile (another run replaced it): vitest transforms that module
      }
    }
  }
  return {
    dir,
    seeded: seededNames.size,
    close() {
      if (trusted) {
        for (const name of entriesOf(dir)) {
          if (seededNames.has(name)) continue;
          const from = join(dir, name);
          if (wholeEntry(from)) publish(from, entries, name);
        }
      }
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // left for a later run's pruning
      }
    },
  };
}
