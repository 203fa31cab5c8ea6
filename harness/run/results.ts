import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckResult } from '../check/run.js';
import type { Exchange } from '../exchange.js';
import type { Redactor } from '../redact.js';

/** The on-disk form of a check result: what the certificate, coverage and parity read back. */
export interface StoredResult extends Omit<CheckResult, 'exchanges'> {
  suite: string;
  target: string;
  profile: string;
  exchanges: StoredExchange[];
}

export interface StoredExchange {
  id: string;
  label: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string; bodyBase64?: string };
  response?: { status: number; headers: Record<string, string | string[]>; body: string; truncated: boolean };
  error?: { kind: string; message: string };
  signature?: unknown;
  timings: Exchange['timings'];
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
  };
}

export function resultFileName(checkId: string): string {
  return `${checkId.replace(/[^A-Za-z0-9_.-]+/g, '__')}.json`;
}

export function writeResult(dir: string, result: StoredResult, redact: Redactor): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, resultFileName(result.checkId));
  writeFileSync(file, redact(JSON.stringify(result, null, 2)));
  return file;
}
