/**
 * allure-results/ holds a few thousand small files (a result per check, an attachment per exchange): on
 * disk and in a CI artifact they weigh several times their bytes, and creating, reading and deleting
 * them cost the run more than their content. A conformance run never makes the folder: vitest's main
 * process keeps the files in memory (allure-writer.ts) and writes them once, packed into one gzipped
 * file beside the page; the CLI completes them in memory and writes the pack the page is made from.
 * The folder is made only when asked for (`--keep-allure-results`) and read when it is there (a kept
 * run rebuilt, shard merges, the merchant and parity reports).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

/** An allure-results folder in memory: file name → content. */
export type AllureFiles = Map<string, Buffer>;

interface Pack {
  format: 'mpsi-allure-results/1';
  /** File name → content, base64 (attachments may be binary). */
  files: Record<string, string>;
}

/**
 * The files of an allure-results folder, undefined when it is absent; `nested` when it also holds
 * folders (allure-vitest writes a flat one: anything else is not ours to pack).
 */
export function readAllureFolder(dir: string): { files: AllureFiles; nested: boolean } | undefined {
  if (!existsSync(dir)) return undefined;
  const files: AllureFiles = new Map();
  let nested = false;
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isFile()) files.set(f, readFileSync(p));
    else nested = true;
  }
  return { files, nested };
}

/** Writes the files as the allure-results folder `dir` (made if absent). */
export function writeAllureFolder(files: AllureFiles, dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const [f, content] of files) writeFileSync(join(dir, safeName(f, dir)), content);
}

/**
 * Writes the files as one pack; returns its size in bytes. `level` 1 suits a pack that is rewritten
 * moments later (vitest's, which the CLI completes), the default one that stays.
 */
export function writeAllurePack(files: AllureFiles, packFile: string, level?: number): number {
  const pack: Pack = { format: 'mpsi-allure-results/1', files: {} };
  for (const [f, content] of files) pack.files[f] = content.toString('base64');
  const bytes = gzipSync(JSON.stringify(pack), level === undefined ? {} : { level });
  writeFileSync(packFile, bytes);
  return bytes.length;
}

/** The files of a pack; an error when the file is not one. */
export function readAllurePack(packFile: string): AllureFiles {
  const pack = JSON.parse(gunzipSync(readFileSync(packFile)).toString('utf8')) as Pack;
  if (pack.format !== 'mpsi-allure-results/1')
    throw new Error(`${packFile} is not a packed allure-results folder (format ${JSON.stringify(pack.format)})`);
  const files: AllureFiles = new Map();
  for (const [f, b64] of Object.entries(pack.files)) files.set(safeName(f, packFile), Buffer.from(b64, 'base64'));
  return files;
}

function safeName(f: string, where: string): string {
  if (f.includes('/') || f.includes('\\') || f === '..' || f === '.' || f === '')
    throw new Error(`${where} names a file outside its folder: ${JSON.stringify(f)}`);
  return f;
}

/** Packs `dir` into `packFile` and removes `dir`; returns the pack's size in bytes, or undefined when there is no `dir`. */
export function packAllureResults(dir: string, packFile: string): number | undefined {
  const folder = readAllureFolder(dir);
  if (!folder || folder.nested) return undefined;
  const bytes = writeAllurePack(folder.files, packFile);
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

/** Restores `dir` from `packFile` when the folder is absent and the pack present; true when it did. */
export function unpackAllureResults(packFile: string, dir: string): boolean {
  if (existsSync(dir) || !existsSync(packFile)) return false;
  writeAllureFolder(readAllurePack(packFile), dir);
  rmSync(packFile, { force: true });
  return true;
}
