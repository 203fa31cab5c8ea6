/**
 * The doctor warns about profile entries no check reads. Its list of the internalFieldNames keys the
 * checks read must be the suites' own: read from their source (internalFieldNames?.['key'] and the
 * error scenarios' internal(t, 'key')), so a new reader in a suite cannot leave a false warning.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../harness/doctor/run.js';
import { INTERNAL_NAMES_READ } from '../../harness/doctor/unused.js';
import { loadProfile } from '../../harness/profile/load.js';
import { profileWith } from './support.js';

const SUITES = fileURLToPath(new URL('../../suites/', import.meta.url));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('doctor: entries no check reads', () => {
  it('INTERNAL_NAMES_READ is exactly the set of internalFieldNames keys the suites read', () => {
    const read = new Set<string>();
    for (const f of walk(SUITES)) {
      const src = readFileSync(f, 'utf8');
      for (const m of src.matchAll(/internalFieldNames\?\.\[\s*'([^']+)'\s*\]/g)) read.add(m[1]!);
      for (const m of src.matchAll(/\binternal\(t, '([^']+)'\)/g)) read.add(m[1]!);
      // A key read through a variable cannot be listed: the doctor would warn wrongly about it.
      expect(
        /internalFieldNames\?\.\[\s*[^'\s]/.test(src.replace(/internalFieldNames\?\.\[jsonPath\]/g, '')),
        `${f} reads internalFieldNames with a computed key`,
      ).toBe(false);
    }
    expect([...read].sort()).toEqual([...INTERNAL_NAMES_READ].sort());
  });

  it(`warns (exit 0) about a complete-card control without a pending card, \
a price-point method that is no checkout method, and tiers nothing uses`, async () => {
    const file = profileWith((p) => {
      p.sandbox.completeCard = { ...p.sandbox.completeCheckout, path: '/sandbox/v1/cards/complete' };
      p.methods.checkout = ['PAYPAL', 'CASH_APP', 'CARD'];
      p.methods.pricePoint = ['APPLE_PAY'];
      p.merchants.lowBalance.paymentMethods = ['PAYPAL', 'CARD'];
      delete p.cardPayment.cards.pending;
    });
    const r = await runDoctor({ loaded: loadProfile(file), baseUrl: 'embedded', webhooks: false });
    const warnings = r.items.filter((i) => i.status === 'warning').map((i) => `${i.path}: ${i.answered}`);
    expect(warnings).toEqual(
      expect.arrayContaining([
        'sandbox.completeCard: nothing uses it: the profile declares no pending card',
        'methods.pricePoint[0]: nothing uses it: it is not one of methods.checkout',
        'pricePoints: nothing uses them: no checkout method is a price-point method (methods.pricePoint)',
      ]),
    );
    expect(r.exitCode).toBe(0);
  }, 30_000);

  it(`says a field the checks do not read once: a probe verified it, \
so it is verified, with the checks' non-use on the same line`, async () => {
    const file = profileWith((p) => {
      p.internalFieldNames = { ...p.internalFieldNames, trans_amount: 'TransAmount', 'card.exp_month': 'Card.ExpMonth' };
    });
    const r = await runDoctor({ loaded: loadProfile(file), baseUrl: 'embedded', webhooks: false });
    const at = (path: string) => r.items.filter((i) => i.path === path);
    // Verified by the doctor's probe (a checkout with trans_amount of the wrong type): no warning beside it.
    expect(at('internalFieldNames.trans_amount').map((i) => i.status)).toEqual(['verified']);
    expect(at('internalFieldNames.trans_amount')[0]?.answered).toMatch(/verified, though no check reads it/);
    // Not probed (no request is refused for that field alone): the warning stays, beside a line saying why it is not asked.
    expect(
      at('internalFieldNames["card.exp_month"]')
        .map((i) => i.status)
        .sort(),
    ).toEqual(['not-verifiable', 'warning']);
  }, 30_000);
});
