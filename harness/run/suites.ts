import { readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { SuiteDef } from '../check/define.js';
import { CODE_EXT, codeDir } from '../kit/kit-files.js';

const SUITES_DIR = codeDir('suites');

/** Every suite definition in suites/ (each `<concern>.ts` default-exports one), sorted by name. */
export async function loadSuites(dir: string = SUITES_DIR): Promise<SuiteDef[]> {
  const files = readdirSync(dir).filter((f) => f.endsWith(CODE_EXT) && !f.endsWith(`.test${CODE_EXT}`) && !f.endsWith('.d.ts'));
  const suites: SuiteDef[] = [];
  for (const f of files.sort()) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default?: SuiteDef };
    if (mod.default && Array.isArray(mod.default.checks)) suites.push(mod.default);
  }
  return suites;
}
