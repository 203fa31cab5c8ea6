import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Root of the kit (where package.json is). */
export const KIT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

let cached: { name: string; version: string } | undefined;

/** The kit's name and version from its package.json. */
export function kitInfo(): { name: string; version: string } {
  if (!cached) {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
    cached = { name: pkg.name ?? 'mpsi-conformance', version: pkg.version ?? '0.0.0' };
  }
  return cached;
}
