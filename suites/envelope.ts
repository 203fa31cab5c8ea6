import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite } from '../harness/check/define.js';
import { expectAnswer, expectAuthError, expectError, failCheck } from '../harness/check/expect.js';
import { recordReading } from '../harness/check/context.js';
import { shortJson } from '../harness/http/exchange-text.js';
import { splitMsg } from '../harness/http/envelope.js';
import { checkout, createCheckout, queryPayment } from '../harness/ops.js';
import type { Exchange } from '../harness/http/exchange.js';
import type { Target } from '../harness/target.js';
import { AUTH_ERRORS, BUSINESS_ERRORS, type ErrorScenario } from './support/error-scenarios.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body parsed from its raw bytes (not from the client's parse), or the reason it is not a JSON object. */
function rawObject(ex: Exchange): { body?: Record<string, unknown>; problem?: string } {
  const res = ex.response;
  if (!res) return { problem: `no response (${ex.error?.kind ?? 'unknown'}: ${ex.error?.message ?? ''})` };
  let v: unknown;
  try {
    v = JSON.parse(UTF8.decode(res.body));
  } catch (e) {
    return { problem: `not UTF-8 JSON: ${(e as Error).message}; body ${JSON.stringify(res.body.subarray(0, 80).toString('latin1'))}` };
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return { problem: `JSON ${v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v}` };
  return { body: v as Record<string, unknown> };
}

function objectBody(ex: Exchange, clause: ClauseId, what: string): Record<string, unknown> {
  // An answer that never came is the request's own row's finding, not this clause's (harness/check/expect.ts).
  expectAnswer(ex, clause);
  const { body, problem } = rawObject(ex);
  if (!body)
    failCheck(clause, {
      code: 'BODY_NOT_JSON_OBJECT',
      title: `the response to ${what} must be a JSON object`,
      expected: 'a JSON object',
      seen: problem ?? '?',
      exchange: ex,
    });
  return body;
}

/** The documented outcome, so a check about the envelope never passes on some other answer. */
function expectDocumented(ex: Exchange, s: ErrorScenario): void {
  if (s.auth) expectAuthError(ex, { http: s.http, code: s.code, key: s.key }, s.clause, { what: s.name });
  else expectError(ex, { code: s.code, key: s.key }, s.clause, { what: s.name });
}

/**
 * The documented error by HTTP status and code, before a check looks at `msg` or `data`: a target
 * that answers something else entirely fails on that, not on the envelope rule under test.
 */
function expectDocumentedCode(ex: Exchange, s: ErrorScenario, b: Record<string, unknown>): void {
  if (ex.response?.status !== s.http || b.code !== s.code) expectDocumented(ex, s);
}

async function successes(t: Target): Promise<{ what: string; ex: Exchange }[]> {
  const order = await createCheckout(t, 'env.code.integer');
  const query = await queryPayment(t, { order_no: order.orderNo }, { label: 'query the new checkout' });
  return [
    { what: 'a checkout', ex: order.exchange },
    { what: 'a query of an existing order', ex: query },
  ];
}

const ALL_ERRORS = [...BUSINESS_ERRORS, ...AUTH_ERRORS];

/** INTERFACE.md › Response envelope, Errors › Format: one check per rule of the envelope. */
export default defineSuite('envelope', { area: 'envelope', resource: 'response' }, [
  {
    title: 'answers every kind of request with a JSON object body',
    clause: 'env.body.object',
    async run({ target }) {
      for (const { what, ex } of await successes(target)) objectBody(ex, 'env.body.object', what);
      for (const s of ALL_ERRORS) objectBody(await s.send(target), 'env.body.object', s.name);
    },
  },
  {
    title: 'gives an integer code, 0 on success and another value on error',
    clause: 'env.code.integer',
    async run({ target }) {
      for (const { what, ex } of await successes(target)) {
        const b = objectBody(ex, 'env.code.integer', what);
        if (b.code !== 0)
          failCheck({
            code: 'SUCCESS_CODE_NOT_ZERO',
            title: `the success of ${what} must have code 0`,
            expected: '0',
            seen: shortJson(b.code),
            exchange: ex,
          });
      }
      for (const s of ALL_ERRORS) {
        const ex = await s.send(target);
        const b = objectBody(ex, 'env.code.integer', s.name);
        if (typeof b.code !== 'number' || !Number.isInteger(b.code) || b.code === 0) {
          failCheck({
            code: 'ERROR_CODE_NOT_NONZERO_INTEGER',
            title: `the error answering ${s.name} must have a non-zero integer code`,
            expected: `an integer (documented: ${s.code})`,
            seen: shortJson(b.code),
            exchange: ex,
          });
        }
      }
    },
  },
  {
    title: 'answers a success with msg success',
    clause: 'env.msg.success',
    async run({ target }) {
      for (const { what, ex } of await successes(target)) {
        const b = objectBody(ex, 'env.msg.success', what);
        if (b.msg !== 'success')
          failCheck({
            code: 'SUCCESS_MSG_WRONG',
            title: `the success of ${what} must have msg "success"`,
            expected: '"success"',
            seen: shortJson(b.msg),
            exchange: ex,
          });
      }
    },
  },
  {
    title: 'answers a success with a data object',
    clause: 'env.data.on-success',
    async run({ target }) {
      for (const { what, ex } of await successes(target)) {
        const b = objectBody(ex, 'env.data.on-success', what);
        const d = b.data;
        if (d === null || typeof d !== 'object' || Array.isArray(d))
          failCheck({
            code: 'SUCCESS_WITHOUT_DATA_OBJECT',
            title: `the success of ${what} must carry a data object`,
            expected: 'data: {…}',
            seen: 'data' in b ? shortJson(d) : 'no data field',
            exchange: ex,
          });
      }
    },
  },
  {
    title: 'writes an error msg as a message, a pipe, then the key',
    clause: 'env.msg.message-key',
    async run({ target }) {
      for (const s of ALL_ERRORS) {
        const ex = await s.send(target);
        const b = objectBody(ex, 'env.msg.message-key', s.name);
        expectDocumentedCode(ex, s, b);
        const msg = b.msg;
        const parts = typeof msg === 'string' ? splitMsg(msg) : undefined;
        if (!parts || parts.key !== s.key || parts.message.trim() === '') {
          failCheck({
            code: 'ERROR_MSG_NOT_MESSAGE_PIPE_KEY',
            title: `the error answering ${s.name} must have msg = message + "|" + key`,
            expected: `"<message>|${s.key}"`,
            seen: shortJson(msg),
            exchange: ex,
          });
        }
        expectDocumented(ex, s);
      }
    },
  },
  {
    title: 'omits data from an error response',
    clause: 'env.data.omitted-on-error',
    async run({ target }) {
      for (const s of ALL_ERRORS) {
        const ex = await s.send(target);
        const b = objectBody(ex, 'env.data.omitted-on-error', s.name);
        expectDocumentedCode(ex, s, b);
        if ('data' in b)
          failCheck({
            code: 'DATA_ON_ERROR',
            title: `the error answering ${s.name} must not have a data field`,
            expected: 'no data field',
            seen: `data: ${shortJson(b.data)}`,
            exchange: ex,
          });
        expectDocumented(ex, s);
      }
    },
  },
  {
    title: 'writes a response body holding non-ASCII text in UTF-8',
    clause: 'conv.utf8',
    async run({ target }) {
      // Text outside Latin-1 as well as inside it, so no single-byte encoding can pass for UTF-8.
      const goodsName = 'Café Übersee – 東京 ☕ €';
      const order = await createCheckout(target, 'conv.utf8', { goodsName, description: 'Crème brûlée, 二つ', metadata: 'naïve ✓' });
      objectBody(order.exchange, 'conv.utf8', 'a checkout with non-ASCII text');
      const q = await queryPayment(target, { order_no: order.orderNo }, { label: 'query the checkout with non-ASCII text' });
      objectBody(q, 'conv.utf8', 'a query of a payment with non-ASCII text');
    },
  },
  {
    title: 'answers every signed business error with HTTP status 200',
    clause: 'err.format.http-200',
    async run({ target }) {
      for (const s of BUSINESS_ERRORS) {
        const ex = await s.send(target);
        if (ex.response !== undefined && ex.response.status !== 200) {
          failCheck({
            code: 'SIGNED_ERROR_NOT_HTTP_200',
            title: `the error answering ${s.name} is a signed business error and must have HTTP status 200`,
            expected: 'HTTP 200',
            seen: `HTTP ${ex.response.status}`,
            exchange: ex,
          });
        }
        expectDocumented(ex, s);
      }
    },
  },
  {
    title: 'answers a correctly signed body that is not valid JSON without an HTTP status of its own',
    clause: ['ep.other-status-only-auth', 'err.format.http-200'],
    async run({ target }) {
      // Signed over its own bytes, so authentication passes; the bytes arrive whole, so the body
      // can be read. A signed error (HTTP 200) answers it; a target that counts it as unreadable
      // answers HTTP 500 internalServerError. No other status is allowed.
      const ex = await target.post(target.path('paymentQuery'), Buffer.from('{"merchant_order_no": ', 'utf8'), {
        label: 'query with a truncated JSON body',
      });
      const b = objectBody(ex, 'ep.other-status-only-auth', 'a body that is not valid JSON');
      const status = ex.response!.status;
      const key = typeof b.msg === 'string' ? splitMsg(b.msg).key : undefined;
      if (status === 500 && b.code === 500 && key === 'internalServerError') {
        recordReading('ep.invalid-json', 'HTTP 500 internalServerError (body unreadable)');
        return;
      }
      if (status !== 200 || b.code === 0) {
        failCheck({
          code: 'INVALID_JSON_OTHER_STATUS',
          title:
            'a body that is not valid JSON must be refused with a signed error (HTTP 200) or as unreadable (HTTP 500 internalServerError)',
          expected: 'HTTP 200 with a non-zero code, or HTTP 500 internalServerError',
          seen: `HTTP ${status}, code ${shortJson(b.code)}`,
          exchange: ex,
        });
      }
      recordReading('ep.invalid-json', `signed ${shortJson(b.code)} ${key ?? ''}`);
    },
  },
  {
    title: 'puts the key after the last pipe when the message holds a pipe too',
    clause: ['err.format.key-after-last-pipe', 'env.msg.message-key'],
    async run({ target }) {
      // An unknown method whose name holds pipes: a message that quotes it has pipes before the key.
      const method = `${target.profile.methods.unknown}|x|y`;
      const ex = await checkout(target, { method }, { label: `checkout with the unknown method ${JSON.stringify(method)}` });
      expectError(
        ex,
        { code: 3003, key: 'unsupportedPaymentMethod' },
        { what: `a checkout with the unknown method ${JSON.stringify(method)}` },
      );
      const msg = String((ex.response?.json as { msg?: unknown } | undefined)?.msg ?? '');
      recordReading(
        'err.format.message-quotes-value',
        msg.split('|').length > 2 ? 'the message quotes the value (pipes before the key)' : 'the message does not quote the value',
      );
    },
  },
]);
