import { readFileSync } from 'node:fs';
import { kitFile } from '../kit/kit-files.js';

let cached: { name: string; version: string } | undefined;

/** The kit's name and version from its package.json. */
export function kitInfo(): { name: string; version: string } {
  if (!cached) {
    const pkg = JSON.parse(readFileSync(kitFile('package.json'), 'utf8')) as { name?: string; version?: string };
    cached = { name: pkg.name ?? 'mpsi-conformance', version: pkg.version ?? '0.0.0' };
  }
  return cached;
}
