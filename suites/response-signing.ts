import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite } from '../harness/check/define.js';
import { expectError, expectSuccess, failCheck } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { checkout, createCheckout, defaultAmount, queryPayment } from '../harness/ops.js';
import type { ResolvedMerchant } from '../harness/profile/load.js';
import { describeVerifyFailure, headerValue, SIGNING_HEADERS, verify } from '../harness/http/signing.js';
import type { Exchange } from '../harness/http/exchange.js';
import { unknownOrderLookup } from './support/auth-outcomes.js';

/**
 * The response carries the four headers, X-MerchantID is the caller's, and X-Sign is the lower-case
 * hex HMAC-SHA256 of merchantID LF timestamp LF nonce LF raw response body, keyed with the caller's
 * secret. Checked here explicitly (the global invariant checks it on every exchange as well).
 */
function expectSignedFor(ex: Exchange, who: ResolvedMerchant, clause: ClauseId, what: string): void {
  const res = ex.response;
  if (!res)
    failCheck(clause, {
      code: 'NO_RESPONSE',
      title: 'the target gave no response',
      expected: 'a signed response',
      seen: ex.error?.message ?? 'nothing',
      exchange: ex,
    });
  for (const h of SIGNING_HEADERS) {
    const v = headerValue(res.headers, h);
    if (v === undefined || v === '')
      failCheck(clause, {
        code: 'RESPONSE_HEADER_MISSING',
        title: `${what} must carry ${h}`,
        expected: `a non-empty ${h}`,
        seen: v === undefined ? 'no such header' : 'an empty value',
        exchange: ex,
      });
  }
  const id = headerValue(res.headers, 'X-MerchantID');
  if (id !== who.id)
    failCheck(clause, {
      code: 'RESPONSE_MERCHANT_ID_WRONG',
      title: `${what} must name the caller in X-MerchantID`,
      expected: who.id,
      seen: String(id),
      exchange: ex,
    });
  const result = verify(res.headers, res.body, { merchantId: who.id, secret: who.secret });
  if (!result.ok) {
    failCheck(clause, {
      code: 'RESPONSE_SIGNATURE_INVALID',
      title: `${what} must be signed over its raw bytes: ${describeVerifyFailure(result)}`,
      expected: 'X-Sign = lower-case hex HMAC-SHA256(secret, merchantID LF timestamp LF nonce LF raw body)',
      seen: `X-Sign ${JSON.stringify(headerValue(res.headers, 'X-Sign'))}`,
      exchange: ex,
    });
  }
}

function expectHttp200(ex: Exchange, clause: ClauseId, what: string): void {
  const status = ex.response?.status;
  if (status !== 200)
    failCheck(clause, {
      code: 'SIGNED_RESPONSE_NOT_HTTP_200',
      title: `${what} is a signed answer and must use HTTP 200`,
      expected: 'HTTP 200',
      seen: status === undefined ? 'no response' : `HTTP ${status}`,
      exchange: ex,
    });
}

/** Amount with a third decimal added to a valid one ("10.00" -> "10.001"): refused 422 validationFailed. */
function threeDecimals(value: string): string {
  return /\.\d\d$/.test(value) ? `${value}1` : `${value}.001`;
}

/** INTERFACE.md › Authentication (rule 3), Endpoints (common rules), Errors › Format: signed responses and their HTTP status. */
export default defineSuite('response-signing', { area: 'auth', resource: 'response' }, [
  {
    title: 'signs a success response with the four headers over its raw bytes',
    clause: 'auth.response.signed',
    async run({ target }) {
      const order = await createCheckout(target, 'auth.response.signed');
      const ex = await queryPayment(target, { order_no: order.orderNo });
      expectSuccess(ex, { what: 'querying a new checkout' });
      expectSignedFor(order.exchange, target.merchant('primary'), 'auth.response.signed', 'the checkout success response');
      expectSignedFor(ex, target.merchant('primary'), 'auth.response.signed', 'the query success response');
    },
  },
  {
    title: 'signs a business error response with the four headers over its raw bytes',
    clause: ['auth.response.signed', 'ep.http-200-signed'],
    async run({ target }) {
      const ex = await queryPayment(target, unknownOrderLookup(target), { label: 'query an unknown order' });
      expectError(ex, { code: 2002, key: 'orderNotFound' }, 'query.not-found', { what: 'a query of an unknown order' });
      expectSignedFor(ex, target.merchant('primary'), 'auth.response.signed', 'the orderNotFound error response');
    },
  },
  {
    title: 'signs responses to the second merchant with its own id and secret',
    clause: ['auth.response.signed', 'auth.merchant-id'],
    async run({ target }) {
      const second = target.merchant('second');
      const ok = await checkout(target, {}, { as: 'second', label: 'create a checkout as the second merchant' });
      expectSuccess(ok, { what: 'a checkout by the second merchant' });
      expectSignedFor(ok, second, 'auth.response.signed', 'the success response to the second merchant');
      const err = await queryPayment(target, unknownOrderLookup(target), {
        as: 'second',
        label: 'query an unknown order as the second merchant',
      });
      expectError(err, { code: 2002, key: 'orderNotFound' }, 'query.not-found', {
        what: 'a query of an unknown order by the second merchant',
      });
      expectSignedFor(err, second, 'auth.response.signed', 'the error response to the second merchant');
    },
  },
  {
    title: 'writes the response X-Timestamp in Unix seconds',
    clause: ['auth.response.signed', 'auth.timestamp.seconds'],
    async run({ target }) {
      const before = Math.floor(Date.now() / 1000);
      const ex = await queryPayment(target, unknownOrderLookup(target), { label: 'query an unknown order' });
      const ts = ex.response ? headerValue(ex.response.headers, 'X-Timestamp') : undefined;
      // Seconds now have 10 digits; milliseconds 13. The clock difference allowed is not shown, so only the unit is checked.
      if (ts === undefined || !/^[0-9]+$/.test(ts) || Number(ts) > before * 100 || Number(ts) < before / 100) {
        failCheck({
          code: 'RESPONSE_TIMESTAMP_NOT_SECONDS',
          title: 'the response X-Timestamp must be Unix time in seconds as a decimal string',
          expected: `a decimal number of seconds near ${before}`,
          seen: ts === undefined ? 'no X-Timestamp' : JSON.stringify(ts),
          exchange: ex,
        });
      }
    },
  },
  {
    title: 'answers a business error with HTTP 200',
    clause: ['ep.http-200-signed', 'err.format.http-200'],
    async run({ target }) {
      const ex = await queryPayment(target, unknownOrderLookup(target), { label: 'query an unknown order' });
      expectHttp200(ex, 'ep.http-200-signed', 'the orderNotFound error');
      expectError(ex, { code: 2002, key: 'orderNotFound' }, 'query.not-found', { what: 'a query of an unknown order' });
    },
  },
  {
    title: 'answers errors coded 400 and 422 with HTTP 200, the code only in the body',
    clause: ['env.code.body-not-status', 'ep.http-200-signed', 'err.format.http-200'],
    async run({ target }) {
      const e400 = await queryPayment(target, {}, { label: 'query with neither number (code 400)' });
      expectHttp200(e400, 'env.code.body-not-status', 'an error with code 400');
      expectError(e400, { code: 400, key: 'mutuallyRequiredFieldsMissing' }, { what: 'a query with neither number' });
      const pricePoint = new Set(target.profile.methods.pricePoint ?? []);
      const method = target.profile.methods.checkout.find((m) => !pricePoint.has(m));
      if (!method)
        throw new PreconditionSkip('the profile declares no checkout method that is not a price-point method (methods.checkout)', {
          declare: ['methods.checkout'],
        });
      const value = threeDecimals(defaultAmount(target, method));
      const e422 = await checkout(
        target,
        { method, amount: { currency: 'USD', value } },
        { label: `checkout with value ${value} (code 422)` },
      );
      expectHttp200(e422, 'env.code.body-not-status', 'an error with code 422');
      expectError(e422, { code: 422, key: 'validationFailed' }, { what: `a checkout with value ${value}` });
    },
  },
]);
