/**
 * Commands the kit prints as next steps, written as they work when pasted where the user ran the kit:
 * `npx mpsi-conformance …` when the kit is an installed package (an npm project, or npx), where the bare
 * name is not on PATH (exit 127); `node <absolute bin> …` in a clone, where no package is installed.
 */
import { readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { KIT_ROOT, kitFile } from './kit-files.js';
import { shellQuote } from '../report/repro.js';

interface KitPackage {
  name?: string;
  version?: string;
  bin?: string | Record<string, string>;
  bugs?: string | { url?: string; email?: string };
  repository?: string | { url?: string };
}

function kitPackage(): KitPackage {
  return JSON.parse(readFileSync(kitFile('package.json'), 'utf8')) as KitPackage;
}

/** The published bin, absolute (the kit's package.json `bin` entry): what `npx mpsi-conformance` runs. */
export function kitBin(): string {
  const json = kitPackage();
  const bin = typeof json.bin === 'string' ? json.bin : json.bin?.['mpsi-conformance'];
  return kitFile(bin ?? 'bin/mpsi-conformance.js');
}

/** Installed as a package (under node_modules, which npx also uses), rather than run from a clone. */
export function installed(root = KIT_ROOT): boolean {
  return root.split(sep).includes('node_modules');
}

/** One printed command of the kit, e.g. kitCommand(['doctor', '--profile', file]). */
export function kitCommand(args: readonly string[], asInstalled = installed()): string {
  const quoted = args.map(shellQuote).join(' ');
  return asInstalled ? `npx mpsi-conformance ${quoted}` : `node ${shellQuote(kitBin())} ${quoted}`;
}

export function kitVersion(): string {
  return kitPackage().version ?? 'unknown';
}

/** Where to send a bug report: the package's `bugs`, else its repository's issues, else a plain instruction. */
export function reportTo(): string {
  const json = kitPackage();
  const bugs = typeof json.bugs === 'string' ? json.bugs : (json.bugs?.url ?? json.bugs?.email);
  if (bugs) return bugs;
  const repo = typeof json.repository === 'string' ? json.repository : json.repository?.url;
  if (repo) return `${repo.replace(/^git\+/, '').replace(/\.git$/, '')}/issues`;
  return "an issue of the kit's repository, with the file attached";
}
