/**
 * The facts room: the profile resolved into the facts of each merchant (methods, limits and channels, required fields,
 * payout methods with their currencies and ranges per currency, refund support, fees, balances and how they move).
 * Checks, the doctor, init and describe read a merchant's facts here rather than the profile's raw fields; the
 * computations over them (channels: harness/facts/limits.ts; fees: harness/facts/fees.ts; money: harness/facts/money.ts) take what this
 * room resolved.
 */
import type { Profile } from '../profile/types.js';
import { type MerchantFacts, type MerchantRole, merchantFacts } from './merchant.js';

export {
  type FactSections,
  type FeeKind,
  MERCHANT_ROLES,
  type MerchantFacts,
  type MerchantRole,
  type RefundSupport,
  sectionsFor,
  whereSaid,
} from './merchant.js';
export { overlay } from './overlay.js';

/** The facts of the merchant acting as `as` (default primary) on the target or profile given. */
export function factsOf(of: Profile | { profile: Profile }, as: MerchantRole = 'primary'): MerchantFacts {
  return merchantFacts('profile' in of ? of.profile : of, as);
}
