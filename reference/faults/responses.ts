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
