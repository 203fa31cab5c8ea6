/**
 * The reference's configurations init is proved against: one row each. A row starts the reference
 * in that configuration and names the profile that transcribes its README (the truth).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RunningReference, startReference } from '../../reference/index.js';
import type { Profile } from '../../harness/profile/types.js';
import { ROOT } from '../cli/helpers.js';

export interface Configuration {
  name: string;
  start(): Promise<RunningReference>;
  /** The profile written from the reference's README for this configuration. */
  truth: Profile;
  truthFile: string;
  timeScale: number;
  /**
   * Request field names the configuration accepts besides the truth's own (a target may take two
   * spellings; init writes the one its messages name): truth key → every accepted key.
   */
  requestAlternates?: Record<string, string[]>;
  /**
   * Left out of the conformance run of green-run.test.ts (a run takes minutes on this shared machine);
   * init's values are compared with the truth in init.test.ts.
   */
  initOnly?: boolean;
  /** The payout request's amount field (the document names none). */
  payoutAmountField?: string;
  /** Internal names the README gives beyond the truth profile's internalFieldNames (init also learns the ones checks read). */
  moreInternalNames: Record<string, string>;
}

function truthOf(file: string): Profile {
  return JSON.parse(readFileSync(join(ROOT, 'fixtures', 'profiles', file), 'utf8')) as Profile;
}

const TIME_SCALE = 0.005;

/**
 * A target written apart from the kit, as far as the reference can be it: a payment record with another money field
 * (refunded_amount, 0.00) and a payout amount field named payout_amount (trans_amount not read there).
 * Its truth is reference.json with the payout template's amount under that name.
 */
function moneyFieldsTruth(): Profile {
  const t = truthOf('reference.json');
  const { trans_amount: amount, ...rest } = t.payouts!.template;
  t.payouts!.template = { ...rest, payout_amount: amount };
  return t;
}

/** reference/README.md: "Internal names are PascalCase of the snake_case path … OrderNo …, TradeInfo(.GoodsName/.Description)". */
const README_INTERNAL_NAMES = { order_no: 'OrderNo', trade_info: 'TradeInfo' };

export const CONFIGURATIONS: Configuration[] = [
  {
    name: 'reference (serve)',
    start: () => startReference({ port: 0, timeScale: TIME_SCALE }),
    truth: truthOf('reference.json'),
    truthFile: 'reference.json',
    timeScale: TIME_SCALE,
    moreInternalNames: README_INTERNAL_NAMES,
  },
  {
    name: 'reference (serve --readings alt)',
    start: () => startReference({ port: 0, timeScale: TIME_SCALE, readings: 'alt' }),
    truth: truthOf('reference-alt.json'),
    truthFile: 'reference-alt.json',
    timeScale: TIME_SCALE,
    moreInternalNames: README_INTERNAL_NAMES,
    // reference/readings/requests.ts renames the alternative names to the internal ones, so both are taken;
    // the target's messages name the internal ones, which init writes.
    requestAlternates: {
      amount: ['refund_amount', 'trans_amount'],
      refund_reason: ['reason'],
      beneficiary: ['payee'],
      payout_method: ['payment_method'],
    },
  },
  {
    name: 'reference (refunded_amount in records, payout_amount in payout requests)',
    start: () => startReference({ port: 0, timeScale: TIME_SCALE, readings: ['extra-money-fields', 'payout-amount-field'] }),
    truth: moneyFieldsTruth(),
    truthFile: 'reference.json',
    timeScale: TIME_SCALE,
    moreInternalNames: README_INTERNAL_NAMES,
    payoutAmountField: 'payout_amount',
    initOnly: true,
  },
];
