import type { ClauseId } from '../harness/clauses/registry.js';
import { defineSuite } from '../harness/check/define.js';
import { expectAnswer, failCheck } from '../harness/check/expect.js';
import { shortJson } from '../harness/http/exchange-text.js';
import { splitMsg } from '../harness/http/envelope.js';
import type { Exchange } from '../harness/http/exchange.js';
import { AUTH_ERRORS, BUSINESS_ERRORS, type ErrorScenario } from './support/error-scenarios.js';

const EN = 'en';

function envelope(ex: Exchange, clause: ClauseId, what: string): { status: number; code: unknown; msg: unknown } {
  // An answer that never came is the request's own row's finding, not this clause's (harness/check/expect.ts).
  expectAnswer(ex, clause);
  const res = ex.response;
  const b = res?.json;
  if (!res || b === null || typeof b !== 'object' || Array.isArray(b)) {
    failCheck(clause, {
      code: 'BODY_NOT_JSON_OBJECT',
      title: `the response to ${what} must be a JSON object`,
      expected: 'a JSON object',
      seen: res ? (res.jsonError ?? shortJson(b)) : 'no response',
      exchange: ex,
    });
  }
  const o = b as Record<string, unknown>;
  return { status: res.status, code: o.code, msg: o.msg };
}

/** The same error as without the header: code and HTTP status are not a matter of language. */
function expectSameError(ex: Exchange, s: ErrorScenario, clause: ClauseId, what: string): void {
  const e = envelope(ex, clause, what);
  if (e.code !== s.code || e.status !== s.http) {
    failCheck(clause, {
      code: e.code === 0 ? 'ACCEPTED_BUT_SHOULD_REFUSE' : 'CODE_CHANGED_BY_LANGUAGE',
      title: `${what} must keep its code and HTTP status when Accept-Language is en`,
      expected: `HTTP ${s.http}, code ${s.code}`,
      seen: `HTTP ${e.status}, code ${shortJson(e.code)}`,
      exchange: ex,
    });
  }
}

/** Keys like `unauthorized` are plain words; camelCase keys cannot be part of an English sentence. */
function holdsKey(msg: string, key: string): boolean {
  if (msg.includes('|')) return true;
  if (/[A-Z]/.test(key)) return msg.includes(key);
  return msg.trim().toLowerCase() === key.toLowerCase();
}

function expectPlainSentence(ex: Exchange, s: ErrorScenario, clause: ClauseId): string {
  const what = `${s.name} with Accept-Language: en`;
  const { msg } = envelope(ex, clause, what);
  if (typeof msg !== 'string' || !/[A-Za-z]{2,}/.test(msg) || holdsKey(msg, s.key)) {
    failCheck(clause, {
      code: 'ENGLISH_MSG_NOT_PLAIN',
      title: `the msg answering ${what} must be a plain English sentence without the key`,
      expected: `an English sentence, no "|", no "${s.key}"`,
      seen: shortJson(msg),
      exchange: ex,
    });
  }
  return msg;
}

function expectNoFieldNames(ex: Exchange, s: ErrorScenario, names: string[], clause: ClauseId): void {
  const { msg } = envelope(ex, clause, s.name);
  const text = typeof msg === 'string' ? msg : '';
  const named = names.filter((n) => text.toLowerCase().includes(n.toLowerCase()));
  if (named.length > 0) {
    failCheck(clause, {
      code: 'ENGLISH_MSG_HAS_FIELD_DETAILS',
      title: `the msg answering ${s.name} with Accept-Language: en must leave field details out`,
      expected: `no mention of ${names.join(', ')}`,
      seen: `${shortJson(msg)} names ${named.join(', ')}`,
      exchange: ex,
    });
  }
}

const GOODS_NAME_MISSING = BUSINESS_ERRORS.find((s) => s.key === 'invalidRequest')!;
const UNREADABLE_BODY = AUTH_ERRORS.find((s) => s.key === 'internalServerError')!;

/** INTERFACE.md › Endpoints (common rules): `Accept-Language: en` gives a plain English `msg`. */
export default defineSuite('language', { area: 'errors', resource: 'request' }, [
  {
    title: 'writes an error msg as a plain English sentence without the key when Accept-Language is en',
    clause: 'ep.accept-language-en',
    async run({ target }) {
      for (const s of BUSINESS_ERRORS) {
        const ex = await s.send(target, { acceptLanguage: EN });
        expectSameError(ex, s, 'ep.accept-language-en', s.name);
        expectPlainSentence(ex, s, 'ep.accept-language-en');
      }
    },
  },
  {
    title: 'keeps the error code and HTTP status when Accept-Language is en',
    clause: 'ep.accept-language-en',
    async run({ target }) {
      for (const s of [...BUSINESS_ERRORS, ...AUTH_ERRORS]) {
        const ex = await s.send(target, { acceptLanguage: EN });
        expectSameError(ex, s, 'ep.accept-language-en', s.name);
      }
    },
  },
  {
    title: 'leaves the field name out of the English msg for a missing goods_name',
    clause: ['ep.accept-language-en', 'checkout.goods-name-missing'],
    async run({ target }) {
      const s = GOODS_NAME_MISSING;
      const ex = await s.send(target, { acceptLanguage: EN });
      expectSameError(ex, s, 'ep.accept-language-en', s.name);
      expectNoFieldNames(ex, s, s.fields(target), 'ep.accept-language-en');
    },
  },
  {
    title: 'leaves field names out of every English error msg',
    clause: 'ep.accept-language-en',
    async run({ target }) {
      const everyField = [...new Set(BUSINESS_ERRORS.flatMap((s) => s.fields(target)))];
      for (const s of BUSINESS_ERRORS) {
        const ex = await s.send(target, { acceptLanguage: EN });
        expectSameError(ex, s, 'ep.accept-language-en', s.name);
        expectNoFieldNames(ex, s, everyField, 'ep.accept-language-en');
      }
    },
  },
  {
    title: 'keeps the key in an error msg when no Accept-Language is sent',
    clause: ['env.msg.message-key', 'ep.accept-language-en'],
    async run({ target }) {
      for (const s of BUSINESS_ERRORS) {
        const ex = await s.send(target);
        const { msg } = envelope(ex, 'env.msg.message-key', s.name);
        if (typeof msg !== 'string' || splitMsg(msg).key !== s.key) {
          failCheck({
            code: 'MSG_WITHOUT_KEY',
            title: `without Accept-Language the msg answering ${s.name} must end in "|${s.key}"`,
            expected: `"<message>|${s.key}"`,
            seen: shortJson(msg),
            exchange: ex,
          });
        }
      }
    },
  },
  {
    title: 'writes an authentication error msg without the key when Accept-Language is en',
    clause: ['ep.accept-language-en', 'err.auth.unauthorized', 'err.auth.merchant-not-found', 'err.auth.forbidden'],
    async run({ target }) {
      for (const s of AUTH_ERRORS.filter((a) => a.key !== 'internalServerError')) {
        const ex = await s.send(target, { acceptLanguage: EN });
        expectSameError(ex, s, 'ep.accept-language-en', s.name);
        expectPlainSentence(ex, s, 'ep.accept-language-en');
      }
    },
  },
  {
    title: 'writes the unreadable-body error msg without the key when Accept-Language is en',
    clause: ['ep.accept-language-en', 'err.auth.unreadable-body'],
    async run({ target }) {
      const s = UNREADABLE_BODY;
      const ex = await s.send(target, { acceptLanguage: EN });
      expectSameError(ex, s, 'ep.accept-language-en', s.name);
      expectPlainSentence(ex, s, 'ep.accept-language-en');
    },
  },
]);
