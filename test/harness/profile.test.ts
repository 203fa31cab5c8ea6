import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProfileError, loadProfile, parseProfile, profileSha256, redactProfile } from '../../harness/profile/load.js';
import { editDistance, profileSchema, schemaProblems } from '../../harness/profile/schema.js';
import type { Card, ChannelRange, Control, FeeModel, MerchantFactSections, MerchantRef, Profile } from '../../harness/profile/types.js';

/** The primary's fields that are not secrets in the reference profile (version 3: its name and login are shown, never redacted). */
const PRIMARY_PLAIN = { id: 'M100001', name: 'Primary Test Store', login: 'primary.admin' };
const REFERENCE_PATH = 'fixtures/profiles/reference.json';
const EXAMPLE_PATH = 'fixtures/profiles/example.annotated.jsonc';
const referenceText = readFileSync(REFERENCE_PATH, 'utf8');
const REFERENCE_SECRETS = [
  'sk_test_primary_5f2c9a7e41d84b06',
  'sk_test_second_8b1e6d3c90a24f57',
  'sk_test_frozen_9c4e2b7d1a6f3085',
  'sk_test_lowbal_2d7a4f9c6e1b3058',
];
const PRIMARY_LIVE = 'sk_live_primary_7d3f1a9c5e2b8046';
const SECOND_LIVE = 'sk_live_second_3a8c6e1f9b2d7054';

// biome-ignore lint/suspicious/noExplicitAny: tests mutate free-form JSON
type Json = Record<string, any>;

function reference(): Json {
  return JSON.parse(referenceText) as Json;
}

/** The problems of a profile that must fail to load. */
function problemsOf(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseProfile(text, 'src.json', env);
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    const pe = err as ProfileError;
    expect(pe.message).toBe(pe.problems.join('\n'));
    return pe.problems;
  }
  throw new Error('expected a ProfileError');
}

function errorMessageOf(text: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    parseProfile(text, 'src.json', env);
  } catch (err) {
    if (err instanceof ProfileError) return err.message;
    throw err;
  }
  throw new Error('expected a ProfileError');
}

/** Removes // comments outside strings (the annotated example uses no block comments). */
function stripLineComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += c;
  }
  return out;
}

describe('reference profile', () => {
  it('loads, validates and resolves its merchants', () => {
    const loaded = loadProfile(REFERENCE_PATH, {});
    expect(isAbsolute(loaded.path)).toBe(true);
    expect(loaded.profile.name).toBe('reference');
    expect(loaded.profile.baseUrl).toBe('embedded');
    expect('$schema' in loaded.profile).toBe(false);
    expect(loaded.merchants).toEqual({
      primary: { id: 'M100001', secret: REFERENCE_SECRETS[0], productionSecret: PRIMARY_LIVE },
      second: { id: 'M100002', secret: REFERENCE_SECRETS[1], productionSecret: SECOND_LIVE },
      frozen: { id: 'M100009', secret: REFERENCE_SECRETS[2] },
      lowBalance: { id: 'M100003', secret: REFERENCE_SECRETS[3] },
      unknownId: 'M999999',
    });
  });

  it('validates against the schema directly', () => {
    expect(schemaProblems(reference())).toEqual([]);
  });
});

describe('schema errors', () => {
  interface Case {
    name: string;
    mutate: (p: Json) => void;
    /** A problem line that must be reported: exact, or a prefix when it ends with "…". */
    expected: string;
  }
  const cases: Case[] = [
    {
      name: 'both secret and secretEnv',
      mutate: (p) => {
        p.merchants.primary.secretEnv = 'MPSI_PRIMARY_SECRET';
      },
      expected: 'merchants.primary: must have exactly one of "secret" or "secretEnv"',
    },
    {
      name: 'neither secret nor secretEnv',
      mutate: (p) => {
        delete p.merchants.second.secret;
      },
      expected: 'merchants.second: must have exactly one of "secret" or "secretEnv"',
    },
    {
      name: 'lowBalance without a secret',
      mutate: (p) => {
        delete p.merchants.lowBalance.secret;
      },
      expected: 'merchants.lowBalance: must have exactly one of "secret" or "secretEnv"',
    },
    {
      name: 'merchant without id',
      mutate: (p) => {
        delete p.merchants.frozen.id;
      },
      expected: 'merchants.frozen.id: is required',
    },
    {
      name: 'secretEnv not a variable name',
      mutate: (p) => {
        delete p.merchants.primary.secret;
        p.merchants.primary.secretEnv = 'my-secret';
      },
      expected:
        'merchants.primary.secretEnv: must be an environment variable name: upper-case letters, digits and "_", not starting with a digit',
    },
    {
      name: 'path without leading slash',
      mutate: (p) => {
        p.endpoints.refundCreate = 'api/v1/refunds/create';
      },
      expected: 'endpoints.refundCreate: must start with "/"…',
    },
    {
      name: 'sandbox control path without leading slash',
      mutate: (p) => {
        p.sandbox.chargeback.path = 'sandbox/x';
      },
      expected: 'sandbox.chargeback.path: must start with "/"…',
    },
    {
      name: 'timeScale zero',
      mutate: (p) => {
        p.webhooks.timeScale = 0;
      },
      expected: 'webhooks.timeScale: must be > 0…',
    },
    {
      name: 'timeScale above one',
      mutate: (p) => {
        p.webhooks.timeScale = 1.5;
      },
      expected: 'webhooks.timeScale: must be <= 1 (got 1.5)',
    },
    {
      name: 'tolerance negative',
      mutate: (p) => {
        p.webhooks.tolerance = -0.1;
      },
      expected: 'webhooks.tolerance: must be >= 0 (got -0.1)',
    },
    {
      name: 'tolerance above one',
      mutate: (p) => {
        p.webhooks.tolerance = 2;
      },
      expected: 'webhooks.tolerance: must be <= 1 (got 2)',
    },
    {
      name: 'misspelt top-level field',
      mutate: (p) => {
        p.baseURL = p.baseUrl;
        delete p.baseUrl;
      },
      expected: 'unknown field "baseURL" at top level (did you mean "baseUrl"?)',
    },
    {
      name: 'misspelt nested field',
      mutate: (p) => {
        p.webhooks.timescale = p.webhooks.timeScale;
        delete p.webhooks.timeScale;
      },
      expected: 'unknown field "timescale" in webhooks (did you mean "timeScale"?)',
    },
    {
      name: 'field in the wrong section',
      mutate: (p) => {
        p.deliveryWaitMs = 10;
      },
      expected: 'unknown field "deliveryWaitMs" at top level (it belongs in webhooks)',
    },
    {
      name: 'misspelt merchant field',
      mutate: (p) => {
        p.merchants.primary.secert = p.merchants.primary.secret;
        delete p.merchants.primary.secret;
      },
      expected: 'unknown field "secert" in merchants.primary (did you mean "secret"?)',
    },
    {
      name: 'missing required top-level field',
      mutate: (p) => {
        delete p.name;
      },
      expected: 'name: is required',
    },
    {
      name: 'missing unknownId',
      mutate: (p) => {
        delete p.merchants.unknownId;
      },
      expected: 'merchants.unknownId: is required',
    },
    {
      name: 'baseUrl with trailing slash',
      mutate: (p) => {
        p.baseUrl = 'https://sandbox.vendor.example/';
      },
      expected: 'baseUrl: must be "embedded" or an http(s) URL without a trailing slash (got "https://sandbox.vendor.example/")',
    },
    {
      name: 'baseUrl not http',
      mutate: (p) => {
        p.baseUrl = 'ftp://sandbox.vendor.example';
      },
      expected: 'baseUrl: must be "embedded" or an http(s) URL without a trailing slash…',
    },
    {
      name: 'baseUrl not a string',
      mutate: (p) => {
        p.baseUrl = 8080;
      },
      expected: 'baseUrl: must be "embedded" or an http(s) URL without a trailing slash (got 8080)',
    },
    {
      name: 'environment not in the enum',
      mutate: (p) => {
        p.environment = 'staging';
      },
      expected: 'environment: must be one of "sandbox", "production" (got "staging")',
    },
    {
      name: 'limit with one decimal',
      mutate: (p) => {
        p.limits.payments.CARD.min = '0.5';
      },
      expected: 'limits.payments.CARD.min: must be a decimal string with exactly two decimals, e.g. "10.00" (got "0.5")',
    },
    {
      name: 'tier with three decimals',
      mutate: (p) => {
        p.pricePoints.tiers[2] = '4.999';
      },
      expected: 'pricePoints.tiers[2]: must be a decimal string with exactly two decimals…',
    },
    {
      name: 'balance as a number',
      mutate: (p) => {
        p.merchants.lowBalance.payoutBalance = 5;
      },
      expected: 'merchants.lowBalance.payoutBalance: must be a string (got an integer)',
    },
    {
      name: 'payout balance keyed by a lower-case currency',
      mutate: (p) => {
        p.merchants.lowBalance.payoutBalances = { eur: '3.00' };
      },
      expected: 'merchants.lowBalance.payoutBalances…',
    },
    {
      name: 'payout balances whose USD entry disagrees with payoutBalance',
      mutate: (p) => {
        p.merchants.lowBalance.payoutBalances = { USD: '4.00', EUR: '3.00' };
      },
      expected:
        'merchants.lowBalance.payoutBalances.USD: is "4.00" but merchants.lowBalance.payoutBalance ' +
        'is "5.00" (the USD balance is given twice: give it once, or the same in both)',
    },
    {
      name: 'refund fee not decimal',
      mutate: (p) => {
        p.refunds.fee = '30 cents';
      },
      expected: 'refunds.fee: must be a decimal string with exactly two decimals…',
    },
    {
      name: 'refund support not in the enum',
      mutate: (p) => {
        p.refunds.support.CARD = 'some';
      },
      expected: 'refunds.support.CARD: must be one of "none", "full", "partial" (got "some")',
    },
    {
      name: 'payout method without cancel',
      mutate: (p) => {
        delete p.payouts.methods.PAYPAL.cancel;
      },
      expected: 'payouts.methods.PAYPAL.cancel: is required',
    },
    {
      name: 'empty checkout methods',
      mutate: (p) => {
        p.methods.checkout = [];
      },
      expected: 'methods.checkout: must have at least 1 item',
    },
    {
      name: 'repeated checkout method',
      mutate: (p) => {
        p.methods.checkout = ['CARD', 'PAYPAL', 'CARD'];
      },
      expected: 'methods.checkout: must not repeat items (items 0 and 2 are equal)',
    },
    {
      name: 'card exp_month as a string',
      mutate: (p) => {
        p.cardPayment.cards.success.exp_month = '12';
      },
      expected: 'cardPayment.cards.success.exp_month: must be an integer (got a string)',
    },
    {
      name: 'concurrency zero',
      mutate: (p) => {
        p.http.concurrency = 0;
      },
      expected: 'http.concurrency: must be >= 1 (got 0)',
    },
    {
      name: 'receiver port out of range',
      mutate: (p) => {
        p.webhooks.receiver.port = 70000;
      },
      expected: 'webhooks.receiver.port: must be <= 65535 (got 70000)',
    },
    {
      name: 'control without outcomes',
      mutate: (p) => {
        delete p.sandbox.settleRefund.outcomes;
      },
      expected: 'sandbox.settleRefund.outcomes: is required',
    },
    {
      name: 'internal field name not a string',
      mutate: (p) => {
        p.internalFieldNames['trade_info.goods_name'] = 7;
      },
      expected: 'internalFieldNames["trade_info.goods_name"]: must be a string (got an integer)',
    },
    {
      name: 'template not an object',
      mutate: (p) => {
        p.refunds.template = 'merchant_refund_no=R1';
      },
      expected: 'refunds.template: must be an object (got a string)',
    },
    {
      name: 'limits min above max',
      mutate: (p) => {
        p.limits.payouts.PAYPAL.min = '20000.00';
      },
      expected: 'limits.payouts.PAYPAL: min (20000.00) must not be greater than max (10000.00)',
    },
    {
      name: 'tiers out of order',
      mutate: (p) => {
        p.pricePoints.tiers = ['0.99', '4.99', '1.99'];
      },
      expected: 'pricePoints.tiers[2]: tiers must be in ascending order (1.99 follows 4.99)',
    },
    {
      name: 'unroundable example that the declared rule rounds',
      mutate: (p) => {
        p.pricePoints.unroundable = ['100.00', '3.00'];
      },
      expected:
        'pricePoints.unroundable[1]: 3.00 is rounded to the price point 4.99 by the declared rule (up); list only amounts the rule refuses',
    },
    {
      name: 'unroundable example that a distance-bounded nearest rule rounds',
      mutate: (p) => {
        p.pricePoints = {
          tiers: ['0.99', '1.99', '4.99'],
          rounding: 'nearest',
          maxDistance: '0.50',
          tie: 'up',
          unroundable: ['3.49', '5.40'],
        };
      },
      expected:
        'pricePoints.unroundable[1]: 5.40 is rounded to the price point 4.99 by the ' +
        'declared rule (nearest within 0.50 ties up); list only amounts the rule refuses',
    },
    {
      // The schema reports the value; the unroundable examples are then not judged (no amount to read), and nothing throws.
      name: 'maxDistance not an amount, beside unroundable examples',
      mutate: (p) => {
        p.pricePoints = { tiers: ['0.99', '4.99'], rounding: 'nearest', maxDistance: 'half a dollar', unroundable: ['3.49'] };
      },
      expected: 'pricePoints.maxDistance: …',
    },
    {
      name: 'a method tier not an amount, beside unroundable examples',
      mutate: (p) => {
        p.pricePoints = { tiers: ['0.99', '4.99'], rounding: 'up', tiersByMethod: { APPLE_PAY: ['1.999'] }, unroundable: ['9.00'] };
      },
      expected: 'pricePoints.tiersByMethod.APPLE_PAY[0]: …',
    },
    {
      name: 'embedded section beside a real base URL',
      mutate: (p) => {
        p.baseUrl = 'https://sandbox.vendor.example';
        p.embedded = { readings: 'alt' };
      },
      expected:
        'embedded: only a profile whose baseUrl is "embedded" may say how the kit starts its reference; remove it for a real target',
    },
    {
      name: 'unknown method listed for checkout',
      mutate: (p) => {
        p.methods.unknown = 'PAYPAL';
      },
      expected: 'methods.unknown: must not be one of methods.checkout ("PAYPAL" is listed there)',
    },
  ];

  it.each(cases)('$name', ({ mutate, expected }) => {
    const p = reference();
    mutate(p);
    const problems = problemsOf(JSON.stringify(p, null, 2));
    if (expected.endsWith('…')) {
      const prefix = expected.slice(0, -1);
      expect(
        problems.some((l) => l.startsWith(prefix)),
        `${prefix}\nin:\n${problems.join('\n')}`,
      ).toBe(true);
    } else {
      expect(problems).toContain(expected);
    }
  });

  it('a top level that is not an object', () => {
    expect(problemsOf('[1, 2]')).toEqual(['top level: must be an object (got an array)']);
  });

  it('reports every problem at once, one line each', () => {
    const p = reference();
    p.baseURL = 'x';
    p.webhooks.timeScale = 0;
    p.endpoints.payoutQuery = 'payouts';
    delete p.methods.unknown;
    const problems = problemsOf(JSON.stringify(p));
    expect(problems).toHaveLength(4);
    expect(problems.every((l) => !l.includes('\n'))).toBe(true);
  });

  it('cuts echoed values to 60 characters', () => {
    const p = reference();
    p.environment = 'x'.repeat(500);
    const [line] = problemsOf(JSON.stringify(p));
    expect(line).toMatch(/^environment: must be one of "sandbox", "production" \(got "x{59}…"\)$/);
  });

  it('does not echo a value that looks like an API key', () => {
    const p = reference();
    p.environment = 'sk_live_abcdefghijkl';
    expect(problemsOf(JSON.stringify(p))).toEqual(['environment: must be one of "sandbox", "production"']);
  });

  it('edit distance counts a transposition as one edit', () => {
    expect(editDistance('secert', 'secret')).toBe(1);
    expect(editDistance('baseurl', 'baseurl')).toBe(0);
    expect(editDistance('abc', '')).toBe(3);
  });
});

describe('file and JSON errors', () => {
  it('reports a missing file', () => {
    expect(() => loadProfile('/nonexistent/dir/profile.json', {})).toThrow('profile file not found: /nonexistent/dir/profile.json');
    try {
      loadProfile('/nonexistent/dir/profile.json', {});
    } catch (err) {
      expect((err as ProfileError).problems).toEqual(['profile file not found: /nonexistent/dir/profile.json']);
      expect((err as ProfileError).name).toBe('ProfileError');
    }
  });

  it('reports a directory', () => {
    expect(() => loadProfile('fixtures/profiles', {})).toThrow(/profile path is a directory/);
  });

  it.each([
    ['', 'src.json:1:1: invalid JSON: the input is empty'],
    ['{"name": "x",}', 'src.json:1:14: invalid JSON: trailing comma before "}"'],
    ['{\n  "name": "x"\n  "baseUrl": "embedded"\n}', 'src.json:3:3: invalid JSON: unexpected a string, expected "," or "}"'],
    ['{\n  "name": \'x\'\n}', 'src.json:2:11: invalid JSON: strings must use double quotes'],
    ['{\n  // note\n  "name": "x"\n}', 'src.json:2:3: invalid JSON: comments are not allowed in JSON'],
    ['{"a": [1, 2,]}', 'src.json:1:13: invalid JSON: trailing comma before "]"'],
    ['{"a": 01}', 'src.json:1:8: invalid JSON: invalid number'],
    ['{"a": tru}', 'src.json:1:7: invalid JSON: unexpected character "t", expected a value'],
    ['{"a": "b', 'src.json:1:7: invalid JSON: unterminated string'],
    ['{"a": "b\\x"}', 'src.json:1:9: invalid JSON: invalid escape sequence in string'],
    ['{"a" 1}', 'src.json:1:6: invalid JSON: unexpected character "1", expected ":" after the field name'],
    ['{"a": 1} {', 'src.json:1:10: invalid JSON: unexpected character "{" after the end of the JSON value'],
    ['{"a": 1', 'src.json:1:8: invalid JSON: unexpected end of input, expected "," or "}"'],
    ['\r\n\r\n  {x}', 'src.json:3:4: invalid JSON: unexpected character "x", expected a field name in double quotes'],
  ])('%j', (text, expected) => {
    expect(problemsOf(text)).toEqual([expected]);
  });

  it('accepts a byte order mark', () => {
    expect(parseProfile(`\uFEFF${referenceText}`, 'bom.json', {}).profile.name).toBe('reference');
  });

  it('reports duplicate fields with their position', () => {
    const text = referenceText.replace('"name": "reference",', '"name": "reference",\n  "name": "again",');
    expect(problemsOf(text)).toEqual(['duplicate field "name" at top level (src.json:4:3); JSON keeps only the last one']);
  });
});

describe('secretEnv', () => {
  function withEnvSecrets(): Json {
    const p = reference();
    delete p.merchants.primary.secret;
    p.merchants.primary.secretEnv = 'MPSI_PRIMARY_SECRET';
    delete p.merchants.lowBalance.secret;
    p.merchants.lowBalance.secretEnv = 'MPSI_LOWBAL_SECRET';
    return p;
  }

  it('resolves secrets from the environment passed in', () => {
    const loaded = parseProfile(JSON.stringify(withEnvSecrets()), 'env.json', {
      MPSI_PRIMARY_SECRET: 'from-env-primary',
      MPSI_LOWBAL_SECRET: 'from-env-lowbal',
    });
    expect(loaded.merchants.primary).toEqual({ id: 'M100001', secret: 'from-env-primary', productionSecret: PRIMARY_LIVE });
    expect(loaded.merchants.lowBalance).toEqual({ id: 'M100003', secret: 'from-env-lowbal' });
    expect(loaded.merchants.second).toEqual({ id: 'M100002', secret: REFERENCE_SECRETS[1], productionSecret: SECOND_LIVE });
    // The profile is kept as written: the variable name, no secret.
    expect(loaded.profile.merchants.primary).toEqual({
      ...PRIMARY_PLAIN,
      secretEnv: 'MPSI_PRIMARY_SECRET',
      productionSecret: PRIMARY_LIVE,
    });
  });

  it('resolves a production key from the environment (productionSecretEnv), and reports it unset', () => {
    const p = withEnvSecrets();
    delete p.merchants.primary.productionSecret;
    p.merchants.primary.productionSecretEnv = 'MPSI_PRIMARY_LIVE';
    const env = { MPSI_PRIMARY_SECRET: 'from-env-primary', MPSI_LOWBAL_SECRET: 'from-env-lowbal' };
    const loaded = parseProfile(JSON.stringify(p), 'env.json', { ...env, MPSI_PRIMARY_LIVE: 'live-from-env' });
    expect(loaded.merchants.primary).toEqual({ id: 'M100001', secret: 'from-env-primary', productionSecret: 'live-from-env' });
    expect(problemsOf(JSON.stringify(p), env)).toContain(
      'merchants.primary.productionSecretEnv: environment variable MPSI_PRIMARY_LIVE is not set',
    );
    expect(loaded.path).toBe('env.json');
  });

  it('reports an unset variable', () => {
    expect(problemsOf(JSON.stringify(withEnvSecrets()), { MPSI_LOWBAL_SECRET: 'x' })).toEqual([
      'merchants.primary.secretEnv: environment variable MPSI_PRIMARY_SECRET is not set',
    ]);
  });

  it('reports an empty variable, and every unset one', () => {
    expect(problemsOf(JSON.stringify(withEnvSecrets()), { MPSI_PRIMARY_SECRET: '' })).toEqual([
      'merchants.primary.secretEnv: environment variable MPSI_PRIMARY_SECRET is not set (it is empty)',
      'merchants.lowBalance.secretEnv: environment variable MPSI_LOWBAL_SECRET is not set',
    ]);
  });

  it('defaults to process.env', () => {
    const p = withEnvSecrets();
    p.merchants.primary.secretEnv = 'MPSI_TEST_PROFILE_SECRET_DEFAULT_ENV';
    p.merchants.lowBalance.secretEnv = 'MPSI_TEST_PROFILE_SECRET_DEFAULT_ENV';
    process.env['MPSI_TEST_PROFILE_SECRET_DEFAULT_ENV'] = 'from-process-env';
    try {
      expect(parseProfile(JSON.stringify(p), 'env.json').merchants.primary.secret).toBe('from-process-env');
    } finally {
      delete process.env['MPSI_TEST_PROFILE_SECRET_DEFAULT_ENV'];
    }
  });
});

describe('secrets never appear in error messages', () => {
  const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('');
  const secretArb = fc
    .tuple(fc.constantFrom('', 'sk_test_', 'sk_live_', 'key-', 'Zq'), fc.array(fc.constantFrom(...ALNUM), { minLength: 20, maxLength: 40 }))
    .map(([prefix, chars]) => prefix + chars.join(''));

  /** Ways to put a secret into a profile that fails to load; each returns the profile text. */
  const placements: Record<string, (s: string) => string> = {
    'correct place, other errors': (s) => {
      const p = reference();
      p.merchants.primary.secret = s;
      p.webhooks.timeScale = 0;
      p.baseURL = 'x';
      return JSON.stringify(p);
    },
    'secret and secretEnv both': (s) => {
      const p = reference();
      p.merchants.primary.secret = s;
      p.merchants.primary.secretEnv = 'MPSI_PRIMARY_SECRET';
      return JSON.stringify(p);
    },
    'secret in secretEnv': (s) => {
      const p = reference();
      delete p.merchants.primary.secret;
      p.merchants.primary.secretEnv = s;
      return JSON.stringify(p);
    },
    'secret in secretEnv, upper-cased into a valid name': (s) => {
      const p = reference();
      delete p.merchants.primary.secret;
      p.merchants.primary.secretEnv = s.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
      return JSON.stringify(p);
    },
    'secret of the wrong type': (s) => {
      const p = reference();
      p.merchants.second.secret = [s];
      return JSON.stringify(p);
    },
    'secret under a misspelt key': (s) => {
      const p = reference();
      delete p.merchants.frozen.secret;
      p.merchants.frozen.Secret_Key = s;
      return JSON.stringify(p);
    },
    'secret used as a key': (s) => {
      const p = reference();
      p.merchants.primary[s] = 'value';
      return JSON.stringify(p);
    },
    'secret as key and value in merchants': (s) => {
      const p = reference();
      p.merchants[s] = s;
      return JSON.stringify(p);
    },
    'lowBalance secret with a bad balance': (s) => {
      const p = reference();
      p.merchants.lowBalance.secret = s;
      p.merchants.lowBalance.payoutBalance = s;
      return JSON.stringify(p);
    },
    'secret in the id': (s) => {
      const p = reference();
      p.merchants.primary.id = s;
      delete p.merchants.primary.secret;
      return JSON.stringify(p);
    },
    'secret copied into other fields': (s) => {
      const p = reference();
      p.merchants.primary.secret = s;
      p.environment = s;
      p.endpoints.checkout = s;
      p.baseUrl = `https://${s}.example/`;
      p.methods.unknown = s;
      p.methods.checkout = [s, s];
      p.limits.payments.CARD.min = s;
      p.refunds.support.CARD = s;
      return JSON.stringify(p);
    },
    'secret-looking top-level field': (s) => {
      const p = reference();
      p.apiSecret = s;
      p.webhooks.password = s;
      return JSON.stringify(p);
    },
    'secret with a syntax error after it': (s) => JSON.stringify(reference(), null, 2).replace(REFERENCE_SECRETS[0]!, `${s}" "x`),
    'unterminated secret string': (s) => `{"merchants": {"primary": {"id": "M1", "secret": "${s}`,
    'control character inside the secret': (s) => `{"merchants": {"primary": {"secret": "${s.slice(0, 5)}\n${s.slice(5)}"}}}`,
    'duplicate secret field': (s) =>
      JSON.stringify(reference(), null, 2).replace(`"secret": "${REFERENCE_SECRETS[0]}"`, `"secret": "${s}", "secret": "${s}x"`),
  };

  it.each(Object.keys(placements))('%s', (placement) => {
    fc.assert(
      fc.property(secretArb, (secret) => {
        const message = errorMessageOf(placements[placement]!(secret));
        expect(message.length).toBeGreaterThan(0);
        expect(message).not.toContain(secret);
      }),
      { numRuns: 15 },
    );
  });

  it('an environment secret does not appear when other problems are reported', () => {
    fc.assert(
      fc.property(secretArb, (secret) => {
        const p = reference();
        delete p.merchants.primary.secret;
        p.merchants.primary.secretEnv = 'MPSI_PRIMARY_SECRET';
        p.webhooks.timeScale = 0;
        p.environment = secret;
        expect(errorMessageOf(JSON.stringify(p), { MPSI_PRIMARY_SECRET: secret })).not.toContain(secret);
      }),
      { numRuns: 15 },
    );
  });
});

describe('redactProfile', () => {
  it('replaces every secret with *** and leaves the rest', () => {
    const { profile } = loadProfile(REFERENCE_PATH, {});
    const before = JSON.stringify(profile);
    const redacted = redactProfile(profile);
    const text = JSON.stringify(redacted);
    for (const s of [...REFERENCE_SECRETS, PRIMARY_LIVE, SECOND_LIVE]) expect(text).not.toContain(s);
    expect(redacted.merchants.primary).toEqual({ ...PRIMARY_PLAIN, secret: '***', productionSecret: '***' });
    expect(redacted.merchants.lowBalance).toEqual({
      id: 'M100003',
      secret: '***',
      payoutBalance: '5.00',
      payoutBalances: { EUR: '3.00' },
      refundBalance: '1.00',
      paymentMethods: ['PAYPAL', 'CARD', 'APPLE_PAY', 'GOOGLE_PAY'],
      payoutMethods: ['BANK_TRANSFER'],
      facts: { fees: { payouts: { BANK_TRANSFER: { fixed: '0.25', percent: '12', rounding: 'halfUp', max: '0.50' } } } },
    });
    expect(JSON.stringify(profile)).toBe(before); // the original is untouched
    expect({ ...redacted, merchants: undefined }).toEqual({ ...profile, merchants: undefined });
  });

  it('redacts secrets at any depth and keeps secretEnv', () => {
    const p = reference();
    delete p.merchants.primary.secret;
    p.merchants.primary.secretEnv = 'MPSI_PRIMARY_SECRET';
    p.payouts.template.auth = { secret: 'nested-secret-value' };
    const redacted = redactProfile(p as Profile) as Json;
    expect(redacted.merchants.primary).toEqual({ ...PRIMARY_PLAIN, secretEnv: 'MPSI_PRIMARY_SECRET', productionSecret: '***' });
    expect(redacted.payouts.template.auth).toEqual({ secret: '***' });
    expect(p.payouts.template.auth.secret).toBe('nested-secret-value');
  });
});

describe('annotated example', () => {
  const jsonc = readFileSync(EXAMPLE_PATH, 'utf8');
  const env = {
    VENDOR_PRIMARY_SECRET: 'a',
    VENDOR_SECOND_SECRET: 'b',
    VENDOR_FROZEN_SECRET: 'c',
    VENDOR_LOWBAL_SECRET: 'd',
    VENDOR_PRIMARY_LIVE_KEY: 'e',
    VENDOR_SANDBOX_CA: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  };

  it('validates against the schema once comments are stripped', () => {
    const text = stripLineComments(jsonc);
    expect(schemaProblems(JSON.parse(text))).toEqual([]);
    const loaded = parseProfile(text, EXAMPLE_PATH, env);
    expect(loaded.profile.baseUrl).toBe('https://sandbox.vendor.example');
    expect(loaded.merchants.primary).toEqual({ id: 'V-000101', secret: 'a', productionSecret: 'e' });
  });

  it('takes every secret from the environment', () => {
    const p = JSON.parse(stripLineComments(jsonc)) as Json;
    for (const role of ['primary', 'second', 'frozen', 'lowBalance']) {
      expect(p.merchants[role].secret).toBeUndefined();
      expect(p.merchants[role].secretEnv).toMatch(/^[A-Z_]+$/);
    }
  });

  it('has a comment before every top-level section', () => {
    const lines = jsonc.split('\n');
    const sections = lines.map((l, i) => [l, i] as const).filter(([l]) => /^ {2}"[^"]+":/.test(l));
    expect(sections.length).toBeGreaterThan(10);
    for (const [line, i] of sections) {
      let j = i - 1;
      while (j >= 0 && lines[j]!.trim() === '') j--;
      const prev = lines[j]!.trim();
      // A comment, or a previous field of the same commented group (name/description).
      const ok = prev.startsWith('//') || (/"description"/.test(line) && /"name"/.test(prev));
      expect(ok, `no comment before ${line.trim()}`).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The schema must match harness/profile/types.ts. TypeScript checks these tables against the
// types (every key listed, true exactly for required keys); the test checks them against the schema.

type Req<T> = { [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? false : true };
type P = Profile;
type NN<T> = NonNullable<T>;

const PROFILE: Req<P> = {
  profileVersion: false,
  name: true,
  description: false,
  baseUrl: true,
  embedded: false,
  reports: false,
  environment: true,
  merchants: true,
  http: false,
  endpoints: true,
  internalFieldNames: false,
  methods: true,
  limits: false,
  fees: false,
  balances: false,
  pricePoints: false,
  checkout: false,
  paymentRecord: false,
  cardPayment: false,
  refunds: false,
  payouts: false,
  sandbox: false,
  webhooks: false,
  queryParams: false,
  lengths: false,
};
const MERCHANTS: Req<P['merchants']> = { primary: true, second: false, frozen: false, lowBalance: false, unknownId: true };
const MERCHANT_REF: Req<MerchantRef> = {
  id: true,
  secret: false,
  secretEnv: false,
  name: false,
  login: false,
  payoutBalances: false,
  paymentMethods: false,
  payoutMethods: false,
  productionSecret: false,
  productionSecretEnv: false,
  facts: false,
};
const LOW_BALANCE: Req<NN<P['merchants']['lowBalance']>> = {
  ...MERCHANT_REF,
  payoutBalance: false,
  payoutBalances: false,
  refundBalance: false,
};
const HTTP: Req<NN<P['http']>> = { deadlineMs: false, maxResponseBytes: false, concurrency: false, rateLimit: false, tls: false };
const TLS: Req<NN<NN<P['http']>['tls']>> = {
  ca: false,
  caEnv: false,
  cert: false,
  certEnv: false,
  key: false,
  keyEnv: false,
  pfx: false,
  pfxEnv: false,
  passphrase: false,
  passphraseEnv: false,
  servername: false,
};
const ENDPOINTS: Req<P['endpoints']> = {
  paymentQuery: false,
  checkout: false,
  cardPayment: false,
  refundCreate: false,
  refundQuery: false,
  payoutCreate: false,
  payoutQuery: false,
  payoutCancel: false,
};
const METHODS: Req<P['methods']> = { checkout: true, card: false, notEnabled: false, unknown: true, pricePoint: false, noChannel: false };
const LIMITS: Req<NN<P['limits']>> = { payments: false, payouts: false };
const RANGE: Req<NN<NN<P['limits']>['payments']>[string]> = { min: true, max: true, name: false, channels: false };
const PAYOUT_RANGE: Req<NN<NN<P['limits']>['payouts']>[string]> = { ...RANGE, byCurrency: false };
const FEES: Req<NN<P['fees']>> = { payments: false, refunds: false, payouts: false };
const FEE: Req<FeeModel> = { fixed: false, percent: false, rounding: false, currency: false, min: false, max: false };
const MONEY_BALANCES: Req<NN<P['balances']>> = { paymentsCredit: false, payoutFee: false, proceeds: false, chargeback: false };
const PROCEEDS: Req<NN<NN<P['balances']>['proceeds']>> = { after: true };
const CHARGEBACK_DEBIT: Req<NN<NN<P['balances']>['chargeback']>> = { from: true, fee: false };
const PRICE_POINTS: Req<NN<P['pricePoints']>> = {
  tiers: true,
  rounding: true,
  maxDistance: false,
  tie: false,
  tiersByMethod: false,
  ruleByMethod: false,
  unroundable: true,
};
const CHECKOUT: Req<NN<P['checkout']>> = { extras: false, extrasByMethod: false, data: true, pendingStatus: false };
const CHECKOUT_DATA: Req<NN<P['checkout']>['data']> = { orderNo: true, status: false };
const PAYMENT_RECORD: Req<NN<P['paymentRecord']>> = {
  orderNo: true,
  merchantOrderNo: true,
  status: true,
  transAmount: true,
  requestedAmount: false,
};
const CARD_PAYMENT: Req<NN<P['cardPayment']>> = { template: true, cards: true, data: true, declines: false, pendingStatus: false };
const CARDS: Req<NN<P['cardPayment']>['cards']> = {
  success: true,
  decline: false,
  risk: false,
  invalid: false,
  noChannel: false,
  pending: false,
};
const CARD: Req<Card> = { card_number: true, cardholder_name: true, exp_month: true, exp_year: true, cvc: true };
const CARD_DATA: Req<NN<P['cardPayment']>['data']> = { orderNo: true, status: false };
const REFUNDS: Req<NN<P['refunds']>> = {
  template: true,
  support: true,
  queryBy: true,
  data: true,
  supportByMerchant: false,
  createdStatus: false,
  failingReason: false,
  fee: false,
};
const QUERY_BY: Req<NN<P['refunds']>['queryBy']> = { serviceNo: true, merchantNo: true };
const REFUND_DATA: Req<NN<P['refunds']>['data']> = { refundNo: true, status: true, amount: false };
const PAYOUTS: Req<NN<P['payouts']>> = {
  template: true,
  methods: true,
  notForPayouts: false,
  queryBy: true,
  cancelBy: true,
  data: true,
  balances: false,
  sharedBalance: false,
};
const PAYOUT_METHOD: Req<NN<P['payouts']>['methods'][string]> = { cancel: true, usdOnly: false, currencies: false, payee: false };
const MERCHANT_FACTS: Req<MerchantFactSections> = {
  methods: false,
  limits: false,
  payouts: false,
  refunds: false,
  fees: false,
  checkout: false,
};
const PAYOUT_DATA: Req<NN<P['payouts']>['data']> = { payoutNo: true, status: true };
const BALANCES: Req<NN<NN<P['payouts']>['balances']>> = { primary: false };
const SANDBOX: Req<NN<P['sandbox']>> = {
  completeCheckout: false,
  chargeback: false,
  expireCheckout: false,
  settleRefund: false,
  settlePayout: false,
  completeCard: false,
  autoSettle: false,
  armFailure: false,
  triggers: false,
};
const CONTROL: Req<Control> = { path: true, template: true };
const CONTROL_WITH_OUTCOMES: Req<NN<NN<P['sandbox']>['completeCheckout']>> = { path: true, template: true, outcomes: true };
const SETTLE_PAYOUT: Req<NN<NN<P['sandbox']>['settlePayout']>> = { path: true, template: true, outcomes: true, reason: false };
const ARM_FAILURE: Req<NN<NN<P['sandbox']>['armFailure']>> = {
  path: true,
  template: true,
  failures: true,
  refundSubject: false,
  scope: false,
  count: false,
};
const FAILURES: Req<NN<NN<P['sandbox']>['armFailure']>['failures']> = {
  queryFailed: false,
  orderCreationFailed: false,
  refundSystemBusy: false,
  refundFailed: false,
};
const CHANNEL: Req<ChannelRange> = { min: true, max: true, name: false };
const OUTCOMES: Req<NN<NN<P['sandbox']>['completeCheckout']>['outcomes']> = { success: true, failed: true };
const WEBHOOKS: Req<NN<P['webhooks']>> = {
  receiver: false,
  timeScale: true,
  ackTimeoutMs: true,
  deliveryWaitMs: true,
  tolerance: true,
  jitterMs: false,
};
const RECEIVER: Req<NN<NN<P['webhooks']>['receiver']>> = { host: false, port: false, publicUrl: false };

describe('schema matches types.ts', () => {
  type Node = Record<string, unknown>;
  const root = profileSchema() as Node;
  const defs = root['$defs'] as Record<string, Node>;
  const deref = (n: Node): Node => {
    const ref = n['$ref'];
    return typeof ref === 'string' ? deref(defs[ref.replace('#/$defs/', '')]!) : n;
  };
  /** Follows properties; "*" steps into additionalProperties or items. */
  const at = (...path: string[]): Node => {
    let n = deref(root);
    for (const seg of path) {
      if (seg === '*') n = deref((n['additionalProperties'] ?? n['items']) as Node);
      else n = deref((n['properties'] as Record<string, Node>)[seg]!);
    }
    return n;
  };

  const table: [string, Node, Record<string, boolean>][] = [
    ['(root)', at(), PROFILE],
    ['merchants', at('merchants'), MERCHANTS],
    ['merchants.primary', at('merchants', 'primary'), MERCHANT_REF],
    ['merchants.second', at('merchants', 'second'), MERCHANT_REF],
    ['merchants.frozen', at('merchants', 'frozen'), MERCHANT_REF],
    ['merchants.lowBalance', at('merchants', 'lowBalance'), LOW_BALANCE],
    ['embedded', at('embedded'), { readings: false, rateLimit: false, latencyMs: false, target: false }],
    ['reports', at('reports'), { history: false }],
    ['http', at('http'), HTTP],
    ['endpoints', at('endpoints'), ENDPOINTS],
    ['methods', at('methods'), METHODS],
    ['limits', at('limits'), LIMITS],
    ['limits.payments.*', at('limits', 'payments', '*'), RANGE],
    ['limits.payouts.*', at('limits', 'payouts', '*'), PAYOUT_RANGE],
    ['limits.payouts.*.byCurrency.*', at('limits', 'payouts', '*', 'byCurrency', '*'), RANGE],
    ['fees', at('fees'), FEES],
    ['fees.payments.*', at('fees', 'payments', '*'), FEE],
    ['fees.refunds.*', at('fees', 'refunds', '*'), FEE],
    ['fees.payouts.*', at('fees', 'payouts', '*'), FEE],
    ['merchants.primary.facts', at('merchants', 'primary', 'facts'), MERCHANT_FACTS],
    ['merchants.lowBalance.facts', at('merchants', 'lowBalance', 'facts'), MERCHANT_FACTS],
    ['balances', at('balances'), MONEY_BALANCES],
    ['balances.proceeds', at('balances', 'proceeds'), PROCEEDS],
    ['balances.chargeback', at('balances', 'chargeback'), CHARGEBACK_DEBIT],
    ['pricePoints', at('pricePoints'), PRICE_POINTS],
    ['checkout', at('checkout'), CHECKOUT],
    ['checkout.data', at('checkout', 'data'), CHECKOUT_DATA],
    ['paymentRecord', at('paymentRecord'), PAYMENT_RECORD],
    ['cardPayment', at('cardPayment'), CARD_PAYMENT],
    ['cardPayment.cards', at('cardPayment', 'cards'), CARDS],
    ['cardPayment.cards.success', at('cardPayment', 'cards', 'success'), CARD],
    ['cardPayment.data', at('cardPayment', 'data'), CARD_DATA],
    ['refunds', at('refunds'), REFUNDS],
    ['refunds.queryBy', at('refunds', 'queryBy'), QUERY_BY],
    ['refunds.data', at('refunds', 'data'), REFUND_DATA],
    ['payouts', at('payouts'), PAYOUTS],
    ['payouts.methods.*', at('payouts', 'methods', '*'), PAYOUT_METHOD],
    ['payouts.queryBy', at('payouts', 'queryBy'), QUERY_BY],
    ['payouts.cancelBy', at('payouts', 'cancelBy'), QUERY_BY],
    ['payouts.data', at('payouts', 'data'), PAYOUT_DATA],
    ['payouts.balances', at('payouts', 'balances'), BALANCES],
    ['sandbox', at('sandbox'), SANDBOX],
    ['sandbox.chargeback', at('sandbox', 'chargeback'), CONTROL],
    ['sandbox.expireCheckout', at('sandbox', 'expireCheckout'), CONTROL],
    ['sandbox.completeCheckout', at('sandbox', 'completeCheckout'), CONTROL_WITH_OUTCOMES],
    ['sandbox.settleRefund', at('sandbox', 'settleRefund'), CONTROL_WITH_OUTCOMES],
    ['sandbox.settlePayout', at('sandbox', 'settlePayout'), SETTLE_PAYOUT],
    ['sandbox.completeCard', at('sandbox', 'completeCard'), CONTROL_WITH_OUTCOMES],
    ['sandbox.armFailure', at('sandbox', 'armFailure'), ARM_FAILURE],
    ['sandbox.armFailure.failures', at('sandbox', 'armFailure', 'failures'), FAILURES],
    ['limits.payments.*.channels.*', at('limits', 'payments', '*', 'channels', '*'), CHANNEL],
    ['sandbox.completeCheckout.outcomes', at('sandbox', 'completeCheckout', 'outcomes'), OUTCOMES],
    ['webhooks', at('webhooks'), WEBHOOKS],
    ['webhooks.receiver', at('webhooks', 'receiver'), RECEIVER],
    ['http.tls', at('http', 'tls'), TLS],
  ];

  it.each(table)('%s', (_name, node, keys) => {
    const props = Object.keys((node['properties'] as Node) ?? {}).filter((k) => k !== '$schema');
    expect(props.sort()).toEqual(Object.keys(keys).sort());
    const required = ((node['required'] as string[] | undefined) ?? []).slice().sort();
    expect(required).toEqual(
      Object.entries(keys)
        .filter(([, r]) => r)
        .map(([k]) => k)
        .sort(),
    );
    expect(node['additionalProperties']).toBe(false);
  });

  it('documents every property', () => {
    const missing: string[] = [];
    const walk = (n: Node, path: string) => {
      const props = (n['properties'] ?? {}) as Record<string, Node>;
      for (const [k, sub] of Object.entries(props)) {
        const where = path ? `${path}.${k}` : k;
        if (typeof sub['description'] !== 'string' && typeof deref(sub)['description'] !== 'string') missing.push(where);
        walk(deref(sub), where);
      }
      const ap = n['additionalProperties'];
      if (ap && typeof ap === 'object') walk(deref(ap as Node), `${path}.*`);
    };
    walk(root, '');
    expect(missing).toEqual([]);
  });
});

describe('a profile the CLI already validated (RunConfig.profileSha256)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mpsi-profile-sha-'));
  const file = join(dir, 'p.json');
  const bad = reference();
  bad.webhooks.timeScale = 'fast';

  it('loads as it would have loaded with the schema, when the bytes are those the CLI validated', () => {
    writeFileSync(file, referenceText);
    const first = loadProfile(file, process.env);
    expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(loadProfile(file, process.env, { schemaPassedSha256: first.sha256 })).toEqual(first);
  });

  it('still runs the schema when the file changed after the CLI validated it', () => {
    writeFileSync(file, referenceText);
    const sha = loadProfile(file, process.env).sha256;
    writeFileSync(file, JSON.stringify(bad));
    expect(() => loadProfile(file, process.env, { schemaPassedSha256: sha })).toThrow(/webhooks\.timeScale/);
  });

  it('does not compile the schema again for those bytes (what only the schema refuses then passes)', () => {
    const extra = reference();
    extra.notAProfileField = true;
    const text = JSON.stringify(extra);
    writeFileSync(file, text);
    expect(() => loadProfile(file, process.env)).toThrow(/notAProfileField/);
    expect(loadProfile(file, process.env, { schemaPassedSha256: profileSha256(text) }).profile).toHaveProperty('notAProfileField', true);
  });
});
