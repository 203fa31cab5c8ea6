/**
 * The offline check's scans of inlined documents (offline.ts), kept on disk between runs under a name that hashes the
 * document, its type and the scan's patterns: Allure's app script (2.6 MB) is scanned once per Allure version, not
 * once per report. A cached entry says what a scan found, so it is read only from a folder of the user's own that
 * others cannot write (as the ajv cache is); any trouble with it means a scan, never a different answer.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownFolder } from '../kit/ajv-cache.js';
import { COMPILED, KIT_ROOT } from '../kit/kit-files.js';
import type { ScanCache, ThirdPartyReference } from './offline.js';

/** In a clone beside vitest's own cache (node_modules/.vite); installed, in the OS temp folder (the kit's may be read-only). */
export const SCAN_CACHE_DIR = COMPILED
  ? join(tmpdir(), 'mpsi-conformance-scan-cache')
  : join(KIT_ROOT, 'node_modules', '.vite', 'mpsi-scan');

type Found = Omit<ThirdPartyReference, 'where'>[];

function isFound(v: unknown): v is Found {
  return Array.isArray(v) && v.every((r) => typeof r?.context === 'string' && typeof r?.url === 'string');
}

export function diskScanCache(dir: string = SCAN_CACHE_DIR): ScanCache {
  const file = (key: string) => join(dir, `${key.replace(/[^0-9a-f]/g, '').slice(0, 64)}.json`);
  return {
    get(key) {
      try {
        if (!ownFolder(dir)) return undefined;
        const v: unknown = JSON.parse(readFileSync(file(key), 'utf8'));
        return isFound(v) ? v : undefined;
      } catch {
        return undefined;
      }
    },
    set(key, found) {
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        // Written aside and renamed: a report made at the same time never reads half a file.
        const part = `${file(key)}.${process.pid}-${randomBytes(6).toString('hex')}.part`;
        writeFileSync(part, JSON.stringify(found));
        renameSync(part, file(key));
      } catch {
        // a cache that cannot be written only costs the next report a scan
      }
    },
  };
}
