/**
 * A card payment or payouts part init could not draft is a TODO naming the part and why (harness/init/todos.ts
 * addAbsentPartTodos): no path found, or a path through which no record of init's was served. A drafted part is no TODO.
 */
import { describe, expect, it } from 'vitest';
import type { State } from '../../harness/init/draft.js';
import { Evidence } from '../../harness/init/evidence.js';
import { addAbsentPartTodos } from '../../harness/init/todos.js';
import type { Profile } from '../../harness/profile/types.js';

function draft(parts: Partial<Pick<Profile, 'cardPayment' | 'payouts'>> = {}): Profile {
  return {
    profileVersion: 4,
    name: 'd',
    baseUrl: 'http://127.0.0.1:1',
    environment: 'sandbox',
    merchants: { primary: { id: 'M1', secretEnv: 'S' }, unknownId: 'ZZ' },
    endpoints: { checkout: '/api/v1/payments/checkout' },
    methods: { checkout: ['CARD'], unknown: 'ZZ' },
    ...parts,
  } as Profile;
}

const todosOf = (profile: Profile, paths: State['paths']) => {
  const ev = new Evidence(() => {});
  addAbsentPartTodos(ev, profile, { paths, limits: {}, tiers: {} });
  return Object.fromEntries(ev.todos.map((t) => [t.path, t.what]));
};

describe('a part init could not draft', () => {
  it('is a TODO for the card payment section and its method when no card payment path was found, saying so', () => {
    const t = todosOf(draft(), {});
    expect(Object.keys(t)).toEqual(expect.arrayContaining(['methods.card', 'cardPayment', 'payouts', 'limits.payouts']));
    expect(t['cardPayment']).toMatch(/found no card payment path/);
    expect(t['cardPayment']).toMatch(/\{merchant_order_no\}/);
    expect(t['payouts']).toMatch(/found no payout creation path/);
  });

  it('names the path through which nothing was served, when one was found', () => {
    const t = todosOf(draft(), { cardPayment: '/api/v1/payments/card', payoutCreate: '/api/v1/payouts/{merchant_payout_no}/submit' });
    expect(t['cardPayment']).toMatch(/sent to \/api\/v1\/payments\/card was charged/);
    expect(t['payouts']).toMatch(/through \/api\/v1\/payouts\/\{merchant_payout_no\}\/submit/);
  });

  it('is no TODO where the draft has the part', () => {
    const t = todosOf(draft({ cardPayment: {} as Profile['cardPayment'], payouts: {} as Profile['payouts'] }), {});
    expect(t).toEqual({});
  });
});
