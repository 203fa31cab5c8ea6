/** Readings of amounts where the document leaves the rule to the service. */
import { defineReading } from './reading.js';

/** Largest distance, in cents, between an amount and the price point it is charged as. */
export const PRICE_POINT_MAX_DISTANCE_CENTS = 50n;

export const pricePointNearestWithin = defineReading({
  name: 'price-point-nearest-within',
  doc:
    'An amount is charged the nearest price point (ties to the higher) when one is within 0.50, ' +
    'otherwise refused: "an amount is rounded to a price point where possible, otherwise refused."',
  roundToTier: (cents, tiers) => {
    let best: bigint | undefined;
    for (const t of tiers) {
      const d = t > cents ? t - cents : cents - t;
      if (d > PRICE_POINT_MAX_DISTANCE_CENTS) continue;
      const bd = best === undefined ? undefined : best > cents ? best - cents : cents - best;
      if (bd === undefined || d < bd || (d === bd && t > best!)) best = t;
    }
    return best;
  },
});

/** Google Pay's own price points, in cents. */
export const GOOGLE_PAY_TIERS_CENTS: readonly bigint[] = [100n, 200n, 500n, 1000n, 2000n, 5000n, 10000n];

export const googlePayOwnTiers = defineReading({
  name: 'google-pay-own-tiers',
  doc:
    'Google Pay charges whole-dollar price points (1.00, 2.00, 5.00 … 100.00), Apple Pay the .99 ones: ' +
    '"Apple Pay and Google Pay accept only fixed amount tiers (price points)"; the tiers are not shown.',
  tiersFor: (method, tiers) => (method === 'GOOGLE_PAY' ? GOOGLE_PAY_TIERS_CENTS : tiers),
});

export const retryWaitsOther = defineReading({
  name: 'retry-waits-other',
  doc:
    'Retries wait 15 s, 45 s, 2, 5, 10, 15, 20 and 35 min (last attempt 88 min after the first): "Waits between attempts ' +
    'grow from about 15 seconds to about 40 minutes. The last attempt is about 80 to 100 minutes after the first."',
  retryWaitsMs: [15_000, 45_000, 120_000, 300_000, 600_000, 900_000, 1_200_000, 2_100_000],
});
