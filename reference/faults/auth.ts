/** Faults in how requests are authenticated: the outcomes of the Authentication section. */
import { signatureMatches, signingInput } from '../signing.js';
import { defineFault } from './fault.js';

const CRLF = Buffer.from('\r\n');

export const authAcceptBadSign = defineFault({
  name: 'auth-accept-bad-sign',
  clause: 'auth.bad-signature',
  doc: 'A request whose X-Sign does not match is accepted (timestamp and nonce are still checked).',
  authOutcome: (outcome) => (outcome === 'bad-signature' ? 'ok' : outcome),
});

export const authBadSignUnauthorized = defineFault({
  name: 'auth-bad-sign-unauthorized',
  clause: 'auth.bad-signature',
  doc: 'A signature mismatch is answered HTTP 401 unauthorized instead of HTTP 403 forbidden.',
  authAnswer: (failure, correct) =>
    failure === 'forbidden' ? { http: 401, code: 401, key: 'unauthorized', message: 'Invalid signature' } : correct,
});

export const authMissingHeaderForbidden = defineFault({
  name: 'auth-missing-header-forbidden',
  clause: 'auth.missing-header',
  doc: 'A missing or empty signing header is answered HTTP 403 forbidden instead of HTTP 401 unauthorized.',
  authAnswer: (failure, correct) =>
    failure === 'missing-header' ? { http: 403, code: 403, key: 'forbidden', message: 'Invalid signature' } : correct,
});

export const authUnknownMerchantUnauthorized = defineFault({
  name: 'auth-unknown-merchant-unauthorized',
  clause: 'auth.unknown-merchant',
  doc: 'An unknown X-MerchantID is answered 401 unauthorized instead of 401 merchantNotFound.',
  authAnswer: (failure, correct) =>
    failure === 'unknown-merchant' ? { http: 401, code: 401, key: 'unauthorized', message: 'Missing authentication headers' } : correct,
});

export const authUnknownMerchantForbidden = defineFault({
  name: 'auth-unknown-merchant-forbidden',
  clause: 'auth.unknown-merchant',
  doc:
    'An unknown X-MerchantID is answered HTTP 403 forbidden ("Invalid signature") ' +
    'instead of HTTP 401 merchantNotFound, as if the merchant were known.',
  authAnswer: (failure, correct) =>
    failure === 'unknown-merchant' ? { http: 403, code: 403, key: 'forbidden', message: 'Invalid signature' } : correct,
});

export const authLoginAsMerchantId = defineFault({
  name: 'auth-login-as-merchant-id',
  clause: 'auth.merchant-id',
  doc: "The merchant's login (or name) is accepted as X-MerchantID, as an alias of its id, when the request is signed with its secret.",
  merchantIdMatches: (m, v) => m.id === v || m.login === v || m.name === v,
});

export const authEmptyHeaderAccepted = defineFault({
  name: 'auth-empty-header-accepted',
  clause: 'auth.missing-header',
  doc: 'An empty signing header counts as present (only absent ones are refused), so it reaches the later checks.',
  authHeadersPresent: (h) => h.id !== undefined && h.timestamp !== undefined && h.nonce !== undefined && h.sign !== undefined,
});

export const authMissingNonceAccepted = defineFault({
  name: 'auth-missing-nonce-accepted',
  clause: 'auth.missing-header',
  doc: 'A request without X-Nonce is not refused as unauthorized: the nonce takes part in the signature as an empty string.',
  authHeadersPresent: (h) => Boolean(h.id && h.timestamp && h.sign),
});

export const authTimestampMsAccepted = defineFault({
  name: 'auth-timestamp-ms-accepted',
  clause: 'auth.timestamp.seconds',
  doc: 'An X-Timestamp in milliseconds (13 digits or more) is divided by 1000 and accepted.',
  readTimestamp: (text) => (/^[0-9]{1,16}$/.test(text) ? (text.length >= 13 ? Math.floor(Number(text) / 1000) : Number(text)) : undefined),
});

export const authUppercaseHexAccepted = defineFault({
  name: 'auth-uppercase-hex-accepted',
  clause: 'auth.sign.lower-hex',
  doc: 'X-Sign is compared case-insensitively, so upper-case hex is accepted.',
  verifyRequest: (r) => signatureMatches(r.secret, signingInput(r.merchantId, r.timestamp, r.nonce, r.rawBody), r.sign.toLowerCase()),
});

export const authCrlfAccepted = defineFault({
  name: 'auth-crlf-accepted',
  clause: 'auth.sign.string',
  doc: 'A signature over a string to sign joined by CR LF is accepted as well as one joined by LF.',
  verifyRequest: (r) =>
    signatureMatches(r.secret, signingInput(r.merchantId, r.timestamp, r.nonce, r.rawBody), r.sign) ||
    signatureMatches(r.secret, Buffer.concat([Buffer.from([r.merchantId, r.timestamp, r.nonce].join('\r\n')), CRLF, r.rawBody]), r.sign),
});

export const authSignReserialisedBody = defineFault({
  name: 'auth-sign-reserialised-body',
  clause: 'auth.sign.raw-body',
  doc: 'The request signature is checked over the parsed body serialised again (compact JSON), not over the raw bytes.',
  verifyRequest: (r) => signatureMatches(r.secret, signingInput(r.merchantId, r.timestamp, r.nonce, reserialised(r.rawBody)), r.sign),
});

export const authSignPythonReserialisedBody = defineFault({
  name: 'auth-sign-python-reserialised-body',
  clause: 'auth.sign.raw-body',
  doc:
    "The request signature is checked over the body as Python's json.dumps(json.loads(raw)) writes it (', ' and ': ', " +
    'non-ASCII escaped), not over the raw bytes: a compact body, correctly signed, is refused.',
  verifyRequest: (r) => signatureMatches(r.secret, signingInput(r.merchantId, r.timestamp, r.nonce, pythonDumped(r.rawBody)), r.sign),
});

export const authAnyMerchantSecret = defineFault({
  name: 'auth-any-merchant-secret',
  clause: 'auth.sign.secret-key',
  doc: "A request signed with any merchant's secret key is accepted, not only with the X-MerchantID merchant's own.",
  verifyRequest: (r) => r.allSecrets.some((s) => signatureMatches(s, signingInput(r.merchantId, r.timestamp, r.nonce, r.rawBody), r.sign)),
});

export const authErrorsSigned = defineFault({
  name: 'auth-errors-signed',
  clause: 'auth.errors.unsigned',
  doc: 'Authentication errors of a known merchant (403 forbidden) carry the four signing headers.',
  signAuthErrors: true,
});

export const unreadableBodyHttp400 = defineFault({
  name: 'unreadable-body-http-400',
  clause: 'err.auth.unreadable-body',
  doc: 'A request body that cannot be read is answered HTTP 400 invalidRequest instead of HTTP 500 internalServerError.',
  authAnswer: (failure, correct) =>
    failure === 'unreadable' ? { http: 400, code: 400, key: 'invalidRequest', message: 'Request body could not be read' } : correct,
});

export const unreadableBodyConnectionClosed = defineFault({
  name: 'unreadable-body-connection-closed',
  clause: 'err.auth.unreadable-body',
  doc:
    'A request body that cannot be read ("Request body could not be read") is answered by closing the connection, with no ' +
    'answer, instead of HTTP 500 internalServerError.',
  unreadableBodyClosed: true,
});

function reserialised(raw: Buffer): Buffer {
  try {
    return Buffer.from(JSON.stringify(JSON.parse(raw.toString('utf8'))), 'utf8');
  } catch {
    return raw;
  }
}

/** The body as Python's json.dumps(json.loads(raw)) writes it with its defaults; the raw bytes when they are not JSON. */
function pythonDumped(raw: Buffer): Buffer {
  try {
    return Buffer.from(pythonJson(JSON.parse(raw.toString('utf8'))), 'utf8');
  } catch {
    return raw;
  }
}

/** json.dumps defaults: separators ', ' and ': ', ensure_ascii (every character past 0x7e as a lower-case \\u escape). */
function pythonJson(v: unknown): string {
  if (v === null || typeof v === 'boolean' || typeof v === 'number') return JSON.stringify(v);
  if (typeof v === 'string')
    return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (Array.isArray(v)) return `[${v.map(pythonJson).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pythonJson(k)}: ${pythonJson(x)}`)
    .join(', ')}}`;
}

export const authMissingSignAccepted = defineFault({
  name: 'auth-missing-sign-accepted',
  clause: 'auth.headers.required',
  doc: 'X-Sign is optional: a request without it (or with it empty) is let through unverified, as in a debug mode left on.',
  authHeadersPresent: (h) => Boolean(h.id && h.timestamp && h.nonce),
  verifyRequest: (r) => r.sign === '' || signatureMatches(r.secret, signingInput(r.merchantId, r.timestamp, r.nonce, r.rawBody), r.sign),
});

export const authUnauthorizedBodyCode = defineFault({
  name: 'auth-unauthorized-body-code',
  clause: 'err.auth.unauthorized',
  doc: 'A missing signing header is answered HTTP 401 unauthorized with body code 40101 instead of 401.',
  authAnswer: (failure, correct) => (failure === 'missing-header' ? { ...correct, code: 40101 } : correct),
});

export const authMerchantNotFoundCode404 = defineFault({
  name: 'auth-merchant-not-found-code-404',
  clause: 'err.auth.merchant-not-found',
  doc: 'An unknown X-MerchantID is answered HTTP 401 merchantNotFound with body code 404 instead of 401.',
  authAnswer: (failure, correct) => (failure === 'unknown-merchant' ? { ...correct, code: 404 } : correct),
});

export const authForbiddenCode401 = defineFault({
  name: 'auth-forbidden-code-401',
  clause: 'err.auth.forbidden',
  doc: 'A signature mismatch is answered HTTP 403 forbidden with body code 401 instead of 403.',
  authAnswer: (failure, correct) => (failure === 'forbidden' ? { ...correct, code: 401 } : correct),
});

export const authSignTrimmedBody = defineFault({
  name: 'auth-sign-trimmed-body',
  clause: 'auth.sign.whitespace-variants',
  doc:
    'The request signature is checked over the body with leading and trailing whitespace ' +
    'trimmed, so a body with such whitespace, signed over its own bytes, is refused.',
  verifyRequest: (r) =>
    signatureMatches(
      r.secret,
      signingInput(r.merchantId, r.timestamp, r.nonce, Buffer.from(r.rawBody.toString('utf8').trim(), 'utf8')),
      r.sign,
    ),
});
