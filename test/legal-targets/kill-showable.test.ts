/**
 * The predicate "can a target built from this genome show this fault" (kill-showable.ts), which the kill property and
 * bench/legal-targets.ts --kill use not to count what no check could kill: each reason on a genome that has it and one
 * that has not, and, run, a fault it calls nothing-to-show survives there while it is killed where it shows (a predicate
 * that hid a killable fault would fail this).
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenes, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import { runKillMatrix } from '../../harness/proof/kill-matrix.js';
import { loadSuites } from '../../harness/run/suites.js';
import { faultCatalogue } from '../../reference/index.js';
import { loadTrueProfile } from './genome.js';
import { GENOME_DEPENDENT_FAULTS, showing } from './kill-showable.js';

const genome = (t: Partial<TargetGenes>, readings: TargetGenome['readings'] = []): TargetGenome => ({
  readings,
  // The low-balance merchant pays by card only: its list must stay within the methods a drawn genome enables.
  target: { ...REFERENCE_GENES, lowBalance: { ...REFERENCE_GENES.lowBalance, paymentMethods: ['CARD'] }, ...t },
});
const refunds = (support: 'partial' | 'full-only' | 'none'): TargetGenes['refunds'] => ({
  CARD: { support, createdSuccess: false },
  PAYPAL: { support, createdSuccess: false },
  CASH_APP: { support, createdSuccess: false },
});

describe('which genome can show which fault', () => {
  it('names only faults of the catalogue, and every other fault shows on any genome', () => {
    const names = new Set(faultCatalogue.map((f) => f.name));
    expect(GENOME_DEPENDENT_FAULTS.filter((f) => !names.has(f))).toEqual([]);
    expect(showing(genome({ methods: [] }), 'method-defaults-to-card')).toEqual({ show: true });
  });

  it('a price-point fault needs an enabled price-point method', () => {
    expect(showing(genome({ methods: ['PAYPAL'] }), 'price-point-round-down')).toMatchObject({ show: false, kind: 'nothing-to-show' });
    expect(showing(genome({ methods: ['GOOGLE_PAY'] }), 'price-point-round-down')).toEqual({ show: true });
  });

  it('a refund fault needs a refundable payment; a partial-refund check is blind to a target refunding in full only', () => {
    expect(showing(genome({ refunds: refunds('none') }), 'refund-decimals-invalid-amount-key')).toMatchObject({
      kind: 'nothing-to-show',
    });
    expect(showing(genome({ refunds: refunds('full-only') }), 'refund-decimals-invalid-amount-key')).toMatchObject({
      kind: 'check-blind',
    });
    expect(showing(genome({ refunds: refunds('partial') }), 'refund-decimals-invalid-amount-key')).toEqual({ show: true });
    expect(showing(genome({ refunds: refunds('full-only') }), 'refund-duplicate-merchant-order-key')).toEqual({ show: true });
    expect(showing(genome({ refunds: refunds('none') }), 'refund-charged-back-accepted')).toMatchObject({ kind: 'nothing-to-show' });
    const cardless = { ...refunds('partial'), CARD: { support: 'none' as const, createdSuccess: false } };
    expect(showing(genome({ refunds: cardless }), 'webhook-refund-status-processing')).toEqual({ show: true });
    const atOnce = { support: 'partial' as const, createdSuccess: true };
    const settled = { CARD: atOnce, PAYPAL: atOnce, CASH_APP: atOnce };
    expect(showing(genome({ refunds: settled }), 'webhook-refund-status-processing')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({ refunds: settled }, ['refunds-created-pending']), 'webhook-refund-status-processing')).toEqual({ show: true });
  });

  it('judged from seed 13: a non-positive refund amount needs a partial refund; a settled-at-creation webhook a settled refund', () => {
    expect(showing(genome({ refunds: refunds('none') }), 'refund-invalid-amount-key')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({ refunds: refunds('full-only') }), 'refund-invalid-amount-key')).toMatchObject({ kind: 'check-blind' });
    expect(showing(genome({ refunds: refunds('partial') }), 'refund-invalid-amount-key')).toEqual({ show: true });
    const fault = 'webhook-none-on-refund-created-settled';
    const atOnce = { support: 'full-only' as const, createdSuccess: true };
    const settled = { ...refunds('none'), CASH_APP: atOnce };
    expect(showing(genome({ refunds: refunds('partial') }), fault)).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({ refunds: settled, methods: ['CASH_APP'] }), fault)).toEqual({ show: true });
    expect(showing(genome({ refunds: settled, methods: ['CASH_APP'] }, ['refunds-created-pending']), fault)).toMatchObject({
      kind: 'nothing-to-show',
    });
    expect(showing(genome({ refunds: settled, methods: ['PAYPAL'] }), fault)).toMatchObject({ kind: 'nothing-to-show' });
  });

  it('judged from seed 31: a not-cancelable code needs a payout method that cancels; a per-currency balance a non-USD payout', () => {
    const { BANK_TRANSFER, PAYPAL } = REFERENCE_GENES.payouts;
    const noCancel = { BANK_TRANSFER: { ...BANK_TRANSFER, cancelable: false }, PAYPAL: { ...PAYPAL, cancelable: false } };
    expect(showing(genome({}), 'payout-not-cancelable-code-422')).toEqual({ show: true });
    expect(showing(genome({ payouts: noCancel }), 'payout-not-cancelable-code-422')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({ payouts: noCancel }, ['payout-cancel-status-first']), 'payout-not-cancelable-code-422')).toMatchObject({
      kind: 'check-blind',
    });
    expect(showing(genome({}), 'payout-balance-usd-only')).toEqual({ show: true });
    for (const fault of ['webhook-payout-status-cancelled', 'webhook-none-on-payout-cancel', 'payout-cancel-canceled-accepted']) {
      expect(showing(genome({}), fault)).toEqual({ show: true });
      expect(showing(genome({ payouts: noCancel }, ['payout-cancel-status-first']), fault)).toMatchObject({ kind: 'nothing-to-show' });
    }
    expect(showing(genome({ payouts: noCancel }), 'payout-not-cancelable-no-status')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({ payouts: noCancel }, ['payout-cancel-status-first']), 'payout-not-cancelable-no-status')).toEqual({
      show: true,
    });
    const anyCurrency = { BANK_TRANSFER: { ...BANK_TRANSFER, usdOnly: false }, PAYPAL: { ...PAYPAL, usdOnly: false } };
    expect(showing(genome({ payouts: anyCurrency }), 'payout-eur-accepted')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({ payouts: { ...anyCurrency, PAYPAL: { ...PAYPAL, usdOnly: true } } }), 'payout-eur-accepted')).toEqual({
      show: true,
    });
    const usdOnly = { BANK_TRANSFER: { ...BANK_TRANSFER, usdOnly: true }, PAYPAL };
    expect(showing(genome({ payouts: usdOnly }), 'payout-balance-usd-only')).toMatchObject({ kind: 'nothing-to-show' });
    const noEur = { ...REFERENCE_GENES.lowBalance, eurCents: 0 };
    expect(showing(genome({ lowBalance: noEur }), 'payout-balance-usd-only')).toMatchObject({ kind: 'nothing-to-show' });
  });

  it('judged from seed 13: a payment under a refund number needs a refund, in part or in full', () => {
    expect(showing(genome({ refunds: refunds('none') }), 'idem-separate-namespaces')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({ refunds: refunds('full-only') }), 'idem-separate-namespaces')).toEqual({ show: true });
    for (const fault of [
      'webhook-refund-goods-name-not-reason',
      'webhook-refund-original-refs-swapped',
      'refund-query-merchant-no-as-refund-no',
    ]) {
      expect(showing(genome({ refunds: refunds('none') }), fault)).toMatchObject({ kind: 'nothing-to-show' });
      expect(showing(genome({ refunds: refunds('full-only') }), fault)).toEqual({ show: true });
    }
  });

  it('a fault that rewrites a record field a reading renames has nothing to act on', () => {
    expect(showing(genome({}, ['other-record-field-names']), 'checkout-answers-session-no')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({}), 'checkout-answers-session-no')).toEqual({ show: true });
    expect(showing(genome({}, ['other-record-field-names']), 'query-record-nested')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({}), 'query-record-nested')).toEqual({ show: true });
  });

  it('run: a fault called nothing-to-show survives where it is said so, and is killed where it shows', async () => {
    const fault = faultCatalogue.filter((f) => f.name === 'price-point-round-down');
    const suites = await loadSuites();
    const run = (g: TargetGenome) => runKillMatrix({ loaded: loadTrueProfile(g), suites, seed: 1, numRuns: 5, faults: fault, parallel: 1 });
    const [none] = await run(genome({ methods: ['PAYPAL'] }));
    const [some] = await run(genome({ methods: ['APPLE_PAY'] }));
    expect([none!.verdict, some!.verdict, ...none!.errors, ...some!.errors]).toEqual(['survived', 'killed']);
  }, 300_000);

  // bench --kill 8 --seed 4343: under invalid-json-unreadable the fault's refusal is never made.
  it('run: bad-json-http-400 survives where a body that is not JSON is unreadable, killed where it is refused signed', async () => {
    const fault = faultCatalogue.filter((f) => f.name === 'bad-json-http-400');
    const suites = await loadSuites();
    const run = (g: TargetGenome) => runKillMatrix({ loaded: loadTrueProfile(g), suites, seed: 1, numRuns: 5, faults: fault, parallel: 1 });
    const unreadable = genome({}, ['invalid-json-unreadable']);
    expect(showing(unreadable, 'bad-json-http-400')).toMatchObject({ kind: 'nothing-to-show' });
    expect(showing(genome({}), 'bad-json-http-400')).toEqual({ show: true });
    const [none] = await run(unreadable);
    const [some] = await run(genome({}));
    expect([none!.verdict, some!.verdict, ...none!.errors, ...some!.errors]).toEqual(['survived', 'killed']);
  }, 300_000);

  // bench --kill 12 --seed 8484: the armed refund failures are reached only on a refund the channel supports.
  it('run: the armed refund failures survive where nothing is refundable, killed where the card refunds in part', async () => {
    const names = ['refund-failed-validation-failed', 'refund-system-busy-code-500'];
    const faults = faultCatalogue.filter((f) => names.includes(f.name));
    const suites = await loadSuites();
    const run = (g: TargetGenome) => runKillMatrix({ loaded: loadTrueProfile(g), suites, seed: 1, numRuns: 5, faults, parallel: 1 });
    const none = genome({ methods: [], refunds: refunds('none') });
    expect(names.map((n) => showing(none, n).show)).toEqual([false, false]);
    expect(names.map((n) => showing(genome({ methods: [], refunds: refunds('partial') }), n).show)).toEqual([true, true]);
    const before = await run(none);
    const after = await run(genome({ methods: [], refunds: refunds('partial') }));
    expect([...before, ...after].map((r) => `${r.name}: ${r.verdict}`)).toEqual([
      ...names.map((n) => `${n}: survived`),
      ...names.map((n) => `${n}: killed`),
    ]);
  }, 300_000);

  it('run: webhook-none-on-refund-created-settled survives where no refund is created settled, killed where one is', async () => {
    const fault = faultCatalogue.filter((f) => f.name === 'webhook-none-on-refund-created-settled');
    const suites = await loadSuites();
    const run = (g: TargetGenome) => runKillMatrix({ loaded: loadTrueProfile(g), suites, seed: 1, numRuns: 5, faults: fault, parallel: 1 });
    const atOnce = { support: 'full-only' as const, createdSuccess: true };
    const [none] = await run(genome({ refunds: refunds('partial') }));
    const [some] = await run(genome({ refunds: { ...refunds('none'), CASH_APP: atOnce }, methods: ['CASH_APP'] }));
    expect([none!.verdict, some!.verdict, ...none!.errors, ...some!.errors]).toEqual(['survived', 'killed']);
  }, 300_000);

  // Seed 13's survivor: where the only refundable method is a checkout refunded in full, the idempotency
  // check was the one to see it and charged idem.refund-blocks-payment; it charges the table's shared scope now.
  it('run: idem-separate-namespaces survives where nothing is refundable, killed where a checkout refunds in full only', async () => {
    const fault = faultCatalogue.filter((f) => f.name === 'idem-separate-namespaces');
    const suites = await loadSuites();
    const run = (g: TargetGenome) => runKillMatrix({ loaded: loadTrueProfile(g), suites, seed: 1, numRuns: 5, faults: fault, parallel: 1 });
    const fullOnly = { support: 'full-only' as const, createdSuccess: false };
    const [none] = await run(genome({ refunds: refunds('none'), methods: ['CASH_APP'] }));
    const [some] = await run(genome({ refunds: { ...refunds('none'), CASH_APP: fullOnly }, methods: ['CASH_APP'] }));
    expect([none!.verdict, some!.verdict, ...none!.errors, ...some!.errors]).toEqual(['survived', 'killed']);
  }, 300_000);
});
