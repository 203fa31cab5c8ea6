/**
 * Reproduction scripts: for every failing exchange, a small standalone TypeScript file (node
 * built-ins only, `.mts` so it runs as a module anywhere: `npx tsx FILE`) that re-signs the request with the merchant's secret
 * taken from an environment variable — never the secret itself — and resends the exact body bytes
 * over a raw socket, then prints the answer next to the recorded one and says whether it is the same.
 *
 * A request the check signed wrongly on purpose keeps its wrong signature: upper-case hex or Base64
 * of the right MAC is recomputed in the same wrong form; anything else is sent as recorded. A
 * timestamp or nonce that looks deliberate (not seconds of the time it was sent, not a plain
 * 16..32 character nonce) is kept; otherwise both are fresh, so a target that refuses a replayed
 * nonce still answers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckResult } from '../check/run.js';
import type { Exchange } from '../exchange.js';
import type { LoadedProfile } from '../profile/load.js';
import type { Redactor } from '../redact.js';
import { headerValue, hmacSha256, stringToSign } from '../signing.js';
import { sha256Hex } from './canonical.js';
import { maskUrl } from './mask.js';

export type SigningMode = 'resign' | 'resign-upper-hex' | 'resign-base64' | 'as-recorded';

export interface ReproStep {
  id: string;
  label: string;
  method: string;
  /** Path and query after the base URL. */
  path: string;
  headers: [string, string][];
  bodyBase64: string;
  signing: SigningMode;
  /** Keep the recorded X-Timestamp / X-Nonce when re-signing. */
  keepTimestamp: boolean;
  keepNonce: boolean;
  merchantId?: string;
  /** Name of the environment variable holding the merchant's secret. */
  secretEnv?: string;
  /** Why the signing mode was chosen, for the reader. */
  signingNote: string;
  recorded?: { status: number; code?: unknown; key?: string; signature: string };
}

export interface ReproFile {
  /** File name under <reports>/repro/. */
  name: string;
  text: string;
  sha256: string;
  exchangeId: string;
  clause: string;
}

const ROLE_ENV: Record<string, string> = { primary: 'MPSI_SECRET_PRIMARY', second: 'MPSI_SECRET_SECOND', frozen: 'MPSI_SECRET_FROZEN', lowBalance: 'MPSI_SECRET_LOW_BALANCE' };

/** The variable a repro script reads a merchant's secret from: the profile's own secretEnv, else MPSI_SECRET_<ROLE>. */
export function secretEnvFor(loaded: LoadedProfile, merchantId: string): string | undefined {
  for (const [role, name] of Object.entries(ROLE_ENV)) {
    const m = loaded.merchants[role as keyof typeof ROLE_ENV & keyof LoadedProfile['merchants']];
    if (typeof m !== 'object' || m.id !== merchantId) continue;
    const ref = (loaded.profile.merchants as unknown as Record<string, { secretEnv?: string } | undefined>)[role];
    return ref?.secretEnv ?? name;
  }
  return undefined;
}

function secretFor(loaded: LoadedProfile, merchantId: string): string | undefined {
  for (const m of Object.values(loaded.merchants)) if (typeof m === 'object' && m.id === merchantId) return m.secret;
  return undefined;
}

/** Removes every secret from raw bytes (as Latin-1 text, so bytes that are not UTF-8 survive unchanged). */
export function scrubBytes(bytes: Buffer, redact: Redactor): { bytes: Buffer; changed: boolean } {
  const latin = bytes.toString('latin1');
  const out = redact(latin);
  return out === latin ? { bytes, changed: false } : { bytes: Buffer.from(out, 'latin1'), changed: true };
}

const PLAIN_NONCE = /^[A-Za-z0-9_-]{16,32}$/;

function envelopeOf(ex: Exchange): { code?: unknown; key?: string } {
  const j = ex.response?.json as { code?: unknown; msg?: unknown } | undefined;
  if (!j || typeof j !== 'object') return {};
  const msg = typeof j.msg === 'string' ? j.msg : undefined;
  const key = msg?.includes('|') ? msg.slice(msg.lastIndexOf('|') + 1) : undefined;
  return { code: j.code, key };
}

function pathOf(url: string, baseUrl: string): string {
  if (url.startsWith(baseUrl)) return url.slice(baseUrl.length);
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

export function reproStep(ex: Exchange, loaded: LoadedProfile, redact: Redactor, baseUrl: string): ReproStep & { scrubbed: boolean } {
  const h = ex.request.headers;
  const merchantId = headerValue(h, 'X-MerchantID');
  const ts = headerValue(h, 'X-Timestamp');
  const nonce = headerValue(h, 'X-Nonce');
  const sent = headerValue(h, 'X-Sign');
  const secret = merchantId ? secretFor(loaded, merchantId) : undefined;
  let signing: SigningMode = 'as-recorded';
  let signingNote = 'sent exactly as recorded';
  if (!merchantId || ts === undefined || nonce === undefined || sent === undefined) {
    signingNote = 'a signing header was missing on purpose: sent as recorded';
  } else if (!secret) {
    signingNote = `merchant ${merchantId} is not one of the profile's: sent as recorded`;
  } else {
    const mac = hmacSha256(secret, stringToSign(merchantId, ts, nonce, ex.request.body));
    if (sent === mac.toString('hex')) [signing, signingNote] = ['resign', 'valid signature: re-signed with the secret from the environment'];
    else if (sent === mac.toString('hex').toUpperCase()) [signing, signingNote] = ['resign-upper-hex', 'the check sent the right HMAC in upper-case hex on purpose: recomputed the same way'];
    else if (sent === mac.toString('base64')) [signing, signingNote] = ['resign-base64', 'the check sent the right HMAC in Base64 on purpose: recomputed the same way'];
    else signingNote = 'the check sent a signature that does not match on purpose (wrong key, altered body or wrong string to sign): sent as recorded';
  }
  const sentAt = Date.parse(ex.timings.startedAt) / 1000;
  const keepTimestamp = ts === undefined || !/^\d{1,10}$/.test(ts) || !Number.isFinite(sentAt) || Math.abs(Number(ts) - sentAt) > 120;
  const keepNonce = nonce === undefined || !PLAIN_NONCE.test(nonce);
  const body = scrubBytes(ex.request.body, redact);
  const e = envelopeOf(ex);
  const sig = ex.signature ? (ex.signature.ok ? 'ok' : ex.signature.reason) : 'not checked';
  return {
    id: ex.id,
    label: ex.label,
    method: ex.request.method,
    path: pathOf(ex.request.url, baseUrl),
    headers: Object.entries(h),
    bodyBase64: body.bytes.toString('base64'),
    signing,
    keepTimestamp,
    keepNonce,
    merchantId,
    secretEnv: merchantId && secret ? secretEnvFor(loaded, merchantId) : undefined,
    signingNote,
    recorded: ex.response ? { status: ex.response.status, code: e.code, key: e.key, signature: sig } : undefined,
    scrubbed: body.changed,
  };
}

function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]+/g, '__');
}

export function reproFileName(checkId: string, exchangeId: string): string {
  return `${safeName(checkId)}--${exchangeId}.mts`;
}

function comment(text: string): string {
  return text
    .split('\n')
    .map((l) => `// ${l.replace(/\*\//g, '* /')}`.trimEnd())
    .join('\n');
}

/** One script per failing exchange of a failed check. */
export function buildRepros(result: CheckResult, baseUrl: string, loaded: LoadedProfile, redact: Redactor, meta: { kitVersion: string; profile: string }): ReproFile[] {
  if (result.status !== 'failed') return [];
  const out: ReproFile[] = [];
  const ids = [...new Set(result.findings.map((f) => f.exchangeId).filter((x): x is string => x !== undefined))];
  for (const id of ids) {
    const idx = result.exchanges.findIndex((e) => e.id === id);
    if (idx < 0) continue;
    const target = result.exchanges[idx]!;
    const findings = result.findings.filter((f) => f.exchangeId === id);
    const context = result.exchanges.slice(Math.max(0, idx - 20), idx).map((e) => reproStep(e, loaded, redact, baseUrl));
    const step = reproStep(target, loaded, redact, baseUrl);
    const shownBase = maskUrl(baseUrl);
    const name = reproFileName(result.checkId, id);
    const header = [
      `Reproduction of a failure found by mpsi-conformance ${meta.kitVersion} against profile "${meta.profile}".`,
      `Check:    ${result.checkId}`,
      `          ${result.title}`,
      `Exchange: ${id} (${target.label})`,
      ...findings.map((f) => `Finding:  [${f.code}] ${f.clause} (${f.level}): ${f.message.split('\n', 1)[0]}${f.expected ? `\n          expected: ${f.expected}` : ''}${f.seen ? `\n          seen:     ${f.seen}` : ''}`),
      `Seed:     ${result.seed} (check seed)`,
      '',
      `Run:  ${step.secretEnv ? `${step.secretEnv}=<secret key of merchant ${step.merchantId}> ` : ''}npx tsx ${name} [--base-url URL] [--with-context]`,
      `      --base-url      send to another base URL than the recorded ${shownBase}`,
      `      --with-context  first resend the ${context.length} earlier request(s) of the same check (they re-create the state the failing`,
      '                      request needs on a fresh target; on the same target they may be refused as repeats)',
      'Exit: 0 the recorded answer was reproduced (same HTTP status, envelope code and key, response-signature verdict);',
      '      1 a different answer; 2 the request could not be made (missing secret variable, connection error).',
      'The secret is read from the environment and never printed. Request bodies are the exact bytes sent (Base64 below).',
      ...(step.scrubbed || context.some((c) => c.scrubbed) ? ['NOTE: a secret value inside a request body was replaced by *** here, so those bytes differ from the ones sent.'] : []),
    ].join('\n');
    const strip = ({ scrubbed: _s, ...rest }: ReproStep & { scrubbed: boolean }): ReproStep => rest;
    const data = { baseUrl: shownBase, target: strip(step), context: context.map(strip) };
    const text = redact(`#!/usr/bin/env -S npx tsx\n${comment(header)}\n\nconst RECORDED = ${JSON.stringify(data, null, 2)} as const;\n\n${RUNNER}`);
    out.push({ name, text, sha256: sha256Hex(text), exchangeId: id, clause: findings[0]!.clause });
  }
  return out;
}

export function writeRepros(dir: string, files: ReproFile[]): string[] {
  if (files.length === 0) return [];
  mkdirSync(dir, { recursive: true });
  for (const f of files) writeFileSync(join(dir, f.name), f.text, { mode: 0o755 });
  return files.map((f) => f.name);
}

/** The part of every script that does the work: node built-ins only, so the file runs anywhere tsx does. */
const RUNNER = String.raw`import { createHmac, randomBytes } from 'node:crypto';
import { connect as tcp } from 'node:net';
import { connect as tls } from 'node:tls';

type Step = {
  id: string; label: string; method: string; path: string; headers: readonly (readonly [string, string])[]; bodyBase64: string;
  signing: string; keepTimestamp: boolean; keepNonce: boolean; merchantId?: string; secretEnv?: string; signingNote: string;
  recorded?: { status: number; code?: unknown; key?: string; signature: string };
};

const args = process.argv.slice(2);
const baseArg = args.indexOf('--base-url');
const base = (baseArg >= 0 ? args[baseArg + 1] : undefined)?.replace(/\/+$/, '') ?? RECORDED.baseUrl;
const withContext = args.includes('--with-context');

function mac(secret: string, id: string, ts: string, nonce: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(Buffer.concat([Buffer.from(id + '\n' + ts + '\n' + nonce + '\n'), body])).digest();
}
function header(hs: Record<string, string | string[]>, name: string): string[] {
  const v = hs[name.toLowerCase()];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function prepare(s: Step): { headers: [string, string][]; body: Buffer; secret?: string } {
  const body = Buffer.from(s.bodyBase64, 'base64');
  const headers = s.headers.map(([k, v]) => [k, v] as [string, string]);
  if (s.signing === 'as-recorded') return { headers, body, secret: s.secretEnv ? process.env[s.secretEnv] : undefined };
  const secret = s.secretEnv ? process.env[s.secretEnv] : undefined;
  if (!secret) {
    console.error('set ' + s.secretEnv + ' to the secret key of merchant ' + s.merchantId + ' (it is never printed)');
    process.exit(2);
  }
  const get = (n: string) => headers.find(([k]) => k.toLowerCase() === n.toLowerCase());
  const ts = get('X-Timestamp')!;
  const nonce = get('X-Nonce')!;
  if (!s.keepTimestamp) ts[1] = String(Math.floor(Date.now() / 1000));
  if (!s.keepNonce) nonce[1] = randomBytes(18).toString('base64url');
  const m = mac(secret, s.merchantId!, ts[1], nonce[1], body);
  get('X-Sign')![1] = s.signing === 'resign-upper-hex' ? m.toString('hex').toUpperCase() : s.signing === 'resign-base64' ? m.toString('base64') : m.toString('hex');
  return { headers, body, secret };
}

function head(s: Step, headers: [string, string][], body: Buffer): { url: URL; lines: string[]; halfClose: boolean } {
  const url = new URL(base + s.path);
  const recordedHost = new URL(RECORDED.baseUrl).host;
  // The headers as they went on the wire, in order; the Host follows the base URL (unless the check
  // sent another on purpose) and the connection is closed after the answer so the answer ends cleanly.
  const lines = [s.method + ' ' + url.pathname + url.search + ' HTTP/1.1'];
  const has = (n: string) => headers.some(([k]) => k.toLowerCase() === n);
  if (!has('host')) lines.push('Host: ' + url.host);
  for (const [k, v] of headers) {
    const lower = k.toLowerCase();
    if (lower === 'host') lines.push(k + ': ' + (v === recordedHost ? url.host : v));
    else if (lower === 'connection') lines.push(k + ': close');
    else lines.push(k + ': ' + v);
  }
  const declared = headers.find(([k]) => k.toLowerCase() === 'content-length');
  if (!declared) lines.push('Content-Length: ' + body.length);
  if (!has('connection')) lines.push('Connection: close');
  return { url, lines, halfClose: declared !== undefined && Number(declared[1]) > body.length };
}

function send(url: URL, lines: string[], body: Buffer, halfClose: boolean): Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }> {
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    const sock = url.protocol === 'https:' ? tls({ host: url.hostname, port, servername: url.hostname }) : tcp({ host: url.hostname, port });
    const chunks: Buffer[] = [];
    sock.setTimeout(15_000, () => sock.destroy(new Error('no complete answer within 15 s')));
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('error', reject);
    sock.on('close', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error('the connection closed without a complete HTTP answer (' + all.length + ' bytes)'));
      const [statusLine, ...rest] = all.subarray(0, split).toString('latin1').split('\r\n');
      const hs: Record<string, string | string[]> = {};
      for (const l of rest) {
        const i = l.indexOf(':');
        const k = l.slice(0, i).trim().toLowerCase();
        const v = l.slice(i + 1).trim();
        const prev = hs[k];
        hs[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
      }
      let b = all.subarray(split + 4);
      if (String(hs['transfer-encoding'] ?? '').toLowerCase().includes('chunked')) {
        const parts: Buffer[] = [];
        for (let at = 0; ; ) {
          const eol = b.indexOf('\r\n', at);
          const size = parseInt(b.subarray(at, eol).toString('latin1'), 16);
          if (!(size > 0)) break;
          parts.push(b.subarray(eol + 2, eol + 2 + size));
          at = eol + 2 + size + 2;
        }
        b = Buffer.concat(parts);
      } else if (typeof hs['content-length'] === 'string') b = b.subarray(0, Number(hs['content-length']));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers: hs, body: b });
    });
    sock.write(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), body]));
    if (halfClose) sock.end();
  });
}

function verdict(s: Step, res: { headers: Record<string, string | string[]>; body: Buffer }, secret: string | undefined): string {
  if (!secret || !s.merchantId) return 'not checked';
  const v: Record<string, string> = {};
  for (const n of ['X-MerchantID', 'X-Timestamp', 'X-Nonce', 'X-Sign']) {
    const all = header(res.headers, n);
    if (all.length > 1) return 'duplicate-header';
    if (all.length === 0) return 'missing-header';
    if (all[0] === '') return 'empty-header';
    v[n] = all[0]!;
  }
  if (v['X-MerchantID'] !== s.merchantId) return 'merchant-mismatch';
  const m = mac(secret, v['X-MerchantID']!, v['X-Timestamp']!, v['X-Nonce']!, res.body);
  const sent = v['X-Sign']!;
  if (sent === m.toString('hex')) return 'ok';
  if (/^[0-9a-fA-F]{64}$/.test(sent) && sent.toLowerCase() === m.toString('hex')) return 'upper-case-hex';
  if (sent === m.toString('base64')) return 'base64';
  return /^[0-9a-f]{64}$/.test(sent) ? 'mismatch' : 'not-lower-hex';
}

function envelope(body: Buffer): { code?: unknown; key?: string } {
  try {
    const j = JSON.parse(body.toString('utf8'));
    const msg = typeof j?.msg === 'string' ? j.msg : undefined;
    return { code: j?.code, key: msg?.includes('|') ? msg.slice(msg.lastIndexOf('|') + 1) : undefined };
  } catch {
    return {};
  }
}

async function run(s: Step, verbose: boolean): Promise<boolean> {
  const { headers, body, secret } = prepare(s);
  console.log('→ ' + s.method + ' ' + base + s.path + '   (' + s.id + ': ' + s.label + ')');
  console.log('  signing: ' + s.signingNote);
  const h = head(s, headers, body);
  if (verbose) {
    for (const l of h.lines) console.log('  ' + l);
    console.log('  body (' + body.length + ' bytes): ' + body.toString('utf8').slice(0, 2000));
  }
  let res;
  try {
    res = await send(h.url, h.lines, body, h.halfClose);
  } catch (err) {
    console.error('✗ the request could not be made: ' + (err as Error).message);
    process.exit(2);
  }
  const e = envelope(res.body);
  const sig = res.status === 200 ? verdict(s, res, secret) : 'not signed (HTTP ' + res.status + ')';
  console.log('← HTTP ' + res.status + '   code ' + JSON.stringify(e.code) + ', key ' + (e.key ?? '(none)') + ', response signature: ' + sig);
  if (verbose) {
    for (const [k, v] of Object.entries(res.headers)) console.log('  ' + k + ': ' + (Array.isArray(v) ? v.join(' | ') : v));
    console.log('  body (' + res.body.length + ' bytes): ' + res.body.toString('utf8').slice(0, 2000));
  }
  const r = s.recorded;
  if (!r) return true;
  const recSig = r.status === 200 ? r.signature : 'not signed (HTTP ' + r.status + ')';
  console.log('  recorded: HTTP ' + r.status + '   code ' + JSON.stringify(r.code) + ', key ' + (r.key ?? '(none)') + ', response signature: ' + recSig);
  return res.status === r.status && JSON.stringify(e.code) === JSON.stringify(r.code) && e.key === r.key && (sig === recSig || r.signature === 'not checked');
}

if (withContext) for (const s of RECORDED.context) await run(s as Step, false);
const same = await run(RECORDED.target as Step, true);
console.log(same ? 'REPRODUCED: the same answer as recorded' : 'NOT REPRODUCED: the answer differs from the recorded one');
process.exit(same ? 0 : 1);
`;
