import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckResult } from '../check/run.js';
import type { Exchange } from '../http/exchange.js';
import type { Redactor } from '../kit/redact.js';
import type { CheckTraffic } from '../report/traffic.js';

/** The on-disk form of a check result: what the certificate, coverage and parity read back. */
export interface StoredResult extends Omit<CheckResult, 'exchanges' | 'sent'> {
  suite: string;
  target: string;
  profile: string;
  exchanges: StoredExchange[];
  /** Reproduction scripts written for this check's failing exchanges (file names under <reports>/repro/). */
  repro?: string[];
  /** Per script, the environment variables it reads merchant secrets from (names only). */
  reproSecretEnvs?: Record<string, string[]>;
  /** Requests and bytes of this check's exchanges (harness/report/traffic.ts sums them for the run). */
  traffic?: CheckTraffic;
}

export interface StoredExchange {
  id: string;
  label: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string; bodyBase64?: string };
  response?: { status: number; headers: Record<string, string | string[]>; body: string; truncated: boolean };
  error?: { kind: string; message: string };
  signature?: unknown;
  timings: Exchange['timings'];
  throttled?: Exchange['throttled'];
}

function text(b: Buffer): { body: string; bodyBase64?: string } {
  const s = b.toString('utf8');
  // Keep the exact bytes when they are not clean UTF-8, so a reproduction resends them unchanged.
  return Buffer.from(s, 'utf8').equals(b) ? { body: s } : { body: s, bodyBase64: b.toString('base64') };
}

export function storeExchange(ex: Exchange): StoredExchange {
  return {
    id: ex.id,
    label: ex.label,
    request: { method: ex.request.method, url: ex.request.url, headers: ex.request.headers, ...text(ex.request.body) },
    response: ex.response && {
      status: ex.response.status,
      headers: ex.response.headers,
      body: ex.response.body.subarray(0, 65_536).toString('utf8'),
      truncated: ex.response.truncated || ex.response.body.length > 65_536,
    },
    error: ex.error,
    signature: ex.signature,
    timings: ex.timings,
    ...(ex.throttled ? { throttled: ex.throttled } : {}),
  };
}

export function resultFileName(checkId: string): string {
  return `${checkId.replace(/[^A-Za-z0-9_.-]+/g, '__')}.json`;
}

/** Secrets inside Base64-encoded bodies escape a text redactor: decode, redact the bytes, encode again. */
function scrubBase64(b64: string, redact: Redactor): string {
  const latin = Buffer.from(b64, 'base64').toString('latin1');
  const out = redact(latin);
  return out === latin ? b64 : Buffer.from(out, 'latin1').toString('base64');
}

export function writeResult(dir: string, result: StoredResult, redact: Redactor): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, resultFileName(result.checkId));
  const exchanges = result.exchanges.map((ex) =>
    ex.request.bodyBase64 === undefined
      ? ex
      : { ...ex, request: { ...ex.request, bodyBase64: scrubBase64(ex.request.bodyBase64, redact) } },
  );
  // One line: read back by the report and the certificate, not by people (the report shows every exchange); indenting
  // made the 216 files of a quick run a third larger and cost each worker its time.
  writeFileSync(file, redact(JSON.stringify({ ...result, exchanges })));
  return file;
}

/** Every stored result of a run, sorted by check id. A file that is not a result is an error, not skipped. */
export function readResults(dir: string): StoredResult[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: StoredResult[] = [];
  for (const f of files) {
    const value = JSON.parse(readFileSync(join(dir, f), 'utf8')) as StoredResult;
    if (typeof value?.checkId !== 'string' || typeof value.status !== 'string')
      throw new Error(`${join(dir, f)} is not a stored check result`);
    out.push(value);
  }
  return out.sort((a, b) => (a.checkId < b.checkId ? -1 : a.checkId > b.checkId ? 1 : 0));
}
