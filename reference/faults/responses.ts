/** Faults in how responses are signed and enveloped. */
import { defineFault } from './fault.js';

export const respUppercaseHex = defineFault({
  name: 'resp-uppercase-hex',
  clause: 'sign.response.lower-hex',
  doc: 'Response X-Sign is written in upper-case hex.',
  responseSignatureText: (digest) => digest.toString('hex').toUpperCase(),
});

export const respUnsignedErrors = defineFault({
  name: 'resp-unsigned-errors',
  clause: 'sign.response.errors-signed',
  doc: 'Business-error envelopes are sent without the four signing headers.',
  signErrorResponses: false,
});

export const errorHttp422 = defineFault({
  name: 'error-http-422',
  clause: 'envelope.http-status.signed-200',
  doc: 'Signed business errors use HTTP 422 instead of 200.',
  httpStatusFor: (code) => (code === 0 ? 200 : 422),
});

export const respSignReserialised = defineFault({
  name: 'resp-sign-reserialised',
  clause: 'sign.response.raw-bytes',
  doc: 'Responses are signed over a pretty-printed re-serialisation, not over the bytes sent.',
  responseSigningBytes: (sent) => Buffer.from(JSON.stringify(JSON.parse(sent.toString('utf8')), null, 2), 'utf8'),
});

export const errorEnvelopeWithData = defineFault({
  name: 'error-envelope-with-data',
  clause: 'envelope.error.no-data',
  doc: 'Error envelopes carry "data": null instead of omitting data.',
  finishEnvelope: (envelope) => (envelope['code'] === 0 ? envelope : { ...envelope, data: null }),
});
