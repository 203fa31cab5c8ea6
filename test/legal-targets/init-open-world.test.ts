/**
 * The judgement of init's draft over the open world's genes (test/legal-targets/init.ts): a required checkout field whose
 * value is the merchant's, a method's required field the draft sends with every checkout, a told value init kept in
 * a TODO because the part it belongs to is left out, a checkout method named as none of the names init tried, and what the
 * vendor's hints give of the open world's shapes.
 */
import { describe, expect, it } from 'vitest';
import { REFERENCE_GENES, type TargetGenome } from '../../fixtures/arbitraries/genome.js';
import type { Profile } from '../../harness/profile/types.js';
import { trueProfile } from './genome.js';
import { completeAtTodos } from '../init/complete.js';
import { judgeDraft, judgeHints, vendorHints } from './init.js';

const g: TargetGenome = {
  readings: [],
  target: { ...REFERENCE_GENES, requiredFields: { every: ['metadata'], byMethod: { CARD: ['return_url', 'metadata'] } } },
};
const truth = trueProfile(g);

describe('a checkout field the target requires, whose value is the merchant’s', () => {
  it('is written when the draft sends a value the target takes, wrong when it sends one the target refuses', () => {
    expect(truth.checkout?.extras?.['metadata']).toBeDefined();
    const d = structuredClone(truth);
    d.checkout!.extras!['metadata'] = 'init';
    d.checkout!.extrasByMethod!['CARD']!['metadata'] = 'init';
    d.checkout!.extrasByMethod!['CARD']!['return_url'] = 'https://init.invalid/back';
    expect(judgeDraft(d, [], truth, g).wrong).toEqual([]);
    const bad = structuredClone(d);
    bad.checkout!.extras!['metadata'] = '';
    bad.checkout!.extrasByMethod!['CARD']!['return_url'] = 'not a url';
    expect(judgeDraft(bad, [], truth, g).wrong).toEqual([
      expect.stringMatching(/^checkout\.extras\.metadata/),
      expect.stringMatching(/^checkout\.extrasByMethod\.CARD\.return_url/),
    ]);
  });

  it('still judges other checkout values by equality', () => {
    const d = structuredClone(truth);
    d.checkout!.extras!['notify_url'] = 'https://elsewhere.invalid/hook';
    expect(judgeDraft(d, [], truth, g).wrong).toEqual([expect.stringMatching(/^checkout\.extras\.notify_url/)]);
  });
});

describe("a method's required checkout field", () => {
  it('is stated by a draft that sends it with every checkout, and untold where no checkout of the draft sends it', () => {
    // init learnt the fields with a CARD checkout, its first: it sends them with every method.
    const d = structuredClone(truth);
    d.checkout!.extras = { ...d.checkout!.extras, return_url: 'https://merchant.invalid/return' };
    delete d.checkout!.extrasByMethod;
    const j = judgeDraft(d, [], truth, g);
    expect(j.untold).toEqual([]);
    expect(j.wrong).toEqual([]);
    delete d.checkout!.extras!['return_url'];
    expect(judgeDraft(d, [], truth, g).untold).toEqual(['checkout.extrasByMethod.CARD.return_url']);
  });
});

describe('a told value of a part init left out', () => {
  const draft = structuredClone(truth) as Profile;
  delete (draft as Partial<Profile>).payouts;
  const hints = { payouts: { balances: { primary: '100000.00' } }, fees: { payouts: { WIRE: { fixed: '0.07' } } } };

  it('is held when a TODO quotes it whole and says why it is not written', () => {
    const todos = [
      {
        path: 'payouts',
        what:
          "the vendor's facts for this part (h.json#/payouts/balances/primary) and init's probes do not make a valid part " +
          "(payouts.template: is required), so it is left out: write it from the vendor's documentation; the vendor says " +
          'payouts.balances.primary = "100000.00"',
      },
      {
        path: 'fees.payouts.WIRE.fixed',
        what:
          'the vendor says "0.07" (h.json#/fees/payouts/WIRE/fixed), but it does not fit the draft (fees.payouts.WIRE: ' +
          '"WIRE" is not a key of payouts.methods): left out',
      },
    ];
    const kept = judgeHints(draft, todos, hints);
    expect(kept.held).toHaveLength(2);
    expect(kept.lost).toEqual([]);
    expect(kept.contradicted).toEqual([]);
  });

  it('is lost when the TODO of its part does not quote it', () => {
    const todos = [
      {
        path: 'payouts',
        what: "the vendor's facts for this part (h.json) and init's probes do not make a valid part (payouts.template: is required)",
      },
    ];
    expect(judgeHints(draft, todos, hints).lost).toHaveLength(2);
  });
});

describe('a checkout method the target names as none of the names init tried', () => {
  const renamed: TargetGenome = { readings: [], target: { ...REFERENCE_GENES, methodNames: { PAYPAL: 'TWINT' } } };
  const t = trueProfile(renamed);
  const without = () => {
    const d = structuredClone(t);
    d.methods.checkout = d.methods.checkout.filter((m) => m !== 'TWINT');
    delete d.limits!.payments!['TWINT'];
    if (d.refunds?.support) delete d.refunds.support['TWINT'];
    if (d.refunds?.createdStatus) delete d.refunds.createdStatus['TWINT'];
    return d;
  };
  const otherNames = (tried: string[]) => ({
    path: 'methods.checkout (other names)',
    what: `payment methods the target names otherwise … (names tried: ${tried.join(', ')})`,
  });

  it('is left out with the TODO of other names: the list is partial, its facts asked for, nothing wrong or untold', () => {
    expect(t.methods.checkout).toContain('TWINT');
    const j = judgeDraft(without(), [otherNames(['CARD', 'PAYPAL', 'CASH_APP'])], t, renamed);
    expect(j.wrong).toEqual([]);
    expect(j.untold).toEqual([]);
    expect(j.missing).toEqual(expect.arrayContaining(['methods.checkout', 'limits.payments.TWINT.min']));
  });

  it('is a wrong list and untold facts where init tried its name, or no TODO says it may lack one', () => {
    const tried = judgeDraft(without(), [otherNames(['CARD', 'TWINT'])], t, renamed);
    expect(tried.wrong).toEqual([expect.stringMatching(/^methods\.checkout:/)]);
    expect(tried.untold).toEqual(expect.arrayContaining(['limits.payments.TWINT.min']));
    expect(judgeDraft(without(), [], t, renamed).wrong).toEqual([expect.stringMatching(/^methods\.checkout:/)]);
  });

  it('is completed at that TODO with its range, fields and refund support', () => {
    const { profile } = completeAtTodos(without(), [otherNames(['CARD'])], t);
    expect(profile.methods.checkout).toContain('TWINT');
    expect(profile.limits?.payments?.['TWINT']).toEqual(t.limits?.payments?.['TWINT']);
  });
});

describe("the vendor's hints", () => {
  it('give a refund request whose fields sit under a key, and a query’s parameters: no answer names either', () => {
    const nested: TargetGenome = {
      readings: [],
      target: {
        ...REFERENCE_GENES,
        shapes: { refundRequestUnder: 'refund' },
        queryParams: { kinds: ['payout'], field: 'store_id', value: { fixed: 'S-12' } },
      },
    };
    const t = trueProfile(nested);
    const hints = vendorHints(t) as { refunds: { template?: unknown }; queryParams?: unknown };
    expect(hints.refunds.template).toEqual(t.refunds!.template);
    expect(hints.queryParams).toEqual(t.queryParams);
    // A flat refund request is init's to learn from the target's answers: not told.
    expect((vendorHints(truth) as { refunds: { template?: unknown } }).refunds.template).toBeUndefined();
  });
});
