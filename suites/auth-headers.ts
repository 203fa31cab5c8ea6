import { defineSuite, type CheckSpec } from '../harness/check/define.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { expectAuthError, expectUnsigned } from '../harness/check/expect.js';
import { SIGNING_HEADERS, type SigningHeader } from '../harness/http/signing.js';
import { queryPayment } from '../harness/ops.js';
import { authChargeFor, unknownOrderLookup } from './support/auth-outcomes.js';

const UNAUTHORIZED = { http: 401, code: 401, key: 'unauthorized' };

function headerCheck(header: SigningHeader, how: 'missing' | 'empty'): CheckSpec {
  const title =
    how === 'missing' ? `refuses a request without ${header} as unauthorized` : `refuses a request with an empty ${header} as unauthorized`;
  return {
    title,
    clause: ['auth.missing-header', 'err.auth.unauthorized', 'auth.headers.required', 'auth.errors.unsigned'],
    async run({ target }) {
      // Signed correctly first, then the header is taken away or emptied: nothing else is wrong.
      const ex = await queryPayment(target, unknownOrderLookup(target), {
        headers: { [header]: how === 'missing' ? null : '' },
        label: `query an unknown order with ${how === 'missing' ? 'no' : 'an empty'} ${header}`,
        noVerify: true,
      });
      const charged = authChargeFor(ex, UNAUTHORIZED, {
        passed: 'auth.headers.required',
        row: 'err.auth.unauthorized',
        rule: 'auth.missing-header',
      });
      expectAuthError(ex, UNAUTHORIZED, charged, { what: `a request with ${how === 'missing' ? 'no' : 'an empty'} ${header}` });
      expectUnsigned(ex, 'auth.errors.unsigned');
    },
  };
}

/** INTERFACE.md › Authentication, Errors › Authentication errors: the four headers, unknown merchants, unreadable bodies. */
export default defineSuite('auth-headers', { area: 'auth', resource: 'request' }, [
  ...SIGNING_HEADERS.map((h) => headerCheck(h, 'missing')),
  ...SIGNING_HEADERS.map((h) => headerCheck(h, 'empty')),
  {
    title: 'refuses an unknown merchant id as merchantNotFound',
    clause: ['auth.unknown-merchant', 'err.auth.merchant-not-found', 'auth.merchant-id', 'auth.errors.unsigned'],
    async run({ target }) {
      const unknownId = target.merchants.unknownId;
      // Whatever secret is used: the service has none for this id.
      const ex = await queryPayment(target, unknownOrderLookup(target), {
        as: { id: unknownId, secret: 'x' },
        noVerify: true,
        label: 'query an unknown order as an unknown merchant id',
      });
      const want = { http: 401, code: 401, key: 'merchantNotFound' };
      expectAuthError(
        ex,
        want,
        authChargeFor(ex, want, { passed: 'auth.unknown-merchant', row: 'err.auth.merchant-not-found', rule: 'auth.unknown-merchant' }),
        { what: 'a request with an unknown X-MerchantID' },
      );
      expectUnsigned(ex, 'auth.errors.unsigned');
    },
  },
  {
    title: "refuses the merchant's name and login as X-MerchantID as merchantNotFound",
    clause: ['auth.merchant-id', 'auth.unknown-merchant', 'err.auth.merchant-not-found', 'auth.errors.unsigned'],
    async run({ target }) {
      // Profile version 3 says who the merchant is besides its id (merchants.<role>.name, .login).
      const aliases = (['primary', 'second', 'lowBalance', 'frozen'] as const).flatMap((role) => {
        const ref = target.profile.merchants[role];
        const m = target.merchants[role];
        if (!ref || !m) return [];
        return (['name', 'login'] as const).flatMap((field) => {
          const v = ref[field];
          return v !== undefined && v !== ref.id ? [{ role, field, value: v, secret: m.secret }] : [];
        });
      });
      if (aliases.length === 0)
        throw new PreconditionSkip("the profile declares no merchant's name or login (merchants.primary.name, merchants.primary.login)", {
          declare: ['merchants.primary.name', 'merchants.primary.login'],
        });
      const want = { http: 401, code: 401, key: 'merchantNotFound' };
      for (const a of aliases) {
        // Signed with the merchant's own secret: a service taking the alias for the merchant would let it through.
        const ex = await queryPayment(target, unknownOrderLookup(target), {
          as: { id: a.value, secret: a.secret },
          noVerify: true,
          label: `query an unknown order with the ${a.role} merchant's ${a.field} as X-MerchantID`,
        });
        expectAuthError(
          ex,
          want,
          authChargeFor(ex, want, { passed: 'auth.merchant-id', row: 'err.auth.merchant-not-found', rule: 'auth.unknown-merchant' }),
          { what: `a request whose X-MerchantID is the ${a.role} merchant's ${a.field}, not its id` },
        );
        expectUnsigned(ex, 'auth.errors.unsigned');
      }
    },
  },
  {
    title: 'answers a body shorter than its Content-Length with HTTP 500 internalServerError',
    clause: ['err.auth.unreadable-body', 'ep.other-status-only-auth', 'auth.errors.unsigned'],
    async run({ target }) {
      const body = Buffer.from(JSON.stringify(unknownOrderLookup(target)), 'utf8');
      // The declared length promises bytes that never come: the server cannot read the body.
      const ex = await target.post(target.path('paymentQuery'), body, {
        declaredContentLength: body.length + 64,
        noVerify: true,
        label: 'query with a body shorter than its Content-Length',
      });
      expectAuthError(ex, { http: 500, code: 500, key: 'internalServerError' }, { what: 'a request whose body cannot be read' });
      expectUnsigned(ex, 'auth.errors.unsigned');
    },
  },
]);
