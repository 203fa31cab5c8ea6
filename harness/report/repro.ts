/**
 * Reproduction scripts: for every failing exchange, a small standalone JavaScript module (node
 * built-ins only, `.mjs`: `node FILE` from any folder, no kit, no tsx) that first sends the earlier
 * requests of the check that create what the failing one needs, with fresh merchant numbers and the
 * service numbers its fresh answers give, then the failing request; each re-signed with the merchant's
 * secret taken from an environment variable — never the secret itself — and sent as the exact body
 * bytes over a raw socket; then prints the answer next to the recorded one and says whether it is the same.
 *
 * A request the check signed wrongly on purpose keeps its wrong signature: upper-case hex or Base64
 * of the right MAC is recomputed in the same wrong form; anything else is sent as recorded. A
 * timestamp or nonce that looks deliberate (not seconds of the time it was sent, not a plain
 * 16..32 character nonce) is kept; otherwise both are fresh, so a target that refuses a replayed
 * nonce still answers.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckResult } from '../check/run.js';
import type { Exchange } from '../http/exchange.js';
import type { LoadedProfile } from '../profile/load.js';
import type { Redactor } from '../kit/redact.js';
import { headerValue, hmacSha256, stringToSign } from '../http/signing.js';
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

/** What a script carries as `RECORDED`: the requests to send again and the numbers to renew. */
export interface ReproData {
  baseUrl: string;
  context: ReproStep[];
  target: ReproStep;
  numbers: ReturnType<typeof numbersOf>;
}

let runnerText: string | undefined;
/** harness/report/repro-runner.mjs (beside this module in a clone and in dist/), without its kit-only block. */
function runner(): string {
  if (runnerText === undefined) {
    const text = readFileSync(new URL('./repro-runner.mjs', import.meta.url), 'utf8')
      .replace(/^\/\/ @ts-check\n/, '')
      .replace(/\/\* kit-only-start[\s\S]*?kit-only-end \*\/\n/, '');
    // Left in, the block would declare RECORDED a second time and every script would be a syntax error.
    if (text.includes('kit-only-')) throw new Error('repro-runner.mjs: its kit-only block was not found whole');
    runnerText = text;
  }
  return runnerText;
}

export interface ReproFile {
  /** File name under <reports>/repro/. */
  name: string;
  text: string;
  sha256: string;
  exchangeId: string;
  clause: string;
  /** Environment variables the script reads merchant secrets from. */
  secretEnvs: string[];
}

const ROLE_ENV: Record<string, string> = {
  primary: 'MPSI_SECRET_PRIMARY',
  second: 'MPSI_SECRET_SECOND',
  frozen: 'MPSI_SECRET_FROZEN',
  lowBalance: 'MPSI_SECRET_LOW_BALANCE',
};

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
    if (sent === mac.toString('hex'))
      [signing, signingNote] = ['resign', 'valid signature: re-signed with the secret from the environment'];
    else if (sent === mac.toString('hex').toUpperCase())
      [signing, signingNote] = ['resign-upper-hex', 'the check sent the right HMAC in upper-case hex on purpose: recomputed the same way'];
    else if (sent === mac.toString('base64'))
      [signing, signingNote] = ['resign-base64', 'the check sent the right HMAC in Base64 on purpose: recomputed the same way'];
    else
      signingNote =
        'the check sent a signature that does not match on purpose (wrong key, altered body or wrong string to sign): sent as recorded';
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
  return `${safeName(checkId)}--${exchangeId}.mjs`;
}

function comment(text: string): string {
  return text
    .split('\n')
    .map((l) => `// ${l.replace(/\*\//g, '* /')}`.trimEnd())
    .join('\n');
}

/** Keys whose values the merchant chooses (fresh per reproduction) and keys the service assigns (read back from its answers). */
const MERCHANT_NO_KEY = /^(original_)?merchant_[a-z_]*_no$/;
const SERVICE_NO_KEY = /^(original_)?[a-z]+_no$/;
/** A number that looks generated by the kit, not crafted (too long, odd characters, empty): only those are renewed. */
const PLAIN_NUMBER = /^[A-Za-z0-9_-]{6,64}$/;

function jsonOf(b64: string): unknown {
  try {
    return JSON.parse(Buffer.from(b64, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
}

function walk(value: unknown, path: string[], visit: (key: string, v: unknown, path: string[]) => void, depth = 0): void {
  if (depth > 8 || value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    visit(k, v, [...path, k]);
    walk(v, [...path, k], visit, depth + 1);
  }
}

/**
 * Which numbers of the steps a reproduction renews: the merchant's own (fresh values of the same
 * length, the same fresh value wherever the same recorded one appears, so a repeat stays a repeat),
 * and the service's (read from the fresh answer of the step that first returned it).
 */
export function numbersOf(
  steps: ReproStep[],
  responses: (unknown | undefined)[],
): { merchant: string[]; service: { value: string; step: number; path: string[] }[] } {
  const merchant = new Set<string>();
  for (const st of steps) {
    walk(jsonOf(st.bodyBase64), [], (k, v) => {
      if (MERCHANT_NO_KEY.test(k) && typeof v === 'string' && PLAIN_NUMBER.test(v)) merchant.add(v);
    });
  }
  const service: { value: string; step: number; path: string[] }[] = [];
  responses.forEach((res, i) => {
    walk((res as { data?: unknown } | undefined)?.data, ['data'], (k, v, path) => {
      if (!SERVICE_NO_KEY.test(k) || MERCHANT_NO_KEY.test(k) || typeof v !== 'string' || v === '' || merchant.has(v)) return;
      if (service.some((x) => x.value === v)) return;
      const later = steps
        .slice(i + 1)
        .some((st) => Buffer.from(st.bodyBase64, 'base64').toString('utf8').includes(JSON.stringify(v)) || st.path.includes(v));
      if (later) service.push({ value: v, step: i, path });
    });
  });
  return { merchant: [...merchant], service };
}

/**
 * The command that runs a script, for the certificate: plain node and an absolute path, nothing to fill
 * in. The secrets come from the environment variables the script names (those the run itself read,
 * when the profile names them), never from the command line, so the line is pasted as it is.
 */
export function reproCommand(file: string, baseUrl?: string): string {
  return `node ${shellQuote(file)}${baseUrl ? ` --base-url ${shellQuote(baseUrl)}` : ''}`;
}

/** POSIX shell quoting, only where needed. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** One script per failing exchange of a failed check. */
export function buildRepros(
  result: CheckResult,
  baseUrl: string,
  loaded: LoadedProfile,
  redact: Redactor,
  meta: { kitVersion: string; profile: string },
): ReproFile[] {
  if (result.status !== 'failed') return [];
  const out: ReproFile[] = [];
  const ids = [...new Set(result.findings.map((f) => f.exchangeId).filter((x): x is string => x !== undefined))];
  // Only requests the check sent to the target are prerequisites; webhook deliveries came from it.
  const sent = result.exchanges.filter((e) => !e.id.startsWith('wh-') && e.request.url.startsWith(baseUrl));
  for (const id of ids) {
    const idx = sent.findIndex((e) => e.id === id);
    if (idx < 0) continue;
    const target = sent[idx]!;
    const findings = result.findings.filter((f) => f.exchangeId === id);
    const earlier = sent.slice(0, idx);
    const context = earlier.map((e) => reproStep(e, loaded, redact, baseUrl));
    const step = reproStep(target, loaded, redact, baseUrl);
    const strip = ({ scrubbed: _s, ...rest }: ReproStep & { scrubbed: boolean }): ReproStep => rest;
    const steps = [...context.map(strip), strip(step)];
    const numbers = numbersOf(steps, [...earlier.map((e) => e.response?.json), undefined]);
    const secretEnvs = [...new Set(steps.map((x) => x.secretEnv).filter((x): x is string => x !== undefined))].sort();
    const shownBase = maskUrl(baseUrl);
    const name = reproFileName(result.checkId, id);
    const header = [
      `Reproduction of a failure found by mpsi-conformance ${meta.kitVersion} against profile "${meta.profile}".`,
      `Check:    ${result.checkId}`,
      `          ${result.title}`,
      `Exchange: ${id} (${target.label})`,
      ...findings.map(
        (f) =>
          `Finding:  [${f.code}] ${f.clause} (${f.level}): ${f.title}` +
          `${f.expected ? `\n          expected: ${f.expected}` : ''}${f.seen ? `\n          seen:     ${f.seen}` : ''}`,
      ),
      `Seed:     ${result.seed} (check seed)`,
      '',
      `Run:  ${secretEnvs.map((n) => `${n}=<secret key> `).join('')}node ${name} [--base-url URL] [--recorded-numbers] [--no-context]`,
      '      Plain Node.js (20 or later), from any folder; it needs nothing but this file.',
      `      --base-url          send to another base URL than the recorded ${shownBase}`,
      `      --recorded-numbers  send the numbers as recorded (by default the merchant's numbers are fresh and the service's`,
      '                          numbers are read from its fresh answers, so the script runs again and on a fresh target)',
      `      --no-context        send only the failing request, not the ${context.length} earlier request(s) of the check that create`,
      '                          what it needs (implies --recorded-numbers)',
      'Exit: 0 the recorded answer was reproduced (same HTTP status, envelope code and key, response-signature verdict);',
      '      1 a different answer; 2 the request could not be made (missing secret variable, connection error).',
      `Secrets: ${
        secretEnvs.length > 0
          ? secretEnvs.map((n) => `${n} holds the secret key of ${steps.find((x) => x.secretEnv === n)?.merchantId}`).join('; ')
          : 'none needed (no request is re-signed)'
      }.`,
      'The secret is read from the environment and never printed. Request ' +
        'bodies are the exact bytes sent (Base64 below), but for renewed numbers.',
      ...(step.scrubbed || context.some((c) => c.scrubbed)
        ? ['NOTE: a secret value inside a request body was replaced by *** here, so those bytes differ from the ones sent.']
        : []),
    ].join('\n');
    const data: ReproData = { baseUrl: shownBase, context: context.map(strip), target: strip(step), numbers };
    const text = redact(`#!/usr/bin/env node\n${comment(header)}\n\nconst RECORDED = ${JSON.stringify(data, null, 2)};\n\n${runner()}`);
    out.push({ name, text, sha256: sha256Hex(text), exchangeId: id, clause: findings[0]!.clause, secretEnvs });
  }
  return out;
}

export function writeRepros(dir: string, files: ReproFile[]): string[] {
  if (files.length === 0) return [];
  mkdirSync(dir, { recursive: true });
  for (const f of files) writeFileSync(join(dir, f.name), f.text, { mode: 0o755 });
  return files.map((f) => f.name);
}
