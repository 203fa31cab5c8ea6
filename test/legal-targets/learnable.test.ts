/**
 * Which facts a probe as the primary can learn (learnable.ts), the vendor's hints that say the others (init.ts
 * vendorHints), and the judgement of what init did with each hinted value (judgeHints): pure, over the true profiles of
 * generated genomes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type TargetGenome, targetGenome } from '../../fixtures/arbitraries/genome.js';
import type { Profile } from '../../harness/profile/types.js';
import { trueProfile } from './genome.js';
import { judgeDraft, judgeHints, vendorHints } from './init.js';
import { learnable, unlearnable } from './learnable.js';

const genomes = fc.sample(targetGenome(), { seed: 4343, numRuns: 12 });

function leaves(v: unknown, path: string[] = []): [string, unknown][] {
  if (v && typeof v === 'object' && !Array.isArray(v))
    return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => leaves(x, [...path, k]));
  return path.length === 0 ? [] : [[path.join('.'), v]];
}

const get = (o: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((cur, k) => (cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined), o);

describe('what a probe as the primary can learn', () => {
  const truth = trueProfile({ readings: [] });

  it("leaves out other merchants, the primary's account data, balances, fees, the sandbox's triggers", () => {
    expect(unlearnable('merchants.second.id', truth)).toBe('another merchant');
    expect(unlearnable('refunds.supportByMerchant.second.KLARNA', truth)).toBe('another merchant');
    expect(unlearnable('payouts.balances.frozen', truth)).toBe('another merchant');
    expect(unlearnable('merchants.primary.productionSecret', truth)).toBe('not on the wire');
    expect(unlearnable('merchants.primary.login', truth)).toBe('not on the wire');
    expect(unlearnable('payouts.balances.primary', truth)).toBe('a balance');
    expect(unlearnable('merchants.primary.payoutBalances.USD', truth)).toBe('a balance');
    expect(unlearnable('fees.refunds.*.percent', truth)).toBe('money terms');
    expect(unlearnable('balances.paymentsCredit', truth)).toBe('money terms');
    expect(unlearnable('refunds.fee', truth)).toBe('money terms');
    expect(unlearnable('refunds.failingReason', truth)).toBe('a sandbox trigger');
    expect(unlearnable(`limits.payments.${truth.methods.noChannel}.min`, truth)).toBe('a method the primary cannot use');
  });

  it("leaves out a refund record's fields where no method the primary pays takes a refund, and only there", () => {
    expect(learnable('refunds.data.refundNo', truth)).toBe(true);
    const none = structuredClone(truth);
    none.refunds!.support = Object.fromEntries(Object.keys(none.refunds!.support).map((m) => [m, 'none' as const]));
    expect(unlearnable('refunds.data.refundNo', none)).toBe('no refund the primary can make');
    expect(unlearnable('refunds.queryBy.merchantNo', none)).toBe('no refund the primary can make');
    expect(learnable('refunds.template.merchant_refund_no', none)).toBe(true);
  });

  it('keeps what answers to the primary show: its id, paths, methods, limits, records, internal names, webhooks', () => {
    for (const p of [
      'merchants.primary.id',
      'merchants.unknownId',
      'endpoints.refundCreate',
      'methods.checkout',
      'limits.payments.CARD.max',
      'refunds.support.CARD',
      'paymentRecord.status',
      'internalFieldNames.trans_amount',
      'webhooks.ackTimeoutMs',
      'sandbox.completeCheckout.path',
    ])
      expect([p, learnable(p, truth)]).toEqual([p, true]);
  });

  it('is a part of the facts, every one of which the true profile itself writes', () => {
    for (const g of genomes) {
      const t = trueProfile(g);
      const j = judgeDraft(t, [], t, g);
      expect(j.learnable.written).toBe(j.learnable.facts);
      expect(j.learnable.facts).toBeGreaterThan(0);
      expect(j.learnable.facts).toBeLessThan(j.facts);
    }
  });
});

describe("the vendor's hints", () => {
  it('say every fact no probe as the primary learns, as the true profile states it', () => {
    for (const g of genomes) {
      const t = trueProfile(g);
      const hints = vendorHints(t);
      const facts = leaves(t).filter(([p]) => !/^(embedded\.|http\.|webhooks\.receiver\.)/.test(p) && !/\.secret$/.test(p));
      for (const [p, v] of facts.filter(([p]) => !learnable(p, t))) expect([p, get(hints, p)]).toEqual([p, v]);
    }
  });

  it('leave the true profile unchanged', () => {
    const g: TargetGenome = genomes[0]!;
    const t = trueProfile(g);
    const before = JSON.stringify(t);
    vendorHints(t);
    expect(JSON.stringify(t)).toBe(before);
  });
});

describe('what init did with each hinted value', () => {
  const truth = trueProfile({ readings: [] });
  const hints = vendorHints(truth);

  it('is written as told in a draft that says what the vendor said', () => {
    const j = judgeHints(truth, [], hints);
    expect(j.asTold).toBe(j.told);
    expect(j.lost).toEqual([]);
  });

  it('is lost where the draft says otherwise without a TODO, and under a TODO where one names the answer against it', () => {
    const d: Profile = structuredClone(truth);
    d.refunds!.failingReason = 'something else';
    expect(judgeHints(d, [], hints).lost).toEqual([expect.stringMatching(/^refunds\.failingReason: told/)]);
    const todo = {
      path: 'refunds.failingReason',
      what: 'the vendor says "x" (hints), but a refund with it succeeded: check which is meant',
    };
    const j = judgeHints(d, [todo], hints);
    expect(j.lost).toEqual([]);
    expect(j.contradicted).toEqual([expect.stringMatching(/^refunds\.failingReason: told/)]);
  });
});
