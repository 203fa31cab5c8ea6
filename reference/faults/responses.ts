/** Faults in how responses are signed and enveloped, and in their HTTP status and language. */
import { freshNonce } from '../signing.js';
import { defineFault } from './fault.js';

export const respUppercaseHex = defineFault({
  name: 'resp-uppercase-hex',
  clause: 'auth.response.signed',
  doc: 'Response X-Sign is written in upper-case hex.',
  responseSignatureText: (digest) => digest.toString('hex').toUpperCase(),
});

export const respUnsignedErrors = defineFault({
  name: 'resp-unsigned-errors',
  clause: 'auth.response.signed',
  doc: 'Business-error envelopes are sent without the four signing headers.',
  signErrorResponses: false,
});

export const respSignReserialised = defineFault({
  name: 'resp-sign-reserialised',
  clause: 'auth.response.signed',
  doc: 'Responses are signed over a pretty-printed re-serialisation, not over the bytes sent.',
  responseSigningBytes: (sent) => Buffer.from(JSON.stringify(JSON.parse(sent.toString('utf8')), null, 2), 'utf8'),
});

export const respWrongMerchantId = defineFault({
  name: 'resp-wrong-merchant-id',
  clause: 'auth.response.signed',
  doc: 'Every response is signed as the first configured merchant (its X-MerchantID and secret), whoever called.',
  signAs: (merchantId, channel, first) => (channel === 'response' ? first : merchantId),
});

export const respNoNonce = defineFault({
  name: 'resp-no-nonce',
  clause: 'auth.response.signed',
  doc: 'Signed responses leave out the X-Nonce header (the signature still covers the nonce).',
  finishResponseHeaders: ({ 'X-Nonce': _nonce, ...rest }) => rest,
});

export const respTimestampMs = defineFault({
  name: 'resp-timestamp-ms',
  clause: 'auth.response.signed',
  doc: 'Response X-Timestamp is Unix time in milliseconds.',
  responseStamp: (nowMs) => ({ timestamp: String(nowMs), nonce: freshNonce() }),
});

export const errorHttp422 = defineFault({
  name: 'error-http-422',
  clause: 'ep.http-200-signed',
  doc: 'Signed business errors use HTTP 422 instead of 200.',
  httpStatusFor: (code) => (code === 0 ? 200 : 422),
});

export const errorHttp400 = defineFault({
  name: 'error-http-400',
  clause: 'env.code.body-not-status',
  doc: 'A business error whose code is 400 is also sent with HTTP status 400 (the code taken for an HTTP status).',
  httpStatusFor: (code) => (code === 400 ? 400 : 200),
});

export const errorEnvelopeWithData = defineFault({
  name: 'error-envelope-with-data',
  clause: 'env.data.omitted-on-error',
  doc: 'Error envelopes carry "data": null instead of omitting data.',
  finishEnvelope: (envelope) => (envelope['code'] === 0 ? envelope : { ...envelope, data: null }),
});

export const envMsgOk = defineFault({
  name: 'env-msg-ok',
  clause: 'env.msg.success',
  doc: 'A success envelope says msg "OK" instead of "success".',
  finishEnvelope: (envelope) => (envelope['code'] === 0 ? { ...envelope, msg: 'OK' } : envelope),
});

export const envKeyBeforeMessage = defineFault({
  name: 'env-key-before-message',
  clause: 'env.msg.message-key',
  doc: 'An error msg puts the key first ("key|message") instead of "message|key".',
  finishEnvelope: (envelope) => {
    const msg = envelope['msg'];
    if (envelope['code'] === 0 || typeof msg !== 'string' || !msg.includes('|')) return envelope;
    const at = msg.lastIndexOf('|');
    return { ...envelope, msg: `${msg.slice(at + 1)}|${msg.slice(0, at)}` };
  },
});

export const envCodeString = defineFault({
  name: 'env-code-string',
  clause: 'env.code.integer',
  doc: 'The envelope code is a JSON string ("0", "2002") instead of an integer.',
  finishEnvelope: (envelope) => ({ ...envelope, code: String(envelope['code']) }),
});

export const acceptLanguageIgnored = defineFault({
  name: 'accept-language-ignored',
  clause: 'ep.accept-language-en',
  doc: 'Accept-Language: en is ignored: msg keeps its details and "|key".',
  plainEnglish: () => false,
});

export const respCamelcaseData = defineFault({
  name: 'resp-camelcase-data',
  clause: 'conv.snake-case',
  doc: 'Response data uses camelCase field names (orderNo, merchantOrderNo, transAmount).',
  finishEnvelope: (envelope) => ('data' in envelope ? { ...envelope, data: camelKeys(envelope['data'], 0) } : envelope),
});

function camelKeys(v: unknown, depth: number): unknown {
  if (depth > 8 || typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) out[k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase())] = camelKeys(val, depth + 1);
  return out;
}

export const authErrorsPlainText = defineFault({
  name: 'auth-errors-plain-text',
  clause: 'env.body.object',
  doc: 'Authentication errors and the unreadable-body error are answered with their message as plain text, not a JSON envelope.',
  unsignedPlainText: true,
});

export const successRecordAtTopLevel = defineFault({
  name: 'success-record-at-top-level',
  clause: 'env.data.on-success',
  doc: 'A success envelope spreads the fields of data into the top level instead of nesting them under data.',
  finishEnvelope: (envelope) => {
    const { data, ...rest } = envelope;
    return envelope['code'] === 0 && typeof data === 'object' && data !== null
      ? { ...rest, ...(data as Record<string, unknown>) }
      : envelope;
  },
});

export const respLatin1 = defineFault({
  name: 'resp-latin1',
  clause: 'conv.utf8',
  doc: 'Signed response bodies are encoded in ISO-8859-1 instead of UTF-8 (non-ASCII text in them is not valid UTF-8).',
  responseEncoding: 'latin1',
});

export const errMsgCodeAfterKey = defineFault({
  name: 'err-msg-code-after-key',
  clause: 'err.format.key-after-last-pipe',
  doc: 'An error msg carries the code after the key ("message|key|3003"), so the part after the last pipe is not the key.',
  finishEnvelope: (envelope) => {
    const msg = envelope['msg'];
    return envelope['code'] === 0 || typeof msg !== 'string' || !msg.includes('|')
      ? envelope
      : { ...envelope, msg: `${msg}|${String(envelope['code'])}` };
  },
});

export const notFoundHttp404 = defineFault({
  name: 'not-found-http-404',
  clause: 'err.format.http-200',
  doc: 'A signed error with code 2002 (order not found) is sent with HTTP status 404 instead of 200.',
  httpStatusFor: (code) => (code === 2002 ? 404 : 200),
});

export const badJsonHttp400 = defineFault({
  name: 'bad-json-http-400',
  clause: 'ep.other-status-only-auth',
  doc: 'A signed request whose body is not valid JSON is answered with HTTP status 400 instead of 200.',
  httpStatusFor: (_code, msg) => (msg.startsWith('Body is not valid UTF-8 JSON') ? 400 : 200),
});

export const apiUnversioned = defineFault({
  name: 'api-unversioned',
  clause: 'ep.versioned-path',
  doc: 'The API is served under /api/ without the /v1/ segment; a /api/v1/ path is unknown.',
  routePath: (path) => (path.startsWith('/api/v1/') ? `/unversioned${path}` : path.replace(/^\/api\//, '/api/v1/')),
});
