import type { StoredExchange } from '../run/results.js';
import { describeVerifyFailure, type VerifyResult } from '../http/signing.js';

/** The request as it went on the wire: request line, headers (X-Sign shown: it is a MAC, not the key), raw body. */
export function requestText(ex: StoredExchange): string {
  const lines = [`${ex.request.method} ${ex.request.url}`];
  for (const [k, v] of Object.entries(ex.request.headers)) lines.push(`${k}: ${v}`);
  lines.push('');
  lines.push(ex.request.body);
  if (ex.request.bodyBase64) lines.push('', `(the body is not valid UTF-8; exact bytes, Base64: ${ex.request.bodyBase64})`);
  return lines.join('\n');
}

export function signatureText(sig: unknown): string {
  if (sig === undefined || sig === null) return 'not checked (no response, or an unsigned answer)';
  const v = sig as VerifyResult;
  return v.ok ? 'verified (lower-case hex HMAC-SHA256 over the raw body)' : `does not verify: ${describeVerifyFailure(v)}`;
}

/** The response as received: status, headers, raw body (cut at 64 KiB), and the signature verdict. */
export function responseText(ex: StoredExchange): string {
  if (!ex.response) return `no response: ${ex.error ? `${ex.error.kind}: ${ex.error.message}` : 'nothing came back'}`;
  const lines = [`HTTP ${ex.response.status}`];
  for (const [k, v] of Object.entries(ex.response.headers)) {
    for (const one of Array.isArray(v) ? v : [v]) lines.push(`${k}: ${one}`);
  }
  lines.push('');
  lines.push(ex.response.body);
  if (ex.response.truncated) lines.push('', '(body cut at the size cap)');
  lines.push('', `response signature: ${signatureText(ex.signature)}`);
  return lines.join('\n');
}

/** Request and response in one text: one attachment per exchange in the report instead of two. */
export function exchangeText(ex: StoredExchange): string {
  return `${requestText(ex)}\n\n──── response ────\n${responseText(ex)}`;
}

/**
 * What a check attaches to its report step in place of an exchange's text: the text is written after the run, from the
 * stored result (completeAllureResults in allure.ts), instead of being built in the worker, sent to vitest's main
 * process in Base64 and kept twice. A NUL starts no text an exchange makes.
 */
const EXCHANGE_MARK = '\u0000mpsi-exchange\u0000';

export function exchangeMark(exchangeId: string): string {
  return `${EXCHANGE_MARK}${exchangeId}`;
}

/** The exchange id an attachment stands for, when it is a mark. */
export function markedExchange(content: Buffer): string | undefined {
  const s = content.length < 200 ? content.toString('utf8') : '';
  return s.startsWith(EXCHANGE_MARK) ? s.slice(EXCHANGE_MARK.length) : undefined;
}
