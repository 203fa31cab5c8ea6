import { defineSuite } from '../harness/check/define.js';
import { expectAuthError } from '../harness/check/expect.js';
import { PreconditionSkip } from '../harness/check/failure.js';
import { queryPayment } from '../harness/ops.js';
import type { MerchantRole } from '../harness/target.js';

const FORBIDDEN = { http: 403, code: 403, key: 'forbidden' };
const ROLES: readonly MerchantRole[] = ['primary', 'second', 'frozen', 'lowBalance'];

/**
 * INTERFACE.md › Authentication: "Test and production environments have different secret keys."
 * A sandbox that accepts a merchant's production key does not keep them apart: a request signed
 * with it is a signature mismatch there (403 forbidden).
 */
export default defineSuite('environment-keys', { area: 'auth', resource: 'request' }, [
  {
    title: "refuses a request signed with the merchant's production key in the sandbox with 403 forbidden",
    clause: ['auth.env-keys', 'auth.bad-signature'],
    async run({ target: t }) {
      if (t.profile.environment !== 'sandbox')
        throw new PreconditionSkip('the target is a production environment: its keys are the production keys (environment)');
      const withKey = ROLES.flatMap((role) => {
        const m = t.merchants[role];
        return m?.productionSecret ? [{ role, id: m.id, productionSecret: m.productionSecret }] : [];
      });
      if (withKey.length === 0)
        throw new PreconditionSkip(
          "the profile declares no merchant's production key (merchants.<role>.productionSecret or productionSecretEnv)",
          { declare: ['merchants.primary.productionSecretEnv (or productionSecret)'] },
        );
      for (const { role, id, productionSecret } of withKey) {
        const ex = await queryPayment(
          t,
          { merchant_order_no: t.newNo('order') },
          { as: { id, secret: productionSecret }, label: `query signed with the ${role} merchant's production key` },
        );
        expectAuthError(ex, FORBIDDEN, { what: `a sandbox request of the ${role} merchant signed with its production key` });
      }
    },
  },
]);
