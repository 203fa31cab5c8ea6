/**
 * init against every configuration of the reference: each discovered value equals the configuration's
 * truth (the profile transcribing its README), and the draft, completed only at its TODOs, is valid.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInit, type InitResult } from '../../harness/init/run.js';
import { parseProfile } from '../../harness/profile/load.js';
import type { RunningReference } from '../../reference/index.js';
import type { ChannelLimits } from '../../harness/profile/types.js';
import { completeAtTodos } from './complete.js';
import { variable } from '../../harness/init/fields.js';
import { CONFIGURATIONS } from './configurations.js';
import { completedShare, discoveredShare } from './share.js';

const SECRET_ENV = 'INIT_TEST_PRIMARY_SECRET';

function luhnValid(n: string): boolean {
  let sum = 0;
  [...n].reverse().forEach((ch, i) => {
    let d = Number(ch);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  });
  return sum % 10 === 0;
}

describe.each(CONFIGURATIONS)('init against $name', (cfg) => {
  let ref: RunningReference;
  let result: InitResult;
  const truth = cfg.truth;
  const primary = truth.merchants.primary;

  beforeAll(async () => {
    ref = await cfg.start();
    result = await runInit({
      baseUrl: ref.url,
      merchantId: primary.id,
      secret: primary.secret!,
      secretEnv: SECRET_ENV,
      budget: 3000,
      timeLimitMs: 120_000,
      progress: () => {},
    });
  }, 150_000);
  afterAll(async () => {
    await ref?.close();
  });

  it('stays within its budget and finishes without stopping early', () => {
    expect(result.stopped).toBeUndefined();
    expect(result.probes).toBeLessThanOrEqual(3000);
    // Every answer's signature verified with the merchant's key (the reference signs each one).
    expect(result.evidence.todos.map((t) => t.path)).not.toContain('(signatures)');
  });

  it('finds every endpoint path', () => {
    expect(result.profile.endpoints).toEqual(truth.endpoints);
  });

  it('reads every internal field name from invalidRequest messages', () => {
    expect(result.profile.internalFieldNames).toEqual({ ...truth.internalFieldNames, ...cfg.moreInternalNames });
  });

  it('sorts the payment methods: accepted, price-point, not enabled, unknown, card', () => {
    const m = result.profile.methods;
    expect([...m.checkout].sort()).toEqual([...truth.methods.checkout].sort());
    expect([...(m.pricePoint ?? [])].sort()).toEqual([...(truth.methods.pricePoint ?? [])].sort());
    expect(m.notEnabled).toBe(truth.methods.notEnabled);
    expect(m.card).toBe(truth.methods.card);
    expect(m.noChannel).toBe(truth.methods.noChannel);
    expect(truth.methods.checkout).not.toContain(m.unknown);
    // The first checkout method is one with plain limits, as checks use it by default.
    expect(truth.limits?.payments?.[m.checkout[0]!]).toBeDefined();
  });

  it('finds each payment and payout channel limit to the cent', () => {
    // Channel names are the target's own labels, which no answer shows: compared without them. A payout method's range
    // in another currency is a TODO (init probes payouts in USD only): compared without it.
    const unnamed = (l: Record<string, ChannelLimits & { byCurrency?: unknown }> | undefined) =>
      Object.fromEntries(
        Object.entries(l ?? {}).map(([m, { byCurrency: _other, ...v }]) => [
          m,
          { ...v, ...(v.channels ? { channels: v.channels.map(({ min, max }) => ({ min, max })) } : {}) },
        ]),
      );
    expect(result.profile.limits?.payments).toEqual(unnamed(truth.limits?.payments));
    expect(result.profile.limits?.payouts).toEqual(unnamed(truth.limits?.payouts));
  });

  it('finds the price-point tiers and rounding rule, and only refused amounts as unroundable', () => {
    const t = truth.pricePoints!;
    if (t.maxDistance !== undefined) {
      // With refusals between tiers, no search short of every amount proves the list whole (a tier's window of accepted
      // amounts can lie between two probes where the steps grow): the section is a TODO naming every tier and the rule found.
      expect(result.profile.pricePoints).toBeUndefined();
      const todo = result.evidence.todos.find((x) => x.path === 'pricePoints');
      expect(todo?.what).toContain(`tiers ${t.tiers.join(', ')} found, ${t.rounding} within ${t.maxDistance}`);
      for (const [m, tiers] of Object.entries(t.tiersByMethod ?? {})) expect(todo?.what).toContain(`${m}: tiers ${tiers.join(', ')} found`);
      return;
    }
    const pp = result.profile.pricePoints!;
    expect(pp.tiers).toEqual(t.tiers);
    expect(pp.rounding).toBe(t.rounding);
    expect(pp.maxDistance).toBe(t.maxDistance);
    expect(pp.tie).toBe(t.tie);
    expect(pp.tiersByMethod).toEqual(t.tiersByMethod);
    expect(pp.unroundable.length).toBeGreaterThan(0);
    const top = Number(t.tiers[t.tiers.length - 1]);
    for (const u of pp.unroundable) expect(Number(u)).toBeGreaterThan(top);
  });

  it("finds the checkout's required extras, answer fields and pending status", () => {
    const c = truth.checkout!;
    expect(result.profile.checkout).toEqual({
      extras: c.extras,
      ...(c.extrasByMethod ? { extrasByMethod: c.extrasByMethod } : {}),
      data: c.data,
      pendingStatus: c.pendingStatus,
    });
    expect(result.profile.paymentRecord).toEqual(truth.paymentRecord);
  });

  it(`finds a charging test card, the other outcomes among published cards, \
the card answer fields and the card body fields the target requires`, () => {
    const c = result.profile.cardPayment!;
    expect(c.cards.success.card_number).toBe(truth.cardPayment?.cards.success.card_number);
    // Other outcomes: the README's cards where init tried them; an invalid card is any number failing the Luhn check.
    for (const kind of ['decline', 'risk', 'noChannel', 'pending'] as const)
      expect(c.cards[kind]?.card_number).toBe(truth.cardPayment?.cards[kind]?.card_number);
    expect(luhnValid(c.cards.invalid!.card_number)).toBe(false);
    // The pending card's status, said where it is not a new checkout's (as the true profile says it, or not).
    expect(c.pendingStatus).toBe(truth.cardPayment?.pendingStatus);
    expect(c.data).toEqual(truth.cardPayment?.data);
    for (const k of Object.keys(c.template)) expect(Object.keys(truth.cardPayment!.template)).toContain(k);
  });

  it("finds the refund body (the amount's field), answer fields, query names and the card's refund support", () => {
    const r = result.profile.refunds!;
    const t = truth.refunds!;
    const accepted = (key: string) => [key, ...(cfg.requestAlternates?.[key] ?? [])];
    expect(Object.keys(r.template)).toHaveLength(Object.keys(t.template).length);
    for (const [k, v] of Object.entries(t.template))
      expect(accepted(k).some((a) => JSON.stringify(r.template[a]) === JSON.stringify(v))).toBe(true);
    expect(r.queryBy).toEqual(t.queryBy);
    expect(r.data).toEqual(t.data);
    expect(r.support[truth.methods.card!]).toBe(t.support[truth.methods.card!]);
  });

  it('finds the payout body, methods (USD-only, cancel), a method not for payouts, answer fields and query names', () => {
    const p = result.profile.payouts!;
    const t = truth.payouts!;
    const accepted = (key: string) => [key, ...(cfg.requestAlternates?.[key] ?? [])];
    expect(Object.keys(p.template)).toHaveLength(Object.keys(t.template).length);
    for (const k of Object.keys(t.template)) expect(accepted(k).some((a) => a in p.template)).toBe(true);
    expect(p.template[cfg.payoutAmountField ?? 'trans_amount']).toBe(variable('amount'));
    // Per method: cancel and USD-only as the truth; the payee's fields (their values are init's own).
    const keysOf = (o: unknown) => (o && typeof o === 'object' ? Object.keys(o).sort() : o);
    const shape = (ms: typeof t.methods) => Object.fromEntries(Object.entries(ms).map(([m, v]) => [m, { ...v, payee: keysOf(v.payee) }]));
    expect(shape(p.methods)).toEqual(shape(t.methods));
    expect(Object.keys(t.methods)).not.toContain(p.notForPayouts);
    expect(p.queryBy).toEqual(t.queryBy);
    expect(p.cancelBy).toEqual(t.cancelBy);
    expect(p.data).toEqual(t.data);
  });

  it(`sees webhooks arrive, measures the time scale within the bounds \
the kit judges a wait by, and brackets the acknowledgement limit`, () => {
    const w = result.profile.webhooks!;
    // The first retry wait (about 15 s) on the measured and on the true scale differ by no more than a check allows: tolerance plus jitter.
    const measured = 15_000 * w.timeScale;
    const real = 15_000 * cfg.timeScale;
    expect(Math.abs(measured - real)).toBeLessThanOrEqual(truth.webhooks!.tolerance * real + (truth.webhooks!.jitterMs ?? 250));
    expect(w.timeScale).toBeGreaterThanOrEqual(cfg.timeScale * (1 - truth.webhooks!.tolerance));
    // The acknowledgement limit is bracketed so the kit's "in time" reply (half of it) comes before the
    // true limit and its "slow" reply (three times it, plus 200 ms) after.
    expect(w.ackTimeoutMs / 2).toBeLessThan(truth.webhooks!.ackTimeoutMs);
    expect(3 * w.ackTimeoutMs + 200).toBeGreaterThan(truth.webhooks!.ackTimeoutMs);
    // And written as a delay the target was seen to wait (no more than the true limit), so the "in time" reply keeps
    // at least half the limit as margin on a loaded machine: ¾ of the first refused delay could be 1.5 × the limit.
    expect(w.ackTimeoutMs).toBeLessThanOrEqual(truth.webhooks!.ackTimeoutMs);
  });

  it('writes a profile that validates, and that completed only at its TODOs validates too', () => {
    const env = { [SECRET_ENV]: primary.secret! };
    expect(() => parseProfile(JSON.stringify(result.profile), 'draft', env)).not.toThrow();
    const { profile, filled } = completeAtTodos(result.profile, result.evidence.todos, truth);
    expect(() => parseProfile(JSON.stringify(profile), 'completed', env)).not.toThrow();
    const share = discoveredShare(result.profile, truth);
    const c = completedShare(profile, filled);
    console.log(
      `${cfg.name}: ${share.equal}/${share.total} fields of the README's profile discovered with the same value; of the ` +
        `completed profile, ${c.byInit}/${c.byInit + c.byUser} fields written by init; ${result.evidence.values.length} ` +
        `values learnt, ${result.evidence.todos.length} TODOs; ${result.probes} probes in ${(result.ms / 1000).toFixed(1)} s`,
    );
    expect(share.equal).toBeGreaterThan(0);
  });
});
