/**
 * Writing responses. Signed envelopes are serialised once and signed over exactly those bytes;
 * unsigned ones (authentication failures, unreadable body) carry no signing headers at all.
 */
import type { ServerResponse } from 'node:http';
import type { Behaviour } from '../behaviour.js';
import { type ApiError, envelopeMessage } from '../errors.js';
import type { MerchantFixture } from '../fixtures.js';
import type { Target } from '../sandbox-data.js';
import { hmacDigest, signingInput } from '../signing.js';

export function successEnvelope(data: Record<string, unknown>): Record<string, unknown> {
  return { code: 0, msg: 'success', data };
}

/** Errors carry no `data` key at all. */
export function errorEnvelope(err: ApiError, english: boolean): Record<string, unknown> {
  return { code: err.code, msg: envelopeMessage(err, english) };
}

function write(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer, close: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const all: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(body.length),
    ...headers,
  };
  if (close) all['Connection'] = 'close';
  res.writeHead(status, all);
  res.end(body);
}

export function sendUnsigned(
  res: ServerResponse,
  httpStatus: number,
  err: ApiError,
  english: boolean,
  close = false,
  extra: Record<string, string> = {},
  plainText = false,
): void {
  if (plainText) {
    write(
      res,
      httpStatus,
      { 'Content-Type': 'text/plain; charset=utf-8', ...extra },
      Buffer.from(envelopeMessage(err, true), 'utf8'),
      close,
    );
    return;
  }
  write(res, httpStatus, extra, Buffer.from(JSON.stringify(errorEnvelope(err, english)), 'utf8'), close);
}

/**
 * Returns the HTTP status used, for the log line. `httpStatus` is given only for (faultily) signed auth errors;
 * `signedOver` only for a tampered answer: the genuine envelope, whose bytes the signature covers instead.
 */
export function sendSigned(
  res: ServerResponse,
  merchant: MerchantFixture,
  envelope: Record<string, unknown>,
  svc: { readonly behaviour: Behaviour; readonly target: Target },
  httpStatus?: number,
  signedOver?: Record<string, unknown>,
): number {
  const { behaviour: b, target } = svc;
  const code = typeof envelope['code'] === 'number' ? envelope['code'] : 0;
  const status = httpStatus ?? b.httpStatusFor(code, typeof envelope['msg'] === 'string' ? envelope['msg'] : '');
  const raw = Buffer.from(JSON.stringify(b.finishEnvelope(envelope)), b.responseEncoding);
  if (code !== 0 && httpStatus === undefined && !b.signErrorResponses) {
    write(res, status, {}, raw, false);
    return status;
  }
  const signer = target.findMerchant(b.signAs(merchant.id, 'response', target.merchants[0]!.id)) ?? merchant;
  const { timestamp, nonce } = b.responseStamp(Date.now());
  const signedRaw = signedOver ? Buffer.from(JSON.stringify(b.finishEnvelope(signedOver)), b.responseEncoding) : raw;
  const digest = hmacDigest(signer.secret, signingInput(signer.id, timestamp, nonce, b.responseSigningBytes(signedRaw)));
  const headers = { 'X-MerchantID': signer.id, 'X-Timestamp': timestamp, 'X-Nonce': nonce, 'X-Sign': b.responseSignatureText(digest) };
  write(res, status, b.finishResponseHeaders(headers), raw, false);
  return status;
}
