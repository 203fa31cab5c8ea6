/**
 * A target with a long price-point list, as one vendor published it: 102 tiers for each wallet method, the reference's
 * other channels unchanged, and the reference profile saying those tiers (test/doctor/budget.test.ts, bench/doctor-tiers.ts).
 */
import { readFileSync } from 'node:fs';
import { PAYMENT_CHANNELS } from '../../reference/methods.js';
import type { PaymentChannelDescription, TargetDescription } from '../../reference/sandbox-data.js';
import { parseProfile, type LoadedProfile } from '../../harness/profile/load.js';
import { REFERENCE_PROFILE, type Json } from './support.js';

/** 0.99, 1.99, … 101.99: 102 tiers a dollar apart. */
export const LONG_TIERS_CENTS: readonly number[] = Array.from({ length: 102 }, (_, i) => i * 100 + 99);

const value = (cents: number): string => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** The reference's payment channels, the wallets' tiers replaced by the long list. */
export function longListTarget(): TargetDescription {
  const channels: Record<string, PaymentChannelDescription> = {};
  for (const [method, c] of PAYMENT_CHANNELS) {
    const base = { refunds: c.refunds, refundSettlesImmediately: c.refundSettlesImmediately };
    channels[method] = c.tiersCents
      ? { ...base, tiersCents: LONG_TIERS_CENTS }
      : {
          ...base,
          ranges: (c.ranges ?? [{ minCents: c.minCents!, maxCents: c.maxCents! }]).map((r) => ({
            minCents: Number(r.minCents),
            maxCents: Number(r.maxCents),
          })),
        };
  }
  return { paymentChannels: channels };
}

/** The reference profile with the long list said whole (and amounts that round to none of its tiers). */
export function longListProfile(edit: (p: Json) => void = () => {}): LoadedProfile {
  const p = JSON.parse(readFileSync(REFERENCE_PROFILE, 'utf8')) as Json;
  delete p['$schema'];
  p['pricePoints'].tiers = LONG_TIERS_CENTS.map(value);
  p['pricePoints'].unroundable = ['102.00', '250.00', '9999.99'];
  // A machine shared with other runs answers slowly at times: a late answer is no fact of this target.
  p['http'] = { ...p['http'], deadlineMs: 60_000 };
  p['webhooks'] = { ...p['webhooks'], deliveryWaitMs: 20_000 };
  edit(p);
  return parseProfile(JSON.stringify(p), 'long-list.json', {});
}
