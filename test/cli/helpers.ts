import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { compactedPageData } from '../../harness/report/compact-page.js';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'mpsi-conformance.js');
export const REFERENCE_PROFILE = join(ROOT, 'fixtures', 'profiles', 'reference.json');
/** A suite that exists and is small: the exit-code tests stay fast. */
export const SMALL_SUITE = 'mutual-exclusion';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the published bin (node bin/mpsi-conformance.js ...) and collects its output. */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, CI: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mpsi-conformance ${args.join(' ')} did not finish within ${opts.timeoutMs ?? 50_000} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 50_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export function tempReports(tag: string): string {
  return mkdtempSync(join(tmpdir(), `mpsi-${tag}-`));
}

/** The merchant secret keys of the reference profile: none may appear in anything a run writes. */
export function fixtureSecrets(): string[] {
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as { merchants: Record<string, { secret?: string } | string> };
  return Object.values(p.merchants).flatMap((m) => (typeof m === 'object' && m.secret ? [m.secret] : []));
}

export function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}

/**
 * Every place a secret shows in a file: as text, or inside Base64 (the single-file report and
 * Allure attachments carry Base64 blobs, which a plain grep would not see into).
 */
export function secretHits(file: string, secrets: string[]): string[] {
  const bytes = readFileSync(file);
  // The packed allure-results (harness/report/allure-pack.ts): each file inside is scanned as itself.
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    const pack = JSON.parse(gunzipSync(bytes).toString('utf8')) as { files: Record<string, string> };
    return Object.entries(pack.files).flatMap(([f, b64]) => bytesHits(`${file}:${f}`, Buffer.from(b64, 'base64'), secrets));
  }
  // The single-file page keeps its data files in one gzipped blob (harness/report/compact-page.ts): scanned inside too.
  const data = file.endsWith('.html') ? compactedPageData(bytes.toString('utf8')) : undefined;
  return [...bytesHits(file, bytes, secrets), ...[...(data ?? [])].flatMap(([n, b]) => bytesHits(`${file}:${n}`, b, secrets))];
}

function bytesHits(file: string, bytes: Buffer, secrets: string[]): string[] {
  const text = bytes.toString('latin1');
  const hits: string[] = [];
  for (const s of secrets) {
    if (text.includes(s)) hits.push(`${file}: plain text`);
    for (let shift = 0; shift < 3; shift++) {
      // The Base64 of the secret at each of the three byte alignments, minus the edge characters that depend on neighbours.
      const b64 = Buffer.from('x'.repeat(shift) + s).toString('base64');
      const core = b64.slice(shift === 0 ? 0 : 4, -4);
      if (core.length >= 12 && text.includes(core)) hits.push(`${file}: Base64 (alignment ${shift})`);
    }
  }
  return hits;
}

/** Calls the CLI's main() in this process (no process start-up: fast), capturing what it writes. */
export async function callMain(args: string[]): Promise<CliResult> {
  const { main } = await import('../../harness/cli/main.js');
  const started = Date.now();
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await main(args);
    return { code, stdout, stderr, ms: Date.now() - started };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}
