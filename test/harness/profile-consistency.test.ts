/** The loader's cross-field rules (harness/profile/consistency.ts): each a precise problem naming the JSON path. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { merchantSecrets, parseProfile, ProfileError } from '../../harness/profile/load.js';

const REFERENCE = new URL('../../fixtures/profiles/reference.json', import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: tests mutate free-form JSON
type Json = Record<string, any>;

function problemsOf(edit: (p: Json) => void, env: NodeJS.ProcessEnv = {}): string[] {
  const p = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Json;
  edit(p);
  try {
    parseProfile(JSON.stringify(p), 'test.json', env);
    return [];
  } catch (err) {
    if (err instanceof ProfileError) return err.problems;
    throw err;
  }
}

/** The reference profile as version 2 says it (without what only version 3 can say), then `edit`: version 2's rules apply. */
/** The reference profile without what versions 4 and 5 add (its triggers, a merchant's own facts, its payout fee, its EUR range). */
function withoutV4(p: Json): void {
  delete p.sandbox.triggers;
  for (const m of Object.values(p.merchants) as Json[]) if (typeof m === 'object') delete m.facts;
  delete p.lengths;
  delete p.fees;
  delete p.balances;
  for (const lim of Object.values(p.limits.payouts) as Json[]) delete lim.byCurrency;
}

function asV2(edit: (p: Json) => void): (p: Json) => void {
  return (p) => {
    withoutV4(p);
    p.profileVersion = 2;
    delete p.merchants.primary.name;
    delete p.merchants.primary.login;
    delete p.cardPayment.declines;
    delete p.refunds.createdStatus;
    delete p.merchants.second.payoutBalances;
    edit(p);
  };
}

describe('profile cross-field rules', () => {
  it('the reference profile has none', () => {
    expect(problemsOf(() => {})).toEqual([]);
  });

  const cases: [string, (p: Json) => void, string][] = [
    [
      'limits.payouts for a method that is no payout method',
      (p) => (p.limits.payouts.CASH_APP = { min: '1.00', max: '2.00' }),
      'limits.payouts.CASH_APP: "CASH_APP" is not a key of payouts.methods',
    ],
    [
      'limits.payments for a method the profile does not declare',
      (p) => (p.limits.payments.ZELLE = { min: '1.00', max: '2.00' }),
      'limits.payments.ZELLE: "ZELLE" is not a payment method the profile declares (methods.checkout, methods.card)',
    ],
    [
      'a merchant payout method not in payouts.methods',
      (p) => (p.merchants.lowBalance.payoutMethods = ['BANK_TRANSFER', 'WIRE']),
      'merchants.lowBalance.payoutMethods[1]: "WIRE" is not a key of payouts.methods',
    ],
    [
      'a merchant payment method not declared',
      asV2((p) => (p.merchants.second.paymentMethods = ['CARD', 'ZELLE'])),
      'merchants.second.paymentMethods[1]: "ZELLE" is not a method the profile declares (methods.checkout or methods.card)',
    ],
    [
      'payout methods without payouts',
      (p) => {
        delete p.payouts;
        delete p.limits.payouts;
        p.merchants.second.payoutMethods = ['PAYPAL'];
      },
      'merchants.second.payoutMethods: the profile declares no payouts section (payouts.methods)',
    ],
    [
      'channels whose extremes are not min and max',
      (p) =>
        (p.limits.payments.CARD.channels = [
          { min: '1.00', max: '100.00' },
          { min: '200.00', max: '10000.00' },
        ]),
      'limits.payments.CARD.min: must be the smallest channel minimum (limits.payments.CARD.channels starts at 1.00, min says 0.50)',
    ],
    [
      'overlapping channels',
      asV2(
        (p) =>
          (p.limits.payments.CARD.channels = [
            { min: '0.50', max: '100.00' },
            { min: '50.00', max: '10000.00' },
          ]),
      ),
      'limits.payments.CARD.channels[1]: channels must be listed in ascending order without overlap (min ' +
        "50.00 is not above the previous channel's max 100.00); one range covering both is one channel",
    ],
    [
      'unsorted channels',
      asV2(
        (p) =>
          (p.limits.payments.CARD.channels = [
            { min: '200.00', max: '10000.00' },
            { min: '0.50', max: '100.00' },
          ]),
      ),
      'limits.payments.CARD.channels[1]: channels must be listed in ascending order without overlap (min ' +
        "0.50 is not above the previous channel's max 10000.00); one range covering both is one channel",
    ],
    [
      'tiersByMethod for a method that is no price-point method',
      (p) => (p.pricePoints.tiersByMethod = { PAYPAL: ['1.00'] }),
      'pricePoints.tiersByMethod.PAYPAL: "PAYPAL" is not one of methods.pricePoint',
    ],
    [
      'tiersByMethod out of order',
      (p) => (p.pricePoints.tiersByMethod = { APPLE_PAY: ['1.99', '0.99'] }),
      'pricePoints.tiersByMethod.APPLE_PAY[1]: tiers must be in ascending order (0.99 follows 1.99)',
    ],
    [
      'tie without nearest rounding',
      (p) => (p.pricePoints.tie = 'down'),
      'pricePoints.tie: applies only with "rounding": "nearest" (rounding is "up")',
    ],
    [
      'extrasByMethod for an unknown method',
      (p) => (p.checkout.extrasByMethod = { ZELLE: { phone: '1' } }),
      'checkout.extrasByMethod.ZELLE: "ZELLE" is not a payment method the profile ' +
        "declares (methods.checkout, methods.card, a merchant's paymentMethods)",
    ],
    [
      'noChannel among the checkout methods',
      (p) => (p.methods.noChannel = 'PAYPAL'),
      'methods.noChannel: must not be one of methods.checkout ("PAYPAL" is listed there)',
    ],
    [
      'a production key on a production profile',
      (p) => {
        p.environment = 'production';
        p.merchants.primary.productionSecret = 'sk_live_primary_7d3f1a9c5e2b8046';
      },
      "merchants.primary.productionSecret: a production profile's key is its " +
        'secret; productionSecret belongs in a sandbox profile only (remove it)',
    ],
    [
      'the production key as the sandbox key',
      (p) => (p.merchants.primary.secret = p.merchants.primary.productionSecret),
      'merchants.primary.secret: is the same key as merchants.primary.productionSecret ' +
        '(test and production keys differ: the secret of a sandbox profile is the test key)',
    ],
    [
      'both productionSecret and productionSecretEnv',
      (p) => {
        p.merchants.primary.productionSecret = 'sk_live_primary_7d3f1a9c5e2b8046';
        p.merchants.primary.productionSecretEnv = 'MPSI_PRIMARY_LIVE';
      },
      'merchants.primary: must have at most one of "productionSecret" or "productionSecretEnv"',
    ],
    [
      'productionSecretEnv naming an unset variable',
      (p) => (p.merchants.frozen.productionSecretEnv = 'MPSI_FROZEN_LIVE'),
      'merchants.frozen.productionSecretEnv: environment variable MPSI_FROZEN_LIVE is not set',
    ],
    [
      'a version-2 field under "profileVersion": 1',
      (p) => {
        p.profileVersion = 1;
        p.merchants.second.paymentMethods = ['CARD'];
      },
      'merchants.second.paymentMethods: is a profile format version 2 field, but the profile says "profileVersion": 1 (set it to 2)',
    ],
    [
      'a version-3 field under "profileVersion": 2',
      asV2((p) => (p.merchants.primary.login = 'primary.admin')),
      'merchants.primary.login: is a profile format version 3 field, but the profile says "profileVersion": 2 (set it to 3)',
    ],
    [
      'the failure switch\'s scope and count (version 4) under "profileVersion": 3',
      (p) => {
        p.profileVersion = 3;
        p.sandbox.armFailure.scope = 'operation';
        p.sandbox.armFailure.count = 2;
      },
      'sandbox.armFailure.scope: is a profile format version 4 field, but the profile says "profileVersion": 3 (set it to 4)',
    ],
    [
      'overlapping channels under "profileVersion": 2',
      asV2(
        (p) =>
          (p.limits.payments.CARD.channels = [
            { min: '0.50', max: '5000.00' },
            { min: '100.00', max: '10000.00' },
          ]),
      ),
      'limits.payments.CARD.channels[1]: channels must be listed in ascending order without overlap (min ' +
        "100.00 is not above the previous channel's max 5000.00); one range covering both is one channel",
    ],
    [
      'version-3 channels out of order',
      (p) => {
        withoutV4(p);
        p.profileVersion = 3;
        p.limits.payments.CARD.channels = [
          { min: '100.00', max: '10000.00' },
          { min: '0.50', max: '5000.00' },
        ];
      },
      'limits.payments.CARD.channels[1]: channels must be listed in ascending order of min (0.50 follows 100.00)',
    ],
    [
      "a method of the primary's own the profile does not declare, under version 3",
      (p) => {
        withoutV4(p);
        p.profileVersion = 3;
        p.merchants.primary.paymentMethods = ['CARD', 'KLARNA'];
      },
      'merchants.primary.paymentMethods[1]: "KLARNA" is not a method the profile declares (methods.checkout or methods.card)',
    ],
    [
      'a merchant\'s own facts (version 5) under "profileVersion": 4',
      (p) => (p.profileVersion = 4),
      'merchants.second.facts: is a profile format version 5 field, but the profile says "profileVersion": 4 (set it to 5)',
    ],
    [
      'a fee\'s minimum (version 5) under "profileVersion": 4',
      (p) => (p.profileVersion = 4),
      'fees.payouts.BANK_TRANSFER.min: is a profile format version 5 field, but the profile says "profileVersion": 4 (set it to 5)',
    ],
    [
      "a merchant's own range of a method the profile does not declare",
      (p) => (p.merchants.lowBalance.facts = { limits: { payments: { ZELLE: { min: '1.00', max: '2.00' } } } }),
      'merchants.lowBalance.facts.limits.payments.ZELLE: "ZELLE" is not a payment method the profile declares',
    ],
    [
      "a merchant's own payout method that says not whether it cancels",
      (p) => (p.merchants.second.facts = { payouts: { methods: { WIRE: { currencies: ['EUR'] } } } }),
      'merchants.second.facts.payouts.methods.WIRE: "WIRE" is not a shared payout method, so the merchant\'s entry must say "cancel"',
    ],
    [
      "a merchant's own payout range whose minimum is above the shared maximum",
      (p) => (p.merchants.second.facts = { limits: { payouts: { PAYPAL: { min: '20000.00' } } } }),
      "merchants.second.facts.limits.payouts.PAYPAL: with the shared entry, the merchant's range has its min above its max (give both)",
    ],
    [
      'a currency set that contradicts usdOnly',
      (p) => (p.payouts.methods.PAYPAL.currencies = ['USD', 'EUR']),
      'payouts.methods.PAYPAL.currencies: "PAYPAL" says "usdOnly": true, which is currencies ["USD"] (give one of the two)',
    ],
    [
      'a range in a currency the method does not take',
      (p) => {
        delete p.payouts.methods.BANK_TRANSFER.usdOnly;
        p.payouts.methods.BANK_TRANSFER.currencies = ['USD'];
      },
      'payouts.methods.BANK_TRANSFER.currencies: "BANK_TRANSFER" has a range in EUR (limits.payouts.BANK_TRANSFER.byCurrency) ' +
        'but EUR is not one of its currencies',
    ],
    [
      "a merchant's EUR-only method that keeps the shared EUR range, with its own currencies leaving out EUR",
      (p) => (p.merchants.lowBalance.facts = { payouts: { methods: { BANK_TRANSFER: { currencies: ['USD'] } } } }),
      'merchants.lowBalance.facts.payouts.methods.BANK_TRANSFER.currencies: "BANK_TRANSFER" has a range in EUR ' +
        '(limits.payouts.BANK_TRANSFER.byCurrency) but EUR is not one of its currencies',
    ],
    [
      "a fee's minimum above its maximum",
      (p) => (p.fees.payouts.BANK_TRANSFER.max = '0.40'),
      "fees.payouts.BANK_TRANSFER.min: a fee's minimum (0.50) must not be above its maximum (0.40)",
    ],
  ];
  for (const [what, edit, problem] of cases) {
    it(`refuses ${what}`, () => {
      expect(problemsOf(edit)).toContain(problem);
    });
  }

  it('an older profile (format version 1, before profileVersion existed) loads, with or without "profileVersion": 1', () => {
    const v1 = JSON.parse(readFileSync(new URL('./fixtures/profile-v1.json', import.meta.url), 'utf8')) as Json;
    expect(() => parseProfile(JSON.stringify(v1), 'v1.json', {})).not.toThrow();
    expect(() => parseProfile(JSON.stringify({ ...v1, profileVersion: 1 }), 'v1.json', {})).not.toThrow();
    // A version-2 profile still loads: the reference profile without what only version 3 says.
    expect(problemsOf(asV2(() => {}))).toEqual([]);
  });

  it('version 3 says what version 2 cannot: names, logins, balances, overlapping channels, a method of another merchant only', () => {
    expect(
      problemsOf((p) => {
        withoutV4(p);
        p.profileVersion = 3;
        Object.assign(p.merchants.primary, { name: 'Primary Test Store', login: 'primary.admin', payoutBalances: { USD: '100000.00' } });
        // KLARNA for the second merchant only (the primary's notEnabled), VENMO (no channel) in a merchant's list.
        p.merchants.second.paymentMethods = ['CARD', 'KLARNA', 'VENMO'];
        p.limits.payments.CARD.channels = [
          { min: '0.50', max: '5000.00' },
          { min: '100.00', max: '10000.00' },
        ];
        p.cardPayment.declines = [{ ...p.cardPayment.cards.decline, card_number: '4000000000000069' }];
        p.refunds.createdStatus = { CARD: 'PENDING', PAYPAL: 'SUCCESS' };
      }),
    ).toEqual([]);
  });

  it("version 5 says each merchant's own method-level facts: a method that takes EUR only for two merchants, their own ranges", () => {
    expect(
      problemsOf((p) => {
        p.payouts.methods.BANK_TRANSFER.currencies = ['USD', 'EUR'];
        p.merchants.lowBalance.facts = {
          payouts: { methods: { BANK_TRANSFER: { currencies: ['EUR'], usdOnly: null }, PAYPAL: null } },
          limits: { payouts: { BANK_TRANSFER: { byCurrency: { EUR: { min: '2.00', max: '2000.00' } } } } },
          fees: { payouts: { BANK_TRANSFER: { percent: '1', min: '0.25', max: '5.00' } } },
        };
        p.merchants.second.facts = {
          payouts: { methods: { BANK_TRANSFER: { currencies: ['EUR'] } } },
          refunds: { support: { PAYPAL: 'full' } },
          checkout: { extrasByMethod: { PAYPAL: { return_url: 'https://merchant.invalid/back' } } },
        };
      }),
    ).toEqual([]);
  });

  it('never echoes a production key, and counts it among the secrets to redact', () => {
    const key = 'sk_live_primary_7d3f1a9c5e2b8046';
    const problems = problemsOf((p) => {
      p.environment = 'production';
      p.merchants.primary.productionSecret = key;
      p.merchants.primary.payoutMethods = [key];
    });
    expect(problems.join('\n')).not.toContain(key);
    expect(problems).toContain('merchants.primary.payoutMethods[0]: a value is not a key of payouts.methods');
    const p = JSON.parse(readFileSync(REFERENCE, 'utf8')) as Json;
    p.merchants.primary.productionSecret = key;
    delete p.merchants.second.productionSecret;
    p.merchants.second.productionSecretEnv = 'MPSI_SECOND_LIVE';
    const loaded = parseProfile(JSON.stringify(p), 'test.json', { MPSI_SECOND_LIVE: 'sk_live_second_3a8c6e1f9b2d7054' });
    expect(merchantSecrets(loaded)).toEqual(expect.arrayContaining([key, 'sk_live_second_3a8c6e1f9b2d7054']));
  });
});
