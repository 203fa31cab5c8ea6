/**
 * allure-results/ holds a few thousand small files (a result per check, an attachment per exchange): on
 * disk and in a CI artifact they weigh several times their bytes. Once the page is built they are packed
 * into one gzipped file beside the page, and unpacked again when a report is rebuilt from the folder
 * (`mpsi-conformance report`, shard merges).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

interface Pack {
  format: 'mpsi-allure-results/1';
  /** File name → content, base64 (attachments may be binary). */
  files: Record<string, string>;
}

/** Packs `dir` into `packFile` and removes `dir`; returns the pack's size in bytes, or undefined when there is no `dir`. */
export function packAllureResults(dir: string, packFile: string): number | undefined {
  if (!existsSync(dir)) return undefined;
  const files: Record<string, string> = {};
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    // allure-vitest writes a flat folder; anything else is not ours to pack.
    if (!statSync(p).isFile()) return undefined;
    files[f] = readFileSync(p).toString('base64');
  }
  const bytes = gzipSync(JSON.stringify({ format: 'mpsi-allure-results/1', files } satisfies Pack));
  writeFileSync(packFile, bytes);
  rmSync(dir, { recursive: true, force: true });
  return bytes.length;
}

/** Restores `dir` from `packFile` when the folder is absent and the pack present; true when it did. */
export function unpackAllureResults(packFile: string, dir: string): boolean {
  if (existsSync(dir) || !existsSync(packFile)) return false;
  const pack = JSON.parse(gunzipSync(readFileSync(packFile)).toString('utf8')) as Pack;
  if (pack.format !== 'mpsi-allure-results/1')
    throw new Error(`${packFile} is not a packed allure-results folder (format ${JSON.stringify(pack.format)})`);
  mkdirSync(dir, { recursive: true });
  for (const [f, b64] of Object.entries(pack.files)) {
    if (f.includes('/') || f.includes('\\') || f === '..' || f === '.')
      throw new Error(`${packFile} names a file outside its folder: ${JSON.stringify(f)}`);
    writeFileSync(join(dir, f), Buffer.from(b64, 'base64'));
  }
  rmSync(packFile, { force: true });
  return true;
}
