/**
 * Profile entries no check reads: warnings (the doctor's exit code stays 0), so a vendor sees that a
 * line of its profile has no effect instead of believing it is used.
 */
import { dotted } from '../profile/schema.js';
import { add, type DoctorContext } from './context.js';

/**
 * The internalFieldNames keys the checks read (suites/support/error-scenarios.ts, suites/naming.ts);
 * test/doctor/unused.test.ts keeps this list equal to what the suites' source reads.
 */
export const INTERNAL_NAMES_READ = ['merchant_order_no', 'order_no', 'payment_method', 'trade_info', 'trade_info.goods_name'] as const;

export function checkUnused(ctx: DoctorContext): void {
  const names = ctx.loaded.profile.internalFieldNames ?? {};
  for (const key of Object.keys(names)) {
    if ((INTERNAL_NAMES_READ as readonly string[]).includes(key)) continue;
    add(ctx, 'warning', dotted(['internalFieldNames', key]), 'an internal field name a check uses', {
      answered: 'no check reads this entry',
      fix: `remove it, or keep it as documentation (read: ${INTERNAL_NAMES_READ.join(', ')})`,
    });
  }
}
